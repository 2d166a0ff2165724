// Page tests (run by run.mjs): matrices too large to read as numbers are canvas heatmaps. Their readouts (hover
// and keyboard) and their zoomed blocks show the numbers of a float64 reference of the same inputs, given in full
// in the link; the keyboard reaches them and the readout is a polite live region. Nothing here is timed.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ARTIFACTS,
  afterChange,
  assertShown,
  readMatrix,
  readNumbers,
  scrollSteady,
  typeInCell,
  withPage,
} from './helpers.mjs';
import { attention64 } from './reference64.mjs';
import { PRECISION, env } from './session.mjs';

const N = 20;
const D_MODEL = 24;
const HEADS = 3;
const D_K = 8;

/** A reproducible matrix with two decimals (the link writes it exactly). */
function matrix(rows, cols, salt) {
  let s = salt;
  return Array.from({ length: rows }, () =>
    Array.from({ length: cols }, () => {
      s = (s * 1103515245 + 12345) % 2147483648;
      return Math.round(((s / 2147483648) * 2 - 1) * 100) / 100;
    }),
  );
}

const INPUTS = {
  x: matrix(N, D_MODEL, 1),
  wq: matrix(D_MODEL, HEADS * D_K, 2),
  wk: matrix(D_MODEL, HEADS * D_K, 3),
  wv: matrix(D_MODEL, HEADS * D_K, 4),
};

const cellsText = (m) => m.map((row) => row.join(',')).join(';');
const words = Array.from({ length: N }, (_, i) => `t${i}`).join('+');
const HASH =
  `#s=${words}&n=${N}&dm=${D_MODEL}&dk=${D_K}&dv=${D_K}&h=${HEADS}&p=${PRECISION}` +
  Object.entries(INPUTS)
    .map(([name, m]) => `&${name}=${cellsText(m)}`)
    .join('');

const reference = (x = INPUTS.x, causal = false) => attention64({ ...INPUTS, x, numHeads: HEADS, causal });

/** The readout of a heatmap: its cell, its first line's number and every line. */
async function readout(page, name) {
  return page.evaluate((matrixName) => {
    const node = document.querySelector(`[data-matrix="${matrixName}"] .cm-readout`);
    const lines = [...node.children].map((line) => line.textContent);
    const value = /: (\S+)$/u.exec(lines[0] ?? '')?.[1];
    return {
      i: Number(node.dataset.i),
      j: Number(node.dataset.j),
      value: value === '-∞' ? -Infinity : Number(value),
      lines,
      live: node.getAttribute('aria-live'),
    };
  }, name);
}

const near = (shown, want, what) => {
  const tolerance = 0.5 * 10 ** -PRECISION + 1e-6;
  assert.ok(Math.abs(shown - want) <= tolerance, `${what}: shows ${shown}, the float64 reference gives ${want}`);
};

describe('large matrices as heatmaps', () => {
  test('small matrices keep their number grids', async () => {
    await withPage(env, {}, async ({ page }) => {
      assert.equal(await page.locator('.cm-canvas').count(), 0);
      assert.equal((await readMatrix(page, 'weights')).cells.length, 5);
    });
  });

  test('a heatmap replaces the number grid; the keyboard reads its cells in a live region', async () => {
    await withPage(env, { hash: HASH }, async ({ page }) => {
      const ref = reference();
      const weights = page.locator('[data-matrix="weights"]');
      assert.equal(await weights.locator('.cm-canvas').count(), 1, 'the weights are a heatmap');
      assert.equal(await weights.locator('.matrix-scroll').isHidden(), true, 'the number grid is hidden');
      assert.equal((await readMatrix(page, 'weights')).shape, `[${N}, ${N}]`);

      // The keyboard reaches the heatmap with Tab, from the copy buttons in its caption.
      await page.locator('[data-matrix="weights"] figcaption .copy-button').last().focus();
      await page.keyboard.press('Tab');
      const focused = await page.evaluate(() => document.activeElement?.matches('[data-matrix="weights"] .cm-canvas'));
      assert.ok(focused, 'Tab moves from the caption to the weights heatmap');
      for (const key of ['ArrowRight', 'ArrowRight', 'ArrowRight', 'ArrowDown', 'ArrowDown']) {
        await page.keyboard.press(key);
      }
      let shown = await readout(page, 'weights');
      assert.deepEqual([shown.i, shown.j], [2, 3]);
      assert.equal(shown.live, 'polite');
      near(shown.value, ref.weights[0][2][3], 'weights[2][3]');
      assert.match(shown.lines[0], /row t2 · column t3/u);
      assert.ok(shown.lines.length > 1, 'the describe hook adds its lines');
      await page.keyboard.press('End');
      await page.keyboard.press('PageDown');
      shown = await readout(page, 'weights');
      assert.deepEqual([shown.i, shown.j], [18, N - 1]);
      near(shown.value, ref.weights[0][18][N - 1], 'weights[18][19]');

      // Enter zooms to the numbers of the 16×16 block holding the active cell.
      await page.keyboard.press('Enter');
      const zoomed = await readMatrix(page, 'weights');
      assert.deepEqual(zoomed.rowLabels, ['t16', 't17', 't18', 't19']);
      assert.deepEqual(zoomed.colLabels, ['t16', 't17', 't18', 't19']);
      const block = ref.weights[0].slice(16).map((row) => row.slice(16));
      assertShown(await readNumbers(page, 'weights'), block, PRECISION, 'weights block');
    });
  });

  test('hovering reads a cell; another head and the causal mask read the new numbers', async () => {
    await withPage(env, { hash: HASH }, async ({ page }) => {
      const canvas = page.locator('[data-matrix="scaledScores"] .cm-canvas');
      await scrollSteady(page, '[data-matrix="scaledScores"] .cm-canvas');
      const box = await canvas.boundingBox();
      const at = (i, j) => ({ x: box.x + ((j + 0.5) * box.width) / N, y: box.y + ((i + 0.5) * box.height) / N });
      await page.mouse.move(at(5, 7).x, at(5, 7).y);
      let shown = await readout(page, 'scaledScores');
      assert.deepEqual([shown.i, shown.j], [5, 7]);
      const ref = reference();
      const w = ref.weights[0];
      // weights = softmax(scaled) ⇒ scaled[i][j] − scaled[i][0] = ln(w[i][j] / w[i][0])
      shown = await readout(page, 'scaledScores');
      await page.mouse.move(at(5, 0).x, at(5, 0).y);
      const first = await readout(page, 'scaledScores');
      const difference = shown.value - first.value;
      const want = Math.log(w[5][7] / w[5][0]);
      assert.ok(
        Math.abs(difference - want) <= 10 ** -PRECISION + 1e-6,
        `scaled[5][7] − scaled[5][0] ${difference} ≠ ${want}`,
      );

      await afterChange(page, () => page.selectOption('#head', '2'));
      const weights = page.locator('[data-matrix="weights"] .cm-canvas');
      await weights.focus();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowRight');
      shown = await readout(page, 'weights');
      near(shown.value, ref.weights[2][shown.i][shown.j], `head 2 weights[${shown.i}][${shown.j}]`);

      await afterChange(page, () => page.click('#causal'));
      const causal = reference(INPUTS.x, true);
      shown = await readout(page, 'weights');
      near(shown.value, causal.weights[2][shown.i][shown.j], 'causal head 2 weights');
      await weights.focus();
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      shown = await readout(page, 'weights');
      assert.ok(shown.j > shown.i, 'a cell above the diagonal');
      near(shown.value, 0, 'a masked weight');
    });
  });

  test('a zoomed block of X is edited with the keyboard and the result follows', async () => {
    await withPage(env, { hash: HASH }, async ({ page }) => {
      const canvas = page.locator('[data-matrix="x"] .cm-canvas');
      await canvas.focus();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('Enter');
      await afterChange(page, () => typeInCell(page, 'x', 1, 2, '0.5'));
      const x = INPUTS.x.map((row) => row.slice());
      x[1][2] = 0.5;
      await canvas.focus();
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowRight');
      const shown = await readout(page, 'x');
      assert.deepEqual([shown.i, shown.j], [1, 2]);
      assert.equal(shown.value, 0.5);
      const ref = reference(x);
      // d_v = 8 and n = 20: the head output has 20 rows, so it is a heatmap too.
      const output = page.locator('[data-matrix="output"] .cm-canvas');
      await output.focus();
      await page.keyboard.press('ArrowDown');
      const out = await readout(page, 'output');
      near(out.value, ref.heads[0][out.i][out.j], `output[${out.i}][${out.j}] after the edit`);
    });
  });

  test("an edit at GPT-2 size writes a short link (the cells unlike the seed's), which opens the edit again", async () => {
    const gpt2 = `#s=${Array.from({ length: 64 }, (_, i) => `w${i}`).join('+')}&n=64&dm=768&dk=64&dv=64&h=12`;
    let link;
    await withPage(env, { hash: gpt2 }, async ({ page }) => {
      await page.locator('[data-matrix="x"] .cm-canvas').click({ position: { x: 1, y: 1 } }); // its first block
      await afterChange(page, () => typeInCell(page, 'x', 0, 0, '0.5'));
      // Every number of X would be about 900 000 characters: over the 200 000 a link may have, so it would not open.
      await page.waitForFunction(() => location.hash.includes('&x=*0,0,0.5'));
      link = await page.evaluate(() => location.hash);
      assert.ok(link.length < 1000, `the link has ${link.length} characters`);
    });
    await withPage(env, { hash: link }, async ({ page }) => {
      assert.equal(await page.isVisible('#link-warning'), false, 'the link is read without a warning');
      const canvas = page.locator('[data-matrix="x"] .cm-canvas');
      await canvas.focus();
      await page.keyboard.press('ArrowDown');
      await page.keyboard.press('ArrowUp');
      const shown = await readout(page, 'x');
      assert.deepEqual([shown.i, shown.j, shown.value], [0, 0, 0.5]);
    });
  });

  test('GPT-2 size (n = 64, d_model = 768, 12 heads): every step draws; a screenshot for the README', async () => {
    const words64 = Array.from({ length: 64 }, (_, i) => `w${i}`).join('+');
    const hash = `#s=${words64}&n=64&dm=768&dk=64&dv=64&h=12&causal=1`;
    await withPage(env, { hash, viewport: { width: 1280, height: 900 } }, async ({ page }) => {
      assert.equal((await readMatrix(page, 'wq')).shape, '[768, 64]');
      assert.equal((await readMatrix(page, 'wo')).shape, '[768, 768]');
      assert.equal(await page.locator('.head-figure').count(), 13, '12 heads and their average');
      await page.evaluate(() => document.getElementById('step-softmax').scrollIntoView());
      await page.locator('[data-matrix="weights"] .cm-canvas').click({ position: { x: 200, y: 250 } });
      const shown = await readout(page, 'weights');
      assert.ok(shown.i >= shown.j, 'a cell the causal mask allows');
      await page.screenshot({ path: `${ARTIFACTS}/bigmodel-gpt2.png` });

      // The temperature previews the weights only (the later matrices dimmed), then the full update follows.
      const before = await readout(page, 'weights');
      await page.focus('#temperature');
      await afterChange(page, () => page.keyboard.press('ArrowLeft'));
      await page.waitForFunction(() => document.querySelectorAll('.matrix.stale').length === 0);
      // The status line is written once the full update is painted.
      await page.waitForFunction(() => {
        const text = document.getElementById('status-time').textContent;
        return /WebAssembly/u.test(text) && !/weights only/u.test(text);
      });
      const after = await readout(page, 'weights');
      assert.notEqual(after.value, before.value, 'a lower temperature changed the weight read out');
    });
  });
});
