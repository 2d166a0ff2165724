// Page test (run by run.mjs): each tab of the real model's Investigate part downloads its figure as SVG (a rect per
// number the tab shows, parsed in the page) and PNG (kept in tests/artifacts/ to look at), on the shipped model.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { ARTIFACTS, withPage } from '../helpers.mjs';
import { openBuiltin } from './helpers.mjs';
import { env } from '../session.mjs';

const TABS = ['lens', 'attribution', 'patching', 'scores', 'loss'];

describe('real model: Investigate’s figures (issue 36 §2)', () => {
  test('each tab’s figure downloads as SVG (a rect per number shown, the tokens as text) and as PNG', async () => {
    await withPage(env, {}, async ({ page }) => {
      await openBuiltin(page);
      await page.waitForFunction(() => (document.body.dataset.invDrawn ?? '').startsWith('lens:'), null, {
        timeout: 60000,
      });
      for (const key of TABS) {
        await page.click(`#inv-tab-${key}`);
        if (key !== 'patching')
          await page.waitForFunction((k) => (document.body.dataset.invDrawn ?? '').startsWith(`${k}:`), key, {
            timeout: 60000,
          });
        if (key === 'patching') {
          await page.click('#inv-patch-run');
          await page.waitForFunction(() => Number(document.body.dataset.invSweeps ?? 0) > 0, null, { timeout: 60000 });
        }
        const shown = await page.$$eval(
          `#inv-panel-${key} :is(td.inv-cell, .inv-parts td, .inv-scores td, li.inv-loss-token)`,
          (cells) => cells.length,
        );
        const save = async (kind) => {
          const [file] = await Promise.all([
            page.waitForEvent('download'),
            page.click(`#inv-panel-${key} button[data-picture="${kind}"]`),
          ]);
          return { name: file.suggestedFilename(), bytes: readFileSync(await file.path()) };
        };
        const svg = await save('svg');
        const read = await page.evaluate((text) => {
          const root = new DOMParser().parseFromString(text, 'image/svg+xml').documentElement;
          return {
            root: root.localName,
            cells: root.querySelectorAll('rect.aw-cell').length,
            texts: Array.from(root.querySelectorAll('text'), (t) => t.textContent),
          };
        }, svg.bytes.toString('utf8'));
        assert.equal(svg.name, `${key === 'scores' ? 'head-scores' : key}.svg`);
        assert.equal(read.root, 'svg');
        assert.ok(shown > 0, `${key}: cells shown`);
        assert.equal(read.cells, shown, `${key}: one rect per number shown`);
        if (key === 'loss') assert.ok(read.texts.includes('ball'), 'the tokens');
        const png = await save('png');
        assert.deepEqual([...png.bytes.subarray(1, 4)], [0x50, 0x4e, 0x47], `${key}: a PNG file`);
        writeFileSync(`${ARTIFACTS}/real-model-investigate-${key}-export.png`, png.bytes);
      }
    });
  });
});
