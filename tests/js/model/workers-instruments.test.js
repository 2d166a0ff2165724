// The instruments on loadModel({ workers }) (shards.js, shard-layer.js): attribute, headScores and patchSweep run
// their layers on the workers as run does: their forwards' outputs (each head's output, the MLP's output, the keys
// and values) gathered from the workers' parts, and the cells of headScores and patchSweep (batches of rows in one
// layer call, each worker's heads over its slice of the base run's keys and values) posted to them. With one worker
// every number equals one thread's bit for bit; with two, within float32 rounding. A worker that dies mid-sweep fails
// that sweep with WORKER_FAILED, and the next one works.
import { describe, expect, it } from 'vitest';
import { injectFault } from '../../../src/js/pool.js';
import { gpt2Fixture, llamaFixture } from './fixtures.js';
import { disposedAfterEach } from './disposed-models.js';
import { gemmaFixture, olmo2Fixture } from './fixtures-gemma.js';

const CASES = [
  ['GPT-2 (fused q|k|v by blocks, Conv1D)', () => gpt2Fixture({ layers: 3, heads: 4 })],
  ['LLaMA, GQA 4/2, RoPE', () => llamaFixture()],
  ['Qwen2: q/k/v biases, tied head, BF16', () => llamaFixture({ type: 'qwen2', seed: 6, dtype: 'BF16' })],
  ["OLMo-2: q/k norms over the whole projection (the cells' too), a norm after each half", () => olmo2Fixture()],
];

const IDS = [3, 1, 4, 1, 5, 9, 2, 6];
const CORRUPTED = [3, 1, 7, 1, 5, 8, 2, 6]; // differs at tokens 2 and 5
const SEQUENCES = [
  [3, 1, 4, 1, 5, 3, 1, 4, 1, 5],
  [2, 7, 1, 8, 2, 8, 1, 8],
];

/** Every number of an instrument's result, by name: Tensors' and typed arrays' values, and plain numbers. */
function numbers(result, prefix = '') {
  if (typeof result === 'number') return { [prefix]: [result] };
  if (result?.data) return { [prefix]: Array.from(result.data) };
  if (ArrayBuffer.isView(result)) return { [prefix]: Array.from(result) };
  return Object.assign({}, ...Object.entries(result).map(([key, value]) => numbers(value, `${prefix}.${key}`)));
}

/** Each number of `got` within `tolerance`·(1 + |want|) of `want`'s (NaN where want has NaN). */
function expectClose(got, want, tolerance) {
  const [a, b] = [numbers(got), numbers(want)];
  expect(Object.keys(a)).toEqual(Object.keys(b));
  for (const key of Object.keys(b)) {
    expect(a[key].length, key).toBe(b[key].length);
    b[key].forEach((v, i) => {
      if (Number.isNaN(v)) expect(a[key][i], key).toBeNaN();
      else expect(Math.abs(a[key][i] - v), `${key}[${i}]`).toBeLessThanOrEqual(tolerance * (1 + Math.abs(v)));
    });
  }
}

/** Each instrument's result on `model`: attribute, headScores of every kind, patchSweep of every step. */
async function instruments(model) {
  const out = {
    attribute: await model.attribute({ ids: IDS }, { target: [2, 5], position: 6 }),
    ablated: await model.attribute({ ids: IDS }, { target: [4], ablate: [{ layer: 1, head: 1, mode: 'mean' }] }),
  };
  for (const kind of ['previousToken', 'duplicateToken', 'induction']) {
    out[kind] = await model.headScores(kind, { ids: SEQUENCES, excludeBos: true });
  }
  for (const step of ['input', 'output', 'mlpOutput', 'headOutput']) {
    const sweep = { clean: { ids: IDS }, corrupted: { ids: CORRUPTED }, target: [IDS[7], 4], step };
    out[step] = await model.patchSweep(sweep);
  }
  // target 'top': the pair from the runs' logits at the position (the LM head on the calling thread)
  out.top = await model.patchSweep({
    clean: { ids: IDS },
    corrupted: { ids: CORRUPTED },
    target: 'top',
    step: 'input',
  });
  return out;
}

describe('the instruments on loadModel({ workers })', () => {
  const load = disposedAfterEach();

  it.each(CASES)('%s: one worker equals one thread bit for bit; two within float32 rounding', async (_, make) => {
    const fixture = make();
    const want = await instruments(await load(fixture));
    // the sweeps patch something: their scores are not all 0 (the cells ran)
    expect(numbers(want.input)['.scores'].some((v) => v !== 0 && !Number.isNaN(v))).toBe(true);
    expect(numbers(want.headOutput)['.scores'].some((v) => v !== 0 && !Number.isNaN(v))).toBe(true);
    expect(numbers(await instruments(await load(fixture, { workers: 1 })))).toEqual(numbers(want));
    const two = await instruments(await load(fixture, { workers: 2 }));
    expectClose(two, want, 2 ** -12);
  });

  it("the layers' weights are the workers': headScores and patchSweep read none of them on the calling thread, attribute W_O only", async () => {
    const fixture = gpt2Fixture({ layers: 3, heads: 4 });
    const one = await load(fixture, { residentBytes: 0 });
    const model = await load(fixture, { workers: 2, residentBytes: 0 });
    const sweep = { clean: { ids: IDS }, corrupted: { ids: CORRUPTED }, target: [IDS[7], 4], step: 'input' };
    const works = [
      (m) => m.headScores('induction', { ids: SEQUENCES }),
      (m) => m.patchSweep(sweep),
      (m) => m.attribute({ ids: IDS }, { target: [2] }), // W_O only, for each head's result
    ];
    for (const work of works) {
      const [before, beforeOne] = [model.bytesRead, one.bytesRead];
      await work(model);
      await work(one);
      expect(model.bytesRead - before).toBeLessThan((one.bytesRead - beforeOne) / 3);
    }
  });

  it("attribute of Gemma 2's sandwich: the norm after attention kept by the workers' side, as one thread's", async () => {
    const fixture = gemmaFixture({ seed: 16 });
    const attribute = (model) => model.attribute({ ids: IDS }, { target: [2, 5], position: 6 });
    const want = await attribute(await load(fixture));
    expect(numbers(await attribute(await load(fixture, { workers: 1 })))).toEqual(numbers(want));
    expectClose(await attribute(await load(fixture, { workers: 2 })), want, 2 ** -12);
  });

  it('headScores of an encoder (BERT: one forward per sequence) on the workers', async () => {
    const { bertFixture } = await import('./fixtures.js');
    const fixture = bertFixture();
    const scores = (model) => model.headScores('previousToken', { ids: SEQUENCES });
    const want = await scores(await load(fixture));
    expect(numbers(await scores(await load(fixture, { workers: 1 })))).toEqual(numbers(want));
    expectClose(await scores(await load(fixture, { workers: 2 })), want, 2 ** -12);
  });

  it('a worker that dies mid-sweep fails the sweep with WORKER_FAILED; the next sweep works', async () => {
    const fixture = llamaFixture();
    const sweep = { clean: { ids: IDS }, corrupted: { ids: CORRUPTED }, target: [IDS[7], 4], step: 'headOutput' };
    const one = await load(fixture);
    const want = await one.patchSweep(sweep);
    const model = await load(fixture, { workers: 2 });
    const layers = [];
    const onProgress = ({ layer }) => {
      layers.push(layer);
      if (layer === 0) injectFault(model, 1, 'exit'); // fires at worker 1's next call: layer 1's cells
    };
    const error = await model.patchSweep({ ...sweep, onProgress }).catch((e) => e);
    expect(error.code).toBe('WORKER_FAILED');
    expect(error.message).toMatch(/^worker 1 /);
    expect(layers).toEqual([0]);
    expectClose(await model.patchSweep(sweep), want, 2 ** -12);
    expectClose(
      await model.attribute({ ids: IDS }, { target: [2] }),
      await one.attribute({ ids: IDS }, { target: [2] }),
      2 ** -12,
    );
  });
});
