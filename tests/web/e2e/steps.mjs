// Page tests (run by run.mjs): the default example, editing, and masks, scaling and heads.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { afterChange, assertShown, hoverSteady, readMatrix, readNumbers, typeInCell, withPage } from './helpers.mjs';
import { PRECISION, attn, env, expectMatchesLibrary, toRows } from './session.mjs';

describe('the default example', () => {
  test("shows the library's numbers for every step, with token labels", async () => {
    await withPage(env, {}, async ({ page }) => {
      const x = await readMatrix(page, 'x');
      assert.deepEqual(x.rowLabels, ['time', 'flies', 'like', 'an', 'arrow']);
      assert.equal(x.shape, '[5, 8]');
      assert.deepEqual((await readMatrix(page, 'weights')).colLabels, ['time', 'flies', 'like', 'an', 'arrow']);
      assert.equal((await readMatrix(page, 'q')).shape, '[5, 4]');
      await expectMatchesLibrary(page, {});
      assert.match(await page.textContent('#status'), /SIMD/);
      assert.match(await page.textContent('#status'), /last update \d/);
      assert.match(await page.textContent('#scale-text'), /√4 = 2/);
    });
  });

  test('the 2×2 worked example gives [[1.6604769, 2.6604769], [2.3395231, 3.3395231]]', async () => {
    await withPage(env, {}, async ({ page }) => {
      await afterChange(page, () => page.click('button[data-example="worked"]'));
      const output = await readMatrix(page, 'output');
      assert.deepEqual(output.cells, [
        ['1.660477', '2.660477'],
        ['2.339523', '3.339523'],
      ]);
      assert.deepEqual((await readMatrix(page, 'rawScores')).cells, [
        ['1.000000', '0.000000'],
        ['0.000000', '1.000000'],
      ]);
      assert.match(await page.textContent('#example-about'), /1\.6604769/);
    });
  });
});

describe('editing', () => {
  test('typing into a cell of X changes the output', async () => {
    await withPage(env, {}, async ({ page }) => {
      const before = await readMatrix(page, 'output');
      await afterChange(page, () => typeInCell(page, 'x', 0, 0, '2.5'));
      assert.equal((await readMatrix(page, 'x')).cells[0][0], '2.500');
      const afterEdit = await readMatrix(page, 'output');
      assert.notDeepEqual(afterEdit.cells, before.cells);
      await expectMatchesLibrary(page, {});
    });
  });

  test('the keyboard reaches a grid, moves in it and edits, with a visible focus', async () => {
    await withPage(env, {}, async ({ page }) => {
      await page.focus('#precision');
      const onGrid = () => page.evaluate(() => document.activeElement?.matches('[data-matrix="x"] .matrix-scroll'));
      for (let i = 0; i < 10 && !(await onGrid()); i++) await page.keyboard.press('Tab');
      assert.ok(await onGrid(), 'Tab reaches the X grid');
      const outline = await page.evaluate(() => getComputedStyle(document.activeElement).outlineStyle);
      assert.equal(outline, 'solid');
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowRight');
      await afterChange(page, async () => {
        await page.keyboard.press('Enter');
        await page.keyboard.type('7');
        await page.keyboard.press('Enter');
      });
      assert.equal((await readMatrix(page, 'x')).cells[1][1], '7.000');
      assert.ok(await onGrid(), 'focus returns to the grid');
    });
  });

  test('a pasted NumPy print-out becomes X and sets n and d_model', async () => {
    await withPage(env, {}, async ({ page }) => {
      await page.click('#paste-box summary');
      await page.selectOption('#paste-target', 'x');
      await page.fill(
        '#paste-text',
        '[[ 1.0e+00  0.0e+00  5.0e-01]\n [ 0.0e+00  1.0e+00 -5.0e-01]\n [ 2.0e-01  3.0e-01  4.0e-01]]',
      );
      await afterChange(page, () => page.click('#paste-apply'));
      const x = await readMatrix(page, 'x');
      assert.equal(x.shape, '[3, 3]');
      assert.deepEqual(x.cells, [
        ['1.000', '0.000', '0.500'],
        ['0.000', '1.000', '-0.500'],
        ['0.200', '0.300', '0.400'],
      ]);
      assert.equal(await page.inputValue('#size-n'), '3');
      assert.equal(await page.inputValue('#size-dModel'), '3');
      assert.match(await page.textContent('#paste-done'), /3×3/);
      await expectMatchesLibrary(page, {});
    });
  });
});

describe('masks, scaling and heads', () => {
  test('causal: weights above the diagonal are 0 and rows sum to 1; a clicked cell blocks one more', async () => {
    await withPage(env, {}, async ({ page }) => {
      await afterChange(page, () => page.check('#causal'));
      let weights = await readNumbers(page, 'weights');
      weights.forEach((row, i) => {
        row.forEach((w, j) => {
          if (j > i) assert.equal(w, 0, `weight[${i}][${j}]`);
        });
        assert.ok(Math.abs(row.reduce((a, b) => a + b, 0) - 1) < 0.003);
      });
      const mask = await readMatrix(page, 'mask');
      assert.equal(mask.cells[0][1], '-∞');
      assert.equal(mask.cells[1][0], '0');
      await expectMatchesLibrary(page, { causal: true });
      await afterChange(page, () => page.click('[data-matrix="mask"] .c[data-i="3"][data-j="1"]'));
      weights = await readNumbers(page, 'weights');
      assert.equal(weights[3][1], 0);
      assert.equal((await readMatrix(page, 'scores')).cells[3][1], '-∞');
      const blocked = [
        [true, true, true, true, true],
        [true, true, true, true, true],
        [true, true, true, true, true],
        [true, false, true, true, true],
        [true, true, true, true, true],
      ];
      await expectMatchesLibrary(page, { causal: true, mask: blocked });
    });
  });

  test('scaling off and a temperature pass scale = 1/T, and the page says so', async () => {
    await withPage(env, {}, async ({ page }) => {
      await afterChange(page, () => page.uncheck('#scaling'));
      assert.equal(await page.textContent('#scale-title'), 'Scale: off');
      assert.deepEqual((await readMatrix(page, 'scaledScores')).cells, (await readMatrix(page, 'rawScores')).cells);
      await afterChange(page, () => page.fill('#temperature', '2'));
      assert.equal(await page.textContent('#scale-title'), 'Scale: ÷ T');
      await expectMatchesLibrary(page, { scale: 0.5 });
      await afterChange(page, () => page.check('#scaling'));
      await expectMatchesLibrary(page, { scale: 1 / (2 * 2) });
    });
  });

  test('four heads: a heatmap per head and their average; the chosen head is followed through the steps', async () => {
    await withPage(env, {}, async ({ page }) => {
      await afterChange(page, () => page.click('button[data-example="heads"]'));
      assert.equal(await page.locator('#mount-heads .head-figure canvas').count(), 5);
      await afterChange(page, () => page.selectOption('#head', '2'));
      assert.match((await readMatrix(page, 'q')).title, /head 2 of 4/);
      assert.equal(await page.getAttribute('#mount-heads figure:nth-child(3) button', 'aria-pressed'), 'true');
      const x = await readNumbers(page, 'x');
      const [wq, wk, wv] = [
        await readNumbers(page, 'wq'),
        await readNumbers(page, 'wk'),
        await readNumbers(page, 'wv'),
      ];
      const single = attn.selfAttention(x, { wq, wk, wv });
      assertShown(await readNumbers(page, 'weights'), toRows(single.weights), PRECISION, 'head 2 weights');
      assert.equal((await readMatrix(page, 'concat')).shape, '[5, 16]');
    });
  });

  test('hovering an output row highlights its weights and the values that made it', async () => {
    await withPage(env, {}, async ({ page }) => {
      await hoverSteady(page, '[data-matrix="output"] .c[data-i="2"][data-j="1"]');
      assert.match(await page.textContent('#output-explain'), /output\(“like”\) = \d\.\d\d × v\(“/);
      assert.equal(await page.locator('[data-matrix="weights"] .gr.hl-row').count(), 1);
      assert.equal(await page.getAttribute('[data-matrix="weights"] .gr.hl-row .c', 'data-i'), '2');
      assert.equal(await page.locator('[data-matrix="vOut"] .rh[data-weight]').count(), 5);
      assert.ok(await page.isVisible('.tooltip'));
      assert.match(await page.textContent('.tooltip'), /output of “like”, dimension 1/);
      await hoverSteady(page, '[data-matrix="weights"] .c[data-i="0"][data-j="4"]');
      assert.match(await page.textContent('.tooltip'), /query “time” → key “arrow”/);
    });
  });
});
