// Page tests (run by run.mjs): the shortcuts that make a large layer quick give the numbers the slow way gives.
// "New seed" on a GPT-2-sized layer takes matrices a worker made ahead (seedAhead.js); a page opened with that
// seed makes its own on the main thread. Nothing here is timed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { afterChange, settle, withPage } from './helpers.mjs';
import { env } from './session.mjs';
import { allCopied } from './copied.mjs';

const WORDS = Array.from({ length: 64 }, (_, i) => `w${i}`).join('+');
const GPT2 = `#s=${WORDS}&n=64&dm=768&dk=64&dv=64&h=12`;

const NAMES = ['x', 'wq', 'wk', 'wv', 'wo', 'weights', 'layerOutput'];

describe('a large layer, quickly', () => {
  test('a new seed made ahead in a worker shows the numbers the page makes itself for that seed', async () => {
    let seed;
    let ahead;
    await withPage(env, { hash: GPT2 }, async ({ page }) => {
      await page.waitForFunction(() => document.documentElement.dataset.seedAhead === 'ready');
      // A word typed: X is made again ahead (W_q, W_k, W_v and W_o, which do not depend on it, are kept).
      await page.focus('#sentence');
      await page.keyboard.press('End');
      await afterChange(page, () => page.keyboard.press('z'));
      await page.waitForFunction(() => document.documentElement.dataset.seedAhead === 'ready');
      const before = await page.inputValue('#seed');
      await afterChange(page, () => page.click('#new-seed'));
      seed = await page.inputValue('#seed');
      assert.notEqual(seed, before, 'a new seed is shown');
      await settle(page);
      ahead = await allCopied(page, NAMES);
    });
    await withPage(env, { hash: `${GPT2.replace('w63&', 'w63z&')}&seed=${seed}` }, async ({ page }) => {
      const own = await allCopied(page, NAMES);
      for (const name of NAMES) {
        assert.equal(ahead[name].length > 100, true, `${name} was copied`);
        assert.equal(ahead[name], own[name], `${name}: the worker's numbers are the page's own`);
      }
    });
  });

  test("the heads' heatmaps, painted only near the screen, show the latest change when scrolled in", async () => {
    await withPage(env, { hash: GPT2 }, async ({ page }) => {
      await page.evaluate(() => window.scrollTo(0, 0));
      // The causal mask is switched on while the heads' heatmaps are far below the screen.
      await afterChange(page, () => page.click('#causal'));
      await page.evaluate(() => document.getElementById('mount-heads').scrollIntoView());
      await settle(page);
      const corners = await page.evaluate(() =>
        [...document.querySelectorAll('#mount-heads .heatmap-canvas')].map((canvas) => {
          // Read through a copy made for reading (the page's own canvas is never read back).
          const copy = document.createElement('canvas');
          copy.width = canvas.width;
          copy.height = canvas.height;
          const ctx = copy.getContext('2d', { willReadFrequently: true });
          ctx.drawImage(canvas, 0, 0);
          const pixel = (x, y) => [...ctx.getImageData(x, y, 1, 1).data.slice(0, 3)];
          const w = canvas.width;
          return {
            above: pixel(Math.floor(w * 0.9), Math.floor(w * 0.1)),
            below: pixel(Math.floor(w * 0.1), Math.floor(w * 0.9)),
          };
        }),
      );
      assert.equal(corners.length, 13, '12 heads and their average');
      for (const [k, { above, below }] of corners.entries()) {
        // Above the diagonal the causal mask blocks: grey (hatched) cells; below, viridis colours.
        assert.ok(
          Math.abs(above[0] - above[1]) < 40 && above[0] > 120,
          `map ${k}: masked cells above the diagonal, got ${above}`,
        );
        assert.ok(below[2] > below[1] || below[0] < 100, `map ${k}: weights below the diagonal, got ${below}`);
      }
    });
  });
});
