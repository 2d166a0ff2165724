// Arguments are read exactly once, and every check runs on what was read: getters, Proxies, holes, polluted
// prototypes and arrays that hold themselves give the right answer or a clear AttentionError, never a wrong
// result, a write out of bounds or a crash. One test per finding (8 to 16) of the reliability issue.
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { AttentionError, createAttention } from '../../src/js/index.js';
import { I2, k3, q3, v2, weights } from './worked-example.js';

/** The error `call` throws; fails the test when it returns. */
function errorOf(call) {
  try {
    call();
  } catch (error) {
    return error;
  }
  return expect.fail('the call should throw');
}

/** Expects `call` to throw an AttentionError with `code` whose message holds each of `words`. */
function expectError(call, code, words = []) {
  const error = errorOf(call);
  expect(error).toBeInstanceOf(AttentionError);
  expect(error.code).toBe(code);
  for (const word of words) expect(error.message).toContain(word);
  return error;
}

/**
 * A Proxy of `target` that counts the reads of each property's value (its `get` trap) and answers `later[key]`,
 * where given, from the second read of `key` on. Asking whether a property exists is not a read of its value.
 */
function counting(target, later = {}) {
  const reads = {};
  const proxy = new Proxy(target, {
    get(t, key) {
      reads[key] = (reads[key] ?? 0) + 1;
      return reads[key] > 1 && key in later ? later[key] : t[key];
    },
  });
  return { proxy, reads, most: () => Math.max(0, ...Object.values(reads)) };
}

/** `array` with a getter at `index` that answers `first`, then `later` on every read after the first. */
function withGetter(array, index, first, later) {
  const calls = { count: 0 };
  Object.defineProperty(array, index, { enumerable: true, get: () => (calls.count++ === 0 ? first : later()) });
  return calls;
}

let attn;
let baseline;
beforeAll(async () => {
  attn = await createAttention();
  attn.selfAttention(I2, weights);
  baseline = attn.heapBytesInUse();
});
afterEach(() => {
  expect(attn.heapBytesInUse()).toBe(baseline);
});

describe('inputs are read exactly once (8)', () => {
  it('a getter in number[] data or in a nested array runs once: a NaN it returns the second time never reaches the output', () => {
    const clean = attn.scaledDotProductAttention(I2, I2, I2).output.data;
    const data = [1, 0, 0, 1];
    const flat = withGetter(data, 1, 0, () => NaN);
    const row = [1, 0];
    const nested = withGetter(row, 0, 1, () => NaN);
    const r = attn.scaledDotProductAttention({ data, shape: [2, 2] }, [row, [0, 1]], I2);
    expect([flat.count, nested.count]).toEqual([1, 1]);
    expect(r.output.data).toEqual(clean);
  });

  it('a Proxy whose length grows after its first read is read up to the length it first gave, once', () => {
    const { proxy, reads, most } = counting([1, 0, 0, 1], { length: 260 });
    const r = attn.scaledDotProductAttention({ data: proxy, shape: [2, 2] }, I2, I2);
    expect(reads.length).toBe(1);
    expect(most()).toBe(1);
    expect(r.output.data).toEqual(attn.scaledDotProductAttention(I2, I2, I2).output.data);
  });

  it('a valueOf is never called, even one that calls the same instance and grows its memory', () => {
    let called = false;
    const big = { data: new Float32Array(2048 * 64), shape: [2048, 64] };
    const evil = {
      valueOf: () => {
        called = true;
        attn.scaledDotProductAttention(big, big, big);
        return 0;
      },
    };
    const data = [1, 0, 0, 1];
    withGetter(data, 0, 1, () => evil);
    const r = attn.scaledDotProductAttention(I2, I2, { data, shape: [2, 2] });
    expect(called).toBe(false);
    expect(r.output.data).toEqual(attn.scaledDotProductAttention(I2, I2, I2).output.data);
    expectError(
      () =>
        attn.scaledDotProductAttention(I2, I2, [
          [1, 0],
          [0, evil],
        ]),
      'NOT_A_NUMBER',
      ['v[1][1] is an object'],
    );
    expect(called).toBe(false);
  });

  it('a Proxy shape is copied before it is checked: what was checked is what is used', () => {
    const { proxy, most } = counting([2, 2], { 0: 2.5, 1: 1.6 });
    const r = attn.scaledDotProductAttention({ data: [1, 0, 0, 1], shape: proxy }, I2, I2);
    expect(most()).toBe(1);
    expect(r.output.shape).toEqual([2, 2]);
    expect(r.output.data).toEqual(attn.scaledDotProductAttention(I2, I2, I2).output.data);
  });

  it("a typed array's own `length` property is never read, nor trusted", () => {
    const data = new Float32Array(400);
    let reads = 0;
    Object.defineProperty(data, 'length', {
      get: () => {
        reads++;
        return 4;
      },
    });
    expectError(() => attn.scaledDotProductAttention({ data, shape: [2, 2] }, I2, I2), 'DATA_LENGTH_MISMATCH', [
      'q.data has 400 values',
    ]);
    expect(reads).toBe(0);
  });

  it("a buffer detached by another argument's getter, after it was read, is DATA_LENGTH_MISMATCH", () => {
    const data = new Float32Array([1, 0, 0, 1]);
    const k = {
      get data() {
        structuredClone(data.buffer, { transfer: [data.buffer] });
        return [1, 0, 0, 1];
      },
      shape: [2, 2],
    };
    expectError(() => attn.scaledDotProductAttention({ data, shape: [2, 2] }, k, I2), 'DATA_LENGTH_MISMATCH', [
      'q.data held 4 values',
      'detached',
    ]);
  });
});

describe('shapes, options and nesting', () => {
  it('9: a shape with a hole is BAD_DIMENSION, even when Array.prototype has a value at that index', () => {
    // eslint-disable-next-line no-sparse-arrays
    const holey = [, 2];
    expectError(
      () => attn.scaledDotProductAttention({ data: [1, 0], shape: holey }, [[1, 0]], [[1, 0]]),
      'BAD_DIMENSION',
      ['q.shape[0] is missing', '[, 2]'],
    );
    Array.prototype[0] = 1;
    try {
      expectError(
        () => attn.scaledDotProductAttention({ data: [1, 0], shape: holey }, [[1, 0]], [[1, 0]]),
        'BAD_DIMENSION',
        ['q.shape[0] is missing'],
      );
    } finally {
      delete Array.prototype[0];
    }
  });

  it('10: options and weights are plain objects read by their own properties, each once', () => {
    const plain = attn.scaledDotProductAttention(q3, k3, v2);
    const inherited = {};
    // Not enumerable: Embind's glue enumerates its own records with for…in, which enumerable pollution breaks.
    const pollute = (key, value) =>
      Object.defineProperty(Object.prototype, key, { value, configurable: true, writable: true });
    pollute('causal', true);
    pollute('wo', [
      [1e3, 0],
      [0, 1e3],
    ]);
    try {
      expect(attn.scaledDotProductAttention(q3, k3, v2).weights.data).toEqual(plain.weights.data);
      expect(attn.scaledDotProductAttention(q3, k3, v2, {}).weights.data).toEqual(plain.weights.data);
      inherited.self = attn.selfAttention(I2, weights);
    } finally {
      delete Object.prototype.causal;
      delete Object.prototype.wo;
    }
    expect(inherited.self.output.data).toEqual(attn.selfAttention(I2, weights).output.data);
    expectError(() => attn.scaledDotProductAttention(I2, I2, I2, new Map([['causal', true]])), 'BAD_OPTION', [
      'options must be a plain object',
      'a Map',
    ]);
    expectError(() => attn.selfAttention(I2, new Map()), 'BAD_OPTION', ['weights must be a plain object']);
    expectError(() => attn.selfAttention(I2, Object.create(weights)), 'BAD_OPTION', ['weights must be a plain object']);
    const { proxy, most } = counting({ causal: true, returnWeights: true, returnSteps: true });
    attn.scaledDotProductAttention(I2, I2, I2, proxy);
    expect(most()).toBe(1);
    const options = Object.create(null);
    options.causal = true;
    expect(attn.scaledDotProductAttention(q3, k3, v2, options).weights.data[1]).toBe(0);
  });

  it('11: an array that holds itself, or nesting 100 000 deep, is BAD_RANK at once', () => {
    const a = [0];
    a[0] = a;
    expectError(() => attn.scaledDotProductAttention(a, I2, I2), 'BAD_RANK', [
      'q is nested deeper than 4 levels (or holds itself)',
    ]);
    const deep = JSON.parse(`${'['.repeat(100000)}1${']'.repeat(100000)}`);
    expectError(() => attn.selfAttention(I2, { ...weights, bq: deep }), 'BAD_RANK', [
      'bq is nested deeper than 4 levels',
    ]);
    expectError(() => attn.scaledDotProductAttention(I2, I2, I2, { mask: a }), 'BAD_RANK', ['mask is nested deeper']);
  });

  it('12: option values that break String() are BAD_OPTION; a huge unknown key is not echoed whole', async () => {
    const bare = Object.create(null);
    const throwing = {
      toString: () => {
        throw new Error('toString ran');
      },
    };
    expectError(() => attn.scaledDotProductAttention(I2, I2, I2, { scale: bare }), 'BAD_OPTION', [
      'scale must be a finite number',
      'an object',
    ]);
    expectError(() => attn.scaledDotProductAttention(I2, I2, I2, { scale: throwing }), 'BAD_OPTION', ['scale must be']);
    expectError(() => attn.scaledDotProductAttention(I2, I2, I2, { returnWeights: bare }), 'BAD_OPTION', [
      'returnWeights must be true or false',
    ]);
    expectError(() => attn.scaledDotProductAttention(I2, I2, I2, { causal: 10n }), 'BAD_OPTION', [
      'causal must be',
      'the bigint 10n',
    ]);
    expectError(() => attn.multiHeadAttention(I2, { ...weights, numHeads: bare }), 'BAD_OPTION', [
      'numHeads must be a positive integer',
    ]);
    await expect(createAttention({ workers: bare })).rejects.toMatchObject({ code: 'BAD_OPTION' });
    await expect(createAttention({ wasmUrl: bare })).rejects.toMatchObject({
      code: 'BAD_OPTION',
      message: expect.stringContaining('wasmUrl must be a string or a URL'),
    });
    await expect(createAttention({ simd: throwing })).rejects.toMatchObject({ code: 'BAD_OPTION' });
    const key = 'k'.repeat(2 ** 20);
    const error = expectError(() => attn.scaledDotProductAttention(I2, I2, I2, { [key]: 1 }), 'UNKNOWN_OPTION', [
      "unknown option 'kkkk",
    ]);
    expect(error.message.length).toBeLessThan(200);
    expect(error.message).not.toContain('did you mean');
  });

  it('14: a Uint8Array mask is boolean everywhere: bare, as { data, shape } and as rows', () => {
    const q = [[1, 0, 0]];
    const blocked = (mask) => attn.scaledDotProductAttention(q, k3, v2, { mask }).weights.data[1];
    expect(blocked(Uint8Array.of(1, 0, 1))).toBe(0);
    expect(blocked([Uint8Array.of(1, 0, 1)])).toBe(0);
    expect(blocked({ data: Uint8Array.of(1, 0, 1), shape: [1, 3] })).toBe(0);
    expect(blocked([[true, false, true]])).toBe(0);
    expectError(() => blocked([[0, -Infinity, 0], Uint8Array.of(1, 0, 1)]), 'NOT_A_NUMBER', [
      'mask[1] is a Uint8Array',
    ]);
  });

  it('15: a value that rounds to a finite float32 is accepted in every form (3.4028235e38 is FLT_MAX)', () => {
    const max = 3.4028235e38;
    const v = (data) => attn.scaledDotProductAttention([[0, 0]], I2, { data, shape: [2, 2] }).output.data;
    const expected = v(new Float32Array([max, 0, 0, 1]));
    expect(expected[0]).toBe(Math.fround(max) / 2);
    expect(v([max, 0, 0, 1])).toEqual(expected);
    expect(v(new Float64Array([max, 0, 0, 1]))).toEqual(expected);
    expect(
      attn.scaledDotProductAttention([[0, 0]], I2, [
        [max, 0],
        [0, 1],
      ]).output.data,
    ).toEqual(expected);
    expectError(() => v([3.5e38, 0, 0, 1]), 'NON_FINITE', ['v.data[0] (v[0][0]) is 3.5e+38, beyond float32 range']);
    expectError(() => v(new Float64Array([3.5e38, 0, 0, 1])), 'NON_FINITE', [
      'v.data[0] (v[0][0]) is 3.5e+38, beyond float32 range',
    ]);
  });

  it('16: messages say what is wrong', () => {
    expectError(() => attn.scaledDotProductAttention([[1, undefined]], I2, I2), 'NOT_A_NUMBER', [
      'q[0][1] is undefined, not a number',
    ]);
    expectError(() => attn.scaledDotProductAttention({ data: [1, 2], shape: [NaN, 2] }, I2, I2), 'BAD_DIMENSION', [
      'q.shape[0] is NaN',
    ]);
    expectError(() => attn.scaledDotProductAttention(I2, I2, I2, { scale: 10n }), 'BAD_OPTION', ['got the bigint 10n']);
    const { proxy } = counting([2, 3], { 1: 2 });
    expectError(
      () => attn.scaledDotProductAttention(I2, { data: new Float32Array(6), shape: proxy }, I2),
      'SHAPE_MISMATCH',
      ['k has 3 columns but q has 2'],
    );
  });
});
