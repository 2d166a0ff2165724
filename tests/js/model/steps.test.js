// Every intermediate of a layer and head (capture), head ablation (ablate), and attentionWeightsFrom + selfAttention
// reproducing a checkpoint's layer, for each family, against the float64 reference's steps (reference.js).
// Tolerances: reference.js (WEIGHTS, VALUES).
import { beforeAll, describe, expect, it } from 'vitest';
import { createAttention } from '../../../src/js/index.js';
import { readSafetensors } from '../../../src/js/io/index.js';
import { attentionWeightsFrom, loadModel } from '../../../src/js/model/index.js';
import { expectClose } from '../reference.js';
import { bertFixture, gpt2Fixture, llamaFixture } from './fixtures.js';
import { distilbertFixture, phi3Fixture, robertaFixture } from './fixtures-families.js';
import { VALUES, WEIGHTS, referenceForward } from './reference.js';

const FAMILIES = [
  ['GPT-2', () => gpt2Fixture({ layers: 3 })],
  ['BERT', () => bertFixture()],
  ['LLaMA (GQA 4/2, RoPE)', () => llamaFixture({ dtype: 'BF16' })],
  ['Phi-3 (qkv_proj rows q | k | v, GQA 4/2, partial rotary)', () => phi3Fixture({ kvHeads: 2, partial: 0.5 })],
  ['RoBERTa', () => robertaFixture()],
  ['DistilBERT', () => distilbertFixture()],
];

/** Head h's columns [n, d_k] of [n, heads·d_k]. */
function headOf(flat, n, heads, dK, h) {
  const out = new Float64Array(n * dK);
  for (let i = 0; i < n; i++) out.set(flat.subarray(i * heads * dK + h * dK, i * heads * dK + (h + 1) * dK), i * dK);
  return out;
}

describe.each(FAMILIES)('%s', (name, make) => {
  let fixture;
  let model;
  beforeAll(async () => {
    fixture = make();
    model = await loadModel(fixture.files);
  });

  it('capture: each asked head has its steps and its layer’s, as the reference computes them', async () => {
    const ids = [5, 2, 8, 2, 6];
    const n = ids.length;
    const { numHeads: H, numKvHeads: Hkv, headDim: dK, numLayers } = model.spec;
    const asked = [
      { layer: numLayers - 1, head: H - 1 },
      { layer: 0, head: 1 },
    ];
    const r = await model.run({ ids }, { capture: asked });
    const ref = referenceForward(fixture, ids);
    expect(r.captures.map(({ layer, head }) => ({ layer, head }))).toEqual(asked);
    for (const c of r.captures) {
      const s = ref.steps[c.layer];
      const kv = Math.floor(c.head / (H / Hkv));
      const what = (key) => `layer ${c.layer} head ${c.head}: ${key}`;
      const close = (key, expected, tolerance = VALUES) =>
        expectClose(c[key].data, expected, { ...tolerance, what: what(key) });
      close('input', ref.hiddenStates[c.layer]);
      close('x', s.x);
      close('q', headOf(s.q, n, H, dK, c.head));
      close('k', headOf(s.k, n, Hkv, dK, kv));
      close('v', headOf(s.v, n, Hkv, dK, kv));
      const [q, k] = s.qRotated ? [s.qRotated, s.kRotated] : [s.q, s.k];
      if (s.qRotated) {
        close('qRotated', headOf(q, n, H, dK, c.head));
        close('kRotated', headOf(k, n, Hkv, dK, kv));
      } else {
        expect(c.qRotated).toBeUndefined();
      }
      const [qh, kh] = [headOf(q, n, H, dK, c.head), headOf(k, n, Hkv, dK, kv)];
      const raw = Float64Array.from({ length: n * n }, (_, at) => {
        const [i, j] = [Math.floor(at / n), at % n];
        return qh.subarray(i * dK, (i + 1) * dK).reduce((sum, x, col) => sum + x * kh[j * dK + col], 0);
      });
      const causal = model.spec.choices.causal;
      close('rawScores', raw);
      close(
        'scaledScores',
        raw.map((x) => x / Math.sqrt(dK)),
      );
      close(
        'scores',
        raw.map((x, at) => (causal && at % n > Math.floor(at / n) ? -Infinity : x / Math.sqrt(dK))),
      );
      close('weights', ref.attentions[c.layer].subarray(c.head * n * n, (c.head + 1) * n * n), WEIGHTS);
      close('headOutput', headOf(s.concat, n, H, dK, c.head));
      for (const key of ['concat', 'output', 'residual', 'mlpInput', 'mlpHidden', 'mlpOutput', 'hidden'])
        close(key, s[key]);
      expect(c.mlpHidden.shape).toEqual([n, model.spec.dFf]);
      expect(c.weights.shape).toEqual([n, n]);
    }
  });

  it('ablate zeroes those heads’ outputs, and the rest follows as in the reference', async () => {
    const ids = [1, 7, 3, 9];
    const ablate = [
      [0, 1],
      [1, 0],
    ];
    const r = await model.run({ ids }, { ablate, capture: [{ layer: 0, head: 1 }] });
    const ref = referenceForward(fixture, ids, { ablate });
    if (ref.logits) expectClose(r.logits.data, ref.logits, { ...VALUES, what: 'logits' });
    r.hiddenStates.forEach((h, l) =>
      expectClose(h.data, ref.hiddenStates[l], { ...VALUES, what: `hiddenStates[${l}]` }),
    );
    expect(r.captures[0].headOutput.data.every((x) => x === 0)).toBe(true);
    expect(r.captures[0].weights.data.some((x) => x > 0)).toBe(true); // the pattern is still shown
    const plain = await model.run({ ids });
    expect(plain.hiddenStates[1].data).not.toEqual(r.hiddenStates[1].data);
  });

  it('attentionWeightsFrom + selfAttention reproduce each layer’s attention from its normed input', async () => {
    const attn = await createAttention();
    const tensors = readSafetensors(fixture.files['model.safetensors']);
    const ids = [4, 4, 1, 6, 2, 3];
    const ref = referenceForward(fixture, ids);
    for (let layer = 0; layer < model.spec.numLayers; layer++) {
      const weights = attentionWeightsFrom(tensors, { layer, config: fixture.config });
      expect(weights.numHeads).toBe(model.spec.numHeads);
      const x = { data: Float32Array.from(ref.steps[layer].x), shape: [ids.length, model.spec.dModel] };
      const r = attn.selfAttention(x, weights, { causal: model.spec.choices.causal });
      expectClose(r.weights.data, ref.attentions[layer], { ...WEIGHTS, what: `weights of layer ${layer}` });
      expectClose(r.output.data, ref.steps[layer].output, { ...VALUES, what: `output of layer ${layer}` });
    }
  });
});

describe('attentionWeightsFrom', () => {
  it('takes config.json as text, tensors as a Map, names without their prefix; says what is missing or wrong', () => {
    const fixture = gpt2Fixture({ prefix: 'transformer.' });
    const tensors = new Map(Object.entries(readSafetensors(fixture.files['model.safetensors'])));
    const w = attentionWeightsFrom(tensors, { layer: 1, config: fixture.files['config.json'] });
    expect(w.wq.shape).toEqual([8, 8]);
    expect(w.bq.shape).toEqual([8]);
    expect(w.wo.shape).toEqual([8, 8]);
    expect('rope' in w).toBe(false);
    tensors.delete('transformer.h.1.attn.c_proj.bias');
    expect(() => attentionWeightsFrom(tensors, { layer: 1, config: fixture.config })).toThrow(
      expect.objectContaining({
        code: 'MISSING_TENSOR',
        message: expect.stringContaining('"transformer.h.1.attn.c_proj.bias"'),
      }),
    );
    expect(() => attentionWeightsFrom(tensors, { layer: 2, config: fixture.config })).toThrow(
      expect.objectContaining({ code: 'BAD_OPTION', message: expect.stringContaining('from 0 to 1') }),
    );
    const llama = llamaFixture({
      ropeScaling: {
        rope_type: 'llama3',
        factor: 8,
        low_freq_factor: 1,
        high_freq_factor: 4,
        original_max_position_embeddings: 64,
      },
    });
    const lw = attentionWeightsFrom(readSafetensors(llama.files['model.safetensors']), {
      layer: 0,
      config: llama.config,
    });
    expect(lw.numKvHeads).toBe(2);
    expect(lw.rope.style).toBe('half');
    expect(lw.rope.invFreq).toHaveLength(2);
  });
});
