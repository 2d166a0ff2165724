// Page test (run by run.mjs): the real model's next-token table at 390 px, light and dark. With heads switched off it
// has two more columns (all heads on, change): it fits the section and the page does not scroll sideways, and its
// numbers are still attention-wasm/model's. Screenshots: tests/artifacts/real-model-table-390-*.png.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel } from '../../../../src/js/model/index.node.js';
import { ARTIFACTS, withPage } from '../helpers.mjs';
import {
  INDUCTION,
  INDUCTION_HEADS,
  SENTENCE,
  assertPredictions,
  openBuiltin,
  readPredictions,
  runs,
  waitForRun,
} from './helpers.mjs';
import { env } from '../session.mjs';

describe('real model at 390 px: the next-token table', () => {
  for (const colorScheme of ['light', 'dark']) {
    test(`${colorScheme}: with the induction heads off, the table fits and nothing scrolls sideways`, async () => {
      const model = await loadModel(INDUCTION);
      const ablated = await model.run(SENTENCE, { topK: 10, ablate: INDUCTION_HEADS });
      await withPage(env, { viewport: { width: 390, height: 844 }, hasTouch: true }, async ({ page }) => {
        await page.emulateMedia({ colorScheme });
        await openBuiltin(page);
        for (const [l, h] of INDUCTION_HEADS) {
          const n = await runs(page);
          await page.click(`.ablate-button[data-layer="${l}"][data-head="${h}"]`);
          await waitForRun(page, n);
        }
        assertPredictions(await readPredictions(page), ablated.next, 'induction heads off, 390 px');
        const fit = await page.evaluate(() => {
          const table = document.querySelector('.predictions-table');
          const box = table.parentElement;
          const room = box.getBoundingClientRect();
          return {
            columns: table.querySelectorAll('thead th').length,
            table: Math.round(table.getBoundingClientRect().right),
            room: Math.round(room.right),
            scrolls: box.scrollWidth > box.clientWidth,
            page: document.documentElement.scrollWidth,
          };
        });
        assert.equal(fit.columns, 6, 'the compared table: #, token, id, p, all heads on, change');
        assert.ok(fit.table <= fit.room, `the table ends at ${fit.table} px, its box at ${fit.room}`);
        assert.equal(fit.scrolls, false, 'its box does not scroll sideways');
        assert.ok(fit.page <= 390, `the page is ${fit.page} px wide at 390`);
        await page
          .locator('.model-predictions')
          .screenshot({ path: `${ARTIFACTS}/real-model-table-390-${colorScheme}.png` });
      });
    });
  }
});
