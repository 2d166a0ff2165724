// Page tests (run by run.mjs): why a score is what it is, by keyboard and by mouse, against a float64 reference.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { readInputs, withPage } from './helpers.mjs';
import { attention64, matmul } from './reference64.mjs';
import { env } from './session.mjs';

const tooltipLines = (page) => page.$$eval('.tooltip > div', (lines) => lines.map((line) => line.textContent));
const number = (text) => Number(text.replace('−', '-'));

describe('lesson: why a score is what it is', () => {
  test('a score focused by keyboard shows q·k term by term, largest first, as float64 gives them', async () => {
    await withPage(env, {}, async ({ page }) => {
      const inputs = await readInputs(page);
      const q = matmul(inputs.x, inputs.wq);
      const k = matmul(inputs.x, inputs.wk);
      await page.focus('[data-matrix="rawScores"] .matrix-scroll');
      await page.keyboard.press('ArrowRight'); // query 0 “time”, key 1 “flies”
      assert.ok(await page.isVisible('.tooltip'));
      const lines = await tooltipLines(page);
      assert.equal(lines[0], 'query “time” → key “flies”');
      assert.equal(lines[2], 'q·k = Σ_t q_t·k_t over d_k = 4 terms, largest first:');
      const terms = lines.slice(3, 7).map((line) => /^t=(\d): (\S+) × (\S+) = (\S+)$/u.exec(line).slice(1).map(number));
      const want = [0, 1, 2, 3]
        .map((t) => ({ t, product: q[0][t] * k[1][t] }))
        .sort((a, b) => Math.abs(b.product) - Math.abs(a.product));
      terms.forEach(([t, qt, kt, product], r) => {
        assert.equal(t, want[r].t, `term ${r} is t=${t}, float64 says t=${want[r].t}`);
        assert.ok(
          Math.abs(qt - q[0][t]) <= 5e-4 + 1e-6 && Math.abs(kt - k[1][t]) <= 5e-4 + 1e-6,
          `${lines[3 + r]} vs ${q[0][t]} ${k[1][t]}`,
        );
        assert.ok(Math.abs(product - want[r].product) <= 5e-4 + 1e-6, lines[3 + r]);
      });
      const sum = number(lines[7].replace('sum: q·k = ', ''));
      assert.ok(Math.abs(sum - want.reduce((s, term) => s + term.product, 0)) <= 5e-4 + 1e-6, lines[7]);
    });
  });

  test('a weight shows e^s over its row’s sum, equal to the float64 weight; by mouse and by keyboard', async () => {
    await withPage(env, {}, async ({ page }) => {
      const want = attention64(await readInputs(page));
      await page.hover('[data-matrix="weights"] .c[data-i="2"][data-j="3"]');
      let lines = await tooltipLines(page);
      assert.equal(lines[2], 'w = e^s / Σ e^s over the row (s = scaled scores):');
      const [, top, bottom, w] = /^= (\S+) \/ (\S+) = (\S+)$/u.exec(lines[4]).map(number);
      assert.ok(Math.abs(top / bottom - want.weights[0][2][3]) <= 2e-3, lines[4]);
      assert.ok(Math.abs(w - want.weights[0][2][3]) <= 5e-4 + 1e-6, lines[4]);
      await page.focus('[data-matrix="weights"] .matrix-scroll');
      await page.keyboard.press('ArrowDown');
      lines = await tooltipLines(page);
      assert.match(lines[0], /^query “flies” → key “time”/);
      assert.ok(Math.abs(number(/= (\S+)$/u.exec(lines[4])[1]) - want.weights[0][1][0]) <= 5e-4 + 1e-6, lines[4]);
    });
  });
});
