// run's `from` (a start at a layer's input, hiddenStates[layer] of an earlier run), `logits` of some rows, and
// model.attentionWeights(layer): what a page needs to redo only what an ablation, an edit or a head opened changes.
// A run from layer L's input computes layers L and after exactly as a whole run does: the same calls on the same
// numbers, so the same bits (toEqual on the arrays, no tolerance).
import { describe, expect, it } from 'vitest';
import { readSafetensors } from '../../../src/js/io/index.js';
import { attentionWeightsFrom, loadModel } from '../../../src/js/model/index.js';
import { bertFixture, gpt2Fixture, llamaFixture } from './fixtures.js';
import { distilbertFixture, longRopeFactors, neoxFixture, phi3Fixture, robertaFixture } from './fixtures-families.js';
import { gemmaFixture, olmo2Fixture } from './fixtures-gemma.js';

const FAMILIES = [
  ['GPT-2', () => gpt2Fixture({ layers: 3, seed: 21 }), { layer: 2, head: 1, step: 'q' }],
  ['LLaMA (GQA 4/2, RoPE)', () => llamaFixture({ layers: 3, seed: 22 }), { layer: 1, head: 3, step: 'kRotated' }],
  ['BERT', () => bertFixture({ layers: 3, seed: 23 }), { layer: 1, head: 0, step: 'scores' }],
  ['Qwen3', () => llamaFixture({ type: 'qwen3', layers: 3, seed: 25 }), { layer: 2, head: 1, step: 'k' }],
  ['GPT-NeoX (parallel, q|k|v by head)', () => neoxFixture({ layers: 3, seed: 24 }), { layer: 1, head: 2, step: 'v' }],
  ['RoBERTa', () => robertaFixture({ layers: 3, seed: 26 }), { layer: 1, head: 3, step: 'weights' }],
  ['DistilBERT', () => distilbertFixture({ layers: 3, seed: 27 }), { layer: 2, head: 0, step: 'q' }],
  [
    'Phi-3 (fused qkv and gate_up, longrope past original)',
    () => phi3Fixture({ layers: 3, kvHeads: 2, original: 4, ropeScaling: longRopeFactors(2), seed: 28 }),
    { layer: 1, head: 3, step: 'qRotated' },
  ],
  ['Gemma 2', () => gemmaFixture({ layers: 3, seed: 26 }), { layer: 1, head: 2, step: 'scores' }],
  ['Gemma 3', () => gemmaFixture({ version: 3, seed: 27 }), { layer: 2, head: 0, step: 'q' }],
  ['OLMo-2', () => olmo2Fixture({ layers: 3, seed: 28 }), { layer: 1, head: 3, step: 'k' }],
];
const ids = [3, 1, 4, 1, 5, 9];
const bits = (tensor) => Array.from(tensor.data);

describe.each(FAMILIES)('run({ from }) on %s', (_, make, edited) => {
  for (const resident of [true, false]) {
    it(`gives the layers from L as a whole run does, bit for bit (${resident ? 'resident' : 'read at every run'})`, async () => {
      const model = await loadModel(make().files, { residentBytes: resident ? undefined : 0 });
      const edit = { ...edited, row: ids.length - 1, col: 0, value: 0.75 };
      const options = { ablate: [[2, 1]], edits: [edit], capture: [{ layer: 2, head: 0 }] };
      const whole = await model.run({ ids }, options);
      for (let layer = 0; layer <= edited.layer; layer++) {
        const from = { layer, hiddenState: whole.hiddenStates[layer] };
        const part = await model.run({ ids }, { ...options, from });
        expect(part.attentions).toHaveLength(3);
        expect(part.hiddenStates).toHaveLength(4);
        for (let l = 0; l < 3; l++) {
          if (l < layer) {
            expect(part.attentions[l]).toBeNull();
            expect(part.hiddenStates[l]).toBeNull();
          } else expect(bits(part.attentions[l])).toEqual(bits(whole.attentions[l]));
        }
        for (let l = layer; l <= 3; l++) expect(bits(part.hiddenStates[l])).toEqual(bits(whole.hiddenStates[l]));
        for (const key of ['q', 'weights', 'headOutput', 'hidden', 'mlpHidden'])
          expect(bits(part.captures[0][key])).toEqual(bits(whole.captures[0][key]));
        if (whole.logits) expect(bits(part.logits)).toEqual(bits(whole.logits));
        expect(part.next).toEqual(whole.next);
      }
    });
  }

  it('runs only the layers from L to `layers` (a head opened: its own layer), reading no other', async () => {
    const model = await loadModel(make().files, { residentBytes: 0 });
    const whole = await model.run({ ids }, { capture: [{ layer: 1, head: 1 }] });
    const firstTwo = await loadModel(make().files, { residentBytes: 0 });
    await firstTwo.run({ ids }, { layers: 2 });
    const events = [];
    const layerOne = await loadModel(make().files, { residentBytes: 0, onProgress: (e) => events.push(e) });
    const part = await layerOne.run(
      { ids },
      { from: { layer: 1, hiddenState: whole.hiddenStates[1] }, layers: 2, capture: [{ layer: 1, head: 1 }] },
    );
    expect(events.filter((e) => e.phase === 'layer').map((e) => e.layer)).toEqual([1]);
    expect(events.some((e) => e.phase === 'embeddings')).toBe(false);
    const done = events.filter((e) => e.phase === 'done').at(-1);
    expect(done.total).toBe(done.loaded); // the bytes it said it would read
    expect(layerOne.bytesRead).toBeGreaterThan(0);
    expect(layerOne.bytesRead).toBeLessThan(firstTwo.bytesRead / 1.5); // layer 1 alone: no embeddings, no layer 0
    expect(bits(part.captures[0].weights)).toEqual(bits(whole.captures[0].weights));
    expect(bits(part.captures[0].hidden)).toEqual(bits(whole.captures[0].hidden));
  });
});

describe('run({ from }) errors', () => {
  it('names the shapes of a wrong hidden state, and a layer out of range or skipped', async () => {
    const model = await loadModel(gpt2Fixture({ layers: 3 }).files);
    const whole = await model.run({ ids });
    const h = whole.hiddenStates[1];
    const run = (options) => model.run({ ids }, options);
    await expect(run({ from: { layer: 1, hiddenState: whole.hiddenStates[1].data } })).rejects.toMatchObject({
      code: 'BAD_RANK',
    });
    const short = { data: h.data.subarray(0, 5 * 8), shape: [5, 8] };
    await expect(run({ from: { layer: 1, hiddenState: short } })).rejects.toMatchObject({
      code: 'SHAPE_MISMATCH',
      message: expect.stringMatching(/\[5, 8\].*\[6, 8\]/),
    });
    for (const layer of [-1, 3, 1.5, '1']) {
      await expect(run({ from: { layer, hiddenState: h } })).rejects.toMatchObject({
        code: 'BAD_OPTION',
        message: expect.stringContaining('from.layer'),
      });
    }
    await expect(run({ from: { layer: 2, hiddenState: h }, layers: 2 })).rejects.toMatchObject({ code: 'BAD_OPTION' });
    await expect(run({ from: { layer: 2, hiddenState: h }, ablate: [[1, 0]] })).rejects.toMatchObject({
      code: 'BAD_OPTION',
      message: expect.stringContaining('layer 1'),
    });
    const edit = { layer: 0, step: 'x', row: 0, col: 0, value: 1 };
    await expect(run({ from: { layer: 1, hiddenState: h }, edits: [edit] })).rejects.toMatchObject({
      code: 'BAD_OPTION',
    });
    await expect(run({ from: { layer: 1 } })).rejects.toMatchObject({ code: 'NOT_A_TENSOR' });
    await expect(run({ from: { layer: 1, hiddenState: h, extra: 1 } })).rejects.toMatchObject({
      code: 'UNKNOWN_OPTION',
    });
    const nan = { data: h.data.slice(), shape: h.shape };
    nan.data[3] = NaN;
    await expect(run({ from: { layer: 1, hiddenState: nan } })).rejects.toMatchObject({ code: 'NON_FINITE' });
  });
});

describe("run({ logits: rows | 'last' })", () => {
  it('gives those rows of the whole logits, bit for bit, and next from the last of them', async () => {
    const model = await loadModel(gpt2Fixture({ layers: 2 }).files);
    const whole = await model.run({ ids }, { topK: 4 });
    const V = model.spec.vocabSize;
    const last = await model.run({ ids }, { logits: 'last', topK: 4 });
    expect(last.logits.shape).toEqual([1, V]);
    expect(bits(last.logits)).toEqual(Array.from(whole.logits.data.subarray((ids.length - 1) * V)));
    expect(last.next).toEqual(whole.next);
    const some = await model.run({ ids }, { logits: [4, 0] });
    expect(some.logits.shape).toEqual([2, V]);
    expect(bits(some.logits)).toEqual([
      ...whole.logits.data.subarray(4 * V, 5 * V),
      ...whole.logits.data.subarray(0, V),
    ]);
    for (const logits of [[6], [], ['1'], 'first', 1])
      await expect(model.run({ ids }, { logits })).rejects.toMatchObject({ code: 'BAD_OPTION' });
  });
});

describe('model.attentionWeights(layer)', () => {
  for (const [name, make] of [
    ['GPT-2', () => gpt2Fixture({ layers: 2, prefix: 'transformer.' })],
    ['LLaMA (GQA)', () => llamaFixture({ layers: 2 })],
    ['BERT', () => bertFixture({ layers: 2 })],
    ['Phi-3 (qkv_proj by rows, GQA)', () => phi3Fixture({ layers: 2, kvHeads: 2 })],
  ]) {
    it(`equals attentionWeightsFrom of its checkpoint, resident or not (${name})`, async () => {
      const fixture = make();
      const tensors = readSafetensors(fixture.files['model.safetensors']);
      for (const residentBytes of [undefined, 0]) {
        const model = await loadModel(fixture.files, { residentBytes });
        await model.run({ ids: [1, 2] }); // a resident model keeps its layers from here
        const before = model.bytesRead;
        for (let layer = 0; layer < 2; layer++) {
          const got = await model.attentionWeights(layer);
          const want = attentionWeightsFrom(tensors, { layer, config: fixture.config });
          expect(Object.keys(got).sort()).toEqual(Object.keys(want).sort());
          for (const key of ['wq', 'wk', 'wv', 'wo', 'bq', 'bo']) {
            if (!want[key]) continue;
            expect(got[key].shape).toEqual(want[key].shape);
            expect(bits(got[key])).toEqual(bits(want[key]));
          }
          expect(got.numKvHeads).toBe(want.numKvHeads);
        }
        if (model.resident)
          expect(model.bytesRead).toBe(before); // nothing read again
        else expect(model.bytesRead).toBeGreaterThan(before);
      }
    });
  }

  it("is the caller's own copy: writing into it changes neither the model nor the next call (GPT-2, resident)", async () => {
    const model = await loadModel(gpt2Fixture({ layers: 2, prefix: 'transformer.' }).files);
    const first = await model.run({ ids: [1, 2, 3] });
    expect(model.resident).not.toBeNull();
    const got = await model.attentionWeights(1);
    const kept = Object.fromEntries(['wq', 'wk', 'wv', 'wo', 'bq', 'bo'].map((k) => [k, bits(got[k])]));
    for (const key of Object.keys(kept)) got[key].data.fill(1e3);
    const again = await model.run({ ids: [1, 2, 3] });
    expect(bits(again.logits)).toEqual(bits(first.logits));
    const next = await model.attentionWeights(1);
    for (const [key, value] of Object.entries(kept)) expect(bits(next[key])).toEqual(value);
  });

  it('rejects a layer outside the model', async () => {
    const model = await loadModel(gpt2Fixture({ layers: 2 }).files);
    for (const layer of [-1, 2, 0.5, '0'])
      await expect(model.attentionWeights(layer)).rejects.toMatchObject({ code: 'BAD_OPTION' });
  });
});
