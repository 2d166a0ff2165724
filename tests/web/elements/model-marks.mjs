// The elements on a real model (`model`), what an author marks and a reader reads: `highlight` on the model's tokens
// (the heatmap, the explorer's query × key figures, the picture; the model view says it marks one head), a head
// switched off drawn faded with what that means, masked cells read "masked", and a Hub id the page's CSP refuses
// named as connect-src, not CORS.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ARTIFACTS, add, assertClean, message, open } from './env.mjs';

const SENTENCE = 'the cat saw a red ball near the old tree . the cat saw a red';

/** The cells marked in a figure of an element's shadow root: "i,j:edges". */
const marks = (page, id, selector) =>
  page.evaluate(
    ({ elementId, css }) =>
      Array.from(document.getElementById(elementId).shadowRoot.querySelector(css).querySelectorAll('.mk'), (c) => {
        const edges = ['mt', 'mb', 'ml', 'mr'].filter((e) => c.classList.contains(e)).map((e) => e[1]);
        return `${c.dataset.i},${c.dataset.j}:${edges.join('')}`;
      }),
    { elementId: id, css: selector },
  );

test('highlight on a model’s tokens: the heatmap, the explorer’s query × key figures and the picture mark it', async () => {
  const session = await open();
  const { page } = session;
  try {
    // "tree" is token 10 (i = 9), "old" token 9 (j = 8); tokens are written as the sentence has them.
    await add(page, 'h', 'attention-heatmap', {
      model: 'builtin',
      layer: '0',
      head: '2',
      sentence: SENTENCE,
      highlight: 'tree → old',
    });
    assert.equal(await message(page, 'h'), '');
    assert.deepEqual(await marks(page, 'h', '[role="grid"]'), ['9,8:tblr']);
    await page.locator('#h').screenshot({ path: `${ARTIFACTS}/elements-model-highlight.png` });
    const svg = await page.evaluate(() => document.getElementById('h').toSVG());
    const plain = await page.evaluate(async () => {
      const e = document.getElementById('h');
      const marked = e.marks;
      e.marks = null;
      const text = await e.toSVG();
      e.marks = marked;
      return text;
    });
    assert.ok(svg.length > plain.length, 'the picture draws the highlight’s outline');

    // A word the sentence has twice is named by position; a word it lacks suggests the nearest token.
    await add(page, 'twice', 'attention-heatmap', { model: 'builtin', sentence: SENTENCE, highlight: 'red → ball' });
    assert.match(await message(page, 'twice'), /query “red” is token #5 and #16: write one of those/u);
    await add(page, 'typo', 'attention-heatmap', { model: 'builtin', sentence: SENTENCE, highlight: '#16 → bal' });
    assert.match(await message(page, 'typo'), /key “bal” is not a token here; did you mean “ball”\?/u);

    await add(page, 'ex', 'attention-explorer', {
      model: 'builtin',
      layer: '1',
      head: '0',
      sentence: SENTENCE,
      steps: 'qkv scores softmax',
      highlight: '#16 → ball',
    });
    assert.equal(await message(page, 'ex'), '');
    for (const figure of ['[data-matrix="rawScores"]', '[data-matrix="weights"]', '[data-step="softmax"] .hm'])
      assert.deepEqual(await marks(page, 'ex', figure), ['15,5:tblr'], figure);
    assert.deepEqual(await marks(page, 'ex', '[data-matrix="q"]'), [], 'not the figures of queries × dimensions');

    await add(page, 'mv', 'attention-heatmap', { model: 'builtin', 'model-view': '', highlight: 'tree → old' });
    assert.equal(await page.evaluate(() => document.getElementById('mv').status), 'ready');
    assert.match(await message(page, 'mv'), /highlight marks the cells of one head’s figure/u);
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('a head switched off is drawn faded and says what that means; masked cells read “masked”', async () => {
  const session = await open();
  const { page } = session;
  try {
    await add(page, 'off', 'attention-heatmap', { model: 'builtin', layer: '1', head: '0', ablate: '1.0 0.2' });
    await add(page, 'on', 'attention-heatmap', { model: 'builtin', layer: '1', head: '1', ablate: '1.0' });
    const state = (id) =>
      page.evaluate((elementId) => {
        const root = document.getElementById(elementId).shadowRoot;
        return {
          faded: root.querySelector('[part="heatmap"]').classList.contains('off'),
          opacity: getComputedStyle(root.querySelector('[part="heatmap"] .hm')).opacity,
          note: root.querySelector('[part="off-note"]')?.textContent ?? null,
        };
      }, id);
    const off = await state('off');
    assert.equal(off.faded, true);
    assert.ok(Number(off.opacity) < 0.5, `opacity ${off.opacity}`);
    assert.match(off.note, /^Faded: a head switched off \(ablate\)\. Its weights are still computed/u);
    assert.deepEqual(await state('on'), { faded: false, opacity: '1', note: null });
    assert.equal(await message(page, 'off'), '', 'layers and heads counted from 0');

    await add(page, 'mv', 'attention-heatmap', { model: 'builtin', 'model-view': '', ablate: '1.0' });
    const legend = await page.evaluate(() => {
      const root = document.getElementById('mv').shadowRoot;
      return {
        legend: root.querySelector('[part="legend"]').textContent,
        note: root.querySelector('[part="off-note"]')?.textContent,
        faded: [...root.querySelectorAll('[part="model-view"] canvas.off')].map(
          (c) => c.dataset.layer + c.dataset.head,
        ),
      };
    });
    assert.match(legend.legend, /faded: switched off/u);
    assert.match(legend.note, /^Faded: a head switched off/u);
    assert.deepEqual(legend.faded, ['10']);
    await page.locator('#mv').screenshot({ path: `${ARTIFACTS}/elements-model-view-off.png` });

    // The explorer's softmax heatmap: a masked cell (a later key) reads "masked", not "weight 0.000".
    await add(page, 'ex', 'attention-explorer', { model: 'builtin', sentence: 'the cat saw', steps: 'softmax' });
    const cell = await page.evaluate(() =>
      document
        .getElementById('ex')
        .shadowRoot.querySelector('[data-step="softmax"] .hm .cell[data-i="0"][data-j="2"]')
        .getAttribute('aria-label'),
    );
    assert.match(cell, /masked/u);
    assert.doesNotMatch(cell, /weight 0\.000/u);
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('a Hub id the page’s CSP refuses: the message names connect-src and the Hub’s origin, not CORS', async () => {
  const session = await open();
  const { page } = session;
  try {
    await add(page, 'hub', 'attention-heatmap', { model: 'someone/induction', sentence: SENTENCE });
    assert.equal(await page.evaluate(() => document.getElementById('hub').status), 'error');
    const said = await message(page, 'hub');
    assert.match(
      said,
      /this page's Content-Security-Policy refused it, so its connect-src must allow https:\/\/huggingface\.co/u,
    );
    assert.doesNotMatch(said, /CORS/u);
    const csp = await page.evaluate(() => window.__csp);
    assert.ok(csp.length > 0 && csp.every((v) => v.startsWith('connect-src https://huggingface.co/')), csp.join());
  } finally {
    await session.context.close();
  }
});
