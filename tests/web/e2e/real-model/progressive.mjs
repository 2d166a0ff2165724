// Page test (run by run.mjs): an edit of the walked head's own layer is drawn progressively (web/src/real-model/tools/walk/headEdits.js):
// the steps first, from that layer run alone, while the model view and the prediction are marked as updating; then the
// later layers, whose prediction, model view and later layers' heads end equal to model.run with the same edits in
// Node. A second edit made before the first one's later layers ran makes them stale: they are never drawn, and every
// view ends with both edits. The shipped induction model (2 layers), its layer 0 walked. Nothing is timed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel } from '../../../../src/js/model/index.node.js';
import { expectedOpacities, opacitiesOf, readLines } from '../headViewReader.mjs';
import { assertShown, readNumbers, settle, typeInCell, withPage } from '../helpers.mjs';
import { INDUCTION, SENTENCE, assertPredictions, openBuiltin, readPredictions, runs } from './helpers.mjs';
import { PRECISION, env } from '../session.mjs';

const EDIT_1 = { layer: 0, step: 'x', row: 3, col: 1, value: 2 };
const EDIT_2 = { layer: 0, step: 'x', row: 5, col: 2, value: -1.5 };

async function walkShows(page, text) {
  await page.waitForFunction((t) => document.getElementById('model-walk').textContent.includes(t), text, {
    timeout: 60000,
  });
  await settle(page);
}

/**
 * Watches the steps, from now on, for the first render that shows `edited` edits (the walk's sentence says so, and
 * the steps were drawn again: body[data-renders]); there, records the model's runs drawn and whether the prediction
 * is marked as updating, and, with `then` ({ row, col, value }), types that number into X's cell at once, as a quick
 * reader would ('cancel': presses Cancel at once).
 */
function watchSteps(page, edited, then = null) {
  return page.evaluate(
    ([count, next]) => {
      const renders = Number(document.body.dataset.renders ?? 0);
      window.__steps = null;
      const observer = new MutationObserver(() => {
        const text = document.getElementById('model-walk').textContent;
        if (!text.includes(`${count} number${count > 1 ? 's' : ''} edited so far`)) return;
        if (Number(document.body.dataset.renders) <= renders) return;
        observer.disconnect();
        const predictions = document.querySelector('.model-predictions');
        window.__steps = {
          runs: Number(document.body.dataset.modelRuns ?? 0),
          updating: predictions.classList.contains('updating') && predictions.getAttribute('aria-busy') === 'true',
        };
        if (!next) return;
        if (next === 'cancel') return document.getElementById('model-cancel').click();
        const cell = document.querySelector(`[data-matrix="x"] .c[data-i="${next.row}"][data-j="${next.col}"]`);
        if (!cell) return (window.__steps.missing = 'the cell of the second edit is not shown');
        cell.dispatchEvent(new MouseEvent('dblclick', { bubbles: true }));
        const editor = document.querySelector('[data-matrix="x"] .cell-editor');
        editor.value = String(next.value);
        editor.dispatchEvent(new KeyboardEvent('keydown', { key: 'Enter', bubbles: true }));
      });
      observer.observe(document.body, { attributes: true, attributeFilter: ['data-renders'] });
    },
    [edited, then],
  );
}

/** Types `text` into cell (i, j) of X, its first 16 × 16 block zoomed first where X is drawn as a heatmap. */
async function typeInX(page, i, j, text) {
  const zoomed = await page.locator('[data-matrix="x"] .cm-zoom .c').count();
  if (!zoomed && (await page.locator('[data-matrix="x"] .cm-canvas').count()))
    await page.locator('[data-matrix="x"] .cm-canvas').click({ position: { x: 1, y: 1 } });
  await typeInCell(page, 'x', i, j, text);
}

const stepsSeen = (page) =>
  page.waitForFunction(() => window.__steps, null, { timeout: 60000 }).then((handle) => handle.jsonValue());

/** The page once idle: no run under way, the model view and the prediction no longer marked as updating. */
async function settled(page) {
  await page.waitForFunction(() => !document.querySelector('.model-predictions.updating, .model-view.updating'), null, {
    timeout: 60000,
  });
  await settle(page);
}

/** Asserts the walk, the prediction, the head view of layer 0 and layer 1's head 0 equal model.run with `edits`. */
async function assertEverywhere(page, model, edits, what) {
  const r = await model.run(SENTENCE, {
    topK: 10,
    edits,
    capture: [
      { layer: 0, head: 2 },
      { layer: 1, head: 0 },
    ],
  });
  assertShown(await readNumbers(page, 'weights'), r.captures[0].weights.toArray(), PRECISION, `${what}: the walk`);
  const x = await readNumbers(page, 'x'); // its first block, zoomed
  const block = r.captures[0].x.toArray().slice(0, x.length);
  assertShown(
    x,
    block.map((row) => row.slice(0, x[0].length)),
    PRECISION,
    `${what}: the walk's X`,
  );
  assertPredictions(await readPredictions(page), r.next, `${what}: the prediction`);
  const n = r.ids.length;
  await page.hover(`.model-views .head-view-tokens.left li:nth-child(${n}) button`);
  assert.deepEqual(
    opacitiesOf(await readLines(page, '.model-views')),
    expectedOpacities(r.attentions[0].data, r.attentions[0].shape, { side: 'left', token: n - 1 }),
    `${what}: the head view of layer 0`,
  );
  await page.mouse.move(0, 0);
  // Layer 2 runs on the hidden state the progressive run left: its head equals the whole run's.
  await page.click('.head-button[data-layer="1"][data-head="0"]');
  await walkShows(page, 'L1H0 (layer 1 head 0) is in the steps');
  assertShown(await readNumbers(page, 'weights'), r.captures[1].weights.toArray(), PRECISION, `${what}: layer 1`);
}

/** Resets the edits and opens layer 0 head 2 again, the page settled; returns the model's runs drawn so far. */
async function resetToHead(page) {
  await page.click('#model-reset-edits');
  await settled(page);
  await page.click('.head-button[data-layer="0"][data-head="2"]');
  await walkShows(page, 'L0H2 (layer 0 head 2) is in the steps');
  await settled(page);
  return runs(page);
}

describe('real model: an edit draws the steps first, then the later layers', () => {
  test('the steps before the prediction; both end as model.run with the edit; a quick second edit wins', async () => {
    const model = await loadModel(INDUCTION);
    await withPage(env, {}, async ({ page }) => {
      await openBuiltin(page);
      await page.click('.head-button[data-layer="0"][data-head="2"]');
      await walkShows(page, 'L0H2 (layer 0 head 2) is in the steps');

      // One edit of X: the steps are drawn while the prediction is still the last run's, marked as updating.
      let n = await runs(page);
      await watchSteps(page, 1);
      await typeInX(page, EDIT_1.row, EDIT_1.col, String(EDIT_1.value));
      const seen = await stepsSeen(page);
      assert.deepEqual(seen, { runs: n, updating: true }, 'the steps are drawn before the prediction');
      await settled(page);
      assert.equal((await runs(page)) - n, 1, 'the later layers ran and were drawn once');
      await assertEverywhere(page, model, [EDIT_1], 'one edit');

      // Back to layer 0 head 2; a second edit typed as soon as the first one's steps show: the first one's later
      // layers are never drawn, and every view ends with both edits.
      n = await resetToHead(page);
      await watchSteps(page, 1, EDIT_2);
      await typeInX(page, EDIT_1.row, EDIT_1.col, String(EDIT_1.value));
      assert.deepEqual(await stepsSeen(page), { runs: n, updating: true }, 'the second edit typed as the steps show');
      await walkShows(page, '2 numbers edited so far');
      await settled(page);
      assert.equal((await runs(page)) - n, 1, "the first edit's later layers were not drawn");
      await assertEverywhere(page, model, [EDIT_1, EDIT_2], 'two edits');

      // Cancel as soon as an edit's steps show: the later layers are not run, the views are no longer marked as
      // updating, and the status says which part shows the edit (not "as it was"); the next change runs them.
      n = await resetToHead(page);
      await watchSteps(page, 1, 'cancel');
      await typeInX(page, EDIT_1.row, EDIT_1.col, String(EDIT_1.value));
      await stepsSeen(page);
      await settled(page);
      assert.equal(await runs(page), n, 'cancelled: the later layers were not run');
      const status = await page.locator('#model-status').textContent();
      assert.match(
        status,
        /^Cancelled\. The steps show the edit in layer 0; the later layers, the model view and the next token are from before it/,
      );
    });
  });
});
