// createAttention({ workers }): the same results as one thread, bit for bit, and the same errors, in Node
// (worker_threads) and Chromium (Web Workers).
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttentionError, createAttention } from '../../src/js/index.js';
import { expectClose, randomBooleanMask, randomTensor, seededRandom } from './reference.js';
import { I2, goldenOutput, weights } from './worked-example.js';

/** Same keys in the same order, same shapes, and every value the same float32. */
function expectSameBits(actual, expected) {
  expect(Object.keys(actual)).toEqual(Object.keys(expected));
  for (const key of Object.keys(expected)) {
    expect(actual[key].shape, key).toEqual(expected[key].shape);
    expect(Array.from(actual[key].data), key).toEqual(Array.from(expected[key].data));
  }
}

describe('workers', () => {
  let single;
  let parallel;
  beforeAll(async () => {
    [single, parallel] = await Promise.all([createAttention(), createAttention({ workers: 3 })]);
  });
  afterAll(() => parallel.terminate());

  it('start with the same build', () => {
    expect(parallel.workers).toBe(3);
    expect(parallel.simd).toBe(true);
    expect(parallel.instructionSets).toBe(single.instructionSets);
    expect(parallel.kernelBackend).toBe(single.kernelBackend);
  });

  it('scaledDotProductAttention gives bit-identical results over (batch, head) pairs', async () => {
    const random = seededRandom(61);
    const cases = [
      { shape: [5, 7], kv: null, mask: null, causal: true },
      { shape: [4, 33, 8], kv: 4, mask: null, causal: false },
      { shape: [4, 17, 8], kv: 2, mask: [1, 17, 17], causal: 'bottom-right' },
      { shape: [2, 6, 9, 4], kv: 3, mask: [2, 6, 9, 9], causal: true },
      { shape: [3, 2, 9, 4], kv: 1, mask: [3, 1, 1, 11], causal: false },
    ];
    for (const c of cases) {
      const [lenQ, dK] = c.shape.slice(-2);
      const lead = c.shape.slice(0, -2);
      const kvLead = c.kv === null ? lead : [...lead.slice(0, -1), c.kv];
      const lenK = c.mask ? c.mask[c.mask.length - 1] : lenQ + 2;
      const q = randomTensor(random, c.shape);
      const k = randomTensor(random, [...kvLead, lenK === 1 ? 1 : lenK, dK]);
      const v = randomTensor(random, [...kvLead, lenK, 5]);
      const mask = c.mask ? randomBooleanMask(random, c.mask, 0.7) : undefined;
      const options = { causal: c.causal, mask, returnSteps: true };
      const a = single.scaledDotProductAttention(q, k, v, options);
      const b = await parallel.scaledDotProductAttention(q, k, v, options);
      expect(Object.keys(b)).toEqual(Object.keys(a));
      for (const key of Object.keys(a)) {
        expect(b[key].shape).toEqual(a[key].shape);
        expect(Array.from(b[key].data)).toEqual(Array.from(a[key].data));
      }
    }
  });

  it('multi-head and grouped-query attention match one thread, with masks, biases, W_o and a batch', async () => {
    const random = seededRandom(67);
    for (const numKvHeads of [1, 2, 3, 6]) {
      for (const batched of [false, true]) {
        const x = randomTensor(random, batched ? [2, 7, 12] : [7, 12]);
        const weights = {
          wq: randomTensor(random, [12, 6 * 2]),
          wk: randomTensor(random, [12, numKvHeads * 2]),
          wv: randomTensor(random, [12, numKvHeads * 3]),
          wo: randomTensor(random, [18, 5]),
          bq: randomTensor(random, [12]),
          bk: randomTensor(random, [numKvHeads * 2]),
          bv: randomTensor(random, [numKvHeads * 3]),
          bo: randomTensor(random, [5]),
          numHeads: 6,
          numKvHeads,
        };
        const mask = randomBooleanMask(random, batched ? [2, 6, 7, 7] : [6, 1, 7], 0.8);
        const a = single.multiHeadAttention(x, weights, { causal: true, mask });
        const b = await parallel.multiHeadAttention(x, weights, { causal: true, mask });
        expectSameBits(b, a);
      }
    }
  });

  it('the output projection, shared out by rows, gives the same bits as one thread', async () => {
    // 2 × 100 rows: four blocks of the core's 64 rows over 3 workers; a wide concat (12 heads × 16) makes
    // any other order of summation show in the last bits
    const random = seededRandom(73);
    const x = randomTensor(random, [2, 100, 48]);
    const weights = {
      wq: randomTensor(random, [48, 12 * 8]),
      wk: randomTensor(random, [48, 4 * 8]),
      wv: randomTensor(random, [48, 4 * 16]),
      wo: randomTensor(random, [12 * 16, 40]),
      bo: randomTensor(random, [40]),
      numHeads: 12,
      numKvHeads: 4,
    };
    const a = single.multiHeadAttention(x, weights, { returnWeights: false });
    const b = await parallel.multiHeadAttention(x, weights, { returnWeights: false });
    expectSameBits(b, a);
  });

  it('reused result buffers: a call leaves the results of earlier calls as they were, concurrent calls too', async () => {
    // The workers write into buffers that the next call reuses (parallel.js partTargets): a result handed out
    // must never be one of them, and two calls at once must not share one.
    const random = seededRandom(67);
    const inputs = [0, 1, 2].map(() => [0, 1, 2].map(() => randomTensor(random, [6, 20, 8])));
    const expected = inputs.map(([q, k, v]) => single.scaledDotProductAttention(q, k, v, { returnWeights: true }));
    const first = await parallel.scaledDotProductAttention(...inputs[0], { returnWeights: true });
    const copies = Object.fromEntries(Object.entries(first).map(([key, t]) => [key, { ...t, data: t.data.slice() }]));
    const [second, third] = await Promise.all(
      inputs.slice(1).map(([q, k, v]) => parallel.scaledDotProductAttention(q, k, v, { returnWeights: true })),
    );
    await parallel.scaledDotProductAttention(...inputs[2], { returnWeights: true });
    expectSameBits(first, copies);
    expectSameBits(first, expected[0]);
    expectSameBits(second, expected[1]);
    expectSameBits(third, expected[2]);
    const buffers = [first, second, third].flatMap((r) => Object.values(r).map((t) => t.data.buffer));
    expect(new Set(buffers).size).toBe(buffers.length);
  });

  it('single-head and cross-attention match one thread', async () => {
    const random = seededRandom(71);
    const x = randomTensor(random, [5, 4]);
    const context = randomTensor(random, [8, 6]);
    const single1 = {
      wq: randomTensor(random, [4, 3]),
      wk: randomTensor(random, [4, 3]),
      wv: randomTensor(random, [4, 2]),
    };
    const a = single.selfAttention(x, single1, { causal: true });
    const b = await parallel.selfAttention(x, single1, { causal: true });
    for (const key of Object.keys(a)) expect(Array.from(b[key].data)).toEqual(Array.from(a[key].data));
    const cross = {
      wq: randomTensor(random, [4, 8]),
      wk: randomTensor(random, [6, 8]),
      wv: randomTensor(random, [6, 4]),
      numHeads: 4,
    };
    const c = single.crossAttention(x, context, cross);
    const d = await parallel.crossAttention(x, context, cross);
    expectSameBits(d, c);
  });

  it('bad input rejects with the same AttentionError, and the workers keep working', async () => {
    const error = await parallel.scaledDotProductAttention([[1, 2]], [[1]], [[1]]).catch((e) => e);
    expect(error).toBeInstanceOf(AttentionError);
    expect(error.code).toBe('SHAPE_MISMATCH');
    // NaN in the second head's keys: checked before the heads are split, so the index is the whole tensor's
    const keys = new Float32Array(2 * 3 * 2).fill(1);
    keys[9] = NaN;
    const ones = (shape) => ({ data: new Float32Array(shape.reduce((a, b) => a * b)).fill(1), shape });
    const nan = await parallel
      .scaledDotProductAttention(ones([2, 3, 2]), { data: keys, shape: [2, 3, 2] }, ones([2, 3, 2]))
      .catch((e) => e);
    const singleNan = (() => {
      try {
        single.scaledDotProductAttention(ones([2, 3, 2]), { data: keys, shape: [2, 3, 2] }, ones([2, 3, 2]));
      } catch (e) {
        return e;
      }
    })();
    expect(nan.code).toBe('NON_FINITE');
    expect(nan.message).toContain('k.data[9] (k[1][1][1]) is NaN');
    expect(nan.message).toBe(singleNan.message);
    const overflow = await parallel.scaledDotProductAttention([[3e38]], [[3e38]], [[1]], { scale: 1 }).catch((e) => e);
    expect(overflow.code).toBe('SCORE_OVERFLOW');
    const r = await parallel.selfAttention(I2, weights);
    expectClose(r.output.data, goldenOutput, { atol: 1e-6, rtol: 0 });
  });

  it('a NaN or ±inf that the workers find is named in the whole tensor, first in q, k, v order, as one thread', async () => {
    // Float32 inputs without a mask are scanned by the workers in their copies (parallel-pairs.js firstFailure):
    // 3 workers over [2 batch, 6 heads] pairs with 3 kv heads (grouped), so k and v are gathered by kv block.
    const shapeQ = [2, 6, 5, 4];
    const shapeKv = [2, 3, 7, 4];
    const filled = (shape) => new Float32Array(shape.reduce((a, b) => a * b)).fill(0.5);
    const cases = [
      // q bad in the last worker's part, k bad in the first's: q is reported (one thread scans q first)
      { q: [[2 * 6 * 5 * 4 - 3, NaN]], k: [[5, Infinity]], v: [] },
      // two bad values of k in different workers' parts (kv blocks 1 and 4): the lower index
      {
        q: [],
        k: [
          [4 * 7 * 4 + 9, -Infinity],
          [1 * 7 * 4 + 2, NaN],
        ],
        v: [],
      },
      // v only, in kv block 5 (batch 1, kv head 2: the last worker)
      { q: [], k: [], v: [[5 * 7 * 4 + 27, NaN]] },
    ];
    for (const bad of cases) {
      const data = { q: filled(shapeQ), k: filled(shapeKv), v: filled(shapeKv) };
      for (const name of ['q', 'k', 'v']) for (const [i, x] of bad[name]) data[name][i] = x;
      const args = ['q', 'k', 'v'].map((name) => ({ data: data[name], shape: name === 'q' ? shapeQ : shapeKv }));
      const expected = (() => {
        try {
          single.scaledDotProductAttention(...args);
        } catch (e) {
          return e;
        }
      })();
      const error = await parallel.scaledDotProductAttention(...args).catch((e) => e);
      expect(error).toBeInstanceOf(AttentionError);
      expect(expected.code).toBe('NON_FINITE');
      expect([error.code, error.message]).toEqual([expected.code, expected.message]);
    }
    // the workers keep working after it
    const ok = await parallel.scaledDotProductAttention(
      { data: filled(shapeQ), shape: shapeQ },
      ...[0, 0].map(() => ({ data: filled(shapeKv), shape: shapeKv })),
    );
    expect(ok.output.data[0]).toBe(0.5);
  });

  it('rejects a bad workers option', async () => {
    for (const workers of [0, -1, 1.5, '2', 65]) {
      await expect(createAttention({ workers })).rejects.toMatchObject({ code: 'BAD_OPTION' });
    }
  });
});
