// attention-wasm/model against the float64 reference (reference.js, from the Hugging Face modeling code) on tiny
// random checkpoints in the Hub's layouts (fixtures.js), in Node and Chromium: every layer's attention, every
// hidden state and the logits, for GPT-2, BERT and the LLaMA family, F32 and BF16, with and without prefixes,
// sharded, GQA, Qwen2's biases and tied head, Mistral's sliding window, head_dim ≠ d/H, rope_scaling.

// Tolerances: see reference.js (WEIGHTS, VALUES).
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/js/model/index.js';
import { expectClose } from '../reference.js';
import { bertFixture, gpt2Fixture, llamaFixture, source } from './fixtures.js';
import { distilbertFixture, longRopeFactors, neoxFixture, phi3Fixture, robertaFixture } from './fixtures-families.js';
import { gemmaFixture, olmo2Fixture } from './fixtures-gemma.js';
import { VALUES, WEIGHTS, referenceForward } from './reference.js';

const llama3 = {
  rope_type: 'llama3',
  factor: 8,
  low_freq_factor: 1,
  high_freq_factor: 4,
  original_max_position_embeddings: 64,
};

// [name, fixture, how the files are given]
const CASES = [
  ['GPT-2, F32', () => gpt2Fixture(), 'bytes'],
  [
    'GPT-2, BF16, transformer. prefix (GPT2LMHeadModel)',
    () => gpt2Fixture({ dtype: 'BF16', prefix: 'transformer.' }),
    'files',
  ],
  ['GPT-2, 3 shards', () => gpt2Fixture({ seed: 4, shards: 3, layers: 3 }), 'files'],
  ['BERT for masked LM, F32', () => bertFixture(), 'files'],
  ['BERT, BF16, LayerNorm gamma/beta', () => bertFixture({ dtype: 'BF16', oldNames: true, seed: 5 }), 'bytes'],
  ['BERT without its MLM head (BertModel): no logits', () => bertFixture({ head: false }), 'bytes'],
  ['LLaMA, GQA 4/2, F32', () => llamaFixture(), 'bytes'],
  [
    'LLaMA, BF16, head_dim 6 ≠ d/H, llama3 rope_scaling',
    () => llamaFixture({ dtype: 'BF16', headDim: 6, ropeScaling: llama3, theta: 500000 }),
    'files',
  ],
  [
    'LLaMA, GQA 4/1, linear rope_scaling, 2 shards',
    () => llamaFixture({ kvHeads: 1, ropeScaling: { type: 'linear', factor: 2 }, shards: 2 }),
    'files',
  ],
  ['Qwen2: q/k/v biases, tied head', () => llamaFixture({ type: 'qwen2', seed: 6 }), 'bytes'],
  ['Mistral: sliding window 3 over 7 tokens', () => llamaFixture({ type: 'mistral', slidingWindow: 3 }), 'files'],
  [
    'Qwen3: q_norm and k_norm, head_dim 8 (H·d_k 32 ≠ d_model 16), tied, BF16',
    () => llamaFixture({ type: 'qwen3', headDim: 8, tied: true, dtype: 'BF16', seed: 31 }),
    'files',
  ],
  ['Qwen3, GQA 4/1, untied, 2 shards', () => llamaFixture({ type: 'qwen3', kvHeads: 1, seed: 32, shards: 2 }), 'bytes'],
  [
    'GPT-NeoX (Pythia), F16: parallel residual, rotary_pct 0.25, buffers',
    () => neoxFixture({ rotaryPct: 0.25, d: 32 }),
    'bytes',
  ],
  [
    'GPT-NeoX, F32, sequential residual, 2 shards',
    () => neoxFixture({ dtype: 'F32', parallel: false, shards: 2 }),
    'files',
  ],
  ['GPT-NeoX, BF16, rotary on the whole head', () => neoxFixture({ dtype: 'BF16', rotaryPct: 1, seed: 9 }), 'files'],
  // the ids hold 1, RoBERTa's padding_idx: those tokens take position 1, the others count from 2 past them
  ['RoBERTa for masked LM, F32, pad tokens among the ids', () => robertaFixture(), 'bytes'],
  [
    'XLM-RoBERTa, F16, the shared tensors as lm_head.decoder.*',
    () => robertaFixture({ dtype: 'F16', xlm: true, decoderNames: true, seed: 42 }),
    'files',
  ],
  ['RoBERTa, BF16, padding_idx 0, 2 shards', () => robertaFixture({ dtype: 'BF16', padId: 0, shards: 2 }), 'files'],
  ['RoBERTa without its MLM head (RobertaModel): no logits', () => robertaFixture({ head: false }), 'bytes'],
  ['DistilBERT for masked LM, F32', () => distilbertFixture(), 'bytes'],
  ['DistilBERT, F16, 3 layers, 2 shards', () => distilbertFixture({ dtype: 'F16', layers: 3, shards: 2 }), 'files'],
  ['DistilBERT, BF16, without its MLM head', () => distilbertFixture({ dtype: 'BF16', head: false }), 'bytes'],
  ['Phi-3-mini-4k layout, BF16: fused qkv_proj and gate_up_proj', () => phi3Fixture(), 'bytes'],
  ['Phi-3, F32, sliding window 3, 2 shards', () => phi3Fixture({ dtype: 'F32', slidingWindow: 3, shards: 2 }), 'files'],
  [
    'Phi-4-mini layout, F16: GQA 4/2, partial rotary 0.75 (head 8), tied, longrope below original (short factors)',
    () =>
      phi3Fixture({
        dtype: 'F16',
        d: 32,
        kvHeads: 2,
        partial: 0.75,
        tied: true,
        original: 8,
        ropeScaling: longRopeFactors(3),
      }),
    'files',
  ],
  [
    'Phi-3 longrope past original_max_position_embeddings 4: long factors and the attention factor',
    () => phi3Fixture({ dtype: 'F32', original: 4, ropeScaling: { ...longRopeFactors(2), type: 'su' } }),
    'bytes',
  ],
  ['Gemma, F32: x̂·(1 + w), GeGLU, √d_model, head_dim 8 ≠ d/H', () => gemmaFixture({ version: 1 }), 'bytes'],
  [
    'Gemma 2, F32: sandwich norms, softcaps, window 3 on even layers, query_pre_attn_scalar',
    () => gemmaFixture(),
    'files',
  ],
  ['Gemma 2, BF16 (√24 as 4.90625), 2 shards', () => gemmaFixture({ dtype: 'BF16', seed: 44, shards: 2 }), 'files'],
  [
    'Gemma 2, F16, layer_types (full, then sliding)',
    () => gemmaFixture({ dtype: 'F16', seed: 45, layerTypes: ['full_attention', 'sliding_attention'] }),
    'bytes',
  ],
  [
    'Gemma 3 (gemma3_text), BF16: q/k norms, sliding_window_pattern 3, two RoPE bases',
    () => gemmaFixture({ version: 3, dtype: 'BF16' }),
    'files',
  ],
  [
    'Gemma 3, F32, layer_types, softcaps, 2 shards',
    () =>
      gemmaFixture({
        version: 3,
        seed: 46,
        softcap: 2,
        finalSoftcap: 3,
        shards: 2,
        layerTypes: ['sliding_attention', 'full_attention', 'sliding_attention'],
      }),
    'files',
  ],
  ['OLMo-2, F32: norms after each half, q/k norms over the projection', () => olmo2Fixture(), 'bytes'],
  ['OLMo-2, BF16, GQA 4/2, 2 shards', () => olmo2Fixture({ dtype: 'BF16', kvHeads: 2, shards: 2 }), 'files'],
];

describe('model.run against the float64 reference', () => {
  it.each(CASES)('%s', async (name, make, how) => {
    const fixture = make();
    const model = await loadModel(source(fixture, how));
    const ids = [3, 1, 4, 1, 5, 9, 2];
    const r = await model.run({ ids });
    const ref = referenceForward(fixture, ids);
    const spec = model.spec;
    expect(model.family).toBe(
      {
        gpt2: 'gpt2',
        bert: 'bert',
        gpt_neox: 'gpt_neox',
        qwen3: 'qwen3',
        roberta: 'roberta',
        'xlm-roberta': 'roberta',
      }[fixture.config.model_type] ??
        {
          distilbert: 'distilbert',
          phi3: 'phi3',
          gemma: 'gemma',
          gemma2: 'gemma2',
          gemma3_text: 'gemma3',
          olmo2: 'olmo2',
        }[fixture.config.model_type] ??
        'llama',
    );
    expect(r.ids).toEqual(ids);
    expect(r.attentions).toHaveLength(spec.numLayers);
    expect(r.hiddenStates).toHaveLength(spec.numLayers + 1);
    r.attentions.forEach((a, l) => {
      expect(a.shape).toEqual([spec.numHeads, ids.length, ids.length]);
      expectClose(a.data, ref.attentions[l], { ...WEIGHTS, what: `attentions[${l}]` });
    });
    r.hiddenStates.forEach((h, l) => {
      expect(h.shape).toEqual([ids.length, spec.dModel]);
      expectClose(h.data, ref.hiddenStates[l], { ...VALUES, what: `hiddenStates[${l}]` });
    });
    if (ref.logits === null) {
      expect(r.logits).toBeNull();
      expect(r.next).toBeNull();
      return;
    }
    expect(r.logits.shape).toEqual([ids.length, spec.vocabSize]);
    expectClose(r.logits.data, ref.logits, { ...VALUES, what: 'logits' });
    // next: the 5 largest of the last row's softmax, in order
    const last = Array.from(ref.logits.slice((ids.length - 1) * spec.vocabSize));
    const max = Math.max(...last);
    const sum = last.reduce((s, x) => s + Math.exp(x - max), 0);
    const expected = last
      .map((x, id) => ({ id, p: Math.exp(x - max) / sum }))
      .sort((a, b) => b.p - a.p)
      .slice(0, 5);
    expect(r.next.map((t) => t.id)).toEqual(expected.map((t) => t.id));
    expectClose(
      Float64Array.from(r.next, (t) => t.p),
      Float64Array.from(expected, (t) => t.p),
      { ...VALUES, what: 'next p' },
    );
  });

  it("BERT's token types: tokenTypeIds picks each token's row of token_type_embeddings", async () => {
    const fixture = bertFixture({ seed: 8 });
    const model = await loadModel(fixture.files);
    const ids = [2, 7, 4, 11, 3];
    const tokenTypeIds = [0, 0, 1, 1, 1];
    const r = await model.run({ ids }, { tokenTypeIds });
    const ref = referenceForward(fixture, ids, { tokenTypeIds });
    expectClose(r.logits.data, ref.logits, { ...VALUES, what: 'logits' });
    const plain = await model.run({ ids });
    expect(plain.logits.data).not.toEqual(r.logits.data);
  });

  it("RoBERTa's positions: padding_idx + 1 + i without pads (as many tokens as the table has rows past them)", async () => {
    const fixture = robertaFixture({ positions: 9, seed: 43 });
    const model = await loadModel(fixture.files);
    expect(model.spec.maxPositions).toBe(9); // max_position_embeddings 11 less padding_idx + 1
    for (const ids of [[4], [2, 3, 4, 5, 6, 7, 8, 9, 10], [1, 1, 5]]) {
      const r = await model.run({ ids });
      const ref = referenceForward(fixture, ids);
      expectClose(r.logits.data, ref.logits, { ...VALUES, what: `logits of ${ids}` });
      expectClose(r.hiddenStates[0].data, ref.hiddenStates[0], { ...VALUES, what: `embeddings of ${ids}` });
    }
    await expect(model.run({ ids: Array(10).fill(3) })).rejects.toMatchObject({ code: 'TOO_MANY_TOKENS' });
  });

  it('a single token, and the longest sequence the model has positions for', async () => {
    const fixture = gpt2Fixture({ positions: 9 });
    const model = await loadModel(fixture.files);
    for (const ids of [[4], [1, 2, 3, 4, 5, 6, 7, 8, 9]]) {
      const r = await model.run({ ids });
      const ref = referenceForward(fixture, ids);
      expectClose(r.logits.data, ref.logits, { ...VALUES, what: `logits of ${ids.length}` });
    }
  });

  it('attentions, hiddenStates and logits can be left out', async () => {
    const model = await loadModel(llamaFixture().files);
    const r = await model.run({ ids: [1, 2] }, { attentions: false, hiddenStates: false, logits: false });
    expect('attentions' in r || 'hiddenStates' in r).toBe(false);
    expect(r.logits).toBeNull();
  });
});
