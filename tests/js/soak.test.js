// Memory soak: 100 000 mixed calls in one instance (small and large, every entry point, errors in between).
// Results stay correct, the heap returns to its baseline, and WebAssembly memory stays under a fixed bound.
import { describe, expect, it } from 'vitest';
import { AttentionError, createAttention } from '../../src/js/index.js';
import { expectClose, randomTensor, referenceAttention, seededRandom } from './reference.js';
import { I2, goldenOutput, weights } from './worked-example.js';

const CALLS = 100000;
const MEMORY_BOUND = 48 * 2 ** 20;

describe('memory soak', () => {
  it(`${CALLS} mixed calls keep results right and memory under ${MEMORY_BOUND / 2 ** 20} MiB`, async () => {
    const attn = await createAttention();
    const random = seededRandom(2024);
    const small = {
      q: randomTensor(random, [8, 8]),
      k: randomTensor(random, [12, 8]),
      v: randomTensor(random, [12, 4]),
    };
    const smallRef = referenceAttention(
      ...['q', 'k', 'v'].map((n) => ({ data: small[n].data, shape: [1, 1, ...small[n].shape] })),
      { causal: 'bottom-right' },
    );
    const large = {
      q: randomTensor(random, [4, 256, 32]),
      k: randomTensor(random, [4, 256, 32]),
      v: randomTensor(random, [4, 256, 32]),
    };
    const long = randomTensor(random, [2048, 64]);
    const mhaWeights = {
      wq: randomTensor(random, [16, 16]),
      wk: randomTensor(random, [16, 8]),
      wv: randomTensor(random, [16, 8]),
      wo: randomTensor(random, [16, 16]),
      numHeads: 4,
      numKvHeads: 2,
    };
    const x = randomTensor(random, [10, 16]);

    attn.selfAttention(I2, {
      wq: I2,
      wk: I2,
      wv: [
        [1, 2],
        [3, 4],
      ],
    });
    const baseline = attn.heapBytesInUse();
    let errors = 0;
    let peak = attn.memoryBytes;
    for (let i = 0; i < CALLS; i++) {
      if (i % 5000 === 4999) {
        const r = attn.scaledDotProductAttention(large.q, large.k, large.v, { causal: true });
        expect(r.weights.shape).toEqual([4, 256, 256]);
      } else if (i % 5000 === 2499) {
        const r = attn.scaledDotProductAttention(long, long, long, { returnWeights: false });
        expect(r.output.data.every(Number.isFinite)).toBe(true);
      } else if (i % 97 === 0) {
        try {
          attn.scaledDotProductAttention(small.q, small.k, [[1, NaN]]);
        } catch (e) {
          expect(e).toBeInstanceOf(AttentionError);
          errors++;
        }
      } else if (i % 89 === 0) {
        try {
          attn.multiHeadAttention(x, { ...mhaWeights, numKvHeads: 3 });
        } catch (e) {
          expect(e.code).toBe('HEADS_DO_NOT_DIVIDE');
          errors++;
        }
      } else if (i % 10 === 0) {
        const m = attn.multiHeadAttention(x, mhaWeights, { causal: true });
        expect(m.output.shape).toEqual([10, 16]);
      } else if (i % 10 === 1) {
        const s = attn.selfAttention(I2, weights);
        if (i % 1000 === 1) expectClose(s.output.data, goldenOutput, { atol: 1e-6, rtol: 0 });
      } else {
        const r = attn.scaledDotProductAttention(small.q, small.k, small.v, { causal: 'bottom-right' });
        if (i % 1000 === 2) expectClose(r.output.data, smallRef.output, { what: `call ${i}` });
      }
      if (i % 1000 === 0) {
        expect(attn.heapBytesInUse()).toBe(baseline);
        peak = Math.max(peak, attn.memoryBytes);
      }
    }
    expect(errors).toBeGreaterThan(1500);
    expect(attn.heapBytesInUse()).toBe(baseline);
    expect(peak).toBeLessThanOrEqual(MEMORY_BOUND);
    console.log(
      `soak: ${CALLS} calls, ${errors} errors, WebAssembly memory ${(peak / 2 ** 20).toFixed(1)} MiB at most, heap back to ${baseline} bytes`,
    );
  }, 300000);
});
