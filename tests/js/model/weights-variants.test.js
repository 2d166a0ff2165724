// attentionWeightsFrom carries what the attention API runs of a layer beyond its weights — the scores' scale, softcap
// and sliding window (Gemma 2), LongRoPE's attention factor (Phi-3), Mistral's window — so that selfAttention on them
// gives the model's own attention weights (model.run's `attentions`); the q/k norms (Qwen3, Gemma 3, OLMo-2), which
// selfAttention does not run, come as qkNorm, which selfAttention refuses and with which scaledDotProductAttention,
// given q and k normed here (a norm written apart from the package's), gives the model's weights again.
import { beforeAll, describe, expect, it } from 'vitest';
import { createAttention } from '../../../src/js/index.js';
import { readSafetensors } from '../../../src/js/io/index.js';
import { attentionWeightsFrom, loadModel } from '../../../src/js/model/index.js';
import { expectClose } from '../reference.js';
import { llamaFixture } from './fixtures.js';
import { longRopeFactors, phi3Fixture } from './fixtures-families.js';
import { gemmaFixture, olmo2Fixture } from './fixtures-gemma.js';

const ids = [3, 7, 1, 9, 4, 4, 2, 8, 5, 6];
const TOLERANCE = { atol: 2e-5, rtol: 2e-4 };

/** The model's input x of each layer (capture's, normed when the layer norms it) and its attentions. */
async function modelRun(fixture) {
  const model = await loadModel(fixture.files);
  const layers = model.spec.numLayers;
  const capture = Array.from({ length: layers }, (_, layer) => ({ layer, head: 0 }));
  const r = await model.run({ ids }, { capture, attentions: true });
  const tensors = readSafetensors(fixture.files['model.safetensors']);
  return { model, r, tensors, layers };
}

/** x·W + b in float64, [n, cols]. */
function project(x, n, w, b) {
  const [rows, cols] = w.shape;
  const out = new Float64Array(n * cols);
  for (let i = 0; i < n; i++)
    for (let c = 0; c < cols; c++) {
      let sum = b ? b.data[c] : 0;
      for (let r = 0; r < rows; r++) sum += x[i * rows + r] * w.data[r * cols + c];
      out[i * cols + c] = sum;
    }
  return out;
}

/** An RMS norm of each `width` values of a row (x / √(mean x² + eps) · w, or · (1 + w)), in float64. */
function rmsNorm(rows, width, weight, eps, plusOne) {
  const out = new Float64Array(rows.length);
  for (let at = 0; at < rows.length; at += width) {
    let squares = 0;
    for (let i = 0; i < width; i++) squares += rows[at + i] ** 2;
    const scale = 1 / Math.sqrt(squares / width + eps);
    for (let i = 0; i < width; i++)
      out[at + i] = rows[at + i] * scale * ((plusOne ? 1 : 0) + weight[i % weight.length]);
  }
  return out;
}

/** [n, heads·d_k] → [heads, n, d_k] as float32. */
function byHead(flat, n, heads) {
  const dK = flat.length / n / heads;
  const out = new Float32Array(flat.length);
  for (let h = 0; h < heads; h++)
    for (let i = 0; i < n; i++)
      for (let c = 0; c < dK; c++) out[(h * n + i) * dK + c] = flat[i * heads * dK + h * dK + c];
  return { data: out, shape: [heads, n, dK] };
}

let attn;
beforeAll(async () => {
  attn = await createAttention();
});

describe('selfAttention on attentionWeightsFrom gives the model’s attention', () => {
  it.each([
    ['Gemma 2 (query_pre_attn_scalar, softcap 1.5, window 3 on even layers)', () => gemmaFixture({ version: 2 })],
    [
      'Phi-3 LongRoPE (attention factor √1.5, partial rotary, GQA)',
      () =>
        phi3Fixture({ d: 32, kvHeads: 2, partial: 0.5, positions: 64, original: 16, ropeScaling: longRopeFactors(2) }),
    ],
    ['Mistral (window 4)', () => llamaFixture({ type: 'mistral', slidingWindow: 4 })],
  ])('%s', async (name, make) => {
    const fixture = make();
    const { r, tensors, layers } = await modelRun(fixture);
    const carried = new Set();
    for (let layer = 0; layer < layers; layer++) {
      const weights = attentionWeightsFrom(tensors, { layer, config: fixture.config });
      for (const key of ['scale', 'softcap', 'window']) if (weights[key] !== undefined) carried.add(key);
      if (weights.rope?.attentionFactor) carried.add('attentionFactor');
      const x = r.captures[layer].x;
      const ours = attn.selfAttention(x, weights, { causal: true });
      expectClose(ours.weights.data, r.attentions[layer].data, { ...TOLERANCE, what: `${name} layer ${layer}` });
      // without what the weights carry, the same call is another attention (the test can fail)
      const { scale, softcap, window, ...bare } = weights;
      const rope = bare.rope && { ...bare.rope, attentionFactor: undefined };
      if (scale || softcap || window || weights.rope?.attentionFactor) {
        const other = attn.selfAttention(x, { ...bare, rope }, { causal: true });
        const most = other.weights.data.reduce((m, v, i) => Math.max(m, Math.abs(v - r.attentions[layer].data[i])), 0);
        expect(most, `${name} layer ${layer} without them`).toBeGreaterThan(1e-3);
      }
    }
    const expected = {
      'Gemma 2': ['scale', 'softcap', 'window'],
      'Phi-3 L': ['attentionFactor'],
      Mistral: ['window'],
    }[name.slice(0, 7).trim()];
    expect([...carried].sort()).toEqual(expected.sort());
  });

  it('the options of the call win over the weights’, and a carried window needs causal', async () => {
    const fixture = gemmaFixture({ version: 2 });
    const { r, tensors } = await modelRun(fixture);
    const weights = attentionWeightsFrom(tensors, { layer: 0, config: fixture.config });
    expect(weights).toMatchObject({ scale: 24 ** -0.5, softcap: 1.5, window: 3 });
    const x = r.captures[0].x;
    const mine = attn.selfAttention(x, weights, { causal: true, softcap: 0, window: 0, scale: 0.5 });
    const bare = { ...weights };
    for (const key of ['scale', 'softcap', 'window']) delete bare[key];
    const same = attn.selfAttention(x, bare, { causal: true, scale: 0.5 });
    expect(mine.weights.data).toEqual(same.weights.data);
    expect(() => attn.selfAttention(x, weights)).toThrow(
      expect.objectContaining({ code: 'BAD_OPTION', message: expect.stringContaining('weights.window (3)') }),
    );
    expect(() => attn.selfAttention(x, { ...weights, softcap: -1 }, { causal: true })).toThrow(
      expect.objectContaining({ code: 'BAD_OPTION', message: expect.stringContaining('weights.softcap must be') }),
    );
    const prepared = await attn.prepareSelfAttention(weights);
    expectClose(prepared.run(x, { causal: true }).weights.data, r.attentions[0].data, {
      ...TOLERANCE,
      what: 'prepared',
    });
    expect(() => prepared.run(x)).toThrow(
      expect.objectContaining({ message: expect.stringContaining('weights.window') }),
    );
    prepared.free();
  });
});

describe('LongRoPE past its original length', () => {
  it('tokens picks the long factors, as the model does for a sequence that long', async () => {
    const fixture = phi3Fixture({ d: 32, kvHeads: 2, positions: 64, original: 4, ropeScaling: longRopeFactors(4) });
    const { model, r, tensors, layers } = await modelRun(fixture); // 10 tokens: past 4
    for (let layer = 0; layer < layers; layer++) {
      const config = fixture.config;
      const long = attentionWeightsFrom(tensors, { layer, config, tokens: ids.length });
      const x = r.captures[layer].x;
      const ours = attn.selfAttention(x, long, { causal: true });
      expectClose(ours.weights.data, r.attentions[layer].data, { ...TOLERANCE, what: `layer ${layer}` });
      expect((await model.attentionWeights(layer, { tokens: ids.length })).rope).toEqual(long.rope);
      const short = attentionWeightsFrom(tensors, { layer, config, tokens: 4 });
      expect(short.rope.invFreq).toEqual(attentionWeightsFrom(tensors, { layer, config }).rope.invFreq);
      expect(short.rope.invFreq).not.toEqual(long.rope.invFreq);
      expect(short.rope.attentionFactor).toBe(long.rope.attentionFactor);
    }
    const badTokens = expect.objectContaining({ code: 'BAD_OPTION', message: expect.stringContaining('tokens') });
    expect(() => attentionWeightsFrom(tensors, { layer: 0, config: fixture.config, tokens: -1 })).toThrow(badTokens);
    await expect(model.attentionWeights(0, { tokens: 1.5 })).rejects.toThrow(badTokens);
  });
});

describe('on workers', () => {
  it('the weights’ scale, softcap, window and attention factor reach each worker’s part', async () => {
    const parallel = await createAttention({ workers: 2 });
    try {
      for (const fixture of [
        gemmaFixture({ version: 2 }),
        phi3Fixture({ d: 32, kvHeads: 2, partial: 0.5, positions: 64, original: 16, ropeScaling: longRopeFactors(2) }),
      ]) {
        const { r, tensors } = await modelRun(fixture);
        const weights = attentionWeightsFrom(tensors, { layer: 0, config: fixture.config });
        const ours = await parallel.selfAttention(r.captures[0].x, weights, { causal: true });
        expectClose(ours.weights.data, r.attentions[0].data, { ...TOLERANCE, what: `${fixture.config.model_type}` });
      }
      const qwen3 = llamaFixture({ type: 'qwen3', headDim: 8 });
      const { r, tensors } = await modelRun(qwen3);
      const weights = attentionWeightsFrom(tensors, { layer: 0, config: qwen3.config });
      await expect(parallel.selfAttention(r.captures[0].x, weights, { causal: true })).rejects.toThrow(
        expect.objectContaining({ code: 'BAD_OPTION', message: expect.stringContaining('weights.qkNorm') }),
      );
    } finally {
      await parallel.terminate();
    }
  });
});

describe('q/k norms: qkNorm, refused by selfAttention, run with scaledDotProductAttention', () => {
  it.each([
    ['Qwen3 (per head)', () => llamaFixture({ type: 'qwen3', headDim: 8 }), 'rmsNorm', 'head'],
    ['Gemma 3 (per head, 1 + w; windows)', () => gemmaFixture({ version: 3 }), 'rmsNormPlusOne', 'head'],
    ['OLMo-2 (whole projection)', () => olmo2Fixture({ kvHeads: 2 }), 'rmsNorm', 'projection'],
  ])('%s', async (name, make, norm, over) => {
    const fixture = make();
    const { model, r, tensors, layers } = await modelRun(fixture);
    const n = ids.length;
    for (let layer = 0; layer < layers; layer++) {
      const w = attentionWeightsFrom(tensors, { layer, config: fixture.config });
      expect(w.qkNorm).toMatchObject({ norm, over, eps: model.spec.eps });
      const x = r.captures[layer].x;
      expect(() => attn.selfAttention(x, w, { causal: true })).toThrow(
        expect.objectContaining({ code: 'BAD_OPTION', message: expect.stringContaining('weights.qkNorm') }),
      );
      const { numHeads: H, numKvHeads: Hkv } = w;
      const dK = w.wq.shape[1] / H;
      const width = over === 'head' ? dK : undefined;
      const normed = (flat, weight) =>
        rmsNorm(flat, width ?? flat.length / n, weight.data, w.qkNorm.eps, norm === 'rmsNormPlusOne');
      const q = byHead(normed(project(x.data, n, w.wq, w.bq), w.qkNorm.q), n, H);
      const k = byHead(normed(project(x.data, n, w.wk, w.bk), w.qkNorm.k), n, Hkv);
      const v = byHead(project(x.data, n, w.wv, w.bv), n, Hkv);
      const { rope, scale, softcap, window } = w;
      const ours = attn.scaledDotProductAttention(q, k, v, { causal: true, rope, scale, softcap, window });
      expectClose(ours.weights.data, r.attentions[layer].data, { ...TOLERANCE, what: `${name} layer ${layer}` });
    }
    // the model's own weights (model.attentionWeights) carry the same norms
    const own = await model.attentionWeights(layers - 1);
    const read = attentionWeightsFrom(tensors, { layer: layers - 1, config: fixture.config });
    expect(own.qkNorm.q.data).toEqual(read.qkNorm.q.data);
    expect(own.qkNorm.k.shape).toEqual(read.qkNorm.k.shape);
  });

  it('model.attentionWeights gives the same qkNorm from resident weights (copied out of memory) and on workers', async () => {
    const fixture = olmo2Fixture({ kvHeads: 2 });
    const read = attentionWeightsFrom(readSafetensors(fixture.files['model.safetensors']), {
      layer: 1,
      config: fixture.config,
    });
    for (const options of [{ residentBytes: 1e8 }, { workers: 2 }]) {
      const model = await loadModel(fixture.files, options);
      const own = await model.attentionWeights(1);
      await model.run({ ids }); // a later run leaves the copies as they were
      expect(own.qkNorm).toEqual(read.qkNorm);
      expect(own.wq).toEqual(read.wq);
      await model.dispose();
    }
  });
});
