// Page test (run by run.mjs): while the steps show a real model's head (its own W's, which no seed changes), the
// page makes no seed ahead (seedAhead.js): neither its worker nor its idle time works for a "New seed" that would
// leave the model's numbers (and "New seed" is off then). Once an example is chosen, the page's own layers make
// seeds ahead again.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { settle, withPage } from '../helpers.mjs';
import { openBuiltin } from './helpers.mjs';
import { env } from '../session.mjs';

const seedAhead = (page) => page.evaluate(() => document.documentElement.dataset.seedAhead);

describe('real model: no seed made ahead for its head', () => {
  test('a head of the induction model in the steps: seedAhead idle; New seed leaves it and seeds are made again', async () => {
    await withPage(env, {}, async ({ page }) => {
      await openBuiltin(page);
      const renders = await page.evaluate(() => Number(document.body.dataset.renders));
      await page.click('.head-button[data-layer="1"][data-head="1"]');
      await page.waitForFunction(
        (n) =>
          /L1H1 \(layer 1 head 1\) is in the steps/u.test(document.getElementById('model-walk').textContent) &&
          Number(document.body.dataset.renders) > n,
        renders,
      );
      await settle(page);
      // d_model 64, 4 heads of 16: 17 280 cells, over AHEAD_CELLS, so the page's own layer of that size makes seeds
      assert.equal(await seedAhead(page), 'idle', 'no seed is made ahead for the model head');
      await page.waitForTimeout(600); // longer than seedAhead's quiet time: still nothing started
      assert.equal(await seedAhead(page), 'idle');
      // New seed would leave the model's numbers: it is off while the steps show the model's head (the note says
      // why). An example, then a random layer of the model's size: its next seeds are made ahead again.
      assert.equal(await page.isDisabled('#new-seed'), true);
      await page.click('button[data-example="sentence"]');
      for (const [key, value] of [
        ['dModel', '64'],
        ['numHeads', '4'],
        ['dK', '16'],
        ['dV', '16'],
      ])
        await page.fill(`#size-${key}`, value);
      await page.waitForFunction(() => document.documentElement.dataset.seedAhead === 'ready', null, {
        timeout: 60000,
      });
    });
  });
});
