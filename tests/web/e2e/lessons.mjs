// Page tests (run by run.mjs): the lessons, each checked against a float64 reference computed here.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ARTIFACTS, afterChange, assertShown, readMatrix, readNumbers, typeInCell, withPage } from './helpers.mjs';
import { attention64 } from './reference64.mjs';
import { PRECISION, env } from './session.mjs';

/** The whole W_q, W_k and W_v, read head by head (the page shows one head's block at a time), and X and W_o. */
async function readInputs(page) {
  const heads = Number(await page.inputValue('#size-numHeads'));
  const blocks = { wq: [], wk: [], wv: [] };
  for (let h = 0; h < heads; h++) {
    if (heads > 1) await afterChange(page, () => page.selectOption('#head', String(h)));
    for (const name of Object.keys(blocks)) blocks[name].push(await readNumbers(page, name));
  }
  const side = (parts) => parts[0].map((_, i) => parts.flatMap((part) => part[i]));
  return {
    x: await readNumbers(page, 'x'), wq: side(blocks.wq), wk: side(blocks.wk), wv: side(blocks.wv),
    wo: await readNumbers(page, 'wo'), numHeads: heads,
  };
}

describe('lesson: the output projection W_o', () => {
  test('concat · W_o = the layer output, [n, d_model], checked in float64; W_o is editable and in the link', async () => {
    let link;
    await withPage(env, {}, async ({ page }) => {
      await afterChange(page, () => page.click('button[data-example="projection"]'));
      assert.equal(await page.getAttribute('button[data-example="projection"]', 'aria-pressed'), 'true');
      assert.equal((await readMatrix(page, 'wo')).shape, '[6, 8]');
      assert.equal((await readMatrix(page, 'concat')).shape, '[5, 6]');
      assert.equal((await readMatrix(page, 'layerOutput')).shape, '[5, 8]');
      assert.match(await page.textContent('#projection-text'), /W_o has shape \[H·d_v, d_model\] = \[6, 8\]/);
      let inputs = await readInputs(page);
      let want = attention64(inputs);
      assertShown(await readNumbers(page, 'concat'), want.concat, PRECISION, 'concat');
      assertShown(await readNumbers(page, 'layerOutput'), want.output, PRECISION, 'layer output');

      await typeInCell(page, 'wo', 2, 3, 'abc');
      assert.match(await page.textContent('[data-matrix="wo"] .inline-error'), /W_o, row 2, column 3: “abc” is not a number/);
      await afterChange(page, () => typeInCell(page, 'wo', 2, 3, '4'));
      assert.equal((await readMatrix(page, 'wo')).cells[2][3], '4.000');
      inputs = await readInputs(page);
      want = attention64(inputs);
      assertShown(await readNumbers(page, 'layerOutput'), want.output, PRECISION, 'layer output after the edit');
      await page.click('#copy-link');
      link = new URL(page.url()).hash;
      assert.match(link, /&wo=[^&]*4[,;]/);
    });
    await withPage(env, { hash: link }, async ({ page }) => {
      assert.equal((await readMatrix(page, 'wo')).cells[2][3], '4.000');
      const want = attention64(await readInputs(page));
      assertShown(await readNumbers(page, 'layerOutput'), want.output, PRECISION, 'layer output from the link');
    });
  });

  test('by keyboard at 390 px: W_o is reached with Tab and edited; no sideways page scroll', async () => {
    await withPage(env, { viewport: { width: 390, height: 844 } }, async ({ page }) => {
      await afterChange(page, () => page.click('button[data-example="projection"]'));
      const { scrollWidth, clientWidth } = await page.evaluate(() => ({ scrollWidth: document.documentElement.scrollWidth, clientWidth: document.documentElement.clientWidth }));
      assert.ok(scrollWidth <= clientWidth, `page scrolls sideways (${scrollWidth} > ${clientWidth})`);
      await page.focus('[data-matrix="concat"] .matrix-scroll');
      const onWo = () => page.evaluate(() => document.activeElement?.matches('[data-matrix="wo"] .matrix-scroll'));
      for (let i = 0; i < 8 && !(await onWo()); i++) await page.keyboard.press('Tab');
      assert.ok(await onWo(), 'Tab reaches W_o');
      await afterChange(page, async () => {
        await page.keyboard.press('ArrowDown');
        await page.keyboard.press('Enter');
        await page.keyboard.type('-2');
        await page.keyboard.press('Enter');
      });
      assert.equal((await readMatrix(page, 'wo')).cells[1][0], '-2.000');
      const want = attention64(await readInputs(page));
      assertShown(await readNumbers(page, 'layerOutput'), want.output, PRECISION, 'layer output after a keyboard edit');
      await page.evaluate(() => document.getElementById('step-heads').scrollIntoView());
      await page.locator('#step-heads').screenshot({ path: `${ARTIFACTS}/lesson-projection-390.png` });
    });
  });
});
