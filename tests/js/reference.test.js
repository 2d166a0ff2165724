// The public API of both builds against the float64 reference, at sizes around the SIMD width,
// and the properties attention must have whatever the numbers.
import { beforeAll, describe, expect, it } from 'vitest';
import { createAttention } from '../../src/js/index.js';
import {
  EDGE_SIZES,
  as4d,
  VARIANTS,
  expectClose,
  randomBooleanMask,
  randomTensor,
  referenceAttention,
  referenceMultiHead,
  seededRandom,
} from './reference.js';

describe.each(VARIANTS)('against the float64 reference ($name build)', ({ simd }) => {
  let attn;
  beforeAll(async () => {
    attn = await createAttention({ simd });
  });

  function check(q, k, v, options = {}, refMask = null) {
    const result = attn.scaledDotProductAttention(q, k, v, { ...options, returnSteps: true });
    const ref = referenceAttention(as4d(q), as4d(k), as4d(v), { ...options, mask: refMask });
    for (const key of ['output', 'weights', 'scores', 'scaledScores', 'rawScores']) {
      expectClose(result[key].data, ref[key], { what: key });
    }
    return result;
  }

  it.each(EDGE_SIZES)('L_q = L_k = %i with d_k = d_v around the SIMD width', (n) => {
    const random = seededRandom(n);
    for (const d of [1, 3, 4, 5, 8, 17]) {
      check(randomTensor(random, [n, d]), randomTensor(random, [n, d]), randomTensor(random, [n, d]));
    }
  });

  it.each(EDGE_SIZES)('d_k = %i against every L_k and a different d_v', (d) => {
    const random = seededRandom(100 + d);
    for (const lenK of EDGE_SIZES) {
      check(randomTensor(random, [3, d]), randomTensor(random, [lenK, d]), randomTensor(random, [lenK, (d % 7) + 1]));
    }
  });

  it.each([true, 'bottom-right'])('causal %s, with L_q < L_k, L_q = L_k and L_q > L_k', (causal) => {
    const random = seededRandom(7);
    for (const [lenQ, lenK] of [
      [5, 9],
      [9, 9],
      [17, 16],
      [9, 5],
      [1, 33],
      [33, 1],
    ]) {
      check(randomTensor(random, [lenQ, 8]), randomTensor(random, [lenK, 8]), randomTensor(random, [lenK, 3]), {
        causal,
      });
    }
  });

  it('boolean and additive masks, broadcast along every dimension, alone and with causal', () => {
    const random = seededRandom(11);
    const [B, H, Lq, Lk] = [2, 3, 7, 9];
    const q = randomTensor(random, [B, H, Lq, 5]);
    const k = randomTensor(random, [B, H, Lk, 5]);
    const v = randomTensor(random, [B, H, Lk, 4]);
    for (const dims of [
      [B, H, Lq, Lk],
      [1, 1, Lq, Lk],
      [B, 1, 1, Lk],
      [1, H, Lq, 1],
      [1, 1, 1, 1],
    ]) {
      const boolean = randomBooleanMask(random, dims, 0.6);
      const additive = randomTensor(random, dims, 3);
      additive.data[0] = -Infinity;
      for (const causal of [false, true, 'bottom-right']) {
        check(q, k, v, { causal, mask: boolean }, { kind: 'boolean', data: boolean.data, dims });
        check(q, k, v, { causal, mask: additive }, { kind: 'additive', data: additive.data, dims });
      }
    }
    // a mask of lower rank broadcasts from the right: [L_k] is one row for every query
    const keyMask = randomBooleanMask(random, [Lk]);
    check(q, k, v, { mask: keyMask }, { kind: 'boolean', data: keyMask.data, dims: [1, 1, 1, Lk] });
  });

  it('grouped-query attention with H = 4 and H_kv = 1, 2, 4, batched', () => {
    const random = seededRandom(13);
    for (const numKvHeads of [1, 2, 4]) {
      check(
        randomTensor(random, [2, 4, 9, 8]),
        randomTensor(random, [2, numKvHeads, 17, 8]),
        randomTensor(random, [2, numKvHeads, 17, 5]),
        { causal: true },
      );
    }
  });

  it('explicit scales, 0 included', () => {
    const random = seededRandom(17);
    for (const scale of [0, 0.01, 1, 3.5, -2]) {
      check(randomTensor(random, [6, 4]), randomTensor(random, [6, 4]), randomTensor(random, [6, 4]), { scale });
    }
  });

  it('self-, multi-head, grouped-query and cross-attention from inputs, with biases and W_o', () => {
    const random = seededRandom(19);
    const cases = [
      { L: 7, dModel: 16, numHeads: 1, numKvHeads: 1, dK: 8, dV: 5, wo: false, bias: false, cross: null },
      { L: 9, dModel: 12, numHeads: 4, numKvHeads: 4, dK: 3, dV: 3, wo: true, bias: true, cross: null },
      { L: 17, dModel: 16, numHeads: 4, numKvHeads: 2, dK: 4, dV: 2, wo: true, bias: true, cross: null },
      { L: 5, dModel: 8, numHeads: 2, numKvHeads: 1, dK: 4, dV: 4, wo: true, bias: false, cross: { L: 11, d: 6 } },
      { L: 4, dModel: 8, numHeads: 1, numKvHeads: 1, dK: 8, dV: 8, wo: false, bias: true, cross: { L: 3, d: 5 } },
    ];
    for (const c of cases) {
      const x = randomTensor(random, [c.L, c.dModel]);
      const context = c.cross ? randomTensor(random, [c.cross.L, c.cross.d]) : null;
      const dIn = c.cross ? c.cross.d : c.dModel;
      const w = {
        wq: randomTensor(random, [c.dModel, c.numHeads * c.dK]),
        wk: randomTensor(random, [dIn, c.numKvHeads * c.dK]),
        wv: randomTensor(random, [dIn, c.numKvHeads * c.dV]),
      };
      if (c.wo) w.wo = randomTensor(random, [c.numHeads * c.dV, 6]);
      if (c.bias) {
        w.bq = randomTensor(random, [c.numHeads * c.dK]);
        w.bk = randomTensor(random, [c.numKvHeads * c.dK]);
        w.bv = randomTensor(random, [c.numKvHeads * c.dV]);
        if (c.wo) w.bo = randomTensor(random, [6]);
      }
      const weights = { ...w, numHeads: c.numHeads, numKvHeads: c.numKvHeads };
      const options = { causal: !c.cross };
      const result = context
        ? attn.crossAttention(x, context, weights, options)
        : attn.multiHeadAttention(x, weights, options);
      const ref = referenceMultiHead(x, w, { context, numHeads: c.numHeads, numKvHeads: c.numKvHeads, ...options });
      for (const key of [
        'q',
        'k',
        'v',
        'rawScores',
        'scaledScores',
        'scores',
        'weights',
        'heads',
        'concat',
        'output',
      ]) {
        expectClose(result[key].data, ref[key], { what: key });
      }
      const lenK = c.cross ? c.cross.L : c.L;
      expect(result.weights.shape).toEqual([c.numHeads, c.L, lenK]);
      expect(result.k.shape).toEqual([c.numKvHeads, lenK, c.dK]);
      expect(result.output.shape).toEqual([c.L, c.wo ? 6 : c.numHeads * c.dV]);
    }
  });

  it('W_q and W_k may be the same matrix', () => {
    const random = seededRandom(23);
    const x = randomTensor(random, [6, 4]);
    const shared = randomTensor(random, [4, 4]);
    const s = attn.selfAttention(x, { wq: shared, wk: shared, wv: randomTensor(random, [4, 3]) });
    expectClose(s.q.data, s.k.data, { atol: 0, rtol: 0 });
    const w = s.rawScores.toArray();
    for (let i = 0; i < 6; i++) for (let j = 0; j < 6; j++) expect(w[i][j]).toBeCloseTo(w[j][i], 5);
  });

  it('a batch dimension gives the same results as one call per item', () => {
    const random = seededRandom(29);
    const x = randomTensor(random, [3, 5, 8]);
    const w = {
      wq: randomTensor(random, [8, 8]),
      wk: randomTensor(random, [8, 8]),
      wv: randomTensor(random, [8, 4]),
      numHeads: 2,
    };
    const batched = attn.selfAttention(x, w, { causal: true });
    expect(batched.weights.shape).toEqual([3, 2, 5, 5]);
    expect(batched.output.shape).toEqual([3, 5, 4]);
    for (let b = 0; b < 3; b++) {
      const one = attn.selfAttention({ data: x.data.subarray(b * 40, (b + 1) * 40), shape: [5, 8] }, w, {
        causal: true,
      });
      expectClose(batched.output.data.subarray(b * 20, (b + 1) * 20), one.output.data, { atol: 1e-6, what: 'output' });
      expectClose(batched.weights.data.subarray(b * 50, (b + 1) * 50), one.weights.data, {
        atol: 1e-6,
        what: 'weights',
      });
    }
  });
});

describe.each(VARIANTS)('properties ($name build)', ({ simd }) => {
  let attn;
  beforeAll(async () => {
    attn = await createAttention({ simd });
  });

  it('each row of weights sums to 1, and masked weights are exactly 0', () => {
    const random = seededRandom(31);
    for (const n of EDGE_SIZES) {
      const mask = randomBooleanMask(random, [n, n], 0.5);
      const r = attn.scaledDotProductAttention(
        randomTensor(random, [n, 8], 3),
        randomTensor(random, [n, 8], 3),
        randomTensor(random, [n, 2]),
        { mask },
      );
      for (let i = 0; i < n; i++) {
        let sum = 0;
        let open = 0;
        for (let j = 0; j < n; j++) {
          const w = r.weights.data[i * n + j];
          if (!mask.data[i * n + j]) expect(w).toBe(0);
          sum += w;
          open += mask.data[i * n + j];
        }
        if (open === 0) expect(sum).toBe(0);
        else expect(sum).toBeCloseTo(1, 5);
      }
    }
  });

  it.each([
    [true, 0],
    ['bottom-right', 3],
    ['bottom-right', -2],
  ])('causal %s equals an explicit lower-triangular mask (L_k − L_q = %i)', (causal, shift) => {
    const random = seededRandom(37);
    const lenQ = 9;
    const lenK = lenQ + shift;
    const q = randomTensor(random, [lenQ, 4]);
    const k = randomTensor(random, [lenK, 4]);
    const v = randomTensor(random, [lenK, 3]);
    const offset = causal === true ? 0 : shift;
    const tril = Array.from({ length: lenQ }, (_, i) => Array.from({ length: lenK }, (_, j) => j <= i + offset));
    const a = attn.scaledDotProductAttention(q, k, v, { causal });
    const b = attn.scaledDotProductAttention(q, k, v, { mask: tril });
    expect(Array.from(a.weights.data)).toEqual(Array.from(b.weights.data));
    expect(Array.from(a.output.data)).toEqual(Array.from(b.output.data));
  });

  it('permuting keys and values together leaves the output unchanged', () => {
    const random = seededRandom(41);
    for (const n of [3, 8, 17]) {
      const q = randomTensor(random, [5, 6]);
      const k = randomTensor(random, [n, 6]);
      const v = randomTensor(random, [n, 4]);
      const order = Array.from({ length: n }, (_, i) => i).sort(() => random());
      const permute = (t, width) => ({
        data: Float32Array.from(order.flatMap((j) => Array.from(t.data.subarray(j * width, (j + 1) * width)))),
        shape: t.shape,
      });
      const a = attn.scaledDotProductAttention(q, k, v);
      const b = attn.scaledDotProductAttention(q, permute(k, 6), permute(v, 4));
      expectClose(b.output.data, a.output.data, { atol: 1e-6, what: 'output' });
      for (let i = 0; i < 5; i++) {
        order.forEach((j, p) => expect(b.weights.data[i * n + p]).toBeCloseTo(a.weights.data[i * n + j], 6));
      }
    }
  });

  it('adding a constant to a row of scores changes nothing', () => {
    const random = seededRandom(43);
    const q = randomTensor(random, [6, 5]);
    const k = randomTensor(random, [7, 5]);
    const v = randomTensor(random, [7, 3]);
    const shift = Array.from({ length: 6 }, (_, i) => Array(7).fill((i - 2) * 37.5));
    const a = attn.scaledDotProductAttention(q, k, v);
    const b = attn.scaledDotProductAttention(q, k, v, { mask: shift });
    expectClose(b.weights.data, a.weights.data, { atol: 1e-6, what: 'weights' });
    expectClose(b.output.data, a.output.data, { atol: 1e-6, what: 'output' });
  });

  it('scores around 1e4 neither overflow nor give NaN, and still match the reference', () => {
    const random = seededRandom(47);
    const q = randomTensor(random, [8, 4], 100);
    const k = randomTensor(random, [8, 4], 100);
    const v = randomTensor(random, [8, 3]);
    const r = attn.scaledDotProductAttention(q, k, v, { scale: 1, returnSteps: true });
    expect(Math.max(...r.rawScores.data.map(Math.abs))).toBeGreaterThan(5e3);
    expect(r.weights.data.every(Number.isFinite)).toBe(true);
    const ref = referenceAttention(as4d(q), as4d(k), as4d(v), { scale: 1 });
    expectClose(r.output.data, ref.output, { atol: 1e-4, what: 'output' });
  });
});
