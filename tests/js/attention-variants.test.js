// The attention variants of Gemma 2 and Mistral through the public API, against the float64 reference
// (reference.js, written from PyTorch's definitions): softcap (tanh(s / softcap) · softcap of the scaled scores,
// before the masks), window (a sliding window: keys within `window` positions back, with causal) and rope's
// rotaryDims (partial rotary), in scaledDotProductAttention, selfAttention, multiHeadAttention, prepare and workers.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAttention } from '../../src/js/index.js';
import {
  VARIANTS,
  as4d,
  expectClose,
  randomTensor,
  referenceAttention,
  referenceMultiHead,
  seededRandom,
} from './reference.js';

const STEPS = ['output', 'weights', 'scores', 'scaledScores', 'rawScores'];

/** Largest |a − e| over the finite entries of two arrays (−Infinity must sit at the same places). */
function largestError(actual, expected) {
  let worst = 0;
  for (let i = 0; i < expected.length; i++) {
    if (expected[i] === -Infinity) continue;
    worst = Math.max(worst, Math.abs(actual[i] - expected[i]));
  }
  return worst;
}

describe.each(VARIANTS)('softcap, window and rotaryDims ($name build)', ({ simd }) => {
  let attn;
  beforeAll(async () => {
    attn = await createAttention({ simd });
  });

  it.each([
    [{ softcap: 2 }, 'softcap alone'],
    [{ softcap: 0.5, causal: true }, 'softcap with causal'],
    [{ window: 3, causal: true }, 'window, top-left'],
    [{ window: 4, causal: 'bottom-right' }, 'window, bottom-right'],
    [{ window: 1, causal: true, softcap: 5 }, 'window 1 with softcap'],
    [{ window: 100, causal: true, softcap: 1 }, 'window beyond the keys'],
  ])('scaledDotProductAttention with %j (%s) matches the reference', (options) => {
    const random = seededRandom(41);
    let worst = 0;
    for (const [lenQ, lenK, dK] of [
      [7, 7, 8],
      [5, 9, 4],
      [17, 17, 5],
      [70, 70, 8],
      [3, 600, 4],
    ]) {
      const q = randomTensor(random, [2, lenQ, dK], 6);
      const k = randomTensor(random, [1, lenK, dK]);
      const v = randomTensor(random, [1, lenK, 3]);
      const result = attn.scaledDotProductAttention(q, k, v, { ...options, returnSteps: true });
      const ref = referenceAttention(as4d(q), as4d(k), as4d(v), options);
      for (const key of STEPS) {
        expectClose(result[key].data, ref[key], { what: key });
        worst = Math.max(worst, largestError(result[key].data, ref[key]));
      }
      // the output alone takes other paths (blocks of 64 rows; tiles of 512 keys)
      const alone = attn.scaledDotProductAttention(q, k, v, { ...options, returnWeights: false });
      expectClose(alone.output.data, ref.output, { what: 'output alone' });
    }
    expect(worst).toBeLessThan(1e-4);
  });

  it('a sliding window keeps exactly the last `window` keys of each query, as PyTorch masks them', () => {
    const random = seededRandom(3);
    const x = randomTensor(random, [9, 4]);
    const { weights } = attn.scaledDotProductAttention(x, x, x, { causal: true, window: 3 });
    const w = weights.toArray();
    for (let i = 0; i < 9; i++) {
      for (let j = 0; j < 9; j++) {
        // PyTorch: mask = torch.ones(L, L).tril() & ~torch.ones(L, L).tril(-window)
        const open = j <= i && j > i - 3;
        if (!open) expect(w[i][j], `${i},${j}`).toBe(0);
        else expect(w[i][j], `${i},${j}`).toBeGreaterThan(0);
      }
    }
  });

  it('softcap bounds the scores by the cap and keeps scaledScores before it', () => {
    const random = seededRandom(5);
    const q = randomTensor(random, [6, 4], 40);
    const k = randomTensor(random, [6, 4]);
    const r = attn.scaledDotProductAttention(q, k, k, { softcap: 3, returnSteps: true });
    for (let i = 0; i < r.scores.data.length; i++) {
      expect(Math.abs(r.scores.data[i])).toBeLessThanOrEqual(3);
      expect(r.scores.data[i]).toBeCloseTo(Math.tanh(r.scaledScores.data[i] / 3) * 3, 5);
    }
  });

  it('selfAttention and multiHeadAttention take softcap and window, with grouped heads and a rope', () => {
    const random = seededRandom(43);
    const x = randomTensor(random, [11, 8]);
    const w = {
      wq: randomTensor(random, [8, 4 * 4], 2),
      wk: randomTensor(random, [8, 2 * 4], 2),
      wv: randomTensor(random, [8, 2 * 3]),
      wo: randomTensor(random, [4 * 3, 5]),
    };
    const options = { causal: true, window: 4, softcap: 1.5 };
    const weights = { ...w, numHeads: 4, numKvHeads: 2 };
    const result = attn.multiHeadAttention(x, weights, options);
    const ref = referenceMultiHead(x, w, { numHeads: 4, numKvHeads: 2, ...options });
    for (const key of ['weights', 'scores', 'scaledScores', 'heads', 'output']) {
      expectClose(result[key].data, ref[key], { what: key });
    }
    const single = {
      wq: randomTensor(random, [8, 4]),
      wk: randomTensor(random, [8, 4]),
      wv: randomTensor(random, [8, 3]),
    };
    const self = attn.selfAttention(x, single, options);
    expectClose(self.weights.data, referenceMultiHead(x, single, options).weights, { what: 'selfAttention weights' });
    // with a rope: the rotation comes before the scores, the variants after them
    const roped = attn.multiHeadAttention(x, weights, { ...options, rope: { rotaryDims: 2 } });
    const plain = attn.multiHeadAttention(x, weights, { causal: true, rope: { rotaryDims: 2 } });
    expectClose(roped.scaledScores.data, plain.scaledScores.data, { what: 'scaledScores with a rope' });
  });

  it('prepare takes them too', () => {
    const random = seededRandom(47);
    const [q, k, v] = [
      [2, 10, 4],
      [2, 10, 4],
      [2, 10, 3],
    ].map((shape) => randomTensor(random, shape));
    const options = { causal: true, window: 2, softcap: 0.7 };
    const run = attn.prepare({ q: q.shape, k: k.shape, v: v.shape }, options);
    const ref = referenceAttention(as4d(q), as4d(k), as4d(v), options);
    expectClose(run(q.data, k.data, v.data).output.data, ref.output, { what: 'prepared output' });
  });

  it('a prepared layer (prepareSelfAttention) takes them per run, as selfAttention does', async () => {
    const random = seededRandom(49);
    const x = randomTensor(random, [9, 4]);
    const w = { wq: randomTensor(random, [4, 4]), wk: randomTensor(random, [4, 4]), wv: randomTensor(random, [4, 3]) };
    const layer = await attn.prepareSelfAttention(w);
    try {
      for (const options of [{ causal: true, window: 3, softcap: 0.8 }, { causal: true }]) {
        expect(Array.from(layer.run(x, options).weights.data)).toEqual(
          Array.from(attn.selfAttention(x, w, options).weights.data),
        );
      }
    } finally {
      layer.free();
    }
  });

  it('rope.rotaryDims rotates the first rotaryDims columns, as rope.dim did', () => {
    const random = seededRandom(53);
    const x = randomTensor(random, [5, 6]);
    const a = attn.scaledDotProductAttention(x, x, x, { rope: { rotaryDims: 4 }, returnSteps: true });
    const b = attn.scaledDotProductAttention(x, x, x, { rope: { dim: 4 }, returnSteps: true });
    expect(a.qRotated.data).toEqual(b.qRotated.data);
    expect(Array.from(a.qRotated.data.subarray(4, 6))).toEqual(Array.from(x.data.subarray(4, 6)));
  });

  it.each([
    [{ window: 2 }, /a sliding window \(window 2\) is causal/],
    [{ window: -1, causal: true }, /window must be an integer from 0/],
    [{ window: 1.5, causal: true }, /window must be an integer from 0/],
    [{ softcap: -1 }, /softcap must be a finite number from 0/],
    [{ softcap: Infinity }, /softcap must be a finite number from 0/],
    [{ softcap: '2' }, /softcap must be a finite number from 0/],
  ])('%j is BAD_OPTION naming the option', (options, message) => {
    const x = [
      [1, 2],
      [3, 4],
    ];
    expect(() => attn.scaledDotProductAttention(x, x, x, options)).toThrow(
      expect.objectContaining({ code: 'BAD_OPTION', message: expect.stringMatching(message) }),
    );
  });
});

describe('with workers', () => {
  let parallel;
  beforeAll(async () => {
    parallel = await createAttention({ workers: 2 });
  });
  afterAll(() => parallel?.terminate());

  it('the workers apply softcap and window as one thread does', async () => {
    const random = seededRandom(59);
    const q = randomTensor(random, [4, 9, 4], 4);
    const k = randomTensor(random, [2, 9, 4]);
    const v = randomTensor(random, [2, 9, 3]);
    const options = { causal: true, window: 3, softcap: 2 };
    const result = await parallel.scaledDotProductAttention(q, k, v, options);
    const ref = referenceAttention(as4d(q), as4d(k), as4d(v), options);
    expectClose(result.output.data, ref.output, { what: 'output' });
    expectClose(result.weights.data, ref.weights, { what: 'weights' });
  });
});
