// attentionTensorsOf tells the LLaMA-like families apart where their names can (q_norm and k_norm; Gemma 2 and 3's
// four norms a layer; OLMo-2's norms after each half without one before them), names the earlier family where they
// cannot (Gemma 1's names are LLaMA's), and takes config.json's family when given.
import { describe, expect, it } from 'vitest';
import { readSafetensors } from '../../../src/js/io/index.js';
import { attentionTensorsOf } from '../../../src/js/model/index.js';
import { llamaFixture } from './fixtures.js';
import { phi3Fixture } from './fixtures-families.js';
import { gemmaFixture, olmo2Fixture } from './fixtures-gemma.js';

const names = (fixture) => Object.keys(readSafetensors(fixture.files['model.safetensors']));

// [what, fixture, family from the names alone, from config.json]
const CASES = [
  ['LLaMA', () => llamaFixture(), 'llama', 'llama'],
  ['Mistral', () => llamaFixture({ type: 'mistral', slidingWindow: 4 }), 'llama', 'llama'],
  ['Qwen2 (biases)', () => llamaFixture({ type: 'qwen2' }), 'llama', 'llama'],
  ['Qwen3', () => llamaFixture({ type: 'qwen3', headDim: 8 }), 'qwen3', 'qwen3'],
  ['Gemma 1 (named as LLaMA)', () => gemmaFixture({ version: 1 }), 'llama', 'gemma'],
  ['Gemma 2', () => gemmaFixture({ version: 2 }), 'gemma2', 'gemma2'],
  ['Gemma 3', () => gemmaFixture({ version: 3 }), 'gemma3', 'gemma3'],
  ['OLMo-2', () => olmo2Fixture(), 'olmo2', 'olmo2'],
  ['Phi-3', () => phi3Fixture(), 'phi3', 'phi3'],
];

describe('attentionTensorsOf: the family', () => {
  it.each(CASES)('%s: from its names, and from config.json', (what, make, byNames, byConfig) => {
    const fixture = make();
    const all = names(fixture);
    const guessed = attentionTensorsOf(all, { layer: 1 });
    expect(guessed).toMatchObject({ family: byNames, by: 'names', prefix: 'model.', layer: 1 });
    // the same from the tensors themselves, in a Map or a record
    expect(attentionTensorsOf(readSafetensors(fixture.files['model.safetensors'])).family).toBe(byNames);
    for (const config of [fixture.config, fixture.files['config.json']]) {
      const told = attentionTensorsOf(all, { layer: 1, config });
      expect(told).toMatchObject({ family: byConfig, by: 'config', prefix: 'model.', layer: 1 });
      expect(told.sources).toEqual(guessed.sources); // the same tensors, cut the same way
    }
  });

  it('names of the attention alone cannot tell the norms apart: the first family that holds them all', () => {
    const gemma2 = names(gemmaFixture({ version: 2 }));
    const attentionOnly = gemma2.filter((n) => n.includes('.self_attn.'));
    expect(attentionTensorsOf(attentionOnly).family).toBe('llama'); // Gemma 2's norms are not self_attn's
    const olmo = names(olmo2Fixture()).filter((n) => n.includes('.self_attn.'));
    expect(attentionTensorsOf(olmo).family).toBe('qwen3'); // q_norm and k_norm, their shapes unread
    expect(attentionTensorsOf(olmo, { config: olmo2Fixture().config }).family).toBe('olmo2');
  });

  it('config.json of another family, or of none this package runs', () => {
    const llama = names(llamaFixture());
    expect(attentionTensorsOf(llama, { config: phi3Fixture().config })).toBeNull(); // no qkv_proj in the names
    expect(() => attentionTensorsOf(llama, { config: { model_type: 't5' } })).toThrow(
      expect.objectContaining({ code: 'UNSUPPORTED_MODEL', message: expect.stringContaining('t5') }),
    );
    expect(() => attentionTensorsOf(llama, { config: '{ not json' })).toThrow(
      expect.objectContaining({ code: 'BAD_CONFIG' }),
    );
    expect(() => attentionTensorsOf(llama, { config: 7 })).toThrow(
      expect.objectContaining({ code: 'BAD_OPTION', message: expect.stringContaining('config') }),
    );
  });
});
