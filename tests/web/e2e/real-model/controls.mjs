// Page test (run by run.mjs): the page's own controls while the steps show a head of the real model (the shipped
// induction model), and the keyboard and the projector. With a model head open, each setting acts on the model or is
// off with a reason: a sentence typed in the settings runs the model and the head opens again on its tokens, "Head
// shown" opens another head of the model (the model view follows), and the sizes, the seed, the mask, the scaling, W_k
// and the positions are disabled with a note that says why, until an example is chosen. Opened by its button, the
// section takes the focus to its first control; at 1024 × 768 the prediction stands beside the head switches.
// Numbers are checked against attention-wasm/model in Node. Screenshots: tests/artifacts/.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel } from '../../../../src/js/model/index.node.js';
import { ARTIFACTS, assertShown, readNumbers, settle, withPage } from '../helpers.mjs';
import { INDUCTION, assertPredictions, openBuiltin, readPredictions, runs, waitForRun, walkShows } from './helpers.mjs';
import { PRECISION, env } from '../session.mjs';

/** The settings a model's head does not take: off while it is in the steps. */
const HELD = ['#size-n', '#size-dModel', '#seed', '#new-seed', '#causal', '#scaling', '#temperature', '#share-qk'];

describe('real model: the page’s controls on a model head, the keyboard and the projector', () => {
  test('with a head open, the settings act on the model (sentence, "Head shown") or are off with a reason', async () => {
    const model = await loadModel(INDUCTION);
    const typed = 'the dog saw a big tree . the dog saw a big';
    const shown = await model.run(typed, { topK: 10, capture: [{ layer: 1, head: 3 }] });
    const lesson = (
      await model.run('the cat saw a red ball near the old tree . the cat saw a red', {
        capture: [{ layer: 1, head: 3 }],
      })
    ).captures[0];
    await withPage(env, { viewport: { width: 1280, height: 900 } }, async ({ page }) => {
      await openBuiltin(page);
      await page.click('.head-button[data-layer="1"][data-head="1"]');
      await walkShows(page, 'L1H1 (layer 1 head 1) is in the steps');
      for (const selector of [...HELD, '#positions'])
        assert.equal(await page.isDisabled(selector), true, `${selector} is off on a model head`);
      assert.equal(await page.isVisible('#model-head-note'), true);
      assert.match(await page.textContent('#model-head-note'), /L1H1 of gpt2.*sentence runs the model/u);
      assert.match(await page.getAttribute('#temperature', 'aria-describedby'), /model-head-note/u);
      assert.match(await page.textContent('#positions-reason'), /model’s own positions/u);
      assert.equal(await page.isDisabled('#sentence'), false);
      assert.equal(await page.isDisabled('#head'), false);

      // "Head shown": another head of the model, in the steps and in the model view.
      await page.selectOption('#head', { value: '3' });
      await walkShows(page, 'L1H3 (layer 1 head 3) is in the steps');
      assert.equal(await page.getAttribute('.head-button[data-layer="1"][data-head="3"]', 'aria-pressed'), 'true');
      assert.equal(await page.getAttribute('.head-button[data-layer="1"][data-head="1"]', 'aria-pressed'), 'false');
      assertShown(await readNumbers(page, 'weights'), lesson.weights.toArray(), PRECISION, 'L1H3');

      // A sentence typed in the settings: the model runs on it, and the head opens again on its tokens.
      const n = await runs(page);
      await page.fill('#sentence', typed);
      await waitForRun(page, n);
      assert.equal(await page.inputValue('#model-text'), typed);
      assertPredictions(await readPredictions(page), shown.next, 'the sentence typed in the settings');
      await page.waitForFunction(
        (count) => document.querySelectorAll('[data-matrix="weights"] .gwin .gr').length === count,
        shown.ids.length,
      );
      await settle(page);
      assertShown(await readNumbers(page, 'weights'), shown.captures[0].weights.toArray(), PRECISION, 'its walk');
      assert.equal(await page.isDisabled('#positions'), true, 'still a model head');
      await page.locator('#sentence').blur();
      await page.evaluate(() => document.getElementById('positions').scrollIntoView({ block: 'center' }));
      await page.screenshot({ path: `${ARTIFACTS}/real-model-settings-on-a-head-1280.png` });

      // An example: the page's own layer again, every setting on.
      await page.click('button[data-example="causal"]');
      await page.waitForFunction(() => !document.getElementById('positions').disabled);
      for (const selector of [...HELD, '#positions']) assert.equal(await page.isDisabled(selector), false, selector);
      assert.equal(await page.isVisible('#model-head-note'), false);
      assert.equal(await page.getAttribute('#temperature', 'aria-describedby'), 'temperature-hint');
    });
  });

  test('1024 × 768: the button takes the focus to the model, a few Tabs from its head switches, the prediction beside them', async () => {
    await withPage(env, { viewport: { width: 1024, height: 768 } }, async ({ page }) => {
      await page.click('#real-model-button');
      await waitForRun(page);
      await page.waitForFunction(() => document.activeElement?.id === 'model-text');
      let tabs = 0;
      while (!(await page.evaluate(() => document.activeElement?.classList.contains('head-button'))) && tabs < 60) {
        await page.keyboard.press('Tab');
        tabs++;
      }
      // 8 before the induction lesson linked its three instrument lessons (head-writes, logit-lens, patching); 51 before
      // issue 35 §1.9
      assert.ok(tabs <= 11, `${tabs} Tabs from the sentence to the first head switch`);

      // The head switches and the prediction on one screen, side by side, from the first layer to the last.
      await page.evaluate(() => document.getElementById('model-heads-title').scrollIntoView({ block: 'start' }));
      const table = page.locator('.model-predictions table');
      const inView = async (locator) => {
        const box = await locator.boundingBox();
        return box.y >= 0 && box.y + box.height <= 768 && box.x >= 0 && box.x + box.width <= 1024;
      };
      const firstOff = page.locator('.ablate-button[data-layer="0"][data-head="0"]');
      assert.ok(await inView(firstOff), 'the first switch is on screen');
      assert.ok(await inView(table), 'with the prediction');
      assert.ok((await table.boundingBox()).x > (await firstOff.boundingBox()).x + 150, 'beside the heads');
      const lastOff = page.locator('.ablate-button[data-layer="1"][data-head="3"]');
      await lastOff.scrollIntoViewIfNeeded();
      assert.ok(await inView(table), 'the prediction stays beside the last layer’s switches');
      const before = await lastOff.boundingBox();
      const n = await runs(page);
      await lastOff.click();
      await waitForRun(page, n);
      const after = await lastOff.boundingBox();
      assert.equal(
        after.x,
        before.x,
        'the heads keep their columns when a head goes off (the prediction’s is as wide)',
      );
      assert.ok(Math.abs(after.y - before.y) < 2, `the switch stays put: ${before.y} then ${after.y}`);
      assert.ok(await inView(table));
      assert.equal(await page.locator('.predictions-table thead th').nth(4).textContent(), 'all heads on');
      await page.screenshot({ path: `${ARTIFACTS}/real-model-1024x768-switches.png` });
    });
  });
});
