// Page test (run by run.mjs): on the shipped model, a head of the Patching tab's head-outputs grid opens in the walk
// as the Attribution tab's heads do, by a click and by the keyboard (Enter, Space on the focused head); the
// Attribution tab's headings ("Heads", "The other parts") are hidden with the cleared grid while a typed target is no
// token, and come back with the next numbers. Screenshots in tests/artifacts/.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ARTIFACTS, withPage } from '../helpers.mjs';
import { openBuiltin, walkShows } from './helpers.mjs';
import { env } from '../session.mjs';

const HEADS = '#inv-panel-patching .inv-grid-wrap >> nth=1';

/** Head `head` of layer `layer` in the patching tab's head-outputs grid: its button. */
const headButton = (page, layer, head) =>
  page.locator(HEADS).locator(`tbody tr:nth-child(${layer + 1}) td:nth-of-type(${head + 1}) button`);

/** The walk's line: which head it opened. */
const walkLine = (page) => page.textContent('#model-walk');

describe('real model: Investigate’s heads (issue 36 follow-up)', () => {
  test('patching’s head outputs open a head in the walk, by click and keyboard', async () => {
    await withPage(env, {}, async ({ page }) => {
      await openBuiltin(page);
      await page.click('#inv-tab-patching');
      assert.match(
        await page.textContent('#inv-panel-patching .inv-patching > p.hint'),
        /Click a head of the head outputs to open it in the steps\./u,
      );
      const sweeps = await page.evaluate(() => Number(document.body.dataset.invSweeps ?? 0));
      await page.click('#inv-patch-run');
      await page.waitForFunction((s) => Number(document.body.dataset.invSweeps ?? 0) > s, sweeps, { timeout: 60000 });
      assert.equal(await page.locator(HEADS).locator('tbody button').count(), 8, '2 layers × 4 heads, each a button');
      assert.match(
        await headButton(page, 0, 2).getAttribute('aria-label'),
        /^L0H2: restores 0\.\d\d; open it in the steps$/u,
      );
      await page.locator('.investigate').screenshot({ path: `${ARTIFACTS}/real-model-investigate-patching-heads.png` });
      // A click: L0H2, the previous-token head that restores the most.
      await headButton(page, 0, 2).click();
      await walkShows(page, 'L0H2 (layer 0 head 2) is in the steps below');
      // The keyboard: Enter on L1H3, Space on L1H0 (the grid stays drawn while the walk opens a head).
      await headButton(page, 1, 3).focus();
      await page.keyboard.press('Enter');
      await walkShows(page, 'L1H3 (layer 1 head 3) is in the steps below');
      assert.doesNotMatch(await walkLine(page), /L0H2/u);
      await headButton(page, 1, 0).focus();
      await page.keyboard.press('Space');
      await walkShows(page, 'L1H0 (layer 1 head 0) is in the steps below');
    });
  });

  test('attribution’s headings go with the grid while the typed target is no token, and come back', async () => {
    await withPage(env, {}, async ({ page }) => {
      await openBuiltin(page);
      const drawn = () => page.evaluate(() => document.body.dataset.invDrawn ?? '');
      const redrawn = async (change) => {
        const before = await drawn();
        await change();
        await page.waitForFunction(
          (b) => document.body.dataset.invDrawn !== b && document.body.dataset.invDrawn.startsWith('attribution:'),
          before,
          { timeout: 60000 },
        );
      };
      await redrawn(() => page.click('#inv-tab-attribution'));
      const headings = page.locator('#inv-panel-attribution h5');
      assert.deepEqual(await headings.allTextContents(), ['Heads', 'The other parts']);
      assert.equal(await headings.first().isVisible(), true, 'the headings over the numbers');
      assert.equal(await page.locator('#inv-panel-attribution .inv-grid tbody td').count(), 8);
      await redrawn(async () => {
        await page.fill('#inv-attr-a', 'zebraqq');
        await page.dispatchEvent('#inv-attr-a', 'change');
      });
      assert.match(await page.textContent('.inv-attribution [role="status"]'), /^Token a: /u);
      assert.equal(await page.locator('#inv-panel-attribution .inv-grid tbody td').count(), 0, 'the grid cleared');
      for (const h of await headings.all()) assert.equal(await h.isVisible(), false, 'no heading over nothing');
      await page
        .locator('.investigate')
        .screenshot({ path: `${ARTIFACTS}/real-model-investigate-attribution-no-token.png` });
      await redrawn(async () => {
        await page.fill('#inv-attr-a', 'ball');
        await page.dispatchEvent('#inv-attr-a', 'change');
      });
      assert.match(await page.textContent('.inv-attribution [role="status"]'), /“ball”/u);
      assert.equal(await page.locator('#inv-panel-attribution .inv-grid tbody td').count(), 8);
      for (const h of await headings.all()) assert.equal(await h.isVisible(), true, 'the headings back');
    });
  });
});
