// options.out: results written into the caller's own Float32Arrays, through the public API, in Node and
// Chromium: the same bits as new arrays, on one thread and on workers, and every bad `out` refused before
// anything is written.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAttention } from '../../src/js/index.js';
import { randomTensor, seededRandom } from './reference.js';

/** Fresh zeroed arrays the size of each result of `result`. */
const arraysLike = (result) =>
  Object.fromEntries(Object.entries(result).map(([key, t]) => [key, new Float32Array(t.data.length)]));

/** Every result is the caller's own array (when given one) and holds exactly the bits of `expected`. */
function expectWrittenInto(actual, expected, out) {
  expect(Object.keys(actual)).toEqual(Object.keys(expected));
  for (const key of Object.keys(expected)) {
    if (out[key]) expect(actual[key].data, key).toBe(out[key]);
    expect(actual[key].shape, key).toEqual(expected[key].shape);
    expect(Array.from(actual[key].data), key).toEqual(Array.from(expected[key].data));
  }
}

const random = seededRandom(14);
const [q, k, v] = [randomTensor(random, [2, 9, 4]), randomTensor(random, [2, 11, 4]), randomTensor(random, [2, 11, 3])];
const x = randomTensor(random, [7, 6]);
const weights = {
  wq: randomTensor(random, [6, 8]),
  wk: randomTensor(random, [6, 8]),
  wv: randomTensor(random, [6, 8]),
  wo: randomTensor(random, [8, 5]),
  numHeads: 2,
};

describe('options.out', () => {
  let attn;
  let parallel;
  beforeAll(async () => {
    [attn, parallel] = await Promise.all([createAttention(), createAttention({ workers: 2 })]);
  });
  afterAll(() => parallel.terminate());

  it('writes scaledDotProductAttention results into the given arrays, the same bits as new ones', () => {
    const expected = attn.scaledDotProductAttention(q, k, v, { causal: true });
    const out = arraysLike(expected);
    for (let call = 0; call < 2; call++) {
      expectWrittenInto(attn.scaledDotProductAttention(q, k, v, { causal: true, out }), expected, out);
    }
  });

  it('takes some results only: the others are new arrays', () => {
    const expected = attn.scaledDotProductAttention(q, k, v);
    const out = { weights: new Float32Array(expected.weights.data.length) };
    const result = attn.scaledDotProductAttention(q, k, v, { out });
    expectWrittenInto(result, expected, out);
    expect(result.output.data).toBeInstanceOf(Float32Array);
  });

  it('covers every result of multiHeadAttention, on one thread and on workers', async () => {
    const expected = attn.multiHeadAttention(x, weights);
    const out = arraysLike(expected);
    expectWrittenInto(attn.multiHeadAttention(x, weights, { out }), expected, out);
    const onWorkers = arraysLike(expected);
    expectWrittenInto(await parallel.multiHeadAttention(x, weights, { out: onWorkers }), expected, onWorkers);
  });

  it('works on workers for scaledDotProductAttention and selfAttention without heads', async () => {
    const expected = attn.scaledDotProductAttention(q, k, v);
    const out = arraysLike(expected);
    expectWrittenInto(await parallel.scaledDotProductAttention(q, k, v, { out }), expected, out);
    const plain = { wq: weights.wq, wk: weights.wk, wv: weights.wv };
    const expectedSelf = attn.selfAttention(x, plain);
    const outSelf = arraysLike(expectedSelf);
    expectWrittenInto(await parallel.selfAttention(x, plain, { out: outSelf }), expectedSelf, outSelf);
  });

  it('returns WebAssembly memory to its baseline', () => {
    const expected = attn.scaledDotProductAttention(q, k, v);
    const out = arraysLike(expected);
    const before = attn.heapBytesInUse();
    attn.scaledDotProductAttention(q, k, v, { out });
    expect(attn.heapBytesInUse()).toBe(before);
  });

  const output = () => new Float32Array(2 * 9 * 3);
  const bad = [
    [
      'a Float64Array',
      () => ({ output: new Float64Array(2 * 9 * 3) }),
      'BAD_OPTION',
      /out\.output must be a Float32Array/,
    ],
    ['a plain array', () => ({ output: Array.from(output()) }), 'BAD_OPTION', /must be a Float32Array/],
    ['a Proxy', () => ({ output: new Proxy(output(), {}) }), 'BAD_OPTION', /must be a Float32Array/],
    ['a short array', () => ({ output: new Float32Array(5) }), 'SHAPE_MISMATCH', /holds 5 floats.*\[2, 9, 3\].*54/],
    ['a long array', () => ({ weights: new Float32Array(999) }), 'SHAPE_MISMATCH', /out\.weights holds 999/],
    ['an input', () => ({ output: q.data.subarray(0, 54) }), 'BAD_OPTION', /shares memory with q/],
    [
      'one array for two results',
      () => {
        const buffer = new ArrayBuffer((54 + 198) * 4);
        return { output: new Float32Array(buffer, 0, 54), weights: new Float32Array(buffer, 100, 198) };
      },
      'BAD_OPTION',
      /out\.weights shares memory with options\.out\.output/,
    ],
    [
      'an unknown result',
      () => ({ ouput: output() }),
      'UNKNOWN_OPTION',
      /unknown result 'ouput'; did you mean 'output'/,
    ],
    ['a number', () => 7, 'BAD_OPTION', /options\.out must be an object/],
    ['a Map', () => new Map(), 'BAD_OPTION', /plain object/],
  ];
  it.each(bad)('refuses %s, before anything is written', (_, make, code, message) => {
    const out = make();
    const plain = Object.getPrototypeOf(out) === Object.prototype;
    const snapshot = plain
      ? Object.entries(out)
          .filter(([, array]) => ArrayBuffer.isView(array))
          .map(([key, array]) => [key, Array.from(array)])
      : [];
    expect(() => attn.scaledDotProductAttention(q, k, v, { out })).toThrow(
      expect.objectContaining({ name: 'AttentionError', code, message: expect.stringMatching(message) }),
    );
    for (const [key, values] of snapshot) expect(Array.from(out[key])).toEqual(values);
  });

  it('refuses the same on workers, and leaves the arrays untouched when the inputs are bad', async () => {
    await expect(parallel.scaledDotProductAttention(q, k, v, { out: { output: new Float32Array(5) } })).rejects.toThrow(
      expect.objectContaining({ code: 'SHAPE_MISMATCH' }),
    );
    const out = { output: output().fill(7) };
    const nan = { data: q.data.slice(), shape: q.shape };
    nan.data[3] = NaN;
    expect(() => attn.scaledDotProductAttention(nan, k, v, { out })).toThrow(
      expect.objectContaining({ code: 'NON_FINITE' }),
    );
    expect(out.output.every((value) => value === 7)).toBe(true);
  });

  it('on workers, a NaN that only the last worker finds leaves the out arrays untouched', async () => {
    // 4 heads on 2 workers: the first worker's part is fine and answers; the call still writes nothing.
    const shape = [4, 3, 2];
    const ones = () => ({ data: new Float32Array(24).fill(1), shape });
    const bad = ones();
    bad.data[23] = NaN; // the last head's: the second worker's part
    const out = { output: new Float32Array(24).fill(7), weights: new Float32Array(36).fill(7) };
    await expect(parallel.scaledDotProductAttention(ones(), ones(), bad, { out })).rejects.toThrow(
      expect.objectContaining({ code: 'NON_FINITE', message: expect.stringContaining('v.data[23]') }),
    );
    expect([...out.output, ...out.weights].every((value) => value === 7)).toBe(true);
  });

  it('reads options.out once, before the inputs', () => {
    const expected = attn.scaledDotProductAttention(q, k, v);
    let reads = 0;
    const target = new Float32Array(54);
    const out = {
      get output() {
        reads++;
        return target;
      },
    };
    expectWrittenInto(attn.scaledDotProductAttention(q, k, v, { out }), expected, { output: target });
    expect(reads).toBe(1);
  });
});

describe('prepare', () => {
  let attn;
  beforeAll(async () => {
    attn = await createAttention();
  });
  const shapes = { q: q.shape, k: k.shape, v: v.shape };

  it('gives the same bits as scaledDotProductAttention, call after call, with or without out', () => {
    const mask = { data: Uint8Array.from({ length: 11 }, (_, i) => +(i !== 3)), shape: [11] };
    const options = { causal: 'bottom-right', mask, scale: 0.3 };
    const expected = attn.scaledDotProductAttention(q, k, v, options);
    const run = attn.prepare(shapes, options);
    mask.data.fill(0); // read when prepared: a later change of the caller's mask changes nothing
    for (let call = 0; call < 2; call++) expectWrittenInto(run(q.data, k.data, v.data), expected, {});
    const out = arraysLike(expected);
    const intoOut = attn.prepare(shapes, {
      ...options,
      mask: { data: mask.data.map((_, i) => +(i !== 3)), shape: [11] },
      out,
    });
    expectWrittenInto(intoOut(q.data, k.data, v.data), expected, out);
  });

  it('returns shapes of its own at every call, and memory to its baseline', () => {
    const run = attn.prepare(shapes);
    const first = run(q.data, k.data, v.data);
    first.output.shape[0] = 99;
    const before = attn.heapBytesInUse();
    expect(run(q.data, k.data, v.data).output.shape).toEqual([2, 9, 3]);
    expect(attn.heapBytesInUse()).toBe(before);
  });

  it('checks shapes and options when prepared, with the errors of a call', () => {
    const cases = [
      [undefined, undefined, 'BAD_DIMENSION', /shapes\.q must be an array/],
      [{ q: [2, 9, 4], k: [2, 11, 4] }, undefined, 'BAD_DIMENSION', /shapes\.v must be an array/],
      [{ ...shapes, x: [1] }, undefined, 'UNKNOWN_OPTION', /unknown shape 'x'/],
      [{ ...shapes, k: [2, 11, 5] }, undefined, 'SHAPE_MISMATCH', /must share d_k/],
      [{ ...shapes, q: [2, 0, 4] }, undefined, 'BAD_DIMENSION', /q/],
      [shapes, { causal: 'yes' }, 'BAD_OPTION', /causal/],
      [shapes, { out: { output: new Float32Array(3) } }, 'SHAPE_MISMATCH', /out\.output holds 3/],
    ];
    for (const [given, options, code, message] of cases) {
      expect(() => attn.prepare(given, options)).toThrow(
        expect.objectContaining({ code, message: expect.stringMatching(message) }),
      );
    }
  });

  it('checks every call: the type and length of each input, its values, and out apart from the inputs', () => {
    const shared = new ArrayBuffer(66 * 4);
    const out = { output: new Float32Array(shared, 0, 54) };
    const run = attn.prepare(shapes, { out });
    const nan = q.data.slice();
    nan[7] = NaN;
    const cases = [
      [[q.data, k.data], 'NOT_A_TENSOR', /takes v as a Float32Array of 66 values \(\[2, 11, 3\]\), got undefined/],
      [[Array.from(q.data), k.data, v.data], 'NOT_A_TENSOR', /takes q as a Float32Array/],
      [[new Float64Array(q.data), k.data, v.data], 'NOT_A_TENSOR', /takes q as a Float32Array/],
      [[q.data.subarray(1), k.data, v.data], 'DATA_LENGTH_MISMATCH', /q holds 71 values.*\[2, 9, 4\]: 72 values/],
      [[nan, k.data, v.data], 'NON_FINITE', /q\.data\[7\].*NaN/],
      [[q.data, k.data, new Float32Array(shared, 0, 66)], 'BAD_OPTION', /out\.output shares memory with v/],
    ];
    for (const [args, code, message] of cases) {
      out.output.fill(5);
      expect(() => run(...args)).toThrow(expect.objectContaining({ code, message: expect.stringMatching(message) }));
      expect(out.output.every((value) => value === 5)).toBe(true);
    }
  });

  it('works detached', () => {
    const { prepare } = attn;
    expect(prepare(shapes)(q.data, k.data, v.data).output.shape).toEqual([2, 9, 3]);
  });
});
