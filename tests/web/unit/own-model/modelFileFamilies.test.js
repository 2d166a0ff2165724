// The page's "Use your own model" reader and attention-wasm/model's attentionWeightsFrom agree on each family: the
// page's mapping (guessMapping, from the names and shapes only) cut out of a checkpoint's tensors (extract) gives
// the weights attentionWeightsFrom reads with the checkpoint's config.json, for every layer.
import { describe, expect, it } from 'vitest';
import { readSafetensors } from '../../../../src/js/io/index.js';
import { attentionWeightsFrom } from '../../../../src/js/model/index.js';
import { checkMapping, extract, familyWeights, guessMapping } from '../../../../web/src/own-model/modelFile.js';
import { bertFixture, gpt2Fixture, llamaFixture } from '../../../js/model/fixtures.js';
import { distilbertFixture, neoxFixture, phi3Fixture, robertaFixture } from '../../../js/model/fixtures-families.js';
import { gemmaFixture, olmo2Fixture } from '../../../js/model/fixtures-gemma.js';

const FIXTURES = [
  ['gpt2', () => gpt2Fixture({ layers: 2, prefix: 'transformer.' })],
  ['bert', () => bertFixture()],
  ['llama', () => llamaFixture()],
  ['qwen3', () => llamaFixture({ type: 'qwen3', headDim: 8 })], // LLaMA's names and q_norm, k_norm
  ['gemma2', () => gemmaFixture({ version: 2 })], // four norms a layer
  ['gemma3', () => gemmaFixture({ version: 3 })], // … and q_norm, k_norm
  ['olmo2', () => olmo2Fixture()], // no norm before attention, q_norm and k_norm
  ['gpt_neox', () => neoxFixture({ dtype: 'F32' })], // query_key_value by head: [q_h | k_h | v_h]
  ['phi3', () => phi3Fixture({ dtype: 'F32' })], // qkv_proj by rows: [q | k | v]
  ['phi3', () => phi3Fixture({ dtype: 'F32', d: 32, kvHeads: 2 })], // … with fewer key/value heads
  ['roberta', () => robertaFixture()],
  ['distilbert', () => distilbertFixture()],
];

/** [rows, cols] as the page's number[][] (or a vector as number[]). */
const asPage = ({ data, shape }) =>
  shape.length === 1
    ? Array.from(data)
    : Array.from({ length: shape[0] }, (_, r) => Array.from(data.subarray(r * shape[1], (r + 1) * shape[1])));

describe("the page's reader and attentionWeightsFrom", () => {
  it.each(FIXTURES)('%s: the same weights for every layer', async (family, make) => {
    const fixture = make();
    // every tensor but the scalar buffers GPT-NeoX's files carry (attention.masked_bias), which nothing reads
    const names = Object.keys(fixture.values).filter((name) => fixture.values[name].shape.length);
    const tensors = readSafetensors(fixture.files['model.safetensors'], { names });
    const infos = Object.entries(tensors).map(([name, t]) => ({ name, shape: t.shape }));
    const layers = fixture.config.n_layer ?? fixture.config.num_hidden_layers;
    for (let layer = 0; layer < layers; layer++) {
      const guess = guessMapping(infos, { layer, config: fixture.config });
      expect(guess.layout).toBe(family);
      expect(guess.layers).toHaveLength(layers);
      const theirs = attentionWeightsFrom(tensors, { layer, config: fixture.config });
      const slots = ['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo'].filter((s) => s in theirs);
      expect(
        Object.keys(guess.slots)
          .filter((s) => s !== 'x' && s !== 'attentions')
          .sort(),
      ).toEqual(slots.sort());
      for (const slot of slots)
        expect(
          extract(tensors[guess.slots[slot].name], guess.slots[slot], theirs),
          `${family} layer ${layer} ${slot}`,
        ).toEqual(asPage(theirs[slot]));
      expect(guess.numKvHeads ?? guess.numHeads).toBe(theirs.numKvHeads);
      const shapeOf = (name) => tensors[name]?.shape;
      const x = { name: 'x' };
      const withX = { ...guess.slots, x };
      const errors = checkMapping(withX, (n) => (n === 'x' ? [3, theirs.wq.shape[0]] : shapeOf(n)), theirs);
      expect(errors).toEqual([]);
      // What the page loads: attentionWeightsFrom on the tensors the mapping names, without config.json.
      const read = async (name) => tensors[name];
      const loaded = await familyWeights(guess, read, { numHeads: theirs.numHeads, numKvHeads: guess.numKvHeads });
      expect(loaded).toEqual(Object.fromEntries(slots.map((slot) => [slot, asPage(theirs[slot])])));
    }
    expect(await familyWeights({ layout: 'mha', slots: {} }, null, { numHeads: 1 })).toBeNull();
  });
});
