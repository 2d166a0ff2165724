// Page tests (run by run.mjs): what a student reading by keyboard, phone or screen reader meets in the steps
// (issue 27): a large heatmap's block of numbers opens and closes without an error, every heatmap has token labels
// and a keyboard readout, the examples bring their lesson into view.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ARTIFACTS, afterChange, scrollSteady, settle, withPage } from './helpers.mjs';
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

/**
 * Waits until the step's top stays at the top of the screen (below its scroll margin); returns how far it is from
 * there, what holds the focus and whether the settings are open.
 */
async function landed(page, id) {
  const where = () =>
    page.evaluate((sectionId) => {
      const section = document.getElementById(sectionId);
      const margin = parseFloat(getComputedStyle(section).scrollMarginTop);
      return {
        top: Math.round(section.getBoundingClientRect().top - margin) + 0, // not -0
        focused: document.activeElement.id,
        settings: document.getElementById('settings-toggle').getAttribute('aria-expanded'),
      };
    }, id);
  for (let tries = 0; tries < 50 && Math.abs((await where()).top) > 1; tries++) await frames(page);
  await frames(page);
  return where();
}

describe('examples take you to their lesson', () => {
  test('on a phone, "KV cache" folds the settings and brings step 10 to the top, its heading focused', async () => {
    await withPage(env, { viewport: { width: 390, height: 844 } }, async ({ page }) => {
      assert.equal(await page.getAttribute('#settings-toggle', 'aria-expanded'), 'true');
      await afterChange(page, () => page.click('button[data-example="kv"]'));
      assert.deepEqual(await landed(page, 'step-kv'), { top: 0, focused: 'h-kv', settings: 'false' });
      await page.screenshot({ path: `${ARTIFACTS}/example-lesson-kv-390.png` });
    });
  });

  test('at 1280 px each lesson example brings its step into view; the others stay; "Go to step" comes back', async () => {
    await withPage(env, { viewport: { width: 1280, height: 800 } }, async ({ page }) => {
      for (const [example, id] of [
        ['gqa', 'step-gqa'],
        ['order', 'step-order'],
        ['heads', 'step-heads'],
      ]) {
        await page.evaluate(() => window.scrollTo(0, 0));
        await afterChange(page, () => page.click(`button[data-example="${example}"]`));
        const at = await landed(page, id);
        assert.equal(at.top, 0, example);
      }
      await page.evaluate(() => window.scrollTo(0, 0));
      await afterChange(page, () => page.click('button[data-example="sentence"]'));
      await frames(page);
      assert.equal(await page.evaluate(() => window.scrollY), 0, 'an example without a lesson stays');
      assert.equal(await page.isVisible('#example-lesson'), false);
      await afterChange(page, () => page.click('button[data-example="kv"]'));
      await landed(page, 'step-kv');
      await page.evaluate(() => window.scrollTo(0, 0));
      assert.equal(await page.textContent('#example-lesson'), 'Go to step 10 ↓');
      await page.click('#example-lesson');
      assert.equal((await landed(page, 'step-kv')).top, 0);
    });
  });
});
