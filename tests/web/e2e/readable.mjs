// Page tests (run by run.mjs): what a student reading by keyboard, phone or screen reader meets in the steps
// (issue 27): a large heatmap's block of numbers opens and closes without an error, every heatmap has token labels
// and a keyboard readout, the examples bring their lesson into view.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { afterChange, scrollSteady, settle, withPage } from './helpers.mjs';
import { env } from './session.mjs';

const WORDS = Array.from({ length: 64 }, (_, i) => `w${i}`).join('+');

/** Two animation frames: what a ResizeObserver needs to report a box that changed. */
const frames = (page) =>
  page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));

describe('readable heatmaps', () => {
  test("closing a large heatmap's block of numbers (Escape, or Hide the numbers) throws nothing", async () => {
    await withPage(env, { hash: `#s=${WORDS}&n=64&dm=64&dk=8&dv=8&h=12` }, async ({ page, problems }) => {
      const canvas = '[data-matrix="weights"] .cm-canvas';
      const zoomCells = '[data-matrix="weights-zoom"] .c';
      await scrollSteady(page, canvas);
      await page.focus(canvas);
      await page.keyboard.press('Enter');
      await page.waitForSelector(zoomCells);
      await page.keyboard.press('Escape');
      await page.waitForSelector(zoomCells, { state: 'detached' });
      await frames(page);
      assert.deepEqual(problems.pageErrors, [], 'Escape');
      await page.click(canvas, { position: { x: 5, y: 5 } });
      await page.waitForSelector(zoomCells);
      await page.click('[data-matrix="weights"] .cm-close');
      await page.waitForSelector(zoomCells, { state: 'detached' });
      await frames(page);
      assert.deepEqual(problems.pageErrors, [], 'Hide the numbers');
      // The readout still reads the heatmap after the block closed, and a new block opens.
      await page.focus(canvas);
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await page.waitForSelector(zoomCells);
      await settle(page);
      assert.equal(await page.locator(zoomCells).count(), 16 * 16);
    });
  });
});
