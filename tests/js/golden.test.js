// Hand-worked cases: numbers a person can check on paper, through the public API of both builds.
import { beforeAll, describe, expect, it } from 'vitest';
import { createAttention } from '../../src/js/index.js';
import { VARIANTS, expectClose, referenceAttention } from './reference.js';
import { I2 } from './worked-example.js';

// softmax([1/√2, 0]) = [e^{1/√2}, 1] / (e^{1/√2} + 1)
const a = Math.exp(Math.SQRT1_2) / (Math.exp(Math.SQRT1_2) + 1);

describe('the float64 reference itself', () => {
  it('reproduces the 2×2 worked example', () => {
    const t = (rows) => ({ data: Float64Array.from(rows.flat()), shape: [1, 1, rows.length, rows[0].length] });
    const r = referenceAttention(
      t(I2),
      t(I2),
      t([
        [1, 2],
        [3, 4],
      ]),
    );
    expectClose(r.output, [1.6604769, 2.6604769, 2.3395231, 3.3395231], { atol: 1e-7, rtol: 0 });
    expectClose(r.weights, [a, 1 - a, 1 - a, a], { atol: 1e-12, rtol: 0 });
  });
});

describe.each(VARIANTS)('hand-worked cases ($name build)', ({ simd }) => {
  let attn;
  beforeAll(async () => {
    attn = await createAttention({ simd });
  });

  it('X = I₂, W_q = W_k = I₂, W_v = [[1,2],[3,4]] gives [[1.6604769, 2.6604769], [2.3395231, 3.3395231]]', () => {
    const s = attn.selfAttention(I2, {
      wq: I2,
      wk: I2,
      wv: [
        [1, 2],
        [3, 4],
      ],
    });
    expectClose(s.output.data, [1.6604769, 2.6604769, 2.3395231, 3.3395231], { atol: 1e-6, rtol: 0 });
    expectClose(s.q.data, [1, 0, 0, 1], { atol: 0, rtol: 0 });
    expectClose(s.k.data, [1, 0, 0, 1], { atol: 0, rtol: 0 });
    expectClose(s.v.data, [1, 2, 3, 4], { atol: 0, rtol: 0 });
    expectClose(s.rawScores.data, [1, 0, 0, 1], { atol: 0, rtol: 0 });
    expectClose(s.scaledScores.data, [Math.SQRT1_2, 0, 0, Math.SQRT1_2], { atol: 1e-7, rtol: 0 });
    expectClose(s.scores.data, [Math.SQRT1_2, 0, 0, Math.SQRT1_2], { atol: 1e-7, rtol: 0 });
    expectClose(s.weights.data, [a, 1 - a, 1 - a, a], { atol: 1e-7, rtol: 0 });
    expect(s.output.shape).toEqual([2, 2]);
    expect(s.weights.shape).toEqual([2, 2]);
  });

  it("one key: the output is that key's value, whatever the query", () => {
    const r = attn.scaledDotProductAttention(
      [
        [3, -1],
        [0.5, 2],
      ],
      [[7, 7]],
      [[4, 5, 6]],
    );
    expect(r.output.toArray()).toEqual([
      [4, 5, 6],
      [4, 5, 6],
    ]);
    expect(r.weights.toArray()).toEqual([[1], [1]]);
  });

  it('equal scores give uniform weights and the mean of the values', () => {
    const r = attn.scaledDotProductAttention(
      [[0, 0]],
      [
        [1, 2],
        [3, 4],
        [5, 6],
        [7, 8],
      ],
      [[1], [2], [3], [6]],
    );
    expectClose(r.weights.data, [0.25, 0.25, 0.25, 0.25], { atol: 1e-7, rtol: 0 });
    expectClose(r.output.data, [3], { atol: 1e-6, rtol: 0 });
  });

  it('causal (top-left) averages over the keys up to each query', () => {
    const zeros = [[0], [0], [0]];
    const r = attn.scaledDotProductAttention(zeros, zeros, [[3], [6], [9]], { causal: true });
    expectClose(r.weights.data, [1, 0, 0, 0.5, 0.5, 0, 1 / 3, 1 / 3, 1 / 3], { atol: 1e-7, rtol: 0 });
    expectClose(r.output.data, [3, 4.5, 6], { atol: 1e-6, rtol: 0 });
  });

  it("causal 'bottom-right' aligns the queries with the end of the keys", () => {
    const r = attn.scaledDotProductAttention([[0], [0]], [[0], [0], [0], [0]], [[4], [8], [12], [16]], {
      causal: 'bottom-right',
    });
    // query 0 sees keys 0..2, query 1 sees keys 0..3
    expectClose(r.weights.data, [1 / 3, 1 / 3, 1 / 3, 0, 0.25, 0.25, 0.25, 0.25], { atol: 1e-7, rtol: 0 });
    expectClose(r.output.data, [8, 10], { atol: 1e-6, rtol: 0 });
  });

  it('a row with every key masked gives weights 0 and output 0, not NaN', () => {
    const r = attn.scaledDotProductAttention([[1], [1]], [[1], [2]], [[5], [7]], {
      mask: [
        [false, false],
        [true, false],
      ],
    });
    expect(r.weights.toArray()).toEqual([
      [0, 0],
      [1, 0],
    ]);
    expect(r.output.toArray()).toEqual([[0], [5]]);
  });

  it('scale 0 gives uniform weights; an explicit scale replaces 1/√d_k', () => {
    const zero = attn.scaledDotProductAttention(
      [[10, 10]],
      [
        [1, 0],
        [0, 5],
      ],
      [[2], [4]],
      { scale: 0 },
    );
    expectClose(zero.weights.data, [0.5, 0.5], { atol: 1e-7, rtol: 0 });
    const one = attn.scaledDotProductAttention(
      [[1, 0]],
      [
        [1, 0],
        [0, 0],
      ],
      [[1], [0]],
      { scale: 1, returnSteps: true },
    );
    expectClose(one.scaledScores.data, [1, 0], { atol: 0, rtol: 0 });
    expectClose(one.weights.data, [Math.E / (Math.E + 1), 1 / (Math.E + 1)], { atol: 1e-7, rtol: 0 });
  });

  it('an additive mask is added after scaling; -Infinity blocks', () => {
    const r = attn.scaledDotProductAttention([[0]], [[0], [0], [0]], [[1], [2], [3]], {
      mask: [[Math.log(2), 0, -Infinity]],
      returnSteps: true,
    });
    expectClose(r.weights.data, [2 / 3, 1 / 3, 0], { atol: 1e-7, rtol: 0 });
    expect(Array.from(r.scores.data)).toEqual([Math.fround(Math.log(2)), 0, -Infinity]);
    expectClose(r.output.data, [4 / 3], { atol: 1e-6, rtol: 0 });
  });

  it('a mask and causal together apply both', () => {
    const zeros = [[0], [0], [0]];
    const r = attn.scaledDotProductAttention(zeros, zeros, [[3], [6], [9]], {
      causal: true,
      mask: [true, false, true], // broadcast over queries: key 1 blocked everywhere
    });
    expect(r.weights.toArray()).toEqual([
      [1, 0, 0],
      [1, 0, 0],
      [0.5, 0, 0.5],
    ]);
  });

  it('grouped-query attention: query heads 0,1 read kv head 0 and heads 2,3 read kv head 1', () => {
    const q = { data: new Float32Array(4 * 1 * 1), shape: [4, 1, 1] };
    const k = { data: new Float32Array(4), shape: [2, 2, 1] };
    const v = { data: new Float32Array([1, 3, 10, 30]), shape: [2, 2, 1] };
    const r = attn.scaledDotProductAttention(q, k, v);
    expect(Array.from(r.output.data)).toEqual([2, 2, 20, 20]);
    expect(r.output.shape).toEqual([4, 1, 1]);
  });

  it('two heads side by side, then W_o', () => {
    // x = [[1, 0]]; head 0 sees v = x·wv[:, 0] = 1, head 1 v = x·wv[:, 1] = 0 — one token, so output = v
    const m = attn.multiHeadAttention([[1, 0]], {
      wq: I2,
      wk: I2,
      wv: [
        [1, 0],
        [0, 1],
      ],
      wo: [
        [2, 0],
        [0, 3],
      ],
      bo: [0.5, 0.25],
      numHeads: 2,
    });
    expect(m.heads.toArray()).toEqual([[[1]], [[0]]]);
    expect(m.concat.toArray()).toEqual([[1, 0]]);
    expect(m.output.toArray()).toEqual([[2.5, 0.25]]);
    expect(m.weights.shape).toEqual([2, 1, 1]);
  });
});
