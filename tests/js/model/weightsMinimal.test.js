// attentionWeightsFrom without config.json: { family, numHeads, numKvHeads? } (the page's "Use your own model" has
// only one layer's tensors and the heads typed or guessed). The result equals config.json's, rope aside.
import { describe, expect, it } from 'vitest';
import { readSafetensors } from '../../../src/js/io/index.js';
import { attentionTensorsOf, attentionWeightsFrom } from '../../../src/js/model/index.js';
import { bertFixture, gpt2Fixture, llamaFixture } from './fixtures.js';

const CASES = [
  ['gpt2', () => gpt2Fixture({ layers: 2, prefix: 'transformer.' }), 'n_head'],
  ['bert', () => bertFixture(), 'num_attention_heads'],
  ['llama', () => llamaFixture(), 'num_attention_heads'],
];

describe('attentionWeightsFrom with { family, numHeads } in place of config.json', () => {
  it.each(CASES)('%s: the same weights as with config.json', (family, make, headsKey) => {
    const fixture = make();
    const tensors = readSafetensors(fixture.files['model.safetensors']);
    const full = attentionWeightsFrom(tensors, { layer: 1, config: fixture.config });
    const bare = attentionWeightsFrom(tensors, { layer: 1, config: { family, numHeads: fixture.config[headsKey] } });
    const withoutRope = { ...full };
    delete withoutRope.rope;
    expect(bare).toEqual(withoutRope);
    expect('rope' in bare).toBe(false);
    // A file of that layer alone (as the README script exports it) reads the same.
    const alone = Object.fromEntries(Object.entries(tensors).filter(([n]) => /[.]1[.]/u.test(n)));
    expect(attentionWeightsFrom(alone, { layer: 1, config: fixture.config })).toEqual(full);
  });

  it('reads the biases a file has, checks the heads, and names what is missing or wrong', () => {
    const fixture = bertFixture();
    const tensors = readSafetensors(fixture.files['model.safetensors']);
    const names = Object.keys(tensors).filter((n) => /layer\.0\.attention\.(self|output\.dense)\./u.test(n));
    const one = Object.fromEntries(names.filter((n) => !n.endsWith('.bias')).map((n) => [n, tensors[n]]));
    const w = attentionWeightsFrom(one, { layer: 0, config: { family: 'bert', numHeads: 2 } });
    expect(['bq', 'bk', 'bv', 'bo'].filter((b) => b in w)).toEqual([]);
    expect(w.wq.shape).toEqual([tensors[names[0]].shape[1], tensors[names[0]].shape[1]]);
    const bad = (config, code, text) =>
      expect(() => attentionWeightsFrom(one, { layer: 0, config })).toThrow(
        expect.objectContaining({ code, message: expect.stringContaining(text) }),
      );
    bad({ family: 'bert', numHeads: 3 }, 'WEIGHT_SHAPE_MISMATCH', 'do not split into 3 heads');
    bad({ family: 'bert', numHeads: 0 }, 'BAD_OPTION', 'config.numHeads');
    bad({ family: 't5', numHeads: 2 }, 'BAD_OPTION', 'gpt2, bert, llama');
    expect(() => attentionWeightsFrom(one, { layer: 1, config: { family: 'bert', numHeads: 2 } })).toThrow(
      expect.objectContaining({ code: 'MISSING_TENSOR' }),
    );
  });
});

describe('attentionTensorsOf', () => {
  it('recognises the family, prefix and layers from the names alone, and says how each weight is cut', () => {
    const gpt2 = attentionTensorsOf(
      Object.keys(readSafetensors(gpt2Fixture({ layers: 3, prefix: 'transformer.' }).files['model.safetensors'])),
      { layer: 2 },
    );
    expect(gpt2).toMatchObject({ family: 'gpt2', prefix: 'transformer.', layers: [0, 1, 2], layer: 2 });
    expect(gpt2.sources.wk).toEqual({ name: 'transformer.h.2.attn.c_attn.weight', part: { index: 1, of: 3 } });
    expect(gpt2.sources.wo).toEqual({ name: 'transformer.h.2.attn.c_proj.weight' });
    const llama = attentionTensorsOf(
      new Map([
        ['model.layers.4.self_attn.q_proj.weight', {}],
        ['model.layers.4.self_attn.o_proj.weight', {}],
      ]),
    );
    expect(llama).toEqual({
      family: 'llama',
      label: 'LLaMA',
      choices: expect.objectContaining({ causal: true, rope: true, groupedKv: true }),
      prefix: 'model.',
      layers: [4],
      layer: 4,
      sources: {
        wq: { name: 'model.layers.4.self_attn.q_proj.weight', transpose: true },
        wo: { name: 'model.layers.4.self_attn.o_proj.weight', transpose: true },
      },
      by: 'names',
    });
    expect(attentionTensorsOf(['in_proj_weight', 'wq'])).toBeNull();
    // Phi-3's qkv_proj: q | k | v by rows; GPT-NeoX's query_key_value: by head
    const phi3 = attentionTensorsOf([
      'model.layers.0.self_attn.qkv_proj.weight',
      'model.layers.0.self_attn.o_proj.weight',
    ]);
    expect([phi3.family, phi3.label]).toEqual(['phi3', 'Phi-3']);
    expect(phi3.sources.wv).toEqual({
      name: 'model.layers.0.self_attn.qkv_proj.weight',
      part: { index: 2, of: 3, byRows: true },
      transpose: true,
    });
    const neox = attentionTensorsOf(['gpt_neox.layers.1.attention.query_key_value.weight']);
    expect(neox.sources.wq.part).toEqual({ index: 0, of: 3, perHead: true });
  });
});

describe('the options of attentionWeightsFrom', () => {
  it('an unknown key is UNKNOWN_OPTION naming the nearest, as the main API says it', () => {
    const fixture = gpt2Fixture({ layers: 2 });
    const tensors = readSafetensors(fixture.files['model.safetensors']);
    const unknown = (call, key, nearest) =>
      expect(call).toThrow(
        expect.objectContaining({
          code: 'UNKNOWN_OPTION',
          message: expect.stringContaining(`unknown option '${key}'; did you mean '${nearest}'?`),
        }),
      );
    unknown(() => attentionWeightsFrom(tensors, { Layer: 1, config: fixture.config }), 'Layer', 'layer');
    unknown(() => attentionWeightsFrom(tensors, { layer: 1, confg: fixture.config }), 'confg', 'config');
    expect(() => attentionWeightsFrom(tensors, [1])).toThrow(expect.objectContaining({ code: 'BAD_OPTION' }));
  });
});
