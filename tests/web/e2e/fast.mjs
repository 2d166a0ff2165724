// Page tests (run by run.mjs): the shortcuts that make a large layer quick give the numbers the slow way gives.
// "New seed" on a GPT-2-sized layer takes matrices a worker made ahead (seedAhead.js); a page opened with that
// seed makes its own on the main thread. Nothing here is timed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { afterChange, settle, withPage } from './helpers.mjs';
import { env } from './session.mjs';

const WORDS = Array.from({ length: 64 }, (_, i) => `w${i}`).join('+');
const GPT2 = `#s=${WORDS}&n=64&dm=768&dk=64&dv=64&h=12`;

/** The exact numbers a grid shows, through its "copy as JSON" button (float32, shortest round trip). */
async function copied(page, name) {
  const grid = page.locator(`[data-matrix="${name}"]`);
  await grid.evaluate((node) => {
    node.querySelector('.copy-status').textContent = '';
  });
  await grid.locator('.copy-button', { hasText: 'JSON' }).first().click();
  await page.waitForFunction(
    (matrix) => document.querySelector(`[data-matrix="${matrix}"] .copy-status`).textContent !== '',
    name,
  );
  return page.evaluate(() => navigator.clipboard.readText());
}

const NAMES = ['x', 'wq', 'wk', 'wv', 'wo', 'weights', 'layerOutput'];

async function allCopied(page) {
  const texts = {};
  for (const name of NAMES) texts[name] = await copied(page, name);
  return texts;
}

describe('a large layer, quickly', () => {
  test('a new seed made ahead in a worker shows the numbers the page makes itself for that seed', async () => {
    let seed;
    let ahead;
    await withPage(env, { hash: GPT2 }, async ({ page }) => {
      await page.waitForFunction(() => document.documentElement.dataset.seedAhead === 'ready', null, {
        timeout: 30000,
      });
      // A word typed: X is made again ahead (W_q, W_k, W_v and W_o, which do not depend on it, are kept).
      await page.focus('#sentence');
      await page.keyboard.press('End');
      await afterChange(page, () => page.keyboard.press('z'));
      await page.waitForFunction(() => document.documentElement.dataset.seedAhead === 'ready', null, {
        timeout: 30000,
      });
      const before = await page.inputValue('#seed');
      await afterChange(page, () => page.click('#new-seed'));
      seed = await page.inputValue('#seed');
      assert.notEqual(seed, before, 'a new seed is shown');
      await settle(page);
      ahead = await allCopied(page);
    });
    await withPage(env, { hash: `${GPT2.replace('w63&', 'w63z&')}&seed=${seed}` }, async ({ page }) => {
      const own = await allCopied(page);
      for (const name of NAMES) {
        assert.equal(ahead[name].length > 100, true, `${name} was copied`);
        assert.equal(ahead[name], own[name], `${name}: the worker's numbers are the page's own`);
      }
    });
  });
});
