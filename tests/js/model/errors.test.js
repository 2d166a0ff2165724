// attention-wasm/model on bad input: each fault an AttentionError with its code and a message naming the file, the
// tensor and the shapes, raised at load (nothing half-loaded) or before a run reads anything.
import { describe, expect, it } from 'vitest';
import { AttentionError } from '../../../src/js/index.js';
import { SUPPORTED_FAMILIES, loadModel } from '../../../src/js/model/index.js';
import { bertFixture, editSafetensors, gpt2Fixture, llamaFixture } from './fixtures.js';

/** The error `promise` rejects with (fails when it resolves). */
async function rejection(promise) {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('expected a rejection');
}

/** Expects loadModel(files) to reject with `code` and a message matching every pattern. */
async function expectLoadError(files, code, ...patterns) {
  const error = await rejection(loadModel(files));
  expect(error).toBeInstanceOf(AttentionError);
  expect(error.code, error.message).toBe(code);
  for (const pattern of patterns) expect(error.message).toMatch(pattern);
  return error;
}

/** The folder without one of its files. */
const without = (files, name) => Object.fromEntries(Object.entries(files).filter(([file]) => file !== name));
const withConfig = (fixture, change) => ({
  ...fixture.files,
  'config.json': JSON.stringify({ ...fixture.config, ...change }),
});
const withTensors = (fixture, edit) => ({
  ...fixture.files,
  'model.safetensors': editSafetensors(fixture.files['model.safetensors'], edit),
});

describe('loadModel refuses, naming what is wrong', () => {
  it('a model_type it does not run, or none it can recognise', async () => {
    const fixture = gpt2Fixture();
    await expectLoadError(
      withConfig(fixture, { model_type: 't5' }),
      'UNSUPPORTED_MODEL',
      /config\.json has model_type the string "t5"/,
      /runs gpt2, bert, llama, mistral, qwen2, gpt_neox, /,
      // every model_type of every family, in lookup order
      new RegExp(`runs ${SUPPORTED_FAMILIES.flatMap((f) => f.modelTypes).join(', ')}$`),
    );
    await expectLoadError(
      withConfig(fixture, { model_type: undefined, architectures: ['T5Model'] }),
      'UNSUPPORTED_MODEL',
      /no model_type/,
    );
  });

  it('a config.json that is missing, not JSON, lacks a size or has sizes that do not divide', async () => {
    const fixture = gpt2Fixture();
    const noConfig = without(fixture.files, 'config.json');
    await expectLoadError(
      noConfig,
      'MISSING_FILE',
      /config\.json is not in the 1 files given; there are: model\.safetensors/,
    );
    await expectLoadError(
      { ...fixture.files, 'config.json': '{"model_type": "gpt2",' },
      'BAD_CONFIG',
      /config\.json is not JSON/,
    );
    await expectLoadError(withConfig(fixture, { n_embd: undefined }), 'BAD_CONFIG', /config\.json has no n_embd/);
    await expectLoadError(
      withConfig(fixture, { n_head: 3 }),
      'BAD_CONFIG',
      /n_head is the number 3, but must be a divisor of n_embd \(8\)/,
    );
    await expectLoadError(withConfig(fixture, { n_layer: 2.5 }), 'BAD_CONFIG', /n_layer is the number 2\.5/);
    await expectLoadError(
      withConfig(fixture, { vocab_size: 2 ** 40 }),
      'BAD_CONFIG',
      /vocab_size .* an integer from 1 to/,
    );
    const llama = llamaFixture();
    await expectLoadError(
      withConfig(llama, { num_key_value_heads: 3 }),
      'BAD_CONFIG',
      /num_key_value_heads is the number 3, but must be a divisor of num_attention_heads \(4\)/,
    );
  });

  it('settings it does not implement: a rope_scaling type, an activation', async () => {
    await expectLoadError(
      withConfig(llamaFixture(), { rope_scaling: { rope_type: 'yarn', factor: 4 } }),
      'UNSUPPORTED_MODEL',
      /rope_scaling has the rope type the string "yarn"/,
    );
    await expectLoadError(
      withConfig(bertFixture(), { hidden_act: 'relu' }),
      'UNSUPPORTED_MODEL',
      /hidden_act is the string "relu"/,
    );
    await expectLoadError(
      withConfig(llamaFixture(), { rope_scaling: { rope_type: 'llama3', factor: 8 } }),
      'BAD_CONFIG',
      /rope_scaling\.low_freq_factor is undefined/,
    );
  });

  it('a tensor the family needs that is in no file', async () => {
    const fixture = gpt2Fixture();
    const files = withTensors(fixture, (tensors) => tensors.filter((t) => t.name !== 'h.1.mlp.c_fc.bias'));
    await expectLoadError(files, 'MISSING_TENSOR', /model\.safetensors holds no tensor "h\.1\.mlp\.c_fc\.bias"/);
    const llama = llamaFixture();
    const noHead = withTensors(llama, (tensors) => tensors.filter((t) => t.name !== 'lm_head.weight'));
    await expectLoadError(noHead, 'MISSING_TENSOR', /"lm_head\.weight"/);
    const other = withTensors(fixture, (tensors) => tensors.map((t) => ({ ...t, name: `encoder.${t.name}` })));
    await expectLoadError(
      other,
      'MISSING_TENSOR',
      /no tensor "wte\.weight" nor "transformer\.wte\.weight".*holds "encoder\./,
    );
  });

  it('a shape that disagrees with config.json: the file, the tensor and both shapes', async () => {
    const fixture = gpt2Fixture();
    const error = await expectLoadError(
      withConfig(fixture, { n_positions: 20 }),
      'WEIGHT_SHAPE_MISMATCH',
      /^model\.safetensors: tensor "wpe\.weight" has shape \[16, 8\], but config\.json gives \[P, d\] = \[20, 8\]$/,
    );
    expect(error.message).not.toMatch(/undefined/);
    const llama = llamaFixture();
    await expectLoadError(
      withConfig(llama, { num_key_value_heads: 4 }),
      'WEIGHT_SHAPE_MISMATCH',
      /"model\.layers\.0\.self_attn\.k_proj\.weight" has shape \[8, 16\], but config\.json gives \[kv, d\] = \[16, 16\]/,
    );
  });

  it('a shard that model.safetensors.index.json names but the folder lacks; no weights at all', async () => {
    const fixture = gpt2Fixture({ shards: 3 });
    const files = without(fixture.files, 'model-00002-of-00003.safetensors');
    await expectLoadError(
      files,
      'MISSING_FILE',
      /model-00002-of-00003\.safetensors is not in the 4 files given, which model\.safetensors\.index\.json names for tensor "/,
    );
    await expectLoadError(
      { 'config.json': fixture.files['config.json'], 'pytorch_model.bin': new Uint8Array(8) },
      'MISSING_FILE',
      /model\.safetensors \(or model\.safetensors\.index\.json\).*pytorch_model\.bin is not read: safetensors only/,
    );
  });

  it('a tensor of a dtype it does not read, and a safetensors file that is not one', async () => {
    const fixture = gpt2Fixture();
    const int = withTensors(fixture, (tensors) =>
      tensors.map((t) => (t.name === 'ln_f.bias' ? { ...t, dtype: 'I32' } : t)),
    );
    await expectLoadError(
      int,
      'BAD_FILE',
      /model\.safetensors: tensor "ln_f\.bias" is I32; attention-wasm\/model reads F32, F16, BF16, F64/,
    );
    const truncated = { ...fixture.files, 'model.safetensors': fixture.files['model.safetensors'].subarray(0, 100) };
    await expectLoadError(truncated, 'BAD_FILE', /^model\.safetensors: safetensors/);
  });

  it('a source of the wrong kind, and bad options', async () => {
    await expectLoadError(42, 'BAD_OPTION', /a model source must be/);
    const error = await rejection(loadModel(gpt2Fixture().files, { onProgress: 'yes' }));
    expect(error.code).toBe('BAD_OPTION');
    expect((await rejection(loadModel(gpt2Fixture().files, { progress: () => {} }))).code).toBe('UNKNOWN_OPTION');
  });
});

describe('model.run refuses before reading anything', () => {
  it('too many tokens for the positions, ids outside the vocabulary, text without a tokenizer, bad options', async () => {
    const model = await loadModel(gpt2Fixture({ positions: 6 }).files);
    const before = model.bytesRead;
    const codeOf = async (...args) => {
      const error = await rejection(model.run(...args));
      expect(error).toBeInstanceOf(AttentionError);
      return [error.code, error.message];
    };
    expect(await codeOf({ ids: [1, 2, 3, 4, 5, 6, 7] })).toEqual([
      'TOO_MANY_TOKENS',
      "7 tokens, but this model has positions for 6 (config.json's n_positions)",
    ]);
    expect((await codeOf({ ids: [1, 23] }))[1]).toMatch(/ids\[1\] is 23, outside the vocabulary \[0, 23\)/);
    expect((await codeOf({ ids: [1, 2.5] }))[1]).toMatch(/ids\[1\] is the number 2\.5, not an integer/);
    expect((await codeOf({ ids: [] }))[1]).toMatch(/ids is empty/);
    expect((await codeOf('The cat'))[1]).toMatch(/no tokenizer/);
    expect(await codeOf({ ids: [1] }, { capture: [{ layer: 2, head: 0 }] })).toEqual([
      'BAD_OPTION',
      'capture[0]: layer the number 2 is not a layer of this model (0 to 1)',
    ]);
    expect((await codeOf({ ids: [1] }, { ablate: [[0, 5]] }))[1]).toMatch(
      /ablate\[0\]: head the number 5 is not a head of this model \(0 to 1\)/,
    );
    expect((await codeOf({ ids: [1] }, { ablate: [0, 1] }))[1]).toMatch(/ablate\[0\] must be \[layer, head\]/);
    expect((await codeOf({ ids: [1] }, { attention: true }))[0]).toBe('UNKNOWN_OPTION');
    expect((await codeOf({ ids: [1] }, { topK: 0 }))[0]).toBe('BAD_OPTION');
    expect(model.bytesRead).toBe(before);
  });

  it('options of the wrong type, token types of another length and a NaN in from.hiddenState (issue 34 §4)', async () => {
    const model = await loadModel(bertFixture().files);
    const before = model.bytesRead;
    const codeOf = async (...args) => {
      const error = await rejection(model.run(...args));
      expect(error).toBeInstanceOf(AttentionError);
      return [error.code, error.message];
    };
    for (const capture of ['x', {}, 5]) {
      const [code, message] = await codeOf({ ids: [1, 2] }, { capture });
      expect(code).toBe('BAD_OPTION');
      expect(message).toMatch(/^capture must be an array of \{ layer, head \}, got /);
    }
    for (const ablate of [5, 'ab']) expect((await codeOf({ ids: [1, 2] }, { ablate }))[0]).toBe('BAD_OPTION');
    expect(await codeOf({ ids: [1, 2, 3] }, { tokenTypeIds: [0, 1] })).toEqual([
      'BAD_OPTION',
      'tokenTypeIds holds 2 types for 3 tokens: one each',
    ]);
    const hiddenState = { data: new Float32Array(2 * 8).fill(0.5), shape: [2, 8] };
    hiddenState.data[9] = NaN;
    const [code, message] = await codeOf({ ids: [1, 2] }, { from: { layer: 1, hiddenState } });
    expect(code).toBe('NON_FINITE');
    expect(message).toMatch(/^from\.hiddenState\.data\[9\] \(from\.hiddenState\[1\]\[1\]\) is NaN/);
    expect(model.bytesRead).toBe(before);
  });

  it('a weight holding NaN: NON_FINITE naming the tensor, nothing left allocated, and the model keeps working', async () => {
    const fixture = gpt2Fixture();
    const files = withTensors(fixture, (tensors) =>
      tensors.map((t) => {
        if (t.name !== 'h.1.mlp.c_fc.weight') return t;
        const bytes = t.bytes.slice();
        new DataView(bytes.buffer).setFloat32(4 * 5, NaN, true);
        return { ...t, bytes };
      }),
    );
    const model = await loadModel(files, { residentBytes: 0 }); // resident.test.js: the same, kept
    const baseline = model.heapBytesInUse();
    const error = await rejection(model.run({ ids: [1, 2] }));
    expect(model.heapBytesInUse()).toBe(baseline); // the failed layer's block is freed
    expect(error.code).toBe('NON_FINITE');
    expect(error.message).toMatch(/^h\.1\.mlp\.c_fc\.weight\.data\[5\] \(h\.1\.mlp\.c_fc\.weight\[0\]\[5\]\) is NaN/);
    const good = await loadModel(fixture.files);
    expect((await good.run({ ids: [1, 2] })).logits.shape).toEqual([2, 23]);
  });

  it('a disposed model: TERMINATED', async () => {
    const model = await loadModel(bertFixture().files);
    await model.dispose();
    expect((await rejection(model.run({ ids: [1] }))).code).toBe('TERMINATED');
  });
});
