// Page tests (run by run.mjs): why a score is what it is, by keyboard and by mouse, against a float64 reference.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ARTIFACTS, hoverSteady, readInputs, withPage } from './helpers.mjs';
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
      await hoverSteady(page, '[data-matrix="weights"] .c[data-i="2"][data-j="3"]');
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

/** WCAG contrast of two computed CSS colours ("rgb(r, g, b)"). */
function contrast(a, b) {
  const lum = (css) => {
    const [r, g, bl] = css
      .match(/\d+(\.\d+)?/gu)
      .slice(0, 3)
      .map(Number);
    const ch = (c) => (c / 255 <= 0.04045 ? c / 255 / 12.92 : ((c / 255 + 0.055) / 1.055) ** 2.4);
    return 0.2126 * ch(r) + 0.7152 * ch(g) + 0.0722 * ch(bl);
  };
  const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
}

describe('layout for teaching', () => {
  for (const [what, viewport] of [
    ['a phone (390 px)', { width: 390, height: 844 }],
    ['a 1280 px projector at 150 % zoom (853 px)', { width: 853, height: 533 }],
  ]) {
    test(`on ${what}, step 1 starts on the first screen; the settings open and close by keyboard`, async () => {
      await withPage(env, { viewport, foldedSettings: true }, async ({ page }) => {
        const top = await page.evaluate(() => document.getElementById('step-x').getBoundingClientRect().top);
        assert.ok(top < viewport.height * 0.8, `step 1 starts at ${top} px`);
        assert.equal(await page.isVisible('#examples'), false);
        assert.equal(await page.getAttribute('#settings-toggle', 'aria-expanded'), 'false');
        await page.focus('#settings-toggle');
        await page.keyboard.press('Enter');
        assert.equal(await page.isVisible('#examples'), true);
        assert.equal(await page.getAttribute('#settings-toggle', 'aria-expanded'), 'true');
        await page.keyboard.press('Tab');
        assert.equal(await page.evaluate(() => document.activeElement.dataset.example), 'sentence');
        await page.focus('#settings-toggle');
        await page.keyboard.press('Space');
        assert.equal(await page.isVisible('#examples'), false);
      });
    });
  }

  test('at 1280 px the settings stay beside the steps with no fold button', async () => {
    await withPage(env, { foldedSettings: true }, async ({ page }) => {
      assert.equal(await page.isVisible('#settings-toggle'), false);
      assert.equal(await page.isVisible('#examples'), true);
      assert.equal(await page.getAttribute('#settings-toggle', 'aria-expanded'), 'true');
    });
  });

  test('dark mode: a dark page, readable text, the numbers on their light paper', async () => {
    await withPage(env, {}, async ({ page }) => {
      await page.emulateMedia({ colorScheme: 'dark' });
      const colours = await page.evaluate(() => {
        const style = (selector) => getComputedStyle(document.querySelector(selector));
        const cell = document.querySelector('[data-matrix="weights"] .c[data-i="0"][data-j="0"]');
        return {
          body: [style('body').color, style('body').backgroundColor],
          step: [style('#step-x > p').color, style('.step').backgroundColor],
          cell: [getComputedStyle(cell).color, getComputedStyle(cell).backgroundColor],
          plain: [
            style('[data-matrix="rawScores"] .rh').color,
            style('[data-matrix="rawScores"] .matrix-scroll').backgroundColor,
          ],
        };
      });
      assert.ok(contrast(colours.body[1], 'rgb(0, 0, 0)') < 1.5, `the page is not dark: ${colours.body[1]}`);
      for (const [name, [ink, paper]] of Object.entries(colours)) {
        assert.ok(contrast(ink, paper) >= 4.5, `${name}: ${ink} on ${paper} has contrast ${contrast(ink, paper)}`);
      }
      await page.screenshot({ path: `${ARTIFACTS}/page-dark-1280.png` });
    });
  });
});
