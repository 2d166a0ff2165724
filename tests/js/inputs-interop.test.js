// Tensors from neighbouring libraries: onnxruntime-web's and transformers.js's `{ data, dims }` are inputs
// wherever a tensor is; a TensorFlow.js tensor passed as it is gets an AttentionError saying what to pass;
// JSON.stringify of a result gives { shape, data: number[] }, which reads back as an input.
import { beforeAll, describe, expect, it } from 'vitest';
import * as ort from 'onnxruntime-web';
import { Tensor as TfTensor } from '@tensorflow/tfjs-core';
import { AttentionError, createAttention, Tensor } from '../../src/js/index.js';
import { I2, goldenOutput, weights } from './worked-example.js';

/** transformers.js's Tensor as its users see it: `type`, `data` and `dims` read through getters. */
class TransformersTensor {
  #type;
  #data;
  #dims;
  constructor(type, data, dims) {
    this.#type = type;
    this.#data = data;
    this.#dims = dims;
  }
  get type() {
    return this.#type;
  }
  get data() {
    return this.#data;
  }
  get dims() {
    return this.#dims;
  }
}

const float32 = (rows) => Float32Array.from(rows.flat());
const ortTensor = (rows) => new ort.Tensor('float32', float32(rows), [rows.length, rows[0].length]);
const hfTensor = (rows) => new TransformersTensor('float32', float32(rows), [rows.length, rows[0].length]);

/** The error `call` throws (or the rejection of the promise it returns); fails the test when there is none. */
async function errorOf(call) {
  try {
    await call();
  } catch (error) {
    return error;
  }
  return expect.fail('the call should throw');
}

let attn;
let golden; // the worked example's output from nested arrays: every form of the same input gives these bits
beforeAll(async () => {
  attn = await createAttention();
  golden = attn.selfAttention(I2, weights).output.data;
  golden.forEach((x, i) => expect(x).toBeCloseTo(goldenOutput[i], 6));
});

describe.each([
  ['onnxruntime-web', ortTensor],
  ['transformers.js', hfTensor],
])('%s tensors ({ data, dims })', (_, make) => {
  it('are inputs, weights and masks, with the same bits as arrays', () => {
    const asTensors = Object.fromEntries(Object.entries(weights).map(([key, w]) => [key, make(w)]));
    expect(attn.selfAttention(make(I2), asTensors).output.data).toEqual(golden);
    const q = make([
      [1, 2],
      [3, 4],
    ]);
    expect(attn.scaledDotProductAttention(q, q, q).output.data).toEqual(
      attn.scaledDotProductAttention(
        [
          [1, 2],
          [3, 4],
        ],
        [
          [1, 2],
          [3, 4],
        ],
        [
          [1, 2],
          [3, 4],
        ],
      ).output.data,
    );
    const mask = make([
      [0, -Infinity],
      [0, 0],
    ]);
    const masked = attn.scaledDotProductAttention(q, q, q, { mask });
    expect(masked.output.data.slice(0, 2)).toEqual(Float32Array.from([1, 2]));
  });

  it('name dims in their messages', async () => {
    const bad = new TransformersTensor('float32', new Float32Array(6), [2, 2]);
    const error = await errorOf(() => attn.selfAttention(bad, weights));
    expect(error).toBeInstanceOf(AttentionError);
    expect(error.code).toBe('DATA_LENGTH_MISMATCH');
    expect(error.message).toBe('x.data has 6 values but x.dims [2, 2] needs 4');
    const zero = await errorOf(() => attn.selfAttention({ data: new Float32Array(4), dims: [2, 0, 2] }, weights));
    expect(zero.code).toBe('BAD_DIMENSION');
    expect(zero.message).toContain('x.dims[1] is empty (0)');
  });
});

it('an onnxruntime-web bool tensor is a boolean mask, and an int64 one is refused by its type', async () => {
  const q = ortTensor([
    [1, 2],
    [3, 4],
  ]);
  const allowed = new ort.Tensor('bool', Uint8Array.from([1, 0, 1, 1]), [2, 2]);
  const additive = [
    [0, -Infinity],
    [0, 0],
  ];
  expect(attn.scaledDotProductAttention(q, q, q, { mask: allowed }).output.data).toEqual(
    attn.scaledDotProductAttention(q, q, q, { mask: additive }).output.data,
  );
  const ints = new ort.Tensor('int64', BigInt64Array.from([1n, 0n, 0n, 1n]), [2, 2]);
  const error = await errorOf(() => attn.selfAttention(ints, weights));
  expect(error.code).toBe('NOT_A_TENSOR');
  expect(error.message).toBe(
    'x.data must be a Float32Array, a Float64Array or a number[], got a BigInt64Array of 4 values',
  );
});

it('a TensorFlow.js tensor gets an AttentionError saying what to pass, without its methods', async () => {
  const t = new TfTensor([2, 2], 'float32', {}, 1); // a real tfjs Tensor; its values would live in a backend
  for (const call of [
    () => attn.selfAttention(t, weights),
    () => attn.selfAttention(I2, { ...weights, wq: t }),
    () => attn.scaledDotProductAttention(I2, I2, I2, { mask: t }),
  ]) {
    const error = await errorOf(call);
    expect(error).toBeInstanceOf(AttentionError);
    expect(error.code).toBe('NOT_A_TENSOR');
    expect(error.message).toContain('(a TensorFlow.js tensor?)');
    expect(error.message).toContain('pass { data: await t.data(), shape: t.shape }');
    expect(error.message).not.toMatch(/=>|function|return|\{\s*\n/);
  }
});

describe('Tensor#toJSON', () => {
  it('gives { shape, data: number[] }, which reads back as the same input', () => {
    const { output } = attn.selfAttention(I2, weights);
    const json = JSON.stringify(output);
    expect(json).toBe(JSON.stringify({ shape: [2, 2], data: Array.from(golden) }));
    expect(JSON.parse(json)).toEqual({ shape: [2, 2], data: Array.from(golden) });
    const again = attn.scaledDotProductAttention(JSON.parse(json), I2, I2).output;
    expect(again.data).toEqual(attn.scaledDotProductAttention(output, I2, I2).output.data);
  });

  it('copies: changing what it returned leaves the Tensor as it was', () => {
    const tensor = new Tensor(Float32Array.from([1, 2]), [2]);
    const json = tensor.toJSON();
    json.shape[0] = 9;
    json.data[0] = 9;
    expect(tensor.shape).toEqual([2]);
    expect(tensor.data).toEqual(Float32Array.from([1, 2]));
  });
});
