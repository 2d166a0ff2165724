// Step 10, rotary positions: the lesson's numbers (from the API's rope option) against a rotation written here
// apart from the library and the page, the shift test, the pairing, the texts and the link.
import { beforeAll, describe, expect, it } from 'vitest';
import { createAttention } from '../../../../src/js/index.js';
import { EXAMPLES } from '../../../../web/src/shared/examples.js';
import { currentMatrix } from '../../../../web/src/shared/matrices.js';
import { dialText, pairingText, ropePairs, ropeStep, ropeText } from '../../../../web/src/lessons/rope/ropeLesson.js';
import { decodeState, encodeState } from '../../../../web/src/shared/link.js';
import { defaultState } from '../../../../web/src/shared/state.js';

let attn;
beforeAll(async () => {
  attn = await createAttention();
});

const example = () => EXAMPLES.find((e) => e.id === 'rope').state();

/** A bias vector of `length` numbers as a model file gives it: 0.1·(i + 1)·sign. */
const bias = (length, sign) => ({
  data: Float64Array.from({ length }, (_, i) => 0.1 * (i + 1) * sign),
  shape: [length],
});

/** x · W's columns [from, from + width) (+ the bias's same entries), in float64. */
const project = (x, w, from, width, b) =>
  x.map((row) =>
    Array.from(
      { length: width },
      (_, c) => row.reduce((sum, v, r) => sum + v * w[r][from + c], 0) + (b ? b.data[from + c] : 0),
    ),
  );

/**
 * RoPE by its definition, in float64: the row of the token at position m, pair i of (x_a, x_b) turned by the angle
 * m · θ^(−2i/d) (a 2-D rotation matrix times the pair). 'half' pairs a = i with b = i + d/2; 'interleaved', 2i with
 * 2i + 1. Columns from d on (an odd d_k's last) are left as they are.
 */
function referenceRotation(rows, positions, theta, style) {
  const d = rows[0].length - (rows[0].length % 2);
  return rows.map((row, t) => {
    const out = [...row];
    for (let i = 0; i < d / 2; i++) {
      const a = style === 'half' ? i : 2 * i;
      const b = style === 'half' ? i + d / 2 : 2 * i + 1;
      const angle = positions[t] * Math.pow(theta, (-2 * i) / d);
      const [c, s] = [Math.cos(angle), Math.sin(angle)];
      out[a] = c * row[a] - s * row[b];
      out[b] = s * row[a] + c * row[b];
    }
    return out;
  });
}

const gram = (q, k) => q.map((qi) => k.map((kj) => qi.reduce((sum, v, t) => sum + v * kj[t], 0)));

/** Every number of `got` within `tol` (relative to the largest of `want`) of `want`. */
function expectClose(got, want, tol, what) {
  const flatWant = want.flat();
  const size = Math.max(1, ...flatWant.map(Math.abs));
  const worst = Math.max(...Array.from(got).map((v, i) => Math.abs(v - flatWant[i])));
  expect(worst / size, what).toBeLessThan(tol);
}

describe('the RoPE lesson', () => {
  const cases = [
    ['the example', {}],
    ['interleaved, theta 10, shifted by 40', { ropeStyle: 'interleaved', ropeTheta: 10, ropeShift: 40 }],
    ['an odd d_k (its last column is not turned)', { dK: 7, ropeTheta: 100 }],
    ['4 heads sharing 2 kv heads, head 4', { dModel: 16, numHeads: 4, kvHeads: 2, head: 3, ropeTheta: 500000 }],
    [
      "a model file's biases, head 2 of 2",
      { numHeads: 2, dK: 4, head: 1, biases: { bq: bias(8, 1), bk: bias(8, -2) } },
    ],
  ];
  for (const [name, change] of cases) {
    it(`${name}: q and k turned as the reference turns them, and the scores their dot products`, () => {
      const state = { ...example(), ...change };
      const { n, dK, ropeTheta: theta, ropeStyle: style, ropeShift: shift } = state;
      const step = ropeStep(attn, state);
      const x = currentMatrix(state, 'x');
      const q = project(x, currentMatrix(state, 'wq'), state.head * dK, dK, state.biases?.bq);
      const k = project(x, currentMatrix(state, 'wk'), step.kvHead * dK, dK, state.biases?.bk);
      expectClose(step.q, q, 1e-6, 'q before the rotation');
      expectClose(step.k, k, 1e-6, 'k before the rotation');
      const at = (from) => Array.from({ length: n }, (_, t) => from + t);
      expect(step.positions).toEqual(at(shift));
      const qRef = referenceRotation(q, at(shift), theta, style);
      const kRef = referenceRotation(k, at(shift), theta, style);
      expectClose(step.qRotated, qRef, 1e-5, 'q after the rotation');
      expectClose(step.kRotated, kRef, 1e-5, 'k after the rotation');
      expectClose(step.rope.scores[1], gram(qRef, kRef), 1e-5, 'the scores at s');
      const at0 = gram(referenceRotation(q, at(0), theta, style), referenceRotation(k, at(0), theta, style));
      expectClose(step.rope.scores[0], at0, 1e-5, 'the scores at 0');
    });
  }

  it('shifting the sentence leaves the RoPE scores (float32 rounding) and changes those of X + P', () => {
    for (const ropeShift of [1, 3, 17, 200]) {
      const step = ropeStep(attn, { ...example(), ropeShift });
      const size = Math.max(...Array.from(step.rope.scores[0], Math.abs));
      expect(step.rope.largest / size, `s = ${ropeShift}`).toBeLessThan(1e-5);
      expect(step.sinusoidal.largest, `s = ${ropeShift}`).toBeGreaterThan(0.1);
    }
    const still = ropeStep(attn, { ...example(), ropeShift: 0 });
    expect([still.rope.largest, still.sinusoidal.largest]).toEqual([0, 0]);
  });

  it('pairs dimensions as rotate_half and as GPT-J do', () => {
    expect(ropePairs('half', 8)).toEqual([
      [0, 4],
      [1, 5],
      [2, 6],
      [3, 7],
    ]);
    expect(ropePairs('interleaved', 6)).toEqual([
      [0, 1],
      [2, 3],
      [4, 5],
    ]);
  });

  it('says what it shows: pairs, frequencies, angles and the shift', () => {
    const state = example();
    const step = ropeStep(attn, state);
    expect(pairingText(step)).toMatch(
      /\(0, 4\) \(1, 5\) \(2, 6\) \(3, 7\)\. With θ = 10,000 .* 1, 0\.1, 0\.01, 0\.001 radians/u,
    );
    expect(dialText(step, 1, 1, state.dK)).toMatch(
      /^“cat” at position 4, pair 1 \(dimensions 1 and 5\), frequency 0\.1: turned by 4 × 0\.1 = 0\.4 rad \(23°\)\./u,
    );
    expect(ropeText(state, step)).toMatch(
      /positions 3–8 instead of 0–5.*float32 rounding; with P added to X instead \(step 9\), the same shift changes them by up to \d/u,
    );
    const tiny = { ...defaultState(), dK: 1 };
    expect(ropeText(tiny, ropeStep(attn, tiny))).toMatch(/d_k = 1 has no pair/u);
  });

  it('keeps theta, style and shift in the link, and refuses values it does not offer', () => {
    const state = { ...example(), ropeTheta: 500000, ropeStyle: 'interleaved', ropeShift: 12 };
    const hash = encodeState(state);
    expect(hash).toMatch(/rth=500000&rsty=interleaved&rsh=12/u);
    expect(decodeState(`#${hash}`).state).toMatchObject({ ropeTheta: 500000, ropeStyle: 'interleaved', ropeShift: 12 });
    expect(encodeState(example())).not.toMatch(/rth|rsty|rsh/u);
    const { state: bad, warnings } = decodeState('#rth=7&rsty=neox&rsh=99999');
    expect(bad).toMatchObject({ ropeTheta: 10000, ropeStyle: 'half', ropeShift: 3 });
    expect(warnings).toHaveLength(3);
  });
});
