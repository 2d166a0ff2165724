// Bad input: every kind gets an AttentionError with a stable code and a message that names the argument and
// the shapes; afterwards the same instance computes correct results and its heap is back at its baseline.
import { beforeAll, describe, expect, it } from 'vitest';
import { AttentionError, MAX_CALL_BYTES, createAttention } from '../../src/js/index.js';
import { VARIANTS, expectClose } from './reference.js';
import { goldenOutput, I2, k3, q3, v2, weights } from './worked-example.js';

/** A Float32Array of `length` ones with `value` at `index`. */
function withValueAt(length, index, value) {
  const data = new Float32Array(length).fill(1);
  data[index] = value;
  return data;
}

/** [description, call(attn), expected code, words the message must contain] */
// One row per kind of bad call: name, call, code, the words its message must hold.
// prettier-ignore
const BAD_CALLS = [
  // shapes between every pair of arguments
  ['q and k differ in d_k', (a) => a.scaledDotProductAttention([[1, 2, 3, 4, 5, 6]], [[1, 2, 3, 4, 5]], [[1]]), 'SHAPE_MISMATCH', ['k has 5 columns but q has 6', 'd_k', '[1, 6]', '[1, 5]']],
  ['k and v differ in L_k', (a) => a.scaledDotProductAttention(q3, k3, [[1], [2]]), 'SHAPE_MISMATCH', ['v has 2 rows but k has 3', 'L_k']],
  ['q and k differ in rank', (a) => a.scaledDotProductAttention(q3, [k3], [v2]), 'BAD_RANK', ['k has shape [1, 3, 3]', 'same rank']],
  ['q and v differ in rank', (a) => a.scaledDotProductAttention(q3, k3, [v2]), 'BAD_RANK', ['v has shape [1, 3, 2]']],
  ['k and v differ in heads', (a) => a.scaledDotProductAttention([q3, q3], [k3, k3], [v2]), 'SHAPE_MISMATCH', ['v has 1 heads but k has 2']],
  ['k has a different batch than q', (a) => a.scaledDotProductAttention([[q3]], [[k3], [k3]], [[v2], [v2]]), 'SHAPE_MISMATCH', ['k has batch 2 but q has 1']],
  ['q of rank 1', (a) => a.scaledDotProductAttention([1, 2, 3], k3, v2), 'BAD_RANK', ['q has shape [3] (rank 1)', '[L_q, d_k]']],
  ['q of rank 5', (a) => a.scaledDotProductAttention({ data: new Float32Array(6), shape: [1, 1, 1, 2, 3] }, k3, v2), 'BAD_RANK', ['rank 5']],
  ['x and wq', (a) => a.selfAttention(I2, { ...weights, wq: [[1, 0]] }), 'SHAPE_MISMATCH', ['wq has 1 rows but x has 2 columns']],
  ['x and wk', (a) => a.selfAttention(I2, { ...weights, wk: [[1, 0], [0, 1], [1, 1]] }), 'SHAPE_MISMATCH', ['wk has 3 rows but x has 2 columns']],
  ['x and wv', (a) => a.selfAttention(I2, { ...weights, wv: [[1, 2]] }), 'SHAPE_MISMATCH', ['wv has 1 rows but x has 2 columns']],
  ['wq and wk', (a) => a.selfAttention(I2, { ...weights, wk: [[1, 0, 1], [0, 1, 1]] }), 'SHAPE_MISMATCH', ['wk has 3 columns but wq has 2', 'd_k']],
  ['wv and wo', (a) => a.selfAttention(I2, { ...weights, wo: [[1, 2, 3]] }), 'SHAPE_MISMATCH', ['wo has 1 rows', '2 columns']],
  ['wq and bq', (a) => a.selfAttention(I2, { ...weights, bq: [1, 2, 3] }), 'SHAPE_MISMATCH', ['bq has 3 values but wq has 2 columns']],
  ['wk and bk', (a) => a.selfAttention(I2, { ...weights, bk: [1] }), 'SHAPE_MISMATCH', ['bk has 1 values']],
  ['wv and bv', (a) => a.selfAttention(I2, { ...weights, bv: [1, 2, 3] }), 'SHAPE_MISMATCH', ['bv has 3 values']],
  ['wo and bo', (a) => a.selfAttention(I2, { ...weights, wo: I2, bo: [1] }), 'SHAPE_MISMATCH', ['bo has 1 values but wo has 2 columns']],
  ['a bias of rank 2', (a) => a.selfAttention(I2, { ...weights, bq: [[1, 2]] }), 'BAD_RANK', ['bq has shape [1, 2]']],
  ['x and context of different widths for wk', (a) => a.crossAttention(I2, [[1, 2, 3]], weights), 'SHAPE_MISMATCH', ['wk has 2 rows but context has 3 columns']],
  ['x and context of different ranks', (a) => a.crossAttention(I2, [I2], weights), 'BAD_RANK', ['context has shape [1, 2, 2]']],
  ['x and context of different batches', (a) => a.crossAttention([I2, I2], [I2], weights), 'SHAPE_MISMATCH', ['context has batch 1 but x has 2']],
  ['x of rank 1', (a) => a.selfAttention([1, 2], weights), 'BAD_RANK', ['x has shape [2]', '[L, d_model] or [B, L, d_model]']],
  ['a missing weight', (a) => a.selfAttention(I2, { wq: I2, wk: I2 }), 'NOT_A_TENSOR', ['weights.wv is missing']],
  // ragged nested arrays
  ['a ragged matrix', (a) => a.scaledDotProductAttention([[1, 2], [3]], I2, I2), 'RAGGED_ARRAY', ['q[1] has length 1', 'ragged']],
  ['rows of different depth', (a) => a.scaledDotProductAttention([[1, 2], [3, [4]]], I2, I2), 'RAGGED_ARRAY', ['q[1][1]', 'ragged']],
  ['a ragged tensor of rank 3', (a) => a.scaledDotProductAttention([I2, [[1, 2]]], [I2, I2], [I2, I2]), 'RAGGED_ARRAY', ['q[1] has length 1']],
  // dimensions and data lengths
  ['an empty matrix', (a) => a.scaledDotProductAttention([], I2, I2), 'BAD_DIMENSION', ['q has an empty dimension']],
  ['an empty row', (a) => a.scaledDotProductAttention([[]], I2, I2), 'BAD_DIMENSION', ['q has an empty dimension: shape [1, 0]']],
  ['a zero dimension', (a) => a.scaledDotProductAttention({ data: [], shape: [0, 2] }, I2, I2), 'BAD_DIMENSION', ['q.shape[0] is empty (0)']],
  ['a negative dimension', (a) => a.scaledDotProductAttention({ data: [1, 2], shape: [-1, 2] }, I2, I2), 'BAD_DIMENSION', ['q.shape[0] is negative']],
  ['a fractional dimension', (a) => a.scaledDotProductAttention({ data: [1, 2], shape: [1.5, 2] }, I2, I2), 'BAD_DIMENSION', ['q.shape[0] is 1.5, not an integer']],
  ['a huge dimension', (a) => a.scaledDotProductAttention({ data: [1, 2], shape: [2 ** 40, 2] }, I2, I2), 'BAD_DIMENSION', ['q.shape[0] is 1099511627776, too large']],
  ['a string dimension', (a) => a.scaledDotProductAttention({ data: [1, 2], shape: ['1', 2] }, I2, I2), 'BAD_DIMENSION', ['q.shape[0] is the string "1"']],
  ['data too short for its shape', (a) => a.scaledDotProductAttention({ data: new Float32Array(3), shape: [2, 2] }, I2, I2), 'DATA_LENGTH_MISMATCH', ['q.data has 3 values but q.shape [2, 2] needs 4']],
  ['data too long for its shape', (a) => a.scaledDotProductAttention(I2, { data: [1, 2, 3, 4, 5], shape: [2, 2] }, I2), 'DATA_LENGTH_MISMATCH', ['k.data has 5 values']],
  // values
  ['NaN in a nested array', (a) => a.scaledDotProductAttention([[1, NaN]], I2, I2), 'NON_FINITE', ['q[0][1] is NaN']],
  ['Infinity in a Float32Array', (a) => a.scaledDotProductAttention(I2, { data: new Float32Array([1, Infinity, 0, 1]), shape: [2, 2] }, I2), 'NON_FINITE', ['k.data[1] (k[0][1]) is Infinity']],
  ['-Infinity in an input', (a) => a.scaledDotProductAttention(I2, I2, { data: [1, -Infinity, 0, 1], shape: [2, 2] }), 'NON_FINITE', ['v.data[1] (v[0][1]) is -Infinity']],
  ['a value beyond float32 in a Float64Array', (a) => a.selfAttention({ data: new Float64Array([1, 1e39, 0, 1]), shape: [2, 2] }, weights), 'NON_FINITE', ['x.data[1]', 'beyond float32 range']],
  ['NaN in a weight', (a) => a.selfAttention(I2, { ...weights, wv: [[1, 2], [NaN, 4]] }), 'NON_FINITE', ['wv[1][0] is NaN']],
  ['NaN in an additive mask', (a) => a.scaledDotProductAttention(I2, I2, I2, { mask: [[0, NaN], [0, 0]] }), 'NON_FINITE', ['mask[0][1] is NaN']],
  // Float32Array values are scanned in WebAssembly memory (past the scan's first block of 1024 here)
  ['NaN deep in a Float32Array', (a) => a.scaledDotProductAttention({ data: withValueAt(1600, 1234, NaN), shape: [40, 40] }, { data: new Float32Array(1600), shape: [40, 40] }, { data: new Float32Array(80), shape: [40, 2] }), 'NON_FINITE', ['q.data[1234] (q[30][34]) is NaN']],
  ['Infinity in a Float32Array weight', (a) => a.selfAttention(I2, { ...weights, wo: { data: new Float32Array([1, 0, 0, -Infinity]), shape: [2, 2] } }), 'NON_FINITE', ['wo.data[3] (wo[1][1]) is -Infinity']],
  ['+Infinity in a Float32Array mask', (a) => a.scaledDotProductAttention(I2, I2, I2, { mask: { data: new Float32Array([0, -Infinity, 0, Infinity]), shape: [2, 2] } }), 'NON_FINITE', ['mask.data[3] (mask[1][1]) is Infinity', 'may hold -Infinity']],
  ['+Infinity in an additive mask', (a) => a.scaledDotProductAttention(I2, I2, I2, { mask: [[0, Infinity], [0, 0]] }), 'NON_FINITE', ['mask[0][1] is Infinity', 'may hold -Infinity']],
  ['a string where a number belongs', (a) => a.scaledDotProductAttention([[1, '2']], I2, I2), 'NOT_A_NUMBER', ['q[0][1] is the string "2", not a number']],
  ['null where a number belongs', (a) => a.scaledDotProductAttention([[1, null]], I2, I2), 'NOT_A_NUMBER', ['q[0][1] is null']],
  ['undefined where a number belongs', (a) => a.scaledDotProductAttention(I2, [[1, undefined], [0, 1]], I2), 'NOT_A_NUMBER', ['k[0][1] is undefined']],
  ['an object where a number belongs', (a) => a.scaledDotProductAttention(I2, I2, [[1, {}], [0, 1]]), 'NOT_A_NUMBER', ['v[0][1] is an object']],
  ['a string in number[] data', (a) => a.scaledDotProductAttention({ data: [1, 'x'], shape: [1, 2] }, I2, I2), 'NOT_A_NUMBER', ['q.data[1] (q[0][1]) is the string "x"']],
  ['a number in a boolean mask', (a) => a.scaledDotProductAttention(I2, I2, I2, { mask: [[true, 1], [true, true]] }), 'NOT_A_NUMBER', ['mask[0][1] is the number 1', 'boolean mask']],
  ['a 2 in a Uint8Array mask', (a) => a.scaledDotProductAttention(I2, I2, I2, { mask: { data: new Uint8Array([1, 2, 1, 1]), shape: [2, 2] } }), 'NOT_A_NUMBER', ['mask.data[1] is the number 2']],
  ['a string as a tensor', (a) => a.scaledDotProductAttention('[[1]]', I2, I2), 'NOT_A_TENSOR', ['q must be a nested array of numbers or { data, shape }', 'the string']],
  ['null as a tensor', (a) => a.scaledDotProductAttention(I2, null, I2), 'NOT_A_TENSOR', ['k must be', 'null']],
  ['undefined as a tensor', (a) => a.scaledDotProductAttention(I2, I2), 'NOT_A_TENSOR', ['v must be', 'undefined']],
  ['data of the wrong type', (a) => a.scaledDotProductAttention({ data: new Int32Array(4), shape: [2, 2] }, I2, I2), 'NOT_A_TENSOR', ['q.data must be a Float32Array, a Float64Array or a number[]']],
  // heads
  ['numHeads of 0', (a) => a.multiHeadAttention(I2, { ...weights, numHeads: 0 }), 'BAD_OPTION', ['numHeads must be a positive integer, got 0']],
  ['numHeads that does not divide wq', (a) => a.multiHeadAttention([[1, 2, 3]], { wq: [[1, 2, 3], [1, 2, 3], [1, 2, 3]], wk: k3, wv: k3, numHeads: 2 }), 'HEADS_DO_NOT_DIVIDE', ['wq has 3 columns, which numHeads (2) does not divide']],
  ['numKvHeads that does not divide numHeads', (a) => a.multiHeadAttention([[1, 2]], { wq: [[1, 2, 3, 4], [1, 2, 3, 4]], wk: [[1, 2, 3], [1, 2, 3]], wv: [[1, 2, 3], [1, 2, 3]], numHeads: 4, numKvHeads: 3 }), 'HEADS_DO_NOT_DIVIDE', ['numKvHeads (3) must divide numHeads (4)']],
  ['kv heads that do not divide query heads', (a) => a.scaledDotProductAttention([q3, q3, q3], [k3, k3], [v2, v2]), 'HEADS_DO_NOT_DIVIDE', ["2 heads, which does not divide q's 3 heads"]],
  ['wk too narrow for numKvHeads', (a) => a.multiHeadAttention([[1, 2]], { wq: [[1, 2, 3, 4], [1, 2, 3, 4]], wk: [[1, 2], [1, 2]], wv: [[1, 2], [1, 2]], numHeads: 2, numKvHeads: 2 }), 'SHAPE_MISMATCH', ['wk has 2 columns but must have numKvHeads·d_k = 2·2 = 4']],
  ['multiHeadAttention without numHeads', (a) => a.multiHeadAttention(I2, weights), 'BAD_OPTION', ['needs weights.numHeads']],
  // masks and options
  ['a mask that does not broadcast', (a) => a.scaledDotProductAttention(q3, k3, v2, { mask: [[true, false], [true, true]] }), 'MASK_DOES_NOT_BROADCAST', ['mask has shape [2, 2] but the attention weights are [2, 3] (L_q, L_k)', 'neither 1 nor L_k (3)']],
  ['a mask with more dimensions than the weights', (a) => a.scaledDotProductAttention(I2, I2, I2, { mask: [[[true, true], [true, true]], [[true, true], [true, true]]] }), 'MASK_DOES_NOT_BROADCAST', ['more dimensions than the weights']],
  ['a per-head mask for a single head', (a) => a.selfAttention(I2, weights, { mask: { data: new Uint8Array(8).fill(1), shape: [2, 2, 2] } }), 'MASK_DOES_NOT_BROADCAST', ['[2, 2, 2]']],
  ['an unknown option', (a) => a.scaledDotProductAttention(I2, I2, I2, { casual: true }), 'UNKNOWN_OPTION', ["unknown option 'casual'; did you mean 'causal'?"]],
  ['another unknown option', (a) => a.selfAttention(I2, weights, { returnWeight: false }), 'UNKNOWN_OPTION', ["did you mean 'returnWeights'?"]],
  ['an unknown weight', (a) => a.selfAttention(I2, { ...weights, Wo: I2 }), 'UNKNOWN_OPTION', ["unknown weight 'Wo'; did you mean 'wo'?"]],
  ['a NaN scale', (a) => a.scaledDotProductAttention(I2, I2, I2, { scale: NaN }), 'BAD_OPTION', ['scale must be a finite number (0 included), got NaN']],
  ['an infinite scale', (a) => a.scaledDotProductAttention(I2, I2, I2, { scale: Infinity }), 'BAD_OPTION', ['scale must be a finite number']],
  ['a causal that is not a mode', (a) => a.scaledDotProductAttention(I2, I2, I2, { causal: 'yes' }), 'BAD_OPTION', ['causal must be false, true', '"yes"']],
  ['returnWeights that is not a boolean', (a) => a.scaledDotProductAttention(I2, I2, I2, { returnWeights: 0 }), 'BAD_OPTION', ['returnWeights must be true or false']],
  ['returnSteps without weights', (a) => a.selfAttention(I2, weights, { returnWeights: false, returnSteps: true }), 'BAD_OPTION', ['returnSteps needs returnWeights']],
  ['options that are not an object', (a) => a.scaledDotProductAttention(I2, I2, I2, 'causal'), 'BAD_OPTION', ['options must be an object']],
  ['bo without wo', (a) => a.selfAttention(I2, { ...weights, bo: [1, 2] }), 'BAD_OPTION', ['weights.bo needs weights.wo']],
  // sizes
  ['weights too large for WebAssembly memory', (a) => a.scaledDotProductAttention({ data: new Float32Array(20000), shape: [20000, 1] }, { data: new Float32Array(20000), shape: [20000, 1] }, { data: new Float32Array(20000), shape: [20000, 1] }), 'TOO_LARGE', ['over the limit of 1024 MiB', '[20000, 20000]', 'returnWeights: false']],
  ['the steps too large for WebAssembly memory', (a) => a.selfAttention({ data: new Float32Array(10000), shape: [10000, 1] }, { wq: [[1]], wk: [[1]], wv: [[1]] }), 'TOO_LARGE', ['MAX_CALL_BYTES']],
  ['scores beyond float32', (a) => a.scaledDotProductAttention([[3e38]], [[3e38]], [[1]], { scale: 1 }), 'SCORE_OVERFLOW', ['overflowed float32']],
  ['a projection beyond float32', (a) => a.selfAttention([[1e30, 1e30]], { wq: I2, wk: I2, wv: [[1e30, 0], [0, 1]] }), 'PROJECTION_OVERFLOW', ['v = context·W_v', 'overflowed float32']],
  ['an output projection beyond float32', (a) => a.selfAttention(I2, { ...weights, wo: [[3e38, 0], [3e38, 0]] }), 'PROJECTION_OVERFLOW', ['concat·W_o']],
];

describe.each(VARIANTS)('bad input ($name build)', ({ simd }) => {
  let attn;
  let baseline;
  beforeAll(async () => {
    attn = await createAttention({ simd });
    attn.selfAttention(I2, weights);
    baseline = attn.heapBytesInUse();
  });

  it.each(BAD_CALLS)('%s → %s', (_, call, code, words) => {
    let error;
    try {
      call(attn);
    } catch (e) {
      error = e;
    }
    expect(error, 'the call should throw').toBeInstanceOf(AttentionError);
    expect(error).toBeInstanceOf(Error);
    expect(error.name).toBe('AttentionError');
    expect(error.code).toBe(code);
    for (const word of words) expect(error.message).toContain(word);

    expect(attn.heapBytesInUse()).toBe(baseline);
    const s = attn.selfAttention(I2, weights);
    expectClose(s.output.data, goldenOutput, { atol: 1e-6, rtol: 0 });
    expect(attn.heapBytesInUse()).toBe(baseline);
  });

  it('the size limit is checked before anything is allocated', () => {
    const memory = attn.memoryBytes;
    expect(() =>
      attn.scaledDotProductAttention(
        { data: new Float32Array(40000), shape: [40000, 1] },
        { data: new Float32Array(40000), shape: [40000, 1] },
        { data: new Float32Array(40000), shape: [40000, 1] },
      ),
    ).toThrow(/TOO_LARGE|over the limit/);
    expect(attn.memoryBytes).toBe(memory);
    expect(MAX_CALL_BYTES).toBe(2 ** 30);
  });
});

describe('createAttention', () => {
  it('rejects unknown options and a non-boolean simd', async () => {
    await expect(createAttention({ simd: 'yes' })).rejects.toMatchObject({ code: 'BAD_OPTION' });
    await expect(createAttention({ smd: true })).rejects.toMatchObject({
      code: 'UNKNOWN_OPTION',
      message: expect.stringContaining("did you mean 'simd'?"),
    });
  });

  it('rejects with LOAD_FAILED, naming the URL it tried, when the .wasm is missing', async () => {
    const url = new URL('./no-such-file.wasm', import.meta.url);
    const error = await createAttention({ wasmUrl: url }).catch((e) => e);
    expect(error).toBeInstanceOf(AttentionError);
    expect(error.code).toBe('LOAD_FAILED');
    expect(error.message).toContain(url.href);
  });

  it('rejects with LOAD_FAILED when the file is not WebAssembly', async () => {
    const url = new URL('./reference.js', import.meta.url);
    const error = await createAttention({ wasmUrl: url }).catch((e) => e);
    expect(error.code).toBe('LOAD_FAILED');
    expect(error.message).toContain(url.href);
  });
});
