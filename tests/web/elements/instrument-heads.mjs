// A head clicked in an element's instrument (`view`): the element dispatches `headselect` (cancellable, detail
// { layer, head, view } from 0) and, unless cancelled, shows that head's attention weights (an explorer: step by step)
// with a button back to the view, where the head's button takes the focus again. By pointer and by keyboard (Enter on
// a focused head). Attribution's heads and their headings are cleared while a target typed is not one token.
// Screenshots go to tests/artifacts.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ARTIFACTS, add, assertClean, message, open } from './env.mjs';

const SENTENCE = 'the cat saw a red ball near the old tree . the cat saw a red';

/** Records every headselect on the document (it bubbles out of the shadow root); `cancel` cancels them. */
const listen = (page, cancel = false) =>
  page.evaluate((stop) => {
    window.selected = [];
    document.addEventListener('headselect', (event) => {
      window.selected.push({ ...event.detail, target: event.target.id, cancelable: event.cancelable });
      if (stop) event.preventDefault();
    });
  }, cancel);

/** The element's title once it matches `pattern`. */
const titled = async (page, id, pattern) => {
  await page.waitForFunction(
    ({ elementId, source }) => {
      const element = document.getElementById(elementId);
      const title = element.shadowRoot.querySelector('[part="title"]')?.textContent ?? '';
      return element.status === 'ready' && new RegExp(source, 'u').test(title);
    },
    { elementId: id, source: pattern.source },
    { timeout: 20000 },
  );
  return page.evaluate(
    (elementId) => document.getElementById(elementId).shadowRoot.querySelector('[part="title"]').textContent,
    id,
  );
};

/** The aria-label (or role) of what has the focus inside the element. */
const focused = (page, id) =>
  page.evaluate((elementId) => {
    const active = document.getElementById(elementId).shadowRoot.activeElement;
    return active ? (active.getAttribute('aria-label') ?? active.getAttribute('role') ?? active.textContent) : null;
  }, id);

test('attribution: a head clicked says headselect { layer, head, view } and shows its weights; back, then Enter opens it again', async () => {
  const session = await open();
  const { page } = session;
  try {
    await listen(page);
    await add(page, 'attr', 'attention-heatmap', { view: 'attribution', sentence: SENTENCE });
    assert.equal(await message(page, 'attr'), '');
    const hint = await page.evaluate(
      () => document.getElementById('attr').shadowRoot.querySelector('.hint').textContent,
    );
    assert.match(hint, /Click a head to show its attention weights\.$/u);
    // L1H2: the table's third body row is layer 1 (after the header row), its third button head 2.
    const cell = page.locator('#attr').getByRole('button', { name: /^L1H2: .*; show its attention weights$/u });
    await cell.click();
    assert.equal(await titled(page, 'attr', /^Attention weights, L1H2$/u), 'Attention weights, L1H2');
    assert.deepEqual(await page.evaluate(() => window.selected), [
      { layer: 1, head: 2, view: 'attribution', target: 'attr', cancelable: true },
    ]);
    const state = await page.evaluate(() => {
      const element = document.getElementById('attr');
      const pressed = (part) =>
        Array.from(element.shadowRoot.querySelectorAll(`[part="${part}"] button`)).findIndex(
          (b) => b.getAttribute('aria-pressed') === 'true',
        );
      return {
        shape: element.result.weights.shape,
        cells: element.shadowRoot.querySelectorAll('[part="heatmap"] [role="gridcell"]').length,
        back: element.shadowRoot.querySelector('[part="back"]')?.textContent,
        layer: pressed('layer-picker'),
        head: pressed('head-picker'),
        view: element.getAttribute('view'),
      };
    });
    assert.deepEqual(state, {
      shape: [4, 16, 16],
      cells: 16 * 16,
      back: '← Direct logit attribution',
      layer: 1,
      head: 2,
      view: 'attribution',
    });
    assert.match(await focused(page, 'attr'), /^Attention weights, L1H2 of /u, 'the heatmap has the focus');
    await page.locator('#attr').screenshot({ path: `${ARTIFACTS}/elements-headselect-attribution.png` });

    // Back by keyboard: the view again, the focus on L1H2's button; Enter on it opens the head again.
    await page.locator('#attr [part="back"]').focus();
    await page.keyboard.press('Enter');
    await titled(page, 'attr', /^Direct logit attribution$/u);
    await page.waitForFunction(() =>
      /^L1H2:/u.test(document.getElementById('attr').shadowRoot.activeElement?.getAttribute('aria-label') ?? ''),
    );
    await page.keyboard.press('Tab');
    assert.match(await focused(page, 'attr'), /^L1H3:/u);
    await page.keyboard.press('Enter');
    await titled(page, 'attr', /^Attention weights, L1H3$/u);
    assert.deepEqual(
      (await page.evaluate(() => window.selected)).map((d) => [d.layer, d.head]),
      [
        [1, 2],
        [1, 3],
      ],
    );
    // An attribute changed: the view as the attributes give it.
    await page.evaluate(() => document.getElementById('attr').setAttribute('target', 'ball'));
    await titled(page, 'attr', /^Direct logit attribution$/u);
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('headselect cancelled keeps the view; an explorer opens a patching head step by step', async () => {
  const session = await open();
  const { page } = session;
  try {
    await listen(page, true);
    await add(page, 'scores', 'attention-explorer', { view: 'head-scores', sentence: SENTENCE });
    await page.locator('#scores').getByRole('button', { name: 'L0H2: open it step by step' }).click();
    await page.waitForFunction(() => window.selected.length === 1);
    // Give a default action the time it would take, then check none happened.
    await page.evaluate(() => new Promise((resolve) => setTimeout(resolve, 300)));
    const kept = await page.evaluate(() => {
      const root = document.getElementById('scores').shadowRoot;
      return { title: root.querySelector('[part="title"]').textContent, back: root.querySelector('[part="back"]') };
    });
    assert.deepEqual(kept, { title: 'Head detector scores', back: null });
    assert.deepEqual(await page.evaluate(() => window.selected[0]), {
      layer: 0,
      head: 2,
      view: 'head-scores',
      target: 'scores',
      cancelable: true,
    });
  } finally {
    await session.context.close();
  }
  const second = await open();
  try {
    const { page: p } = second;
    await listen(p);
    await add(p, 'patch', 'attention-explorer', { view: 'patching' });
    await p
      .locator('#patch')
      .getByRole('button', { name: /^L0H1: restores .*; open it step by step$/u })
      .click();
    await titled(p, 'patch', /^L0H1, step by step$/u);
    assert.deepEqual(await p.evaluate(() => window.selected), [
      { layer: 0, head: 1, view: 'patching', target: 'patch', cancelable: true },
    ]);
    assert.equal(await focused(p, 'patch'), '← Activation patching', 'an explorer: the focus on the way back');
    await p.locator('#patch [part="back"]').click();
    await titled(p, 'patch', /^Activation patching$/u);
    await p.waitForFunction(() => document.getElementById('patch').result?.sweeps);
    await assertClean(second);
  } finally {
    await second.context.close();
  }
});

test('attribution: a target typed that is not one token clears the heads with their headings; a token draws them again', async () => {
  const session = await open();
  const { page } = session;
  try {
    await add(page, 'attr2', 'attention-heatmap', { view: 'attribution', sentence: SENTENCE });
    await page.waitForFunction(() => document.getElementById('attr2').status === 'ready', null, { timeout: 20000 });
    const shown = () =>
      page.evaluate(() => {
        const root = document.getElementById('attr2').shadowRoot;
        return {
          headings: [...root.querySelectorAll('.inv-pair h5')].map((h) => (h.checkVisibility() ? h.textContent : '')),
          cells: root.querySelectorAll('.inv-grid tbody td').length,
          summary: root.querySelector('.inv-attribution [role="status"]').textContent,
        };
      });
    assert.deepEqual((await shown()).headings, ['Heads', 'The other parts']);
    const type = async (text, pattern) => {
      await page.locator('#attr2 #inv-attr-a').fill(text);
      await page.locator('#attr2 #inv-attr-a').dispatchEvent('change');
      await page.waitForFunction(
        (source) =>
          new RegExp(source, 'u').test(
            document.getElementById('attr2').shadowRoot.querySelector('.inv-attribution [role="status"]').textContent,
          ),
        pattern.source,
        { timeout: 20000 },
      );
    };
    await type('red ball', /^target="red ball" is 2 tokens for this model, not one/u); // the shipped model reads words
    const cleared = await shown();
    assert.deepEqual([cleared.headings, cleared.cells], [['', ''], 0], 'no heading over nothing');
    await type('ball', /“ball”/u);
    const again = await shown();
    assert.deepEqual([again.headings, again.cells], [['Heads', 'The other parts'], 8]);
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});
