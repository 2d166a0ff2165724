// Page tests (run by run.mjs): the lessons, each checked against a float64 reference computed here.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ARTIFACTS,
  afterChange,
  assertShown,
  openSettings,
  readMatrix,
  readInputs,
  readNumbers,
  showLesson,
  typeInCell,
  withPage,
} from './helpers.mjs';
import { attention64 } from './reference64.mjs';
import { PRECISION, env } from './session.mjs';

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
      assert.match(
        await page.textContent('[data-matrix="wo"] .inline-error'),
        /W_o, row 2, column 3: “abc” is not a number/,
      );
      await afterChange(page, () => typeInCell(page, 'wo', 2, 3, '4'));
      assert.equal((await readMatrix(page, 'wo')).cells[2][3], '4.000');
      inputs = await readInputs(page);
      want = attention64(inputs);
      assertShown(await readNumbers(page, 'layerOutput'), want.output, PRECISION, 'layer output after the edit');
      await page.click('#copy-link');
      link = new URL(page.url()).hash;
      assert.match(link, /&wo=\*2,3,4(&|$)/u, "the one edited cell of W_o, as the cells unlike the seed's");
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
      const { scrollWidth, clientWidth } = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        clientWidth: document.documentElement.clientWidth,
      }));
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
      await openSettings(page); // the lesson's example folded them on this narrow screen
      const want = attention64(await readInputs(page));
      assertShown(await readNumbers(page, 'layerOutput'), want.output, PRECISION, 'layer output after a keyboard edit');
      await page.evaluate(() => document.getElementById('step-heads').scrollIntoView());
      await page.locator('#step-heads').screenshot({ path: `${ARTIFACTS}/lesson-projection-390.png` });
    });
  });
});

/** P of the original paper, written out here: sin on even dimensions, cos on odd ones. */
const positions64 = (n, d) =>
  Array.from({ length: n }, (_, pos) =>
    Array.from({ length: d }, (_, j) => {
      const angle = pos / 10000 ** ((j - (j % 2)) / d);
      return j % 2 ? Math.cos(angle) : Math.sin(angle);
    }),
  );
const plus = (a, b) => a.map((row, i) => row.map((v, j) => v + b[i][j]));

describe('lesson: tokens, then positions', () => {
  test('the same token gets the same embedding; P and X + P match a float64 reference, and so does the layer', async () => {
    await withPage(env, {}, async ({ page }) => {
      await afterChange(page, () => page.click('button[data-example="causal"]'));
      const x = await readMatrix(page, 'x');
      assert.deepEqual(x.rowLabels, ['the', 'cat', 'sat', 'on', 'the', 'mat']);
      assert.deepEqual(x.cells[4], x.cells[0]);
      assert.notDeepEqual(x.cells[1], x.cells[0]);
      assert.equal(await page.isVisible('#positions-step'), false);

      await afterChange(page, () => page.click('button[data-example="order"]'));
      assert.equal(await page.isChecked('#positions'), true);
      const inputs = await readInputs(page);
      const p = positions64(6, 8);
      assertShown(await readNumbers(page, 'positions'), p, PRECISION, 'P');
      const input = plus(inputs.x, p);
      assertShown(await readNumbers(page, 'input'), input, PRECISION, 'X + P');
      assert.notDeepEqual((await readMatrix(page, 'input')).cells[4], (await readMatrix(page, 'input')).cells[0]);
      assert.match(await page.textContent('#mount-q'), /\(X \+ P\) ·/);
      const want = attention64({ ...inputs, x: input });
      assertShown(await readNumbers(page, 'layerOutput'), want.output, PRECISION, 'layer output on X + P');
      await page.locator('#step-x').screenshot({ path: `${ARTIFACTS}/lesson-positions-1280.png` });
    });
  });

  test('word order: shuffled, outputs only move without P and change with P, as the float64 reference says', async () => {
    await withPage(env, {}, async ({ page }) => {
      await afterChange(page, () => page.click('button[data-example="order"]'));
      const words = ['one', 'two', 'three', 'four', 'five', 'six'];
      await afterChange(page, () => page.fill('#sentence', words.join(' ')));
      const check = async () => {
        const inputs = await readInputs(page);
        await showLesson(page, 'step-order');
        const shown = await readMatrix(page, 'changeWith');
        const perm = shown.rowLabels.map((label) => words.indexOf(label));
        assert.deepEqual([...perm].sort(), [0, 1, 2, 3, 4, 5]);
        assert.ok(
          perm.some((q, i) => q !== i),
          'the shuffle moves a word',
        );
        assert.match(await page.textContent('#order-text'), new RegExp(`^Shuffled: “${shown.rowLabels.join(' ')}”`));
        const p = positions64(6, inputs.x[0].length);
        const largest = [];
        for (const [name, withP] of [
          ['changeWithout', false],
          ['changeWith', true],
        ]) {
          const add = (x) => (withP ? plus(x, p) : x);
          const original = attention64({ ...inputs, x: add(inputs.x) }).output;
          const shuffled = attention64({ ...inputs, x: add(perm.map((q) => inputs.x[q])) }).output;
          const change = shuffled.map((row, k) => row.map((v, j) => v - original[perm[k]][j]));
          assertShown(await readNumbers(page, name), change, PRECISION, name);
          largest.push(Math.max(...change.flat().map(Math.abs)));
        }
        assert.ok(largest[0] < 1e-9, `float64: no change without positions (${largest[0]})`);
        assert.ok(largest[1] > 0.05, `float64: a change with positions (${largest[1]})`);
        return perm;
      };
      const first = await check();
      await page.focus('#shuffle');
      await afterChange(page, () => page.keyboard.press('Enter'));
      const second = await check();
      assert.notDeepEqual(second, first);
      await page.click('#copy-link');
      assert.match(new URL(page.url()).hash, /&pos=1&.*shuf=2/);
    });
  });

  test('at 390 px by keyboard: positions switch on with Space; a bad pos= in a link is named', async () => {
    await withPage(env, { viewport: { width: 390, height: 844 }, hash: '#v=2&pos=2' }, async ({ page }) => {
      assert.match(await page.textContent('#link-warning'), /pos=2 is neither 0 nor 1/);
      await page.focus('#positions');
      await afterChange(page, () => page.keyboard.press('Space'));
      assert.equal(await page.isVisible('#positions-step'), true);
      const { scrollWidth, clientWidth } = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        clientWidth: document.documentElement.clientWidth,
      }));
      assert.ok(scrollWidth <= clientWidth, `page scrolls sideways (${scrollWidth} > ${clientWidth})`);
      await showLesson(page, 'step-order');
      await page.locator('#step-order').screenshot({ path: `${ARTIFACTS}/lesson-order-390.png` });
    });
  });
});

describe('lesson: the KV cache', () => {
  test("the new token's row through the cache matches full causal attention and a float64 reference; work counted", async () => {
    await withPage(env, {}, async ({ page }) => {
      await page.focus('button[data-example="kv"]');
      await afterChange(page, () => page.keyboard.press('Enter'));
      assert.equal(await page.getAttribute('button[data-example="kv"]', 'aria-pressed'), 'true');
      const inputs = await readInputs(page);
      const want = attention64({ ...inputs, causal: true });
      const last = want.concat[want.concat.length - 1];
      await showLesson(page, 'step-kv');
      const output = await readMatrix(page, 'kvOutput');
      assert.equal(output.shape, '[1, 8]');
      assert.deepEqual(output.rowLabels, ['mat']);
      assertShown(await readNumbers(page, 'kvOutput'), [last], PRECISION, 'new output row');
      assert.deepEqual((await readMatrix(page, 'kvFull')).cells, output.cells);
      await afterChange(page, () => page.selectOption('#head', '1'));
      await showLesson(page, 'step-kv');
      assertShown(
        await readNumbers(page, 'kvWeights'),
        [want.weights[1][5]],
        PRECISION,
        'head 1 weights of the new token',
      );
      assert.equal((await readMatrix(page, 'kvK')).rowLabels[5], 'mat (new)');
      const text = await page.textContent('#kv-text');
      assert.match(text, /equals the last row of full causal attention over all 6 tokens bit for bit/);
      assert.match(text, /12 scores \(2 heads × 6 keys\).*72 scores \(2 × 6 × 6, of which the causal mask keeps 42\)/);
    });
  });

  test('at 390 px: one word says there is nothing to cache; no sideways scroll', async () => {
    await withPage(env, { viewport: { width: 390, height: 844 } }, async ({ page }) => {
      await afterChange(page, () => page.click('button[data-example="kv"]'));
      const { scrollWidth, clientWidth } = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        clientWidth: document.documentElement.clientWidth,
      }));
      assert.ok(scrollWidth <= clientWidth, `page scrolls sideways (${scrollWidth} > ${clientWidth})`);
      await showLesson(page, 'step-kv');
      await page.locator('#step-kv').screenshot({ path: `${ARTIFACTS}/lesson-kv-390.png` });
      await openSettings(page); // the lesson's example folded them on this narrow screen
      await afterChange(page, () => page.fill('#sentence', 'alone'));
      await showLesson(page, 'step-kv');
      assert.match(await page.textContent('#kv-text'), /nothing to cache: type a sentence of at least two words/);
      assert.equal(await page.getAttribute('#kv-text', 'class'), 'explain inline-error');
      assert.equal(await page.isVisible('#mount-kv'), false);
    });
  });
});
