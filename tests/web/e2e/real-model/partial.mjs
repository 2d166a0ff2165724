// Page test (run by run.mjs): what the real model runs again after a change (web/src/real-model/run/rerun.js,
// tools/walk/openHead.js there). A head opened runs its own layer alone and reads no file (its weights come from the
// model, model.attentionWeights); an ablation or an edit runs from the first layer it changes; the numbers shown stay
// those of attention-wasm/model's whole runs in Node. The shipped induction model (2 layers) read by its folder URL, so
// that every read of its files is a request seen here. body[data-model-layers-run] counts the layers the page's model
// ran.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel } from '../../../../src/js/model/index.node.js';
import { assertShown, readNumbers, settle, typeInCell, withPage } from '../helpers.mjs';
import {
  INDUCTION,
  SENTENCE,
  assertPredictions,
  openBuiltin,
  readPredictions,
  runs,
  waitForRun,
  walkShows,
} from './helpers.mjs';
import { PRECISION, env } from '../session.mjs';

const layersRun = (page) => page.evaluate(() => Number(document.body.dataset.modelLayersRun ?? 0));

describe('real model: only what a change touches runs again', () => {
  test('a head opened runs its layer alone and reads no file; an ablation or an edit runs from its layer', async () => {
    const model = await loadModel(INDUCTION);
    const folder = `${env.server.url}models/induction/`;
    const ablate = [[1, 2]];
    const edit = { layer: 1, step: 'x', row: 3, col: 0, value: 1.5 };
    const ablated = await model.run(SENTENCE, { topK: 10, ablate, capture: [{ layer: 1, head: 0 }] });
    const edited = await model.run(SENTENCE, { topK: 10, ablate, edits: [edit], capture: [{ layer: 1, head: 0 }] });
    await withPage(env, {}, async ({ page, problems }) => {
      await openBuiltin(page);
      await page.fill('#model-url', folder);
      let n = await runs(page);
      await page.click('#model-url-open');
      await waitForRun(page, n);
      n = await runs(page);
      await page.fill('#model-text', SENTENCE);
      await waitForRun(page, n);
      await settle(page);
      const reads = () => problems.requests.filter((u) => u.includes('/models/induction/')).length;

      // A head of layer 1: that layer alone, and no request for its weights.
      let [layers, requests] = [await layersRun(page), reads()];
      await page.click('.head-button[data-layer="1"][data-head="0"]');
      await walkShows(page, 'L1H0 (layer 1 head 0) is in the steps');
      assert.equal((await layersRun(page)) - layers, 1, 'a head opened runs its own layer only');
      assert.equal(reads(), requests, 'its weights come from the model, not from the files again');

      // Layer 1 head 2 switched off: the prediction from layer 1 on, whose capture of layer 1 is the walk's again.
      [layers, requests] = [await layersRun(page), reads()];
      n = await runs(page);
      await page.click('.ablate-button[data-layer="1"][data-head="2"]');
      await waitForRun(page, n);
      assertPredictions(await readPredictions(page), ablated.next, 'layer 1 head 2 off');
      await walkShows(page, 'L1H0 (layer 1 head 0) is in the steps');
      assertShown(await readNumbers(page, 'weights'), ablated.captures[0].weights.toArray(), PRECISION, 'walk');
      assert.equal((await layersRun(page)) - layers, 1, 'the ablation runs layer 1 once, for the prediction and walk');
      assert.equal(reads(), requests);

      // A number of X (layer 1's input) edited: layer 1 runs again, once, the walk follows, nothing is read.
      [layers, requests] = [await layersRun(page), reads()];
      n = await runs(page);
      const canvas = page.locator('[data-matrix="x"] .cm-canvas');
      if (await canvas.count()) await canvas.click({ position: { x: 1, y: 1 } });
      await typeInCell(page, 'x', edit.row, edit.col, String(edit.value));
      await waitForRun(page, n);
      assertPredictions(await readPredictions(page), edited.next, 'an edit of X in layer 1');
      await walkShows(page, '1 number edited so far');
      assert.equal((await layersRun(page)) - layers, 1, 'the edit runs layer 1 once, for the prediction and walk');
      assert.equal(reads(), requests);
      assertShown(await readNumbers(page, 'weights'), edited.captures[0].weights.toArray(), PRECISION, 'edited walk');
    });
  });
});
