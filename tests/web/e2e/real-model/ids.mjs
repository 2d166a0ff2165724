// Page test (run by run.mjs): a BERT folder without tokenizer.json is no dead end. The ids field says so and takes
// [MASK] among the ids, with the id it stands for typed beside it (the page cannot read it from a vocabulary it does
// not have); a token clicked is masked with that id. Predictions checked against attention-wasm/model in Node.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { loadModel } from '../../../../src/js/model/index.node.js';
import { bertFixture } from '../../../js/model/fixtures.js';
import { ARTIFACTS, withPage } from '../helpers.mjs';
import {
  assertPredictions,
  dropAsFiles,
  openBuiltin,
  readPredictions,
  runs,
  topOfRow,
  waitForRun,
} from './helpers.mjs';
import { env } from '../session.mjs';

const MASK = 4; // the fixture's [MASK], as its vocabulary would have it: the reader types it

describe('real model: BERT without tokenizer.json, by ids', () => {
  test('[MASK] typed among the ids stands for the id typed beside them; a token clicked is masked with it', async () => {
    const { files } = bertFixture({ vocab: 19 });
    const model = await loadModel(files);
    const typed = await model.run({ ids: [2, 7, MASK, 9, 3] }, { topK: 10 });
    const clicked = await model.run({ ids: [2, MASK, 8, 9, 3] }, { topK: 10 });
    model.dispose();
    await withPage(env, {}, async ({ page }) => {
      await openBuiltin(page);
      const n = await runs(page);
      await dropAsFiles(page, files);
      await waitForRun(page, n);
      assert.ok(await page.isVisible('.model-ids'), 'the ids field is explained');
      assert.match(
        await page.textContent('.model-ids'),
        /no tokenizer\.json.*type token ids, whole numbers from 0 to 18.*Type \[MASK\] where/u,
      );
      assert.ok(await page.isVisible('#model-mask-id'));
      assert.equal(await page.inputValue('#model-mask-id'), '', 'a vocabulary of 19 tokens: its [MASK] is not known');
      let m = await runs(page);
      await page.fill('#model-mask-id', String(MASK));
      await waitForRun(page, m);
      m = await runs(page);
      await page.fill('#model-text', '2 7 [MASK] 9 3');
      await waitForRun(page, m);
      assert.deepEqual(await page.$$eval('.model-tokens li', (items) => items.map((li) => Number(li.dataset.id))), [
        2,
        7,
        MASK,
        9,
        3,
      ]);
      assertPredictions(await readPredictions(page), topOfRow(typed.logits, 2), '[MASK] typed');
      m = await runs(page);
      await page.fill('#model-text', '2 7 8 9 3');
      await waitForRun(page, m);
      m = await runs(page);
      await page.click('.token-chip[data-index="1"]');
      await waitForRun(page, m);
      assert.equal(await page.getAttribute('.token-chip[data-index="1"]', 'aria-pressed'), 'true');
      assertPredictions(await readPredictions(page), topOfRow(clicked.logits, 1), 'token 2 clicked');
      await page.locator('.model-work').screenshot({ path: `${ARTIFACTS}/real-model-bert-ids.png` });
    });
  });
});
