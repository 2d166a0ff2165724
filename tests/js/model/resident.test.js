// Weights kept resident across runs (loadModel's residentBytes): a resident model's runs equal, bit for bit, those
// of a model that reads its weights at every run (residentBytes: 0), for GPT-2 (with d_model and d_ff multiples of 16
// its MLP's weights are kept packed into the core's panels: resident.js), LLaMA (GQA, RoPE) and BERT (token
// types, the MLM head's bias), with captures, ablations and `layers`; the second run reads nothing, a checkpoint
// changed after it is kept is not read again, generate() uses the same weights, dispose() frees them, and a model over
// the budget reads at every run.
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/js/model/index.js';
import { bertFixture, editSafetensors, gpt2Fixture, llamaFixture, source } from './fixtures.js';
import { distilbertFixture, neoxFixture, phi3Fixture, robertaFixture } from './fixtures-families.js';
import { gemmaFixture, olmo2Fixture } from './fixtures-gemma.js';

const isNode = typeof window === 'undefined';

const CASES = [
  ['GPT-2 (tied head)', () => gpt2Fixture({ layers: 3 })],
  ['GPT-2, d_model 32: its MLP kept as the core’s packed panels', () => gpt2Fixture({ layers: 3, d: 32, seed: 3 })],
  ['LLaMA, GQA 4/2, RoPE', () => llamaFixture()],
  ['Qwen2: q/k/v biases, tied head, BF16', () => llamaFixture({ type: 'qwen2', seed: 6, dtype: 'BF16' })],
  ['BERT for masked LM', () => bertFixture()],
  ['Qwen3: q_norm and k_norm, head_dim 8', () => llamaFixture({ type: 'qwen3', headDim: 8, seed: 34 })],
  ['GPT-NeoX (parallel, q|k|v by head, F16)', () => neoxFixture()],
  ['RoBERTa (positions past padding_idx, pads among the ids)', () => robertaFixture({ dtype: 'F16' })],
  ['DistilBERT (vocab_projector tied to the word embeddings)', () => distilbertFixture()],
  ['Phi-3 (gate_up_proj kept as its two halves, GQA)', () => phi3Fixture({ kvHeads: 2 })],
  ['Gemma 2 (sandwich: four norms a layer, softcaps)', () => gemmaFixture({ seed: 35 })],
  ['Gemma 3 (q/k norms, two RoPE bases, BF16)', () => gemmaFixture({ version: 3, dtype: 'BF16', seed: 36 })],
  ['OLMo-2 (post-branch norms)', () => olmo2Fixture({ seed: 37 })],
];

/** Every float of a result, as one array per tensor, for a bitwise comparison. */
function floats(r) {
  const out = {};
  r.attentions?.forEach((t, l) => (out[`attentions[${l}]`] = Array.from(t.data)));
  r.hiddenStates?.forEach((t, l) => (out[`hiddenStates[${l}]`] = Array.from(t.data)));
  if (r.logits) out.logits = Array.from(r.logits.data);
  r.captures?.forEach((c, i) => {
    for (const [name, t] of Object.entries(c)) if (t?.data) out[`captures[${i}].${name}`] = Array.from(t.data);
  });
  out.next = r.next;
  return out;
}

describe('weights resident across runs', () => {
  it.each(CASES)(
    '%s: every run equals the reading model bit for bit; the second reads nothing',
    async (_, make) => {
      const fixture = make();
      const reading = await loadModel(source(fixture, 'bytes'), { residentBytes: 0 });
      const resident = await loadModel(source(fixture, 'bytes'));
      expect(reading.resident).toBe(false);
      expect(resident.resident).toBe(true);
      const ids = [3, 1, 4, 1, 5, 9, 2];
      const tokenTypeIds = fixture.config.model_type === 'bert' ? [0, 0, 0, 1, 1, 1, 1] : undefined;
      const runs = [
        { layers: 1 }, // the first run keeps layer 0 only; the next ones keep the rest
        {},
        { capture: [{ layer: 1, head: 1 }] },
        { ablate: [[0, 1]], topK: 3 },
        { layers: 2, capture: [{ layer: 0, head: 0 }] },
        {},
      ];
      const reads = [];
      for (const options of runs) {
        const before = resident.bytesRead;
        const got = await resident.run({ ids }, { ...options, tokenTypeIds });
        reads.push(resident.bytesRead - before);
        const want = await reading.run({ ids }, { ...options, tokenTypeIds });
        expect(floats(got)).toEqual(floats(want));
      }
      expect(reads[0]).toBeGreaterThan(0);
      expect(reads[1]).toBeGreaterThan(0); // the layers after the first, the final norm and the head
      expect(reads.slice(2)).toEqual([0, 0, 0, 0]);
      // Other tokens and other positions: still nothing read.
      const before = resident.bytesRead;
      const other = await resident.run({ ids: [7, 7, 0] });
      expect(resident.bytesRead).toBe(before);
      expect(floats(other)).toEqual(floats(await reading.run({ ids: [7, 7, 0] })));
    },
    120_000,
  );

  it('progress: each run’s total is what it reads, and a resident run’s total adds nothing', async () => {
    const events = [];
    const model = await loadModel(source(gpt2Fixture(), 'bytes'), { onProgress: (e) => events.push(e) });
    for (let i = 0; i < 2; i++) {
      events.length = 0;
      const start = model.bytesRead;
      await model.run({ ids: [1, 2, 3] });
      const done = events.at(-1);
      expect(done.phase).toBe('done');
      expect(done.loaded).toBe(model.bytesRead);
      expect(done.total).toBe(model.bytesRead);
      expect(events.every((e) => e.total === done.total && e.loaded >= start && e.loaded <= e.total)).toBe(true);
      if (i === 1) expect(done.total).toBe(start);
    }
  }, 60_000);

  it('generate() uses the resident weights: after a run it reads nothing, and its tokens are the same', async () => {
    const fixture = llamaFixture();
    const resident = await loadModel(source(fixture, 'bytes'));
    const reading = await loadModel(source(fixture, 'bytes'), { residentBytes: 0 });
    await resident.run({ ids: [1, 2] });
    const steps = async (model) => {
      const out = [];
      for await (const step of model.generate({ ids: [3, 1, 4] }, { maxNewTokens: 4 })) out.push([step.id, step.p]);
      return out;
    };
    const before = resident.bytesRead;
    const baseline = resident.heapBytesInUse();
    const got = await steps(resident);
    expect(resident.bytesRead).toBe(before);
    expect(resident.heapBytesInUse()).toBe(baseline); // its KV cache freed, the model's weights kept
    const want = await steps(reading);
    expect(got.map(([id]) => id)).toEqual(want.map(([id]) => id));
    got.forEach(([, p], i) => expect(p).toBeCloseTo(want[i][1], 5));
  }, 60_000);

  it('generate() on GPT-2 with its MLP kept as packed panels: every step as the reading model’s, bit for bit', async () => {
    const fixture = gpt2Fixture({ d: 32, seed: 4 });
    const resident = await loadModel(source(fixture, 'bytes'));
    const reading = await loadModel(source(fixture, 'bytes'), { residentBytes: 0 });
    const steps = async (model) => {
      const out = [];
      const options = { maxNewTokens: 5, attentions: true };
      for await (const step of model.generate({ ids: [3, 1, 4] }, options)) out.push(step);
      return out;
    };
    await resident.run({ ids: [1, 2] }); // keeps every weight
    expect(await steps(resident)).toEqual(await steps(reading));
  }, 60_000);

  it('a model over the budget reads at every run, and its heap returns to its baseline', async () => {
    const fixture = gpt2Fixture();
    const model = await loadModel(source(fixture, 'bytes'), { residentBytes: 1000 });
    expect(model.resident).toBe(false);
    const baseline = model.heapBytesInUse();
    const first = model.bytesRead;
    await model.run({ ids: [1, 2, 3] });
    const once = model.bytesRead - first;
    await model.run({ ids: [1, 2, 3] });
    expect(model.bytesRead - first).toBe(2 * once);
    expect(model.heapBytesInUse()).toBe(baseline);
  }, 60_000);

  it('the resident weights are part of the heap’s baseline until dispose() frees them', async () => {
    const fixture = gpt2Fixture({ d: 64, heads: 4, vocab: 200, positions: 32 });
    const resident = await loadModel(source(fixture, 'bytes'));
    const other = await loadModel(source(fixture, 'bytes'), { residentBytes: 0 }); // the same module's heap
    const empty = other.heapBytesInUse();
    await resident.run({ ids: [1, 2, 3] });
    const held = resident.heapBytesInUse();
    const weights = 200 * 64 * 4 + 2 * (4 * 64 * 64 + 4 * 64 + 4 * 64 * 64); // wte, most of two layers, at least
    expect(held - empty).toBeGreaterThan(weights);
    await resident.run({ ids: [4, 5] });
    expect(resident.heapBytesInUse()).toBe(held);
    await resident.dispose();
    expect(other.heapBytesInUse()).toBe(empty);
    await expect(resident.run({ ids: [1] })).rejects.toMatchObject({ code: 'TERMINATED' });
  }, 60_000);

  it('a weight holding NaN: NON_FINITE naming it; the failed layer keeps nothing, the layers before it stay', async () => {
    const fixture = gpt2Fixture();
    const files = {
      ...fixture.files,
      'model.safetensors': editSafetensors(fixture.files['model.safetensors'], (tensors) =>
        tensors.map((t) => {
          if (t.name !== 'h.1.mlp.c_fc.weight') return t;
          const bytes = t.bytes.slice();
          new DataView(bytes.buffer).setFloat32(4 * 5, NaN, true);
          return { ...t, bytes };
        }),
      ),
    };
    const model = await loadModel(files);
    const errors = [];
    const heap = [];
    for (let i = 0; i < 2; i++) {
      errors.push(await model.run({ ids: [1, 2] }).catch((error) => error));
      heap.push(model.heapBytesInUse());
    }
    for (const error of errors) {
      expect(error.code).toBe('NON_FINITE');
      expect(error.message).toMatch(/^h\.1\.mlp\.c_fc\.weight\.data\[5\] \(h\.1\.mlp\.c_fc\.weight\[0\]\[5\]\) is NaN/);
    }
    expect(heap[1]).toBe(heap[0]); // the second attempt kept nothing more
    const layer0 = await model.run({ ids: [1, 2] }, { layers: 1 }); // what was kept still serves
    const good = await loadModel(fixture.files, { residentBytes: 0 });
    expect(floats(layer0)).toEqual(floats(await good.run({ ids: [1, 2] }, { layers: 1 })));
  });

  it('residentBytes must be a number ≥ 0', async () => {
    for (const bad of [-1, '1', Number.NaN, null]) {
      await expect(loadModel(source(gpt2Fixture(), 'bytes'), { residentBytes: bad })).rejects.toMatchObject({
        code: 'BAD_OPTION',
        message: expect.stringMatching(/residentBytes/),
      });
    }
  });
});

describe.runIf(isNode)('a checkpoint changed on disk', () => {
  it('is not read again by a resident model (a reading model says that it changed)', async () => {
    const { mkdtemp, writeFile, rm } = await import('node:fs/promises');
    const { join } = await import('node:path');
    const { tmpdir } = await import('node:os');
    const { loadModel: loadFolder } = await import('../../../src/js/model/index.node.js');
    const folder = await mkdtemp(join(tmpdir(), 'resident-'));
    try {
      const fixture = gpt2Fixture({ seed: 2 });
      const changed = gpt2Fixture({ seed: 3 }); // the same names, shapes and sizes, other values
      const write = (files) =>
        Promise.all(Object.entries(files).map(([name, content]) => writeFile(join(folder, name), content)));
      await write(fixture.files);
      const resident = await loadFolder(folder);
      const reading = await loadFolder(folder, { residentBytes: 0 });
      const ids = [1, 2, 3];
      const first = floats(await resident.run({ ids }));
      expect(floats(await reading.run({ ids }))).toEqual(first);
      await write(changed.files);
      const read = resident.bytesRead;
      expect(floats(await resident.run({ ids }))).toEqual(first);
      expect(resident.bytesRead).toBe(read);
      await expect(reading.run({ ids })).rejects.toMatchObject({
        code: 'BAD_FILE',
        message: expect.stringMatching(/changed on disk since the model was loaded/),
      });
    } finally {
      await rm(folder, { recursive: true, force: true });
    }
  }, 60_000);
});
