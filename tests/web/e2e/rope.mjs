// Page tests (run by run.mjs): step 10, rotary positions (RoPE). The scores shown are checked against a float64
// rotation written here, apart from the library; the shift leaves RoPE's scores and changes P's; the controls, the
// dials' keyboard readout and text alternatives, and screenshots at 1280 and 390 px in light and dark.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ARTIFACTS,
  afterChange,
  assertShown,
  chooseExample,
  readInputs,
  readNumbers,
  showLesson,
  withPage,
} from './helpers.mjs';
import { EXAMPLES } from '../../../web/src/shared/examples.js';
import { encodeState } from '../../../web/src/shared/link.js';
import { columns, matmul } from './reference64.mjs';
import { PRECISION, env } from './session.mjs';

/** q or k of one head turned by RoPE in float64: pair i ([i, i + d/2] or [2i, 2i + 1]) by position · θ^(−2i/d). */
function rotate(rows, positions, theta, style) {
  const d = rows[0].length - (rows[0].length % 2);
  return rows.map((row, t) => {
    const out = row.slice();
    for (let i = 0; i < d / 2; i++) {
      const [a, b] = style === 'half' ? [i, i + d / 2] : [2 * i, 2 * i + 1];
      const angle = positions[t] * theta ** ((-2 * i) / d);
      out[a] = row[a] * Math.cos(angle) - row[b] * Math.sin(angle);
      out[b] = row[a] * Math.sin(angle) + row[b] * Math.cos(angle);
    }
    return out;
  });
}

const dots = (q, k) => q.map((qi) => k.map((kj) => qi.reduce((sum, v, t) => sum + v * kj[t], 0)));

/** The original paper's P, rows from..from + n − 1: sin and cos of pos / 10000^(2⌊d/2⌋/d_model). */
const sinusoid = (from, n, dModel) =>
  Array.from({ length: n }, (_, r) =>
    Array.from({ length: dModel }, (_, d) => {
      const angle = (from + r) / 10000 ** ((2 * Math.floor(d / 2)) / dModel);
      return d % 2 ? Math.cos(angle) : Math.sin(angle);
    }),
  );

/** The head-1 scores the step should show, from the inputs the page shows. */
function reference(inputs, { shift, theta, style, dK }) {
  const { x, wq, wk } = inputs;
  const n = x.length;
  const at = (from) => Array.from({ length: n }, (_, t) => from + t);
  const q = matmul(x, columns(wq, 0, dK));
  const k = matmul(x, columns(wk, 0, dK));
  const rope = (from) => dots(rotate(q, at(from), theta, style), rotate(k, at(from), theta, style));
  const withP = (from) => {
    const xp = x.map((row, i) => row.map((v, j) => v + sinusoid(from, n, x[0].length)[i][j]));
    return dots(matmul(xp, columns(wq, 0, dK)), matmul(xp, columns(wk, 0, dK)));
  };
  return { rope0: rope(0), ropeS: rope(shift), sin0: withP(0), sinS: withP(shift) };
}

async function checkScores(page, settings) {
  const want = reference(await readInputs(page), settings);
  assertShown(await readNumbers(page, 'ropeScores0'), want.rope0, PRECISION, 'RoPE scores at 0');
  assertShown(await readNumbers(page, 'ropeScores'), want.ropeS, PRECISION, `RoPE scores at s = ${settings.shift}`);
  assertShown(await readNumbers(page, 'sinScores0'), want.sin0, PRECISION, 'P scores at 0');
  assertShown(await readNumbers(page, 'sinScores'), want.sinS, PRECISION, `P scores at s = ${settings.shift}`);
  const ropeChange = (await readNumbers(page, 'ropeChange')).flat();
  assert.ok(
    ropeChange.every((v) => v === 0),
    `RoPE's change shows only zeros: ${ropeChange}`,
  );
  const sinChange = (await readNumbers(page, 'sinChange')).flat();
  if (settings.shift > 0) assert.ok(Math.max(...sinChange.map(Math.abs)) > 0.1, "P's scores change with the shift");
  return want;
}

const setShift = (page, s) =>
  afterChange(page, () =>
    page.evaluate((value) => {
      const input = document.getElementById('rope-shift');
      input.value = String(value);
      input.dispatchEvent(new Event('input', { bubbles: true }));
    }, s),
  );

describe('lesson: rotary positions (RoPE)', () => {
  test('the scores match a float64 rotation; a shift leaves them and changes those with P; theta and style too', async () => {
    let link;
    await withPage(env, {}, async ({ page }) => {
      await chooseExample(page, 'rope');
      await showLesson(page, 'step-rope');
      assert.match(await page.textContent('#step-rope .step-number'), /^10$/u);
      assert.match(await page.textContent('#rope-pairing'), /\(0, 4\) \(1, 5\) \(2, 6\) \(3, 7\)/u);
      assert.match(
        await page.textContent('#rope-text'),
        /RoPE: the scores stay the same: the largest change is .*float32 rounding/u,
      );
      await checkScores(page, { shift: 3, theta: 10000, style: 'half', dK: 8 });

      // Moving the shift turns the dials' arrows; the RoPE scores stay.
      const dial = '#step-rope td[data-t="1"][data-i="0"]';
      const before = await page.getAttribute(dial, 'aria-label');
      assert.match(before, /“cat” at position 4, pair 0 \(dimensions 0 and 4\), frequency 1: turned by 4 × 1 = 4 rad/u);
      await setShift(page, 10);
      await showLesson(page, 'step-rope');
      assert.match(await page.getAttribute(dial, 'aria-label'), /“cat” at position 11, .*turned by 11 × 1 = 11 rad/u);
      await checkScores(page, { shift: 10, theta: 10000, style: 'half', dK: 8 });

      await afterChange(page, () => page.selectOption('#rope-theta', '10'));
      await afterChange(page, () => page.check('input[name="rope-style"][value="interleaved"]'));
      await showLesson(page, 'step-rope');
      assert.match(await page.textContent('#rope-pairing'), /\(0, 1\) \(2, 3\) \(4, 5\) \(6, 7\)/u);
      assert.match(await page.textContent('#rope-pairing'), /θ = 10 and 8 dimensions turned/u);
      await checkScores(page, { shift: 10, theta: 10, style: 'interleaved', dK: 8 });
      await page.click('#copy-link');
      link = new URL(page.url()).hash;
      assert.match(link, /&rth=10&rsty=interleaved&rsh=10(&|$)/u);
    });
    await withPage(env, { hash: link }, async ({ page }) => {
      await showLesson(page, 'step-rope');
      assert.equal(await page.inputValue('#rope-theta'), '10');
      assert.equal(await page.inputValue('#rope-shift'), '10');
      assert.ok(await page.isChecked('input[name="rope-style"][value="interleaved"]'));
      await checkScores(page, { shift: 10, theta: 10, style: 'interleaved', dK: 8 });
    });
  });

  test('a link with a shift beyond the slider (s = 200): the slider reaches it, the dials and scores follow', async () => {
    const state = { ...EXAMPLES.find((e) => e.id === 'rope').state(), ropeShift: 200 };
    await withPage(env, { hash: `#${encodeState(state)}` }, async ({ page }) => {
      await showLesson(page, 'step-rope');
      assert.equal(await page.inputValue('#rope-shift'), '200');
      assert.match(await page.textContent('#step-rope output'), /^200$/u);
      assert.match(await page.getAttribute('#step-rope td[data-t="0"][data-i="0"]', 'aria-label'), /position 200,/u);
      await checkScores(page, { shift: 200, theta: 10000, style: 'half', dK: 8 });
    });
  });

  test('dials by keyboard: one tab stop, arrow keys move, the readout says the angle and the arrows', async () => {
    await withPage(env, {}, async ({ page }) => {
      await chooseExample(page, 'rope');
      await showLesson(page, 'step-rope');
      await page.focus('#step-rope .rope-scroll');
      assert.match(await page.textContent('#step-rope .rope-readout'), /“the” at position 3, pair 0/u);
      await page.keyboard.press('ArrowRight');
      await page.keyboard.press('ArrowDown');
      const text = await page.textContent('#step-rope .rope-readout');
      assert.match(
        text,
        /^“cat” at position 4, pair 1 \(dimensions 1 and 5\), frequency 0\.1: turned by 4 × 0\.1 = 0\.4 rad \(23°\)\. q \(.+\) → \(.+\); k \(.+\) → \(.+\)\.$/u,
      );
      assert.equal(await page.getAttribute('#step-rope td.active', 'data-i'), '1');
      await page.keyboard.press('End');
      assert.equal(await page.getAttribute('#step-rope td.active', 'data-i'), '3');
      assert.equal(await page.locator('#step-rope td[role="img"][aria-label]').count(), 6 * 4);
    });
  });

  for (const scheme of ['light', 'dark']) {
    for (const width of [1280, 390]) {
      test(`at ${width} px, ${scheme}: no sideways page scroll; screenshot`, async () => {
        await withPage(env, { viewport: { width, height: 900 } }, async ({ page }) => {
          await page.emulateMedia({ colorScheme: scheme });
          await chooseExample(page, 'rope');
          await showLesson(page, 'step-rope');
          const { scrollWidth, clientWidth } = await page.evaluate(() => ({
            scrollWidth: document.documentElement.scrollWidth,
            clientWidth: document.documentElement.clientWidth,
          }));
          assert.ok(scrollWidth <= clientWidth, `page scrolls sideways (${scrollWidth} > ${clientWidth})`);
          const box = await page.locator('#step-rope .rope-scroll').boundingBox();
          assert.ok(box.x >= 0 && box.x + box.width <= width, 'the dials stay inside the screen');
          await page.locator('#step-rope').screenshot({ path: `${ARTIFACTS}/lesson-rope-${width}-${scheme}.png` });
          await page
            .locator('#step-rope .rope-dials')
            .screenshot({ path: `${ARTIFACTS}/lesson-rope-dials-${width}-${scheme}.png` });
        });
      });
    }
  }
});
