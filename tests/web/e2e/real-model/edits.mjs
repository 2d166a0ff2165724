// Page test (run by run.mjs): numbers edited in a real model's head in the steps (web/src/real-model/tools/walk/headEdits.js) go
// through attention-wasm/model's `edits`: the walk, a later layer's head and the next-token table (with the change
// against the unedited run) equal model.run with the same edits in Node, a link reproduces them and "Reset edits"
// drops them; on the shipped induction model (1280 px, then 390 px) and a tiny LLaMA checkpoint dropped as files
// (grouped key/value heads and RoPE). Screenshots in tests/artifacts. Nothing is timed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel } from '../../../../src/js/model/index.node.js';
import { llamaFixture } from '../../../js/model/fixtures.js';
import { expectedOpacities, opacitiesOf, readLines } from '../headViewReader.mjs';
import { ARTIFACTS, assertShown, readNumbers, settle, typeInCell, withPage } from '../helpers.mjs';
import {
  INDUCTION,
  SENTENCE,
  assertPredictions,
  dropAsFiles,
  openBuiltin,
  readPredictions,
  runs,
  waitForRun,
} from './helpers.mjs';
import { PRECISION, env } from '../session.mjs';

/** Opens head `head` of layer `layer` (from 0) in the steps and waits for the walk to show it. */
async function openHead(page, layer, head, edited = 0) {
  await page.click(`.head-button[data-layer="${layer}"][data-head="${head}"]`);
  await walkShows(page, layer, head, edited);
}

async function walkShows(page, layer, head, edited) {
  await page.waitForFunction(
    ([l, h, e]) => {
      const text = document.getElementById('model-walk').textContent;
      const count = e ? new RegExp(`${e} numbers? edited so far`, 'u').test(text) : !/edited so far/u.test(text);
      return text.includes(`L${l}H${h} (layer ${l} head ${h}) is in the steps`) && count;
    },
    [layer, head, edited],
    { timeout: 60000 },
  );
  await settle(page);
}

/**
 * Types `text` into cell (i, j) of the walk's `name` (of its first 16 × 16 block, zoomed when the matrix is drawn as
 * a heatmap) and waits for the model's run with `edited` edits.
 */
async function edit(page, name, i, j, text, layer, head, edited) {
  const n = await runs(page);
  const canvas = page.locator(`[data-matrix="${name}"] .cm-canvas`);
  if (await canvas.count()) await canvas.click({ position: { x: 1, y: 1 } });
  await typeInCell(page, name, i, j, text);
  await waitForRun(page, n);
  await walkShows(page, layer, head, edited);
}

/** Asserts that the walk's grids (`matrices`: [grid name, capture key]) show the capture `cap`. */
async function assertWalk(page, matrices, cap, what) {
  for (const [matrix, key] of matrices) {
    assertShown(await readNumbers(page, matrix), cap[key].toArray(), PRECISION, `${what}: ${matrix}`);
  }
}

describe('real model: edits in the steps run the whole model again', () => {
  test('the shipped model: an edit of W_q in layer 0 moves layer 1 and the next token as model.run does', async () => {
    const model = await loadModel(INDUCTION);
    const dK = model.spec.headDim;
    // W_q of layer 0 head 2 (the previous-token head), row 1, column 2 of its block; then X of layer 1, row 14.
    const edits = [
      { layer: 0, step: 'wq', row: 1, col: 2 * dK + 2, value: 4 },
      { layer: 1, step: 'x', row: 14, col: 3, value: -2.5 },
    ];
    const plain = await model.run(SENTENCE, { topK: 10 });
    const first = await model.run(SENTENCE, { topK: 10, edits: edits.slice(0, 1), capture: [{ layer: 1, head: 0 }] });
    const both = await model.run(SENTENCE, {
      topK: 10,
      edits,
      capture: [
        { layer: 1, head: 0 },
        { layer: 0, head: 2 },
      ],
    });
    const shorter = await model.run('the cat saw a red ball . the cat', { topK: 10, edits: edits.slice(0, 1) });
    let link;
    await withPage(env, {}, async ({ page }) => {
      await openBuiltin(page);
      await openHead(page, 0, 2);
      await edit(page, 'wq', 1, 2, '4', 0, 2, 1);
      assertPredictions(await readPredictions(page), first.next, 'after the W_q edit');
      const before = (await readPredictions(page)).map((r) => r.before);
      const unedited = new Map(plain.next.map((t) => [t.id, t.p]));
      (await readPredictions(page)).forEach((r, k) => {
        if (unedited.has(r.id)) assert.ok(Math.abs(before[k] - unedited.get(r.id)) <= 6e-4, `unedited p of ${r.id}`);
      });
      assert.match(await page.textContent('.predictions-table caption'), /with your edits/u);
      // a later layer's head: its numbers are the model's with the edit upstream
      await openHead(page, 1, 0, 1);
      await assertWalk(
        page,
        [
          ['weights', 'weights'],
          ['output', 'headOutput'],
        ],
        first.captures[0],
        'layer 1 head 0 after the layer-0 edit',
      );
      await edit(page, 'x', 14, 3, '-2.5', 1, 0, 2);
      await assertWalk(page, [['weights', 'weights']], both.captures[0], 'layer 1 head 0, X edited');
      assertPredictions(await readPredictions(page), both.next, 'after both edits');
      // the one-layer views: the head view of layer 1 draws the edited run's weights
      assert.equal(await page.evaluate(() => document.body.dataset.modelViewsLayer), '1');
      await settle(page); // away from the screen, the head view draws in idle time
      const n = both.ids.length;
      await page.hover(`.model-views .head-view-tokens.left li:nth-child(${n}) button`);
      assert.deepEqual(
        opacitiesOf(await readLines(page, '.model-views')),
        expectedOpacities(both.attentions[1].data, both.attentions[1].shape, { side: 'left', token: n - 1 }),
        'the head view of layer 1, edited',
      );
      assert.equal(await page.isVisible('#model-reset-edits'), true);
      await page.mouse.move(0, 0);
      await page.evaluate(() => document.getElementById('model-walk').scrollIntoView({ block: 'center' }));
      await page.screenshot({ path: `${ARTIFACTS}/real-model-edits-1280.png`, fullPage: false });
      await page.locator('.predictions-table').screenshot({ path: `${ARTIFACTS}/real-model-edits-table-1280.png` });
      await page.waitForTimeout(300); // the hash is written 250 ms after a change
      link = await page.evaluate(() => location.href);
      assert.equal(new URL(link).searchParams.get('edits'), `0.wq.1.${2 * dK + 2}_4*1.x.14.3_-2.5`);
      assert.doesNotMatch(link, /x=|wq=/u, 'the link holds no weights');
      // Reset edits: the unedited model again
      const count = await runs(page);
      await page.click('#model-reset-edits');
      await waitForRun(page, count);
      await walkShows(page, 1, 0, 0);
      assertPredictions(await readPredictions(page), plain.next, 'after Reset edits');
      assert.equal(await page.isVisible('#model-reset-edits'), false);
    });
    // The link reopens the edits, at 390 px
    const viewport = { width: 390, height: 844 };
    await withPage(env, { hash: link.slice(env.server.url.length), viewport }, async ({ page }) => {
      await waitForRun(page);
      await walkShows(page, 1, 0, 2);
      assertPredictions(await readPredictions(page), both.next, 'the link');
      await assertWalk(page, [['weights', 'weights']], both.captures[0], 'the link: layer 1 head 0');
      await page.evaluate(() => document.getElementById('model-walk').scrollIntoView({ block: 'start' }));
      await page.screenshot({ path: `${ARTIFACTS}/real-model-edits-390.png`, fullPage: false });
      await page.locator('.predictions-table').screenshot({ path: `${ARTIFACTS}/real-model-edits-table-390.png` });
      // A new sentence: X's edits (of the old tokens) are dropped, the W's stay
      const n = await runs(page);
      await page.fill('#model-text', 'the cat saw a red ball . the cat');
      await waitForRun(page, n);
      assertPredictions(await readPredictions(page), shorter.next, 'a new sentence, the W_q edit kept');
      assert.equal(await page.textContent('#model-error'), '', 'the run did not fail');
    });
  });

  test('a tiny LLaMA dropped as files: an edit of a grouped W_k moves the rotated q and k of layer 1', async () => {
    const { files } = llamaFixture();
    const model = await loadModel(files);
    const dK = model.spec.headDim;
    const ids = [5, 1, 7, 3, 9, 2];
    // head 3 of layer 0 reads key/value head 1 (2 key/value heads for 4 heads): W_k's column dK + 1
    const edits = [{ layer: 0, step: 'wk', row: 2, col: dK + 1, value: 3 }];
    const r = await model.run({ ids }, { topK: 10, edits, capture: [{ layer: 1, head: 1 }] });
    await withPage(env, {}, async ({ page }) => {
      await openBuiltin(page);
      const n = await runs(page);
      await dropAsFiles(page, files);
      await page.waitForFunction(() => document.getElementById('model-about').textContent.startsWith('llama'));
      await page.fill('#model-text', ids.join(' '));
      await waitForRun(page, n + 1);
      await page.waitForFunction(
        (want) => [...document.querySelectorAll('.model-tokens li')].map((li) => li.dataset.id).join() === want,
        ids.join(),
      );
      await openHead(page, 0, 3);
      await edit(page, 'wk', 2, 1, '3', 0, 3, 1);
      await openHead(page, 1, 1, 1);
      await assertWalk(
        page,
        [
          ['qRotated', 'qRotated'],
          ['kRotated', 'kRotated'],
          ['weights', 'weights'],
        ],
        r.captures[0],
        'llama layer 1 head 1 after a W_k edit in layer 0',
      );
      assertPredictions(await readPredictions(page), r.next, 'llama, edited');
    });
  });
});
