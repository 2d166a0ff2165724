// Page tests (run by run.mjs): bad input, and sharing (permalinks, copying, downloads).
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { describe, test } from 'node:test';
import { parseMatrix } from '../../../web/src/shared/parse.js';
import { ARTIFACTS, afterChange, readMatrix, typeInCell, withPage } from './helpers.mjs';
import { env, expectMatchesLibrary, libraryResult } from './session.mjs';

describe('bad input never breaks the page', () => {
  test('a word in a cell: inline message, last good result kept, fixed by a number', async () => {
    await withPage(env, {}, async ({ page }) => {
      const before = await readMatrix(page, 'output');
      const renders = await page.evaluate(() => document.body.dataset.renders);
      await typeInCell(page, 'x', 1, 2, 'abc');
      const error = page.locator('[data-matrix="x"] .inline-error');
      assert.ok(await error.isVisible());
      assert.match(await error.textContent(), /X, row “flies”, column 2: “abc” is not a number/);
      assert.equal(await page.evaluate(() => document.body.dataset.renders), renders);
      assert.deepEqual((await readMatrix(page, 'output')).cells, before.cells);
      assert.equal((await readMatrix(page, 'x')).cells[1][2], 'abc');
      await afterChange(page, () => typeInCell(page, 'x', 1, 2, '1'));
      assert.ok(!(await error.isVisible()));
      assert.notDeepEqual((await readMatrix(page, 'output')).cells, before.cells);
      await expectMatchesLibrary(page, {});
    });
  });

  test('sizes over the limit, a ragged paste and an empty sentence get messages at their place', async () => {
    await withPage(env, {}, async ({ page }) => {
      await page.fill('#size-n', '300');
      assert.match(await page.textContent('#sizes-error'), /n must be a whole number from 1 to 256/);
      assert.equal(await page.getAttribute('#size-n', 'aria-invalid'), 'true');
      await page.fill('#size-numHeads', '9');
      await page.fill('#size-dK', '128');
      assert.match(await page.textContent('#sizes-error'), /heads × d_k is 1152, over 1024/);
      assert.equal((await readMatrix(page, 'x')).shape, '[5, 8]');
      await page.fill('#size-dK', '4');
      await afterChange(page, () => page.fill('#size-n', '4'));
      assert.ok(!(await page.isVisible('#sizes-error')));
      assert.equal((await readMatrix(page, 'x')).shape, '[4, 8]');

      await page.click('#paste-box summary');
      await page.fill('#paste-text', '[[1, 2, 3],\n [4, 5]]');
      await page.click('#paste-apply');
      assert.match(await page.textContent('#paste-error'), /row 2 has 2 values but row 1 has 3.*Nothing was changed/);
      await page.selectOption('#paste-target', 'wq');
      await page.fill('#paste-text', '1 2\n3 4');
      await page.click('#paste-apply');
      assert.match(await page.textContent('#paste-error'), /W_q needs d_model = 8 rows/);
      await page.selectOption('#paste-target', 'x');
      await afterChange(page, () => page.click('#paste-apply'));
      assert.ok(!(await page.isVisible('#paste-error')));
      assert.equal((await readMatrix(page, 'x')).shape, '[2, 2]');

      await page.fill('#sentence', '   ');
      assert.match(await page.textContent('#sentence-error'), /at least one word/);
      await afterChange(page, () => page.fill('#sentence', 'one two three'));
      assert.ok(!(await page.isVisible('#sentence-error')));
      assert.deepEqual((await readMatrix(page, 'x')).rowLabels, ['one', 'two', 'three']);
      await page.fill('#seed', '-5');
      assert.match(await page.textContent('#seed-error'), /whole number from 0/);
      await afterChange(page, () => page.fill('#seed', '5'));
      await expectMatchesLibrary(page, {});
    });
  });
});

describe('sharing', () => {
  test('a permalink restores the whole state', async () => {
    let link;
    const shown = {};
    await withPage(env, {}, async ({ page }) => {
      await afterChange(page, () => page.fill('#sentence', 'the cat sat on the mat'));
      await afterChange(page, () => page.fill('#seed', '1234'));
      await afterChange(page, () => page.check('#dist[value="uniform"], input[name="dist"][value="uniform"]'));
      await afterChange(page, () => page.check('#causal'));
      await afterChange(page, () => page.fill('#temperature', '0.5'));
      await afterChange(page, () => page.selectOption('#precision', '4'));
      await afterChange(page, () => typeInCell(page, 'wv', 2, 1, '-0.125'));
      await afterChange(page, () => page.click('[data-matrix="mask"] .c[data-i="4"][data-j="0"]'));
      await page.click('#copy-link');
      await page.waitForFunction(() => location.hash.includes('mask='));
      link = await page.evaluate(() => location.href);
      assert.equal(await page.evaluate(() => navigator.clipboard.readText()), link);
      for (const name of ['x', 'wv', 'weights', 'output', 'mask']) shown[name] = await readMatrix(page, name);
    });

    await withPage(env, { hash: new URL(link).hash }, async ({ page: p2 }) => {
      for (const name of Object.keys(shown)) assert.deepEqual(await readMatrix(p2, name), shown[name], name);
      assert.equal(await p2.inputValue('#sentence'), 'the cat sat on the mat');
      assert.equal(await p2.inputValue('#seed'), '1234');
      assert.ok(await p2.isChecked('input[name="dist"][value="uniform"]'));
      assert.ok(await p2.isChecked('#causal'));
      assert.equal(await p2.inputValue('#temperature'), '0.5');
      assert.equal(await p2.inputValue('#precision'), '4');
      assert.equal((await readMatrix(p2, 'wv')).cells[2][1], '-0.1250');
      assert.ok(!(await p2.isVisible('#link-warning')));
      await afterChange(p2, () =>
        p2.evaluate(() => {
          location.hash = '#s=one+two+three&causal=0';
        }),
      );
      assert.deepEqual((await readMatrix(p2, 'x')).rowLabels, ['one', 'two', 'three']);
      assert.ok(!(await p2.isChecked('#causal')));
    });
  });

  test('copy as NumPy gives the exact float32 values', async () => {
    await withPage(env, {}, async ({ page }) => {
      await page.click('[data-matrix="weights"] button[aria-label="Copy attention weights as NumPy"]');
      await page.waitForFunction(
        () => document.querySelector('[data-matrix="weights"] .copy-status').textContent !== '',
      );
      const text = await page.evaluate(() => navigator.clipboard.readText());
      assert.match(text, /^np\.array\(\[\[/);
      const copied = parseMatrix(text);
      const result = await libraryResult(page, {});
      assert.deepEqual(copied.flat().map(Math.fround), Array.from(result.weights.data));
      await page.click('[data-matrix="x"] button[aria-label="Copy X as CSV"]');
      await page.waitForFunction(() =>
        document.querySelector('[data-matrix="x"] .copy-status').textContent.includes('CSV'),
      );
      // Row 0 of X is E[“time”], the embedding table's row for that token (before: row 0 of a by-row matrix).
      assert.equal(
        (await page.evaluate(() => navigator.clipboard.readText())).split('\n')[0],
        '0.57,0.25,-0.65,-0.51,2.07,0.16,-0.54,0.07',
      );
    });
  });

  test('the weights heatmap downloads as a PNG', async () => {
    await withPage(env, {}, async ({ page }) => {
      const [download] = await Promise.all([page.waitForEvent('download'), page.click('#download-png')]);
      assert.equal(download.suggestedFilename(), 'attention-weights.png');
      const path = `${ARTIFACTS}/attention-weights.png`;
      await download.saveAs(path);
      const bytes = readFileSync(path);
      assert.deepEqual([...bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
      assert.ok(statSync(path).size > 2000);
    });
  });
});
