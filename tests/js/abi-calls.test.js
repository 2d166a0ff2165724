// Calls cross the boundary as one call descriptor of int32s (abi.h), not as objects that Embind walks: a polluted
// Object.prototype changes nothing and leaks nothing. The loader tells the truth about the .wasm it loaded, and
// reports a bad wasmUrl as an AttentionError. Public methods work detached.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AttentionError, createAttention } from '../../src/js/index.js';
import { VARIANTS, expectClose, randomTensor, seededRandom } from './reference.js';
import { goldenOutput, I2, weights } from './worked-example.js';

const inBrowser = typeof window !== 'undefined';
const wasmFile = (variant) => new URL(`../../src/js/wasm/attention-${variant}.wasm`, import.meta.url);

describe.each(VARIANTS)('an enumerable property on Object.prototype ($name build)', ({ simd }) => {
  let attn;
  beforeAll(async () => {
    attn = await createAttention({ simd });
  });
  afterEach(() => {
    delete Object.prototype.polluted;
  });

  it('breaks no call, and 1000 calls leave the heap at its baseline', () => {
    const random = seededRandom(23);
    const q = randomTensor(random, [2, 16, 8]);
    const k = randomTensor(random, [2, 16, 8]);
    const v = randomTensor(random, [2, 16, 8]);
    const clean = attn.scaledDotProductAttention(q, k, v, { causal: true });
    attn.scaledDotProductAttention(q, k, v, { causal: true });
    const heap = attn.heapBytesInUse();
    // An old polyfill's way: a plain assignment, so the property is enumerable and every for…in sees it.
    Object.prototype.polluted = 1;
    let last;
    for (let i = 0; i < 1000; i++) last = attn.scaledDotProductAttention(q, k, v, { causal: true });
    const s = attn.selfAttention(I2, weights);
    const m = attn.multiHeadAttention(randomTensor(random, [4, 8]), {
      wq: randomTensor(random, [8, 8]),
      wk: randomTensor(random, [8, 4]),
      wv: randomTensor(random, [8, 4]),
      wo: randomTensor(random, [8, 8]),
      numHeads: 2,
      numKvHeads: 1,
    });
    expect(attn.heapBytesInUse()).toBe(heap);
    expect(Array.from(last.output.data)).toEqual(Array.from(clean.output.data));
    expectClose(s.output.data, goldenOutput, { atol: 1e-6, rtol: 0 });
    expect(m.output.shape).toEqual([4, 8]);
  });
});

describe('wasmUrl', () => {
  it('that is neither a string nor a URL is a BAD_OPTION', async () => {
    for (const wasmUrl of [42, null, {}, ['x.wasm']]) {
      await expect(createAttention({ wasmUrl })).rejects.toMatchObject({ name: 'AttentionError', code: 'BAD_OPTION' });
    }
  });

  it('that cannot be resolved or fetched is a LOAD_FAILED that says why, never a raw TypeError', async () => {
    for (const wasmUrl of ['./x.wasm', 'http://[not a host', 'missing/attention.wasm']) {
      const error = await createAttention({ simd: false, wasmUrl }).catch((e) => e);
      expect(error).toBeInstanceOf(AttentionError);
      expect(error.code).toBe('LOAD_FAILED');
      // In Node a wasmUrl that is not a URL is a file path, relative to the working directory.
      if (!inBrowser && !wasmUrl.startsWith('http')) expect(error.message).toMatch(/^could not read .*file:.*ENOENT/);
    }
  });

  it('pointing at the other build is a LOAD_FAILED naming the build the file is', async () => {
    const error = await createAttention({ simd: true, wasmUrl: wasmFile('scalar') }).catch((e) => e);
    expect(error).toBeInstanceOf(AttentionError);
    expect(error.code).toBe('LOAD_FAILED');
    expect(error.message).toMatch(/is the scalar build, not the simd build that was asked for; pass simd: false/);
    const reverse = await createAttention({ simd: false, wasmUrl: wasmFile('simd').href }).catch((e) => e);
    expect(reverse.code).toBe('LOAD_FAILED');
    expect(reverse.message).toMatch(/is the simd build, not the scalar build/);
  });

  it('pointing at the build that was asked for loads it, and the instance says which it is', async () => {
    const attn = await createAttention({ simd: false, wasmUrl: wasmFile('scalar') });
    expect(attn.simd).toBe(false);
    expect(attn.kernelBackend).toBe('scalar');
    expect(attn.instructionSets).toBe('None');
    expectClose(attn.selfAttention(I2, weights).output.data, goldenOutput, { atol: 1e-6, rtol: 0 });
  });
});

describe('detached methods', () => {
  it('each public method of Attention works without its instance', async () => {
    const attn = await createAttention();
    const { scaledDotProductAttention, selfAttention, crossAttention, multiHeadAttention, heapBytesInUse } = attn;
    expect(scaledDotProductAttention(I2, I2, I2).output.shape).toEqual([2, 2]);
    expectClose(selfAttention(I2, weights).output.data, goldenOutput, { atol: 1e-6, rtol: 0 });
    expectClose(crossAttention(I2, I2, weights).output.data, goldenOutput, { atol: 1e-6, rtol: 0 });
    expect(multiHeadAttention(I2, { ...weights, numHeads: 1 }).heads.shape).toEqual([1, 2, 2]);
    expect(heapBytesInUse()).toBe(attn.heapBytesInUse());
    const other = await createAttention();
    expect(other.selfAttention).not.toBe(selfAttention); // bound to its own instance
  });
});
