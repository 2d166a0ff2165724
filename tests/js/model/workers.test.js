// loadModel({ workers }): the forward split over workers by heads and by the MLP's hidden units (shards.js). With one
// worker every result equals one thread's bit for bit (the same sums in the same order); with more, each layer's
// W_o and W_down products are sums of one partial sum per worker, so the hidden states and logits equal one thread's
// within float32 rounding, and the first layer's attention (before any such sum) bit for bit; so with captures,
// ablations, edits and patches (of activations and of weights), and generate(). A worker that dies fails its run
// with WORKER_FAILED and the next run works; dispose() ends the workers.
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/js/model/index.js';
import { injectFault } from '../../../src/js/pool.js';
import { bertFixture, gpt2Fixture, llamaFixture, source } from './fixtures.js';
import { disposedAfterEach } from './disposed-models.js';
import { distilbertFixture, longRopeFactors, neoxFixture, phi3Fixture, robertaFixture } from './fixtures-families.js';
import { gemmaFixture, olmo2Fixture } from './fixtures-gemma.js';

const CASES = [
  ['GPT-2 (fused q|k|v by blocks, Conv1D)', () => gpt2Fixture({ layers: 3, heads: 4 })],
  // d_ff 128: each of 1 or 2 workers keeps its MLP share as the core's packed panels (of 3, 43 units are no multiple)
  ['GPT-2, d_model 32: the MLP kept as packed panels', () => gpt2Fixture({ layers: 3, d: 32, heads: 4, seed: 3 })],
  ['LLaMA, GQA 4/2, RoPE', () => llamaFixture()],
  ['Qwen2: q/k/v biases, tied head, BF16', () => llamaFixture({ type: 'qwen2', seed: 6, dtype: 'BF16' })],
  ['Qwen3: q_norm and k_norm, head_dim 8', () => llamaFixture({ type: 'qwen3', headDim: 8, seed: 34 })],
  ['Mistral: a sliding window', () => llamaFixture({ type: 'mistral', slidingWindow: 3, seed: 8 })],
  ['GPT-NeoX (parallel, q|k|v by head, partial RoPE, F16)', () => neoxFixture()],
  ['BERT for masked LM (post-norm, token types, the MLM head)', () => bertFixture()],
  ['RoBERTa (positions past padding_idx; pads among the ids)', () => robertaFixture({ seed: 16 })],
  ['DistilBERT (post-norm, its own names)', () => distilbertFixture({ seed: 17 })],
  [
    'Phi-3: fused qkv_proj and gate_up_proj, GQA, LongRoPE past 4 tokens, a window',
    () => phi3Fixture({ kvHeads: 2, original: 4, ropeScaling: longRopeFactors(2), slidingWindow: 5, seed: 28 }),
  ],
  ['Gemma: x̂·(1 + w), GeGLU, embeddings × √d_model', () => gemmaFixture({ version: 1 })],
  ['Gemma 2: the sandwich, attention and final softcaps, windows', () => gemmaFixture({ seed: 16 })],
  ['Gemma 3: q/k norms by head, a second RoPE base for sliding layers', () => gemmaFixture({ version: 3, seed: 17 })],
  [
    "OLMo-2: q/k norms over each token's whole projection, a norm after each half only, GQA 4/2",
    () => olmo2Fixture({ kvHeads: 2 }),
  ],
];
const GENERATING = CASES.filter(([name]) => /^(Phi-3|Gemma 2|Gemma 3|OLMo-2)/.test(name));

const IDS = [3, 1, 4, 1, 5, 9, 2, 6];

/** Every float of a run's attentions, hidden states, logits and captures by name. */
function floats(r) {
  const out = {};
  r.attentions?.forEach((t, l) => t && (out[`attentions[${l}]`] = t.data));
  r.hiddenStates?.forEach((t, l) => t && (out[`hiddenStates[${l}]`] = t.data));
  if (r.logits) out.logits = r.logits.data;
  r.captures?.forEach((c, i) => {
    for (const [name, t] of Object.entries(c)) if (t?.data) out[`captures[${i}].${name}`] = t.data;
  });
  return out;
}

const bits = (r) => Object.fromEntries(Object.entries(floats(r)).map(([k, v]) => [k, Array.from(v)]));

/** Each value of `got` within float32 rounding of `want`'s: |a − b| ≤ 2⁻¹⁶·(1 + |b|) (sums of a few dozen terms). */
function expectClose(got, want) {
  const [a, b] = [floats(got), floats(want)];
  expect(Object.keys(a)).toEqual(Object.keys(b));
  for (const key of Object.keys(b)) {
    expect(a[key].length, key).toBe(b[key].length);
    let worst = 0;
    for (let i = 0; i < b[key].length; i++) {
      if (a[key][i] === b[key][i]) continue; // -Infinity (a masked score) included
      worst = Math.max(worst, Math.abs(a[key][i] - b[key][i]) / (1 + Math.abs(b[key][i])));
    }
    expect(worst, key).toBeLessThanOrEqual(2 ** -16);
  }
}

describe('loadModel({ workers })', () => {
  const load = disposedAfterEach();

  it.each(CASES)(
    '%s: one worker equals one thread bit for bit; two and three within float32 rounding',
    async (_, make) => {
      const fixture = make();
      const one = await load(fixture);
      const want = await one.run({ ids: IDS });
      const single = await load(fixture, { workers: 1 });
      expect(single.workers).toBe(1);
      const got = await single.run({ ids: IDS });
      expect(bits(got)).toEqual(bits(want));
      const capture = { capture: [{ layer: 1, head: 1 }], ablate: [[0, 0], { layer: 1, head: 0, mode: 'mean' }] };
      expect(bits(await single.run({ ids: IDS }, capture))).toEqual(bits(await one.run({ ids: IDS }, capture)));
      expect(got.next).toEqual(want.next);
      for (const count of [2, 3]) {
        const many = await load(fixture, { workers: count });
        expect(many.workers).toBe(count);
        const run = await many.run({ ids: IDS });
        expectClose(run, want);
        // the first layer's attention comes before any partial sum: the same bits
        expect(Array.from(run.attentions[0].data)).toEqual(Array.from(want.attentions[0].data));
        // runs again, with options the workers take: layers, logits rows, from a hidden state
        expectClose(await many.run({ ids: IDS }, { layers: 1 }), await one.run({ ids: IDS }, { layers: 1 }));
        const rows = { logits: [0, IDS.length - 1], attentions: false };
        expectClose(await many.run({ ids: IDS }, rows), await one.run({ ids: IDS }, rows));
        const from = { from: { layer: 1, hiddenState: want.hiddenStates[1] } };
        expectClose(await many.run({ ids: IDS }, from), await one.run({ ids: IDS }, from));
        // captures (every step of a head, its headResult) and zero ablations run on the workers too
        const capture = {
          capture: [
            { layer: 1, head: 0 },
            { layer: 0, head: 1 },
          ],
          ablate: [[0, 1]],
        };
        const captured = await many.run({ ids: IDS }, capture);
        expect(Object.keys(captured.captures[0]).length).toBeGreaterThan(15);
        expectClose(captured, await one.run({ ids: IDS }, capture));
        // the logit lens: the LM head on the workers' rows, each logit one dot product over d as on one thread
        const lens = async (m) => Array.from((await m.unembed(want.hiddenStates[1])).data);
        expect(await lens(many)).toEqual(await lens(one));
        // a mean ablation over the run itself: its heads' outputs first, then the layer with their means
        const mean = { ablate: [{ layer: 1, head: 1, mode: 'mean' }] };
        expectClose(await many.run({ ids: IDS }, mean), await one.run({ ids: IDS }, mean));
        // an edit of a weight: the workers' slices of the edited weight replace their kept ones for this run
        const weightEdit = { edits: [{ layer: 0, step: 'wo', row: 1, col: 2, value: 0.5 }] };
        expectClose(await many.run({ ids: IDS }, weightEdit), await one.run({ ids: IDS }, weightEdit));
        expectClose(await many.run({ ids: IDS }), want); // and the next run has the kept ones again
        await many.dispose();
      }
    },
  );

  /** A greedy generation's steps: ids, p and every attention row. */
  async function generation(model, options = {}) {
    const steps = [];
    const run = model.generate({ ids: [3, 1, 4] }, { maxNewTokens: 5, attentions: true, ...options });
    for await (const step of run) steps.push(step);
    return steps;
  }

  it.each(CASES.slice(0, 2))(
    '%s: generate() with the KV cache split with the heads: one worker bit for bit, two within float32 rounding',
    async (_, make) => {
      const fixture = make();
      const one = await load(fixture);
      const want = await generation(one);
      const single = await generation(await load(fixture, { workers: 1 }));
      expect(single.map((s) => [s.id, s.p])).toEqual(want.map((s) => [s.id, s.p]));
      single.forEach((s, i) =>
        s.attentions.forEach((a, l) => expect(Array.from(a.data)).toEqual(Array.from(want[i].attentions[l].data))),
      );
      const model = await load(fixture, { workers: 2 });
      const [before] = await model.workerMemory();
      const got = await generation(model);
      expect(got.map((s) => s.id)).toEqual(want.map((s) => s.id));
      got.forEach((s, i) => {
        expect(s.p).toBeCloseTo(want[i].p, 5);
        expectClose({ attentions: s.attentions }, { attentions: want[i].attentions });
      });
      // each worker's KV cache is given back when the generation ends
      expect((await model.workerMemory())[0].heapBytesInUse).toBe(before.heapBytesInUse);
      // an ablated head: each worker's slice of the head mask at every step
      const ablate = {
        ablate: [
          [0, 1],
          [1, 3],
        ],
      };
      const wanted = await generation(one, ablate);
      expect(wanted.map((s) => s.id)).not.toEqual(want.map((s) => s.id));
      const ablatedSingle = await generation(await load(fixture, { workers: 1 }), ablate);
      expect(ablatedSingle.map((s) => [s.id, s.p])).toEqual(wanted.map((s) => [s.id, s.p]));
      expect((await generation(model, ablate)).map((s) => s.id)).toEqual(wanted.map((s) => s.id));
      // a worker that dies during a generation fails it; the next one works
      await injectFault(model, 0, 'exit');
      expect((await generation(model).catch((e) => e)).code).toBe('WORKER_FAILED');
      expect((await generation(model)).map((s) => s.id)).toEqual(want.map((s) => s.id));
    },
  );

  it.each(GENERATING)('%s: generate() on the workers, as on one thread', async (_, make) => {
    const fixture = make();
    const want = await generation(await load(fixture), { maxNewTokens: 6 });
    const single = await generation(await load(fixture, { workers: 1 }), { maxNewTokens: 6 });
    expect(single.map((s) => [s.id, s.p])).toEqual(want.map((s) => [s.id, s.p]));
    single.forEach((s, i) =>
      s.attentions.forEach((a, l) => expect(Array.from(a.data)).toEqual(Array.from(want[i].attentions[l].data))),
    );
    const got = await generation(await load(fixture, { workers: 2 }), { maxNewTokens: 6 });
    expect(got.map((s) => s.id)).toEqual(want.map((s) => s.id));
    got.forEach((s, i) => expectClose({ attentions: s.attentions }, { attentions: want[i].attentions }));
  });

  /** An edit of every activation step of layer 1 (a head's steps: the last head's), and patches of three steps. */
  function editsAndPatches(spec) {
    const { numHeads: H, headDim: dK, dModel: d, dFf } = spec;
    const n = IDS.length;
    const heads = new Set(['q', 'k', 'v', 'qRotated', 'kRotated', 'rawScores', 'scaledScores', 'scores', 'weights']);
    heads.add('headOutput');
    const steps = ['x', ...heads, 'concat', 'output', 'residual', 'mlpInput', 'mlpHidden', 'mlpOutput', 'hidden'];
    const last = { concat: H * dK - 1, mlpHidden: dFf - 1 };
    const edits = steps
      .filter((step) => spec.rope || !step.endsWith('Rotated'))
      .map((step, i) => ({
        layer: 1,
        ...(heads.has(step) && { head: H - 1 }),
        step,
        row: 2 + (i % 3),
        col: last[step] ?? 1,
        value: 0.25 - i / 64,
      }));
    const value = (cols) => ({
      data: Float32Array.from({ length: n * cols }, (_, i) => Math.sin(i) / 3),
      shape: [n, cols],
    });
    const Hkv = spec.numKvHeads;
    // and of each weight of attention, [in, out]: q's, k's and v's last columns (their last heads'), o's last row
    edits.push({ layer: 0, step: 'wq', row: 1, col: H * dK - 1, value: 0.75 });
    edits.push({ layer: 0, step: 'wk', row: 2, col: Hkv * dK - 1, value: -0.5 });
    edits.push({ layer: 1, step: 'wv', row: 3, col: 0, value: 0.5 });
    edits.push({ layer: 1, step: 'wo', row: H * dK - 1, col: 2, value: 1.5 });
    const patches = [
      { layer: 0, step: 'input', rows: [1], value: value(d) },
      {
        layer: 1,
        step: 'wo',
        rows: [0],
        value: { data: new Float32Array(H * dK * d).fill(0.125), shape: [H * dK, d] },
      },
      { layer: 1, head: 0, step: 'headOutput', rows: [3], value: value(dK) },
      { layer: 0, step: 'mlpHidden', rows: [2, 5], value: value(dFf) },
    ];
    return { edits, patches };
  }

  it.each(CASES)(
    '%s: edits and patches of activations and weights, resample ablations on the workers',
    async (_, make) => {
      const fixture = make();
      const one = await load(fixture);
      const options = editsAndPatches(one.spec);
      const want = await one.run({ ids: IDS }, options);
      expect(bits(want)).not.toEqual(bits(await one.run({ ids: IDS })));
      const single = await load(fixture, { workers: 1, residentBytes: 0 });
      const before = single.bytesRead;
      expect(bits(await single.run({ ids: IDS }, options))).toEqual(bits(want));
      // on the workers: the calling thread reads the embeddings' rows and the edited weights, not the layers' MLP
      const reading = await load(fixture, { residentBytes: 0 });
      await reading.run({ ids: IDS }, options);
      expect(single.bytesRead - before).toBeLessThan(reading.bytesRead * 0.8);
      const many = await load(fixture, { workers: 3 });
      expectClose(await many.run({ ids: IDS }, options), want);
      const resample = { ablate: [{ layer: 1, head: 0, mode: 'resample', reference: { ids: IDS.toReversed() } }] };
      expect(bits(await single.run({ ids: IDS }, resample))).toEqual(bits(await one.run({ ids: IDS }, resample)));
      expectClose(await many.run({ ids: IDS }, resample), await one.run({ ids: IDS }, resample));
    },
  );

  it('each worker keeps its share of the weights and reports its memory; dispose() ends them', async () => {
    const fixture = gpt2Fixture({ layers: 3, heads: 4 });
    const one = await load(fixture, { residentBytes: 0 });
    const model = await load(fixture, { workers: 2 });
    const memory = await model.workerMemory();
    expect(memory).toHaveLength(2);
    for (const { memoryBytes, heapBytesInUse } of memory) {
      expect(memoryBytes).toBeGreaterThan(0);
      expect(heapBytesInUse).toBeGreaterThan(0);
    }
    expect(await one.workerMemory()).toEqual([]);
    const before = model.bytesRead;
    await model.run({ ids: IDS });
    // the layers' weights are the workers': a run reads only the embeddings' rows and the final norm and head
    const read = model.bytesRead - before;
    await one.run({ ids: IDS });
    expect(read).toBeLessThan(one.bytesRead / 3);
    const running = model.run({ ids: IDS }).catch((e) => e);
    await model.dispose();
    const stopped = await running;
    expect(stopped.code).toBe('TERMINATED');
    expect(stopped.message).toMatch(/model was disposed/);
    expect((await model.run({ ids: IDS }).catch((e) => e)).code).toBe('TERMINATED');
    expect((await model.workerMemory().catch((e) => e)).code).toBe('TERMINATED');
  });

  for (const fault of ['exit', 'reject']) {
    it(`a worker that dies mid-run (${fault}) fails the run with WORKER_FAILED; the next run starts a fresh one`, async () => {
      const fixture = llamaFixture();
      const want = await (await load(fixture)).run({ ids: IDS });
      const model = await load(fixture, { workers: 2 });
      await injectFault(model, 1, fault);
      const error = await model.run({ ids: IDS }).catch((e) => e);
      expect(error.code).toBe('WORKER_FAILED');
      expect(error.message).toMatch(/^worker 1 /);
      expectClose(await model.run({ ids: IDS }), want);
      expectClose(await model.run({ ids: IDS }), want);
    });
  }

  it('an error inside a worker fails that run only', async () => {
    const fixture = gpt2Fixture({ heads: 4 });
    const model = await load(fixture, { workers: 2 });
    const want = await model.run({ ids: IDS });
    await injectFault(model, 0, 'throw');
    expect((await model.run({ ids: IDS }).catch((e) => e)).message).toMatch(/fault injected/);
    expect(bits(await model.run({ ids: IDS }))).toEqual(bits(want));
  });

  it('bad values of workers are BAD_OPTION', async () => {
    for (const workers of [0, 1.5, -1, 65, 'many', null, true]) {
      const error = await loadModel(source(gpt2Fixture(), 'bytes'), { workers }).catch((e) => e);
      expect(error.code, String(workers)).toBe('BAD_OPTION');
      expect(error.message).toMatch(/workers must be an integer from 1 to 64 or 'auto'/);
    }
    const auto = await load(gpt2Fixture(), { workers: 'auto' });
    expect(auto.workers).toBeGreaterThanOrEqual(1);
    expect(auto.workers).toBeLessThanOrEqual(8);
  });

  it.skipIf(typeof window !== 'undefined')(
    'Node exits with a model whose workers are idle, and after dispose(), once its runs settle',
    async () => {
      const { execFile } = await import(/* @vite-ignore */ 'node:child_process');
      const { mkdtempSync, rmSync, writeFileSync } = await import(/* @vite-ignore */ 'node:fs');
      const { tmpdir } = await import(/* @vite-ignore */ 'node:os');
      const entry = new URL('../../../src/js/model/index.node.js', import.meta.url).href;
      const folder = mkdtempSync(`${tmpdir()}/attention-model-workers-`);
      const run = (body) => {
        // a file, not `node -e`: workers inherit the parent's execArgv
        writeFileSync(`${folder}/script.mjs`, `import { BUILTIN_MODEL, loadModel } from '${entry}';\n${body}`);
        return new Promise((resolve) =>
          execFile(process.execPath, [`${folder}/script.mjs`], { timeout: 60000 }, (error, stdout) =>
            resolve({ code: error ? (error.code ?? error.signal) : 0, stdout }),
          ),
        );
      };
      try {
        const load = `const model = await loadModel(BUILTIN_MODEL, { workers: 2 });`;
        const idle = await run(
          `${load}\nmodel.run({ ids: [1, 2, 3] }).then((r) => console.log('ran', r.logits.shape[0]));`,
        );
        expect(idle).toEqual({ code: 0, stdout: 'ran 3\n' });
        const disposed = await run(
          `${load}\nawait model.run({ ids: [1, 2] });\nawait model.dispose();\nconsole.log('done');`,
        );
        expect(disposed).toEqual({ code: 0, stdout: 'done\n' });
      } finally {
        rmSync(folder, { recursive: true, force: true });
      }
    },
  );
});
