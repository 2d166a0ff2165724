// The families as files (src/js/model/families/): every file registered, every table whole, and what the rest of
// the package and the page read from the normalized description (spec.choices, spec.labels, spec.fields) instead of
// comparing family names; scripts/check-families.mjs finds any such comparison left, and a planted one.
import { describe, expect, it } from 'vitest';
import { familyComparisons, familyNames } from '../../../scripts/check-families.mjs';
import { readSpec } from '../../../src/js/model/spec.js';
import { FAMILIES, familyOf } from '../../../src/js/model/families/index.js';
import { SUPPORTED_FAMILIES } from '../../../src/js/model/index.js';
import { CHOICES } from '../../../src/js/model/families/family.js';

// every file of families/ but the index and family.js (what a family file holds) is a family
const familyFiles = import.meta.glob(
  [
    '../../../src/js/model/families/*.js',
    '!../../../src/js/model/families/index.js',
    '!../../../src/js/model/families/family.js',
  ],
  { import: 'default', eager: true },
);
const sources = import.meta.glob(
  [
    '../../../src/js/**/*.js',
    '../../../web/src/**/*.js',
    '!../../../src/js/model/families/**',
    '!../../../src/js/generated/**',
    '!../../../src/js/wasm/**',
    '!../../../src/js/inline.js',
  ],
  { query: '?raw', import: 'default', eager: true },
);

const HIDDEN = { hidden_size: 8, num_attention_heads: 2, num_hidden_layers: 2, intermediate_size: 16 };
const CONFIGS = {
  gpt2: { model_type: 'gpt2', n_embd: 8, n_head: 2, n_layer: 2, n_positions: 16, vocab_size: 10 },
  bert: { model_type: 'bert', ...HIDDEN, max_position_embeddings: 16, vocab_size: 10 },
  llama: { model_type: 'llama', ...HIDDEN, max_position_embeddings: 16, vocab_size: 10 },
};

describe('the family files', () => {
  it('each file of families/ (but the index and family.js) is a family that the index registers under its name', () => {
    const tables = Object.entries(familyFiles);
    expect(tables.length).toBeGreaterThanOrEqual(3);
    for (const [path, table] of tables) {
      expect(path.endsWith(`/${table.name}.js`), path).toBe(true);
      expect(FAMILIES[table.name], path).toBe(table);
    }
    expect(Object.keys(FAMILIES)).toHaveLength(tables.length);
  });

  it('no model_type belongs to two families, and every table makes every choice', () => {
    const types = Object.values(FAMILIES).flatMap((f) => f.modelTypes);
    expect(new Set(types).size).toBe(types.length);
    for (const table of Object.values(FAMILIES)) expect(Object.keys(table.choices).sort()).toEqual([...CHOICES].sort());
  });

  it('SUPPORTED_FAMILIES (the public list a page shows) names every family, and each of its model_types loads as it', () => {
    expect(SUPPORTED_FAMILIES.map((f) => f.family).sort()).toEqual(Object.keys(FAMILIES).sort());
    for (const { family, label, modelTypes } of SUPPORTED_FAMILIES) {
      expect(label).toBe(FAMILIES[family].label);
      expect(modelTypes.length, family).toBeGreaterThan(0);
      for (const type of modelTypes) expect(familyOf({ model_type: type }, 'config.json').name, type).toBe(family);
    }
    expect(Object.isFrozen(SUPPORTED_FAMILIES) && Object.isFrozen(SUPPORTED_FAMILIES[0].modelTypes)).toBe(true);
  });
});

describe('spec.choices, spec.labels and spec.fields', () => {
  it.each([
    ['gpt2', 'GPT-2', 'GELU (tanh)', 'LayerNorm', 'pre-norm', ['LayerNorm ln_1', 'LayerNorm ln_2']],
    ['bert', 'BERT', 'GELU (erf)', 'LayerNorm', 'post-norm', ['LayerNorm (attention.output)', 'LayerNorm (output)']],
    [
      'llama',
      'LLaMA',
      'SiLU-gated',
      'RMSNorm',
      'pre-norm',
      ['RMSNorm input_layernorm', 'RMSNorm post_attention_layernorm'],
    ],
  ])('%s', (family, name, activation, norm, placement, norms) => {
    const spec = readSpec(CONFIGS[family]);
    expect(spec.labels).toEqual({ family: name, activation, norm, placement, norms });
    expect(spec.choices.causal).toBe(family !== 'bert');
    expect(spec.choices.maskedLm).toBe(family === 'bert');
    expect(spec.choices.finalNorm).toBe(family !== 'bert');
    expect(spec.choices.rope).toBe(family === 'llama');
    expect(spec.choices.groupedKv).toBe(family === 'llama');
  });

  it("labels the activation that runs: GPT-2's activation_function 'gelu' is erf (the block view said tanh)", () => {
    const spec = readSpec({ ...CONFIGS.gpt2, activation_function: 'gelu' });
    expect(spec.activation).toBe('geluErf');
    expect(spec.labels.activation).toBe('GELU (erf)');
    expect(readSpec({ ...CONFIGS.bert, hidden_act: 'gelu_new' }).labels.activation).toBe('GELU (tanh)');
  });

  it('GPT-NeoX: use_parallel_residual picks the placement; rotary_pct and rotary_emb_base the rotated dims and base', () => {
    const neox = { model_type: 'gpt_neox', ...HIDDEN, hidden_size: 16, max_position_embeddings: 16, vocab_size: 10 };
    const spec = readSpec({ ...neox, rotary_pct: 0.25, rotary_emb_base: 100 });
    expect(spec.family).toBe('gpt_neox');
    expect(spec.choices).toMatchObject({ placement: 'parallel', qkvLayout: 'perHead', norm: 'layerNorm', rope: true });
    expect(spec.labels).toMatchObject({ family: 'GPT-NeoX', activation: 'GELU (erf)', placement: 'parallel' });
    expect(spec.rope.dim).toBe(2); // 8 · 0.25
    expect(spec.rope.invFreq[0]).toBe(1);
    expect(readSpec({ ...neox, rotary_emb_base: 100 }).rope.invFreq[1]).toBeCloseTo(100 ** -0.25, 12);
    expect(readSpec({ ...neox, use_parallel_residual: false }).choices.placement).toBe('preNorm');
    expect(spec.tied).toBe(false);
    expect(readSpec(CONFIGS.gpt2).choices.qkvLayout).toBe('blocks');
  });

  it('Qwen3: its own head_dim, the LLaMA choices, q_norm and k_norm read per layer; use_sliding_window refused', () => {
    const qwen3 = { model_type: 'qwen3', ...HIDDEN, head_dim: 16, max_position_embeddings: 16, vocab_size: 10 };
    const spec = readSpec(qwen3);
    expect([spec.family, spec.headDim, spec.labels.family, spec.choices.groupedKv]).toEqual([
      'qwen3',
      16,
      'Qwen3',
      true,
    ]);
    expect(FAMILIES.qwen3.layer(1).map((r) => r.slot)).toEqual(expect.arrayContaining(['qNorm', 'kNorm']));
    expect(() => readSpec({ ...qwen3, use_sliding_window: true })).toThrow(/use_sliding_window/);
  });

  it("RoBERTa: BERT's choices, positions after padding_idx (maxPositions: the rows past them), type_vocab_size 1", () => {
    const roberta = { model_type: 'roberta', ...HIDDEN, max_position_embeddings: 514, pad_token_id: 1, vocab_size: 10 };
    const spec = readSpec({ ...roberta, type_vocab_size: 1 });
    expect([spec.family, spec.labels.family, spec.maxPositions, spec.typeVocabSize]).toEqual([
      'roberta',
      'RoBERTa',
      512,
      1,
    ]);
    expect(spec.positions).toEqual({ offset: 2, padId: 1 });
    expect(spec.choices).toEqual(readSpec(CONFIGS.bert).choices);
    expect(readSpec({ ...roberta, model_type: 'xlm-roberta' }).family).toBe('roberta');
    expect(readSpec({ ...roberta, pad_token_id: 0 }).positions).toEqual({ offset: 1, padId: 0 });
    expect(readSpec(CONFIGS.bert).positions).toEqual({ offset: 0, padId: null });
    expect(() => readSpec({ ...roberta, pad_token_id: -1 })).toThrow(/pad_token_id is the number -1/);
    expect(() => readSpec({ ...roberta, max_position_embeddings: 2 })).toThrow(/max_position_embeddings/);
  });

  it("DistilBERT: its config's names, no token types, LayerNorm eps 1e-12 whatever the config says", () => {
    const config = { model_type: 'distilbert', dim: 8, n_heads: 2, n_layers: 3, hidden_dim: 20, vocab_size: 10 };
    const spec = readSpec({ ...config, max_position_embeddings: 16, activation: 'gelu', layer_norm_eps: 0.1 });
    expect([spec.family, spec.dModel, spec.numHeads, spec.numLayers, spec.dFf]).toEqual(['distilbert', 8, 2, 3, 20]);
    expect([spec.typeVocabSize, spec.eps, spec.activation]).toEqual([0, 1e-12, 'geluErf']);
    expect(spec.labels).toMatchObject({ family: 'DistilBERT', placement: 'post-norm' });
    expect(spec.labels.norms).toEqual(['LayerNorm sa_layer_norm', 'LayerNorm output_layer_norm']);
    expect(spec.fields).toMatchObject({ dModel: 'dim', numHeads: 'n_heads', numLayers: 'n_layers' });
    expect(() => readSpec({ ...config, max_position_embeddings: 16, activation: 'relu' })).toThrow(/activation/);
  });

  it("Phi-3: LLaMA's choices, q|k|v in blocks; longrope (or su) with original_max_position_embeddings", () => {
    const phi3 = { model_type: 'phi3', ...HIDDEN, hidden_size: 32, num_attention_heads: 4, vocab_size: 10 };
    const plain = readSpec({ ...phi3, max_position_embeddings: 4096, sliding_window: 2047 });
    expect([plain.family, plain.labels.family, plain.choices.qkvLayout, plain.windows]).toEqual([
      'phi3',
      'Phi-3',
      'blocks',
      [2047, 2047],
    ]);
    expect([plain.rope.dim, plain.rope.long, plain.rope.scale]).toEqual([8, undefined, undefined]);
    const factors = { short_factor: [1, 2, 4], long_factor: [2, 4, 8] };
    const long = { ...phi3, max_position_embeddings: 131072, partial_rotary_factor: 0.75 };
    for (const type of ['longrope', 'su']) {
      const spec = readSpec({ ...long, rope_scaling: { type, ...factors } }); // original: Phi3Config's 4096
      expect(spec.rope.dim).toBe(6);
      expect(spec.rope.invFreq[1]).toBeCloseTo(1 / (2 * 10000 ** (2 / 6)), 15);
      expect(spec.rope.long.invFreq[2]).toBeCloseTo(1 / (8 * 10000 ** (4 / 6)), 15);
      expect(spec.rope.long.after).toBe(4096);
      expect(spec.rope.scale).toBeCloseTo(Math.sqrt(1 + Math.log(32) / Math.log(4096)), 15);
    }
    const given = { type: 'longrope', ...factors, attention_factor: 1.5 };
    expect(readSpec({ ...long, original_max_position_embeddings: 8192, rope_scaling: given }).rope).toMatchObject({
      scale: 1.5,
      long: { after: 8192 },
    });
    expect(() => readSpec({ ...long, rope_scaling: { type: 'longrope', ...factors, short_factor: [1, 2] } })).toThrow(
      /rope_scaling\.short_factor .* a list of 3 numbers/,
    );
  });

  it('Gemma 2 and 3: windows by layer, query_pre_attn_scalar, softcaps, √d_model in the dtype, two RoPE bases', () => {
    const base = { ...HIDDEN, head_dim: 16, max_position_embeddings: 16, vocab_size: 10, num_hidden_layers: 6 };
    const gemma2 = readSpec({
      model_type: 'gemma2',
      ...base,
      hidden_size: 3072,
      sliding_window: 4096,
      query_pre_attn_scalar: 224,
      attn_logit_softcapping: 50,
      final_logit_softcapping: 30,
      torch_dtype: 'bfloat16',
    });
    expect(gemma2.windows).toEqual([4096, 0, 4096, 0, 4096, 0]); // even layers slide
    expect([gemma2.attentionScale, gemma2.softcap, gemma2.finalSoftcap]).toEqual([224 ** -0.5, 50, 30]);
    expect(gemma2.embedScale).toBe(55.5); // √3072 = 55.4256 in bfloat16, as transformers' comment says
    expect([gemma2.activation, gemma2.choices.norm, gemma2.choices.placement]).toEqual([
      'geluTanhGated',
      'rmsNormPlusOne',
      'sandwich',
    ]);
    const gemma3 = readSpec({
      model_type: 'gemma3_text',
      ...base,
      sliding_window: 512,
      sliding_window_pattern: 6,
      rope_theta: 1000000,
      rope_local_base_freq: 10000,
      attn_logit_softcapping: null,
      torch_dtype: 'float32',
    });
    expect(gemma3.windows).toEqual([512, 512, 512, 512, 512, 0]); // five local, one global
    expect([gemma3.softcap, gemma3.finalSoftcap, gemma3.family]).toEqual([0, 0, 'gemma3']);
    expect(gemma3.rope.slidingInvFreq[1]).toBeCloseTo(10000 ** (-2 / 16), 12);
    expect(gemma3.rope.invFreq[1]).toBeCloseTo(1000000 ** (-2 / 16), 12);
    expect(FAMILIES.gemma3.layer(0).map((r) => r.slot)).toEqual(
      expect.arrayContaining(['qNorm', 'kNorm', 'attentionPostNorm', 'mlpPostNorm']),
    );
    const olmo2 = readSpec({ model_type: 'olmo2', ...base });
    expect([olmo2.choices.placement, olmo2.qkNormWhole, olmo2.labels.placement]).toEqual([
      'postBranch',
      true,
      'norm after each branch',
    ]);
    expect(() => readSpec({ model_type: 'gemma2', ...base, hidden_activation: 'silu' })).toThrow(/hidden_activation/);
  });

  it('names the field each size was read from (a GPT-2 config with n_ctx only says n_ctx)', () => {
    expect(readSpec(CONFIGS.gpt2).fields).toEqual({
      dModel: 'n_embd',
      numHeads: 'n_head',
      numLayers: 'n_layer',
      maxPositions: 'n_positions',
      vocabSize: 'vocab_size',
    });
    const nCtx = { ...CONFIGS.gpt2, n_ctx: 16 };
    delete nCtx.n_positions;
    expect(readSpec(nCtx).fields.maxPositions).toBe('n_ctx');
    expect(readSpec(CONFIGS.llama).fields.maxPositions).toBe('max_position_embeddings');
  });
});

describe('scripts/check-families.mjs', () => {
  const names = familyNames(FAMILIES);

  it('knows every family and model_type', () => {
    expect(names).toEqual(expect.arrayContaining(['gpt2', 'bert', 'llama', 'mistral', 'qwen2']));
  });

  it('finds no family or model_type compared outside src/js/model/families/ (src/js and web/src)', () => {
    expect(Object.keys(sources).length).toBeGreaterThan(100);
    const found = Object.entries(sources).flatMap(([path, source]) =>
      familyComparisons(source, names).map(({ line, text }) => `${path}:${line}: ${text}`),
    );
    expect(found).toEqual([]);
  });

  it('finds a planted comparison, in any of its forms', () => {
    const planted = [
      "if (model.family === 'bert') return null;",
      "const decoder = spec.family !== 'bert';",
      "const useWindow = modelType == 'mistral';",
      "const x = 'qwen2' === config.model_type;",
      "const fused = layout === 'gpt2';",
      "const text = `${spec.family === 'gpt2' ? 'n_positions' : 'max_position_embeddings'}`;",
      'if (a.family === b.family) go();',
      "switch (x) { case 'llama': break; }",
      "const causal = ['gpt2', 'llama'].includes(g.layout);",
      'switch (spec.family) { default: }',
    ];
    for (const line of planted) expect(familyComparisons(`const a = 1;\n${line}\n`, names), line).toHaveLength(1);
  });

  it('leaves alone what asks no question of which family: presence, types, names in text and comments', () => {
    const fine = [
      "const minimal = typeof json.family === 'string' && json.model_type === undefined;",
      'const text = `a ${spec.family} model`;',
      "// if (family === 'bert') this would be flagged",
      "/* spec.modelType === 'qwen2' */",
      "const url = 'https://host/gpt2'; const same = url === other;",
      'const family = attentionTensorsOf(names); const causal = family?.choices.causal;',
      "if (spec.choices.placement === 'postNorm') x();",
      "const transposed = family.choices.layout === 'outIn';",
    ];
    for (const line of fine) expect(familyComparisons(line, names), line).toEqual([]);
  });
});
