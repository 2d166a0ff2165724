// Page tests (run by run.mjs): a change draws in its own frame only what is near the screen. The matrices further
// down wait for the browser to be idle (renderScheduler.js), at every size; once it was, they show the change.
// A keyboard edit gives the focus back to the grid without a tooltip of the value from before the edit.
// Nothing here is timed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readNumbers, settle, withPage } from './helpers.mjs';
import { env } from './session.mjs';

/**
 * Clicks "New seed" in the page and reads, in the render that shows the new seed (a MutationObserver on the body's
 * data-renders: its callback runs as soon as that render returns, before any idle time), the grids still waiting to
 * draw and the first cell of `names`.
 */
const clickAndReadAtRender = (page, names) =>
  page.evaluate(
    (matrices) =>
      new Promise((resolve) => {
        const renders = document.body.dataset.renders;
        new MutationObserver((_, observer) => {
          if (document.body.dataset.renders === renders) return;
          observer.disconnect();
          const first = (name) => document.querySelector(`[data-matrix="${name}"] .gwin .c`).firstChild.nodeValue;
          resolve({
            pending: Number(document.documentElement.dataset.pendingGrids),
            cells: Object.fromEntries(matrices.map((name) => [name, first(name)])),
          });
        }).observe(document.body, { attributes: true, attributeFilter: ['data-renders'] });
        document.getElementById('new-seed').click();
      }),
    names,
  );

describe('drawing near the screen first', () => {
  test('a new seed at the default size draws X in its frame, and the layer output further down when idle', async () => {
    await withPage(env, {}, async ({ page }) => {
      await page.evaluate(() => window.scrollTo(0, 0));
      await settle(page);
      const x = await readNumbers(page, 'x');
      const layerOutput = await readNumbers(page, 'layerOutput');
      const atRender = await clickAndReadAtRender(page, ['x', 'layerOutput']);
      assert.ok(atRender.pending > 0, `matrices away from the screen wait (pending grids: ${atRender.pending})`);
      assert.notEqual(Number(atRender.cells.x), x[0][0], 'X, on screen, shows the new seed in the same frame');
      assert.equal(Number(atRender.cells.layerOutput), layerOutput[0][0], 'the layer output, far below, waits');
      await settle(page);
      const after = await readNumbers(page, 'layerOutput');
      assert.notDeepEqual(after, layerOutput, 'once idle, the layer output shows the new seed');
      assert.equal(after[0].length, layerOutput[0].length);
    });
  });

  test('a keyboard edit gives the focus back to the grid without the tooltip of the old value', async () => {
    await withPage(env, {}, async ({ page }) => {
      await page.evaluate(() => window.scrollTo(0, 0));
      const grid = page.locator('[data-matrix="x"] .matrix-scroll');
      await grid.focus();
      await page.keyboard.press('Enter'); // opens the editor on the active cell, (0, 0)
      const editor = page.locator('[data-matrix="x"] .cell-editor');
      await editor.fill('0.125');
      const before = await page.evaluate(() => Number(document.body.dataset.renders));
      await editor.press('Enter');
      await page.waitForFunction((n) => Number(document.body.dataset.renders) > n, before);
      await settle(page);
      assert.equal(
        await page.evaluate(() => document.activeElement.closest('[data-matrix]')?.dataset.matrix),
        'x',
        'the focus is back on X',
      );
      assert.equal(await page.isVisible('.tooltip'), false, 'no tooltip describes the value from before the edit');
      assert.equal((await readNumbers(page, 'x'))[0][0], 0.125);
    });
  });
});
