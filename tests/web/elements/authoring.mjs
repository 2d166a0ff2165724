// What a tutorial author adds to a figure: a caption, a highlight, the scores instead of the weights, fewer
// paragraphs, and a picture of it (SVG or PNG). Each with its bad values (a polite message, nothing thrown into the
// host page) and markup in its text (shown as text, never as markup).
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ARTIFACTS, add, assertClean, message, open, shadowTexts } from './env.mjs';

const HOSTILE = '<img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script>';
const SENTENCE = "the animal didn't cross the street because it was too tired";

/** The marked cells of the grid (or table) `selector` in element `id`: "i,j:edges", edges of t, b, l, r. */
const marks = (page, id, selector) =>
  page.evaluate(
    ({ elementId, css }) =>
      Array.from(document.getElementById(elementId).shadowRoot.querySelector(css).querySelectorAll('.mk'), (c) => {
        const edges = ['mt', 'mb', 'ml', 'mr'].filter((e) => c.classList.contains(e)).map((e) => e[1]);
        return `${c.dataset.i},${c.dataset.j}:${edges.join('')}`;
      }),
    { elementId: id, css: selector },
  );

test('caption: shown under the figure as text, names the figure for screen readers; markup stays text', async () => {
  const session = await open();
  const { page } = session;
  try {
    await add(page, 'c1', 'attention-heatmap', { sentence: 'a b c', caption: `Figure 1: ${HOSTILE}` });
    const shown = await page.evaluate(() => {
      const root = document.getElementById('c1').shadowRoot;
      const caption = root.querySelector('[part="caption"]');
      const box = root.querySelector('[part="box"]');
      return {
        text: caption.textContent,
        visible: caption.getClientRects().length > 0,
        elements: caption.children.length,
        role: box.getAttribute('role'),
        labelled: root.getElementById(box.getAttribute('aria-labelledby'))?.textContent,
        injected: root.querySelectorAll('img, script').length,
        pwned: window.__pwned ?? null,
        property: document.getElementById('c1').caption,
      };
    });
    assert.deepEqual(shown, {
      text: `Figure 1: ${HOSTILE}`,
      visible: true,
      elements: 0,
      role: 'figure',
      labelled: `Figure 1: ${HOSTILE}`,
      injected: 0,
      pwned: null,
      property: `Figure 1: ${HOSTILE}`,
    });
    // The property writes the attribute; removing it removes the caption.
    await page.evaluate(() => {
      document.getElementById('c1').caption = null;
    });
    await page.waitForFunction(() => document.getElementById('c1').shadowRoot.querySelector('[part="caption"]').hidden);
    assert.equal(
      await page.evaluate(() => document.getElementById('c1').shadowRoot.querySelector('[part="box"]').role),
      null,
    );
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('highlight: a cell, a row or a column by token text, #position or *, outlined as one region', async () => {
  const session = await open();
  const { page } = session;
  try {
    // "it" is token 8 (i = 7), "animal" token 2 (j = 1).
    await add(page, 'cell', 'attention-heatmap', { sentence: SENTENCE, highlight: 'it → animal' });
    assert.deepEqual(await marks(page, 'cell', '[role="grid"]'), ['7,1:tblr']);
    // The same cell in ASCII and by position; a marked cell says so to a screen reader.
    await add(page, 'ascii', 'attention-heatmap', { sentence: SENTENCE, highlight: '#8->#2' });
    assert.deepEqual(await marks(page, 'ascii', '[role="grid"]'), ['7,1:tblr']);
    assert.equal(
      await page.evaluate(() =>
        document.getElementById('ascii').shadowRoot.querySelector('.mk').getAttribute('aria-description'),
      ),
      'highlighted',
    );
    await add(page, 'row', 'attention-heatmap', { sentence: 'a b c', highlight: 'b → *' });
    assert.deepEqual(await marks(page, 'row', '[role="grid"]'), ['1,0:tbl', '1,1:tb', '1,2:tbr']);
    await add(page, 'col', 'attention-heatmap', { sentence: 'a b c', highlight: '* -> c' });
    assert.deepEqual(await marks(page, 'col', '[role="grid"]'), ['0,2:tlr', '1,2:lr', '2,2:blr']);
    // Several, separated by ";": two cells side by side share one outline.
    await add(page, 'two', 'attention-heatmap', { sentence: 'a b c', highlight: 'a → a; a → b' });
    assert.deepEqual(await marks(page, 'two', '[role="grid"]'), ['0,0:tbl', '0,1:tbr']);

    // The explorer marks every query × key figure: tables and heatmaps, each head's too; not the others.
    await add(page, 'ex', 'attention-explorer', {
      sentence: 'the cat sat',
      heads: '2',
      causal: '',
      steps: 'qkv scores mask softmax heads',
      highlight: 'sat → cat',
    });
    for (const figure of [
      '[data-matrix="rawScores"]',
      '[data-matrix="mask"]',
      '[data-matrix="scores"]',
      '[data-matrix="weights"]',
      '[data-step="softmax"] [role="grid"].hm',
    ])
      assert.deepEqual(await marks(page, 'ex', figure), ['2,1:tblr'], figure);
    assert.equal(
      await page.evaluate(
        () => document.getElementById('ex').shadowRoot.querySelectorAll('[data-step="heads"] .mk').length,
      ),
      2,
    );
    assert.deepEqual(await marks(page, 'ex', '[data-matrix="q"]'), []);
    await page.locator('#cell').screenshot({ path: `${ARTIFACTS}/elements-highlight.png` });
    await page.locator('#ex').screenshot({ path: `${ARTIFACTS}/elements-highlight-explorer.png` });
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('highlight: a bad value names what to fix, and the figure still shows', async () => {
  const session = await open();
  const { page } = session;
  try {
    const cases = [
      ['it animal', /highlight="it animal" should be query → key/],
      ['it → anmal', /key “anmal” is not a token here; did you mean “animal”\?/],
      ['street → the', /key “the” is token #1 and #5: write one of those/],
      ['#40 → *', /query #40 is not a token: the positions go from #1 to #11/],
      [HOSTILE, /should be query → key/],
    ];
    let k = 0;
    for (const [highlight, expected] of cases) {
      const id = `bad${k++}`;
      await add(page, id, 'attention-heatmap', { sentence: SENTENCE, highlight });
      assert.match(await message(page, id), expected, highlight);
      assert.equal(await page.evaluate((e) => document.getElementById(e).status, id), 'ready');
      assert.deepEqual(await marks(page, id, '[role="grid"]'), []);
    }
    // One good pair and one bad: the good one is marked, the bad one named.
    await add(page, 'half', 'attention-heatmap', { sentence: SENTENCE, highlight: 'it → animal; it → dog' });
    assert.deepEqual(await marks(page, 'half', '[role="grid"]'), ['7,1:tblr']);
    assert.match(await message(page, 'half'), /key “dog” is not a token here/);
    assert.equal(await page.evaluate(() => window.__pwned ?? null), null);
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('values="scores": the heatmap shows the scores softmax gets, masked cells striped; a bad value is named', async () => {
  const session = await open();
  const { page } = session;
  try {
    await add(page, 's', 'attention-heatmap', { sentence: 'the cat sat on', causal: '', values: 'scores' });
    const shown = await page.evaluate(() => {
      const e = document.getElementById('s');
      const cells = Array.from(e.shadowRoot.querySelectorAll('.cell'), (c) => c.className.split(' ')[1]);
      const scores = e.result.scores.toArray()[0];
      return {
        cells,
        scores,
        title: e.shadowRoot.querySelector('[part="title"]').textContent,
        legend: e.shadowRoot.querySelector('[part="legend"]').textContent,
        values: e.values,
      };
    });
    const max = Math.max(...shown.scores.flat().filter(Number.isFinite).map(Math.abs));
    const expected = shown.scores.flat().map((v) => {
      if (!Number.isFinite(v)) return 'masked';
      return `s${Math.round(((v / max + 1) / 2) * 255)}`;
    });
    assert.deepEqual(shown.cells, expected);
    assert.equal(shown.cells.filter((c) => c === 'masked').length, 6);
    assert.equal(shown.title, 'Attention scores');
    assert.match(shown.legend, /^-\d\.\d\d\d\.\d\dscore \(before softmax\)/);
    assert.equal(shown.values, 'scores');
    // The readout describes a score.
    await page.locator('#s [role="grid"]').focus();
    await page.keyboard.press('ArrowDown');
    assert.match((await shadowTexts(page, 's', '[part="readout"]'))[0], /query “cat” → key “the”: .*score/i);

    await add(page, 'w', 'attention-heatmap', { sentence: 'the cat', values: 'probabilities' });
    assert.match(await message(page, 'w'), /values="probabilities" should be weights or scores/);
    assert.equal(
      await page.evaluate(() => document.getElementById('w').shadowRoot.querySelector('[part="title"]').textContent),
      'Attention weights',
    );
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('hide: the entropy and the random-weights caveat paragraphs can be left out; an unknown word is named', async () => {
  const session = await open();
  const { page } = session;
  // The notes of the softmax step that are laid out (hidden ones have no box).
  const shown = (id) =>
    page.evaluate(
      (elementId) =>
        Array.from(
          document.getElementById(elementId).shadowRoot.querySelectorAll('[data-step="softmax"] [data-note]'),
          (p) => (p.getClientRects().length && p.textContent ? p.dataset.note : null),
        ).filter(Boolean),
      id,
    );
  try {
    await add(page, 'all', 'attention-explorer', { sentence: 'a b c', steps: 'softmax' });
    assert.deepEqual(await shown('all'), ['entropy', 'caveat']);
    await add(page, 'none', 'attention-explorer', { sentence: 'a b c', steps: 'softmax', hide: 'entropy caveat' });
    assert.deepEqual(await shown('none'), []);
    await add(page, 'one', 'attention-explorer', { sentence: 'a b c', steps: 'softmax', hide: 'caveat' });
    assert.deepEqual(await shown('one'), ['entropy']);
    assert.equal(await page.evaluate(() => document.getElementById('one').hide), 'caveat');
    await add(page, 'bad', 'attention-explorer', { sentence: 'a b c', steps: 'softmax', hide: 'entrpy' });
    assert.match(
      await message(page, 'bad'),
      /hide: "entrpy" is not one of entropy, caveat \(did you mean "entropy"\?\)/,
    );
    assert.deepEqual(await shown('bad'), ['entropy', 'caveat']);
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});
