// Attention#prepareSelfAttention, through the public API of both builds, in Node and Chromium: a prepared layer
// gives selfAttention's results bit for bit while it projects again only the groups of rows of x that changed,
// over shapes whose last rows or small sizes Eigen's product treats apart; and its errors, memory and free().
import { beforeAll, describe, expect, it } from 'vitest';
import { AttentionError, createAttention } from '../../src/js/index.js';
import { VARIANTS, expectClose, randomTensor, seededRandom } from './reference.js';
import { goldenOutput, weights as golden } from './worked-example.js';

/** Every result of `actual` holds exactly the bits (and shape) of `expected`'s. */
function expectSameBits(actual, expected, what) {
  expect(Object.keys(actual), what).toEqual(Object.keys(expected));
  for (const key of Object.keys(expected)) {
    expect(actual[key].shape, `${what}: ${key}`).toEqual(expected[key].shape);
    const [a, b] = [actual[key].data, expected[key].data];
    const differ = a.findIndex((value, i) => !Object.is(value, b[i]));
    expect(differ, `${what}: ${key} differs first at ${differ}`).toBe(-1);
  }
}

/** A layer's weights: grouped-query when numKvHeads < numHeads, with biases and W_o. */
function layerWeights(random, { dModel, numHeads, numKvHeads, dK, dV, dOut }) {
  const w = {
    wq: randomTensor(random, [dModel, numHeads * dK]),
    wk: randomTensor(random, [dModel, numKvHeads * dK]),
    wv: randomTensor(random, [dModel, numKvHeads * dV]),
    bq: randomTensor(random, [numHeads * dK]),
    bv: randomTensor(random, [numKvHeads * dV]),
    numHeads,
    numKvHeads,
  };
  if (dOut) Object.assign(w, { wo: randomTensor(random, [numHeads * dV, dOut]), bo: randomTensor(random, [dOut]) });
  return w;
}

// GPT-2's layer at n = 64; the page's default (too small for groups); last groups of 1 and 2 rows; a batch.
const SHAPES = [
  { batch: 0, lenQ: 64, dModel: 768, numHeads: 12, numKvHeads: 12, dK: 64, dV: 64, dOut: 768 },
  { batch: 0, lenQ: 5, dModel: 8, numHeads: 2, numKvHeads: 2, dK: 4, dV: 4, dOut: 0 },
  { batch: 2, lenQ: 17, dModel: 96, numHeads: 4, numKvHeads: 2, dK: 24, dV: 16, dOut: 32 },
  { batch: 0, lenQ: 30, dModel: 33, numHeads: 3, numKvHeads: 1, dK: 5, dV: 7, dOut: 9 },
  { batch: 0, lenQ: 9, dModel: 16, numHeads: 2, numKvHeads: 2, dK: 2, dV: 3, dOut: 0 },
];

describe.each(VARIANTS)('prepareSelfAttention ($name build)', ({ simd }) => {
  let attn;
  beforeAll(async () => {
    attn = await createAttention({ simd });
  });

  it.each(SHAPES)(
    'one changed row at a time gives selfAttention bit for bit (L = $lenQ, d_model = $dModel, B = $batch)',
    async (dims) => {
      const random = seededRandom(dims.lenQ * 131 + dims.dModel);
      const weights = layerWeights(random, dims);
      const shape = dims.batch ? [dims.batch, dims.lenQ, dims.dModel] : [dims.lenQ, dims.dModel];
      const x = randomTensor(random, shape);
      const layer = await attn.prepareSelfAttention(weights);
      const rows = (dims.batch || 1) * dims.lenQ;
      const projected = [];
      const groupRows = []; // the rows of the changed row's group of 4 (fewer at the end of a batch)
      for (let t = 0; t < Math.min(rows, dims.dModel > 100 ? 6 : 12); t++) {
        const row = rows - 1 - ((t * 5) % rows); // the last row first: in a group of 1 to 4 rows
        for (let c = 0; c < dims.dModel; c++) x.data[row * dims.dModel + c] = random();
        const options = { causal: t % 2 === 0, returnSteps: t % 3 === 0, scale: t % 4 === 3 ? 0.3 : undefined };
        expectSameBits(layer.run(x, options), attn.selfAttention(x, weights, options), `change ${t}, row ${row}`);
        projected.push(layer.projectedRows);
        const first = Math.floor((row % dims.lenQ) / 4) * 4;
        groupRows.push(Math.min(4, dims.lenQ - first));
      }
      layer.free();
      // The first call projects every row; later ones only the changed row's group, whatever the layer's size.
      expect(projected[0]).toBe(rows);
      expect(projected.slice(1)).toEqual(groupRows.slice(1));
    },
    30_000, // the scalar build at GPT-2's size, on a busy machine
  );

  it('projects nothing when only options change, and everything when the shape of x changes', async () => {
    const random = seededRandom(3);
    const weights = layerWeights(random, SHAPES[2]);
    const layer = await attn.prepareSelfAttention(weights);
    const x = randomTensor(random, [2, 17, 96]);
    layer.run(x);
    const causal = layer.run(x, { causal: true });
    expect(layer.projectedRows).toBe(0);
    expectSameBits(causal, attn.selfAttention(x, weights, { causal: true }), 'causal only');
    const shorter = randomTensor(random, [11, 96]);
    expectSameBits(layer.run(shorter), attn.selfAttention(shorter, weights), 'another shape');
    expect(layer.projectedRows).toBe(11);
    layer.free();
  });

  it('copies the weights once: later changes to their arrays are not seen', async () => {
    const random = seededRandom(4);
    const weights = layerWeights(random, SHAPES[4]);
    const x = randomTensor(random, [9, 16]);
    const before = attn.selfAttention(x, weights);
    const layer = await attn.prepareSelfAttention(weights);
    weights.wq.data.fill(0.5);
    expectSameBits(layer.run(x), before, 'weights changed after prepare');
    layer.free();
  });

  it("takes a Float64Array x as selfAttention does: the worked example's bits, first run and later ones", async () => {
    const layer = await attn.prepareSelfAttention(golden);
    const x = { data: Float64Array.of(1, 0, 0, 1), shape: [2, 2] };
    const first = layer.run(x);
    expectClose(first.output.data, goldenOutput, { atol: 1e-6, rtol: 0 });
    expectSameBits(first, attn.selfAttention(x, golden), 'the first run');
    x.data[1] = 0.1 + 1e-12; // a value float32 cannot hold: rounded as selfAttention rounds it
    expectSameBits(layer.run(x), attn.selfAttention(x, golden), 'a changed row');
    layer.free();
  });

  it('keeps only copies of the weights: their buffers may be transferred once the layer is made', async () => {
    const random = seededRandom(8);
    const weights = layerWeights(random, SHAPES[4]);
    const x = randomTensor(random, [9, 16]);
    const expected = attn.selfAttention(x, weights);
    const layer = await attn.prepareSelfAttention(weights);
    for (const key of ['wq', 'wk', 'wv', 'bq', 'bv']) {
      const { buffer } = weights[key].data;
      structuredClone(buffer, { transfer: [buffer] }); // detaches the caller's buffer
    }
    expectSameBits(layer.run(x), expected, 'weights transferred after prepare');
    x.data[0] = 0.5;
    expect(layer.run(x).output.shape).toEqual([9, 6]);
    layer.free();
  });

  it('reads only own properties of the weights: a polluted Object.prototype changes nothing', async () => {
    const random = seededRandom(9);
    const { numHeads, numKvHeads, ...single } = layerWeights(random, SHAPES[4]); // one head: no numHeads
    expect(numHeads * numKvHeads).toBe(4);
    const x = randomTensor(random, [9, 16]);
    const expected = attn.selfAttention(x, single);
    let layer;
    Object.prototype.numHeads = 2;
    Object.prototype.wo = { data: new Float32Array(36), shape: [6, 6] };
    try {
      layer = await attn.prepareSelfAttention(single);
      expectSameBits(layer.run(x), expected, 'prototype polluted while the layer is made and run');
    } finally {
      delete Object.prototype.numHeads;
      delete Object.prototype.wo;
    }
    expect(layer.run(x).weights.shape).toEqual([9, 9]);
    layer.free();
  });

  it('writes into options.out as selfAttention does', async () => {
    const random = seededRandom(5);
    const weights = layerWeights(random, SHAPES[1]);
    const x = randomTensor(random, [5, 8]);
    const layer = await attn.prepareSelfAttention(weights);
    const out = { output: new Float32Array(5 * 8), q: new Float32Array(2 * 5 * 4) };
    const result = layer.run(x, { out });
    expect(result.output.data).toBe(out.output);
    expect(result.q.data).toBe(out.q);
    expectSameBits(result, attn.selfAttention(x, weights), 'out');
    layer.free();
  });

  it("refuses bad weights and bad x with selfAttention's errors, and recovers after a bad x", async () => {
    const random = seededRandom(6);
    const weights = layerWeights(random, SHAPES[4]);
    const error = (f) => {
      try {
        f();
      } catch (e) {
        expect(e).toBeInstanceOf(AttentionError);
        return `${e.code}: ${e.message}`;
      }
      return 'no error';
    };
    const refused = (weightsGiven) =>
      attn.prepareSelfAttention(weightsGiven).then(
        () => 'no error',
        (e) => (e instanceof AttentionError ? `${e.code}: ${e.message}` : `not an AttentionError: ${e}`),
      );
    const baseline = attn.heapBytesInUse();
    const bad = { ...weights, wk: randomTensor(random, [15, 4]) };
    expect(await refused(bad)).toMatch(/^SHAPE_MISMATCH: wk has 15 rows but x has 16 columns/);
    const nan = { ...weights, wv: { data: new Float32Array(16 * 6).fill(NaN), shape: [16, 6] } };
    expect(await refused(nan)).toMatch(/^NON_FINITE: wv\.data\[0\]/);
    expect(await refused(undefined)).toMatch(/^NOT_A_TENSOR: weights\.wq is missing/);
    expect(attn.heapBytesInUse()).toBe(baseline); // nothing kept by a refused layer

    const layer = await attn.prepareSelfAttention(weights);
    const x = randomTensor(random, [9, 16]);
    layer.run(x);
    expect(error(() => layer.run(randomTensor(random, [9, 15])))).toMatch(/^SHAPE_MISMATCH: .*\[9, 15\]/);
    const poisoned = { data: x.data.slice(), shape: x.shape };
    poisoned.data[20] = Infinity;
    expect(error(() => layer.run(poisoned))).toMatch(/^NON_FINITE: x\.data\[20\]/);
    x.data[3] = 0.25; // the next call must not trust the projections of the poisoned call
    expectSameBits(layer.run(x), attn.selfAttention(x, weights), 'after a refused x');
    layer.free();
  });

  it('holds its memory until free(), then refuses calls with TERMINATED', async () => {
    const random = seededRandom(7);
    const weights = layerWeights(random, SHAPES[3]);
    const baseline = attn.heapBytesInUse();
    const layer = await attn.prepareSelfAttention(weights);
    const { run } = layer; // works detached
    run(randomTensor(random, [30, 33]));
    expect(attn.heapBytesInUse()).toBeGreaterThan(baseline);
    layer.free();
    expect(attn.heapBytesInUse()).toBe(baseline);
    expect(() => run(randomTensor(random, [30, 33]))).toThrow(expect.objectContaining({ code: 'TERMINATED' }));
    layer.free(); // twice is harmless
  });
});
