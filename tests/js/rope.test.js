// The `rope` option of scaledDotProductAttention, selfAttention and multiHeadAttention, through the public API of
// both builds, in Node and Chromium: q and k rotated as the float64 reference of the Hugging Face code rotates them
// (rotate_half and GPT-J's rotate_every_two, partial dims, given positions, queries at the end of the keys), the
// attention then computed on the rotated q and k, the prepared layer and the workers giving the same bits, and
// every bad value an AttentionError naming the option.
//
// Tolerances: a rotated value is two float32 products summed, with cos and sin rounded once to float32: within a
// few float32 ulps of |x1| + |x2| (values here ≤ 2), so atol 2e-6 + rtol 1e-5. Attention on top: the defaults of
// expectClose (atol 1e-5, rtol 1e-4), as the other API tests.
import { beforeAll, describe, expect, it } from 'vitest';
import { AttentionError, createAttention } from '../../src/js/index.js';
import {
  VARIANTS,
  expectClose,
  randomTensor,
  referenceAttention,
  referenceMultiHead,
  seededRandom,
} from './reference.js';
import { referenceInvFreq, referenceRotateRows } from './model/rope-reference.js';

const ROTATION = { atol: 2e-6, rtol: 1e-5 };

const reference = (theta, dim, style) => ({ invFreq: referenceInvFreq(theta, dim), dim, style });

// d_k around the 4-float SIMD width (half = d_k / 2 also crosses it), partial dims, GQA, L_q < L_k.
const SDPA_CASES = [
  { batch: 1, heads: 1, kvHeads: 1, lenQ: 3, lenK: 3, dK: 2, dim: 2 },
  { batch: 1, heads: 2, kvHeads: 1, lenQ: 5, lenK: 5, dK: 4, dim: 4 },
  { batch: 2, heads: 4, kvHeads: 2, lenQ: 2, lenK: 7, dK: 6, dim: 6 },
  { batch: 1, heads: 3, kvHeads: 3, lenQ: 9, lenK: 9, dK: 8, dim: 8 },
  { batch: 1, heads: 2, kvHeads: 2, lenQ: 4, lenK: 6, dK: 10, dim: 6 },
  { batch: 1, heads: 2, kvHeads: 1, lenQ: 17, lenK: 17, dK: 18, dim: 18 },
  { batch: 1, heads: 1, kvHeads: 1, lenQ: 33, lenK: 33, dK: 64, dim: 32 },
  { batch: 1, heads: 2, kvHeads: 2, lenQ: 5, lenK: 5, dK: 7, dim: 4 },
];

describe.each(VARIANTS)('rope ($name build)', ({ simd }) => {
  let attn;
  beforeAll(async () => {
    attn = await createAttention({ simd });
  });

  describe.each(['half', 'interleaved'])('style %s', (style) => {
    it.each(SDPA_CASES)(
      'scaledDotProductAttention rotates q and k as the reference: B $batch, H $heads/$kvHeads, L $lenQ/$lenK, d_k $dK, dim $dim',
      ({ batch, heads, kvHeads, lenQ, lenK, dK, dim }) => {
        const random = seededRandom(lenK * 31 + dK);
        const q = randomTensor(random, [batch, heads, lenQ, dK], 2);
        const k = randomTensor(random, [batch, kvHeads, lenK, dK], 2);
        const v = randomTensor(random, [batch, kvHeads, lenK, dK]);
        const positions = Array.from({ length: lenK }, (_, i) => 3 * i + 1000); // far from 0: large angles
        const theta = 500000;
        const r = attn.scaledDotProductAttention(q, k, v, {
          causal: 'bottom-right',
          rope: { theta, dim, positions, style },
          returnSteps: true,
        });
        const rope = reference(theta, dim, style);
        const qRotated = referenceRotateRows(q.data, q.shape, rope, positions.slice(lenK - lenQ));
        const kRotated = referenceRotateRows(k.data, k.shape, rope, positions);
        expect(r.qRotated.shape).toEqual(q.shape);
        expect(r.kRotated.shape).toEqual(k.shape);
        expectClose(r.qRotated.data, qRotated, { ...ROTATION, what: 'qRotated' });
        expectClose(r.kRotated.data, kRotated, { ...ROTATION, what: 'kRotated' });
        const expected = referenceAttention({ data: qRotated, shape: q.shape }, { data: kRotated, shape: k.shape }, v, {
          causal: 'bottom-right',
        });
        expectClose(r.rawScores.data, expected.rawScores, { what: 'rawScores' });
        expectClose(r.weights.data, expected.weights, { what: 'weights' });
        expectClose(r.output.data, expected.output, { what: 'output' });
      },
    );

    it('selfAttention and multiHeadAttention rotate the projected q and k, positions 0 … L − 1 by default', () => {
      const random = seededRandom(7);
      const [L, dModel, numHeads, numKvHeads, dK] = [6, 12, 4, 2, 6];
      const x = randomTensor(random, [L, dModel]);
      const w = {
        wq: randomTensor(random, [dModel, numHeads * dK]),
        wk: randomTensor(random, [dModel, numKvHeads * dK]),
        wv: randomTensor(random, [dModel, numKvHeads * dK]),
        wo: randomTensor(random, [numHeads * dK, dModel]),
        bq: randomTensor(random, [numHeads * dK]),
      };
      const r = attn.multiHeadAttention(x, { ...w, numHeads, numKvHeads }, { causal: true, rope: { style } });
      const plain = referenceMultiHead(x, w, { numHeads, numKvHeads });
      const rope = reference(10000, dK, style);
      const qRotated = referenceRotateRows(plain.q, [numHeads, L, dK], rope);
      const kRotated = referenceRotateRows(plain.k, [numKvHeads, L, dK], rope);
      expectClose(r.q.data, plain.q, { what: 'q (before the rope)' });
      expectClose(r.qRotated.data, qRotated, { what: 'qRotated' });
      expectClose(r.kRotated.data, kRotated, { what: 'kRotated' });
      expect(r.kRotated.shape).toEqual([numKvHeads, L, dK]);
      const expected = referenceAttention(
        { data: qRotated, shape: [1, numHeads, L, dK] },
        { data: kRotated, shape: [1, numKvHeads, L, dK] },
        { data: plain.v, shape: [1, numKvHeads, L, dK] },
        { causal: true },
      );
      expectClose(r.weights.data, expected.weights, { what: 'weights' });
      expectClose(r.heads.data, expected.output, { what: 'heads' });

      const single = attn.selfAttention(x, { wq: w.wq, wk: w.wq, wv: w.wv }, { rope: { style, dim: 4 } });
      const projected = referenceMultiHead(x, { wq: w.wq, wk: w.wq, wv: w.wv });
      const partial = reference(10000, 4, style);
      expect(single.qRotated.shape).toEqual([L, numHeads * dK]);
      expectClose(single.qRotated.data, referenceRotateRows(projected.q, [L, numHeads * dK], partial), {
        what: 'selfAttention qRotated',
      });
    });
  });

  it('attentionFactor multiplies the rotated columns of q and k (cos and sin), the others left as they are', () => {
    const random = seededRandom(11);
    const [heads, kvHeads, L, dK, dim, factor] = [2, 1, 6, 10, 6, 1.25];
    const q = randomTensor(random, [1, heads, L, dK], 2);
    const k = randomTensor(random, [1, kvHeads, L, dK], 2);
    const v = randomTensor(random, [1, kvHeads, L, dK]);
    const r = attn.scaledDotProductAttention(q, k, v, { causal: true, rope: { dim, attentionFactor: factor } });
    /** The reference rotation, then its first `dim` columns of each row times the factor. */
    const scaled = (t) => {
      const rows = referenceRotateRows(t.data, t.shape, reference(10000, dim, 'half'));
      for (let i = 0; i < rows.length; i++) if (i % dK < dim) rows[i] *= factor;
      return rows;
    };
    const [qRotated, kRotated] = [scaled(q), scaled(k)];
    expectClose(r.qRotated.data, qRotated, { ...ROTATION, what: 'qRotated' });
    expectClose(r.kRotated.data, kRotated, { ...ROTATION, what: 'kRotated' });
    const expected = referenceAttention({ data: qRotated, shape: q.shape }, { data: kRotated, shape: k.shape }, v, {
      causal: true,
    });
    expectClose(r.weights.data, expected.weights, { what: 'weights' });
    expectClose(r.output.data, expected.output, { what: 'output' });
    // 1 is the default, and no factor at all
    const plain = attn.scaledDotProductAttention(q, k, v, { causal: true, rope: { dim } });
    const one = attn.scaledDotProductAttention(q, k, v, { causal: true, rope: { dim, attentionFactor: 1 } });
    expect(one.weights.data).toEqual(plain.weights.data);
    expect(one.weights.data).not.toEqual(r.weights.data);
  });

  it('without rope nothing is rotated and no qRotated or kRotated is returned', () => {
    const x = [
      [1, 2],
      [3, 4],
    ];
    const r = attn.selfAttention(x, { wq: [[1, 0], [0, 1]], wk: [[1, 0], [0, 1]], wv: [[1, 0], [0, 1]] }); // prettier-ignore
    expect('qRotated' in r || 'kRotated' in r).toBe(false);
  });

  it('a prepared layer gives selfAttention’s bits with a rope, whatever rope each run has', async () => {
    const random = seededRandom(3);
    const weights = {
      wq: randomTensor(random, [8, 8]),
      wk: randomTensor(random, [8, 4]),
      wv: randomTensor(random, [8, 4]),
      numHeads: 2,
      numKvHeads: 1,
    };
    const layer = await attn.prepareSelfAttention(weights);
    try {
      const x = randomTensor(random, [5, 8]);
      for (const rope of [
        { style: 'half' },
        { style: 'interleaved', theta: 100 },
        undefined,
        { positions: [9, 8, 7, 6, 5] },
      ]) {
        const expected = attn.selfAttention(x, weights, { rope });
        const got = layer.run(x, { rope });
        expect(Object.keys(got)).toEqual(Object.keys(expected));
        for (const key of Object.keys(expected)) expect(got[key].data, key).toEqual(expected[key].data);
      }
    } finally {
      layer.free();
    }
  });

  it.each([
    [{ dim: 3 }, /rope\.rotaryDims must be an even integer/],
    [{ dim: 6 }, /rope\.rotaryDims \(6\) must be at most d_k \(4\)/],
    [{ rotaryDims: 6 }, /rope\.rotaryDims \(6\) must be at most d_k \(4\)/],
    [{ rotaryDims: 2, dim: 4 }, /rope\.rotaryDims \(2\) and rope\.dim \(4\) differ/],
    [{ theta: 0 }, /rope\.theta must be a finite number above 0/],
    [{ theta: NaN }, /rope\.theta/],
    [{ theta: '10000' }, /rope\.theta/],
    [{ style: 'neox' }, /rope\.style must be 'half' or 'interleaved'/],
    [{ attentionFactor: 0 }, /rope\.attentionFactor must be a finite number above 0/],
    [{ attentionFactor: -1 }, /rope\.attentionFactor/],
    [{ attentionFactor: Infinity }, /rope\.attentionFactor/],
    [{ attentionFactor: NaN }, /rope\.attentionFactor/],
    [{ attentionFactor: '1' }, /rope\.attentionFactor/],
    [{ positions: [0, 1] }, /rope\.positions has 2 entries but there are 3 keys/],
    [{ positions: [0, -1, 2] }, /rope\.positions\[1\] is the number -1/],
    [{ positions: [0, 1.5, 2] }, /rope\.positions\[1\]/],
    [{ positions: 'abc' }, /rope\.positions must be an array/],
    ['half', /options\.rope must be an object/],
  ])('rope %j is BAD_OPTION naming the option', (rope, message) => {
    const x = [
      [1, 2, 3, 4],
      [0, 1, 0, 1],
      [2, 2, 2, 2],
    ];
    const error = (() => {
      try {
        attn.scaledDotProductAttention(x, x, x, { rope });
      } catch (e) {
        return e;
      }
    })();
    expect(error).toBeInstanceOf(AttentionError);
    expect(error.code).toBe('BAD_OPTION');
    expect(error.message).toMatch(message);
  });

  it('an unknown rope key is UNKNOWN_OPTION; L_q > L_k and crossAttention are BAD_OPTION', () => {
    const x = [
      [1, 2],
      [3, 4],
    ];
    const I = [
      [1, 0],
      [0, 1],
    ];
    expect(() => attn.selfAttention(x, { wq: I, wk: I, wv: I }, { rope: { thetta: 5 } })).toThrow(
      expect.objectContaining({ code: 'UNKNOWN_OPTION', message: expect.stringMatching(/did you mean 'theta'/) }),
    );
    expect(() => attn.scaledDotProductAttention(x, [x[0]], [x[0]], { rope: {} })).toThrow(
      expect.objectContaining({ code: 'BAD_OPTION', message: expect.stringMatching(/L_q ≤ L_k/) }),
    );
    expect(() => attn.crossAttention(x, x, { wq: I, wk: I, wv: I }, { rope: {} })).toThrow(
      expect.objectContaining({ code: 'BAD_OPTION', message: expect.stringMatching(/not crossAttention/) }),
    );
  });
});

describe('rope with workers', () => {
  let single;
  let parallel;
  beforeAll(async () => {
    [single, parallel] = await Promise.all([createAttention(), createAttention({ workers: 2 })]);
    return () => parallel.terminate();
  });

  it('scaledDotProductAttention and multiHeadAttention give one thread’s bits (GQA: kRotated per kv head)', async () => {
    const random = seededRandom(11);
    const q = randomTensor(random, [4, 5, 6]);
    const k = randomTensor(random, [2, 5, 6]);
    const v = randomTensor(random, [2, 5, 6]);
    const options = { rope: { style: 'interleaved', positions: [4, 5, 6, 7, 8] }, returnSteps: true };
    const sdpa = [
      single.scaledDotProductAttention(q, k, v, options),
      await parallel.scaledDotProductAttention(q, k, v, options),
    ];
    const x = randomTensor(random, [5, 8]);
    const weights = {
      wq: randomTensor(random, [8, 12]),
      wk: randomTensor(random, [8, 6]),
      wv: randomTensor(random, [8, 6]),
      wo: randomTensor(random, [12, 8]),
      numHeads: 4,
      numKvHeads: 2,
    };
    const mha = [
      single.multiHeadAttention(x, weights, { rope: { dim: 2 } }),
      await parallel.multiHeadAttention(x, weights, { rope: { dim: 2 } }),
    ];
    for (const [one, many] of [sdpa, mha]) {
      expect(Object.keys(many)).toEqual(Object.keys(one));
      for (const key of Object.keys(one)) expect(many[key].data, key).toEqual(one[key].data);
    }
    expect(mha[1].kRotated.shape).toEqual([2, 5, 3]);
  });
});
