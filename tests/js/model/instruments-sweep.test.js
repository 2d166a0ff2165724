// model.patchSweep (issue 36): every cell of a sweep over the residual stream entering each layer, the attention and
// MLP outputs (one layer at one token position) and the heads' outputs (one head at every position), against the
// float64 reference's sweep (patch-reference.js), on GPT-2, LLaMA (GQA + RoPE) and Qwen2, resident and not. A score is
// a ratio of logit differences, so its tolerance is VALUES' on the logits over |m_clean − m_corrupted|.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/js/model/index.js';
import { expectClose } from '../reference.js';
import { referencePatchSweep } from './instruments-reference.js';
import { VALUES } from './reference.js';
import { FAMILIES, RESIDENCY } from './instruments-families.js';
import { bertFixture } from './fixtures.js';

const clean = [3, 1, 4, 1, 5, 9, 2, 6];
const corrupted = [3, 1, 4, 7, 5, 9, 8, 6]; // differs at tokens 3 and 6
const n = clean.length;
const target = [7, 11];

describe.each(FAMILIES)('%s', (name, make) => {
  describe.each(RESIDENCY)('weights %s', (how, residentBytes) => {
    let fixture;
    let model;
    beforeAll(async () => {
      fixture = make();
      model = await loadModel(fixture.files, { residentBytes });
    });

    it.each(['input', 'output', 'mlpOutput', 'headOutput'])(
      'a sweep of %s: every cell as in the reference',
      async (step) => {
        const { numLayers: L, numHeads: H } = model.spec;
        for (const position of [undefined, 5]) {
          const events = [];
          const p = await model.patchSweep({
            clean: { ids: clean },
            corrupted: { ids: corrupted },
            target,
            step,
            position,
            onProgress: (e) => events.push({ ...e, scores: Array.from(e.scores.data) }),
          });
          const ref = referencePatchSweep(fixture, { clean, corrupted, target, step, position });
          expect(p.scores.shape).toEqual([L, step === 'headOutput' ? H : n]);
          const what = `${step} at ${position ?? 'the last'}`;
          expectClose([p.clean, p.corrupted], [ref.clean, ref.corrupted], { ...VALUES, what: `${what}: m` });
          const gap = Math.abs(ref.clean - ref.corrupted);
          expect(gap, 'the prompts must give different metrics').toBeGreaterThan(0.05);
          const atol = (4 * VALUES.atol * (1 + Math.abs(ref.clean) + Math.abs(ref.corrupted))) / gap;
          expectClose(p.scores.data, ref.scores.flat(), { atol, rtol: 0, what });
          // one event per layer, each with the rows so far filled in and the rest NaN
          expect(events.map((e) => e.layer)).toEqual(Array.from({ length: L }, (_, l) => l));
          expect(events.at(-1).done).toBe(events.at(-1).total);
          const width = p.scores.shape[1];
          expect(events[0].scores.slice(width).every(Number.isNaN)).toBe(true);
          expect(events[0].scores.slice(0, width).some(Number.isNaN)).toBe(false);
        }
      },
    );
  });
});

/**
 * A task that queues itself again (as a page's frames and inputs come): count() is how many have run so far; stop()
 * ends it at its next turn.
 */
function queuedTasks() {
  let ticks = 0;
  let running = true;
  const channel = new MessageChannel();
  channel.port1.onmessage = () => {
    ticks++;
    if (running) channel.port2.postMessage(null);
    else channel.port1.close();
  };
  channel.port2.postMessage(null);
  return { count: () => ticks, stop: () => (running = false) };
}
describe('a sweep stopped', () => {
  it('by its signal after the first layer: ABORTED, and the events stop there; a disposed model: TERMINATED', async () => {
    const model = await loadModel(FAMILIES[1][1]().files);
    const controller = new AbortController();
    const layers = [];
    const sweep = model.patchSweep({
      clean: { ids: clean },
      corrupted: { ids: corrupted },
      target,
      step: 'input',
      signal: controller.signal,
      onProgress: ({ layer }) => layers.push(layer) && controller.abort(),
    });
    await expect(sweep).rejects.toMatchObject({ code: 'ABORTED' });
    expect(layers).toEqual([0]);
    const running = model.patchSweep({
      clean: { ids: clean },
      corrupted: { ids: corrupted },
      target,
      step: 'headOutput',
    });
    await model.dispose();
    await expect(running).rejects.toMatchObject({ code: 'TERMINATED' });
  });
});

describe('a sweep with onProgress', () => {
  it('lets a task in between layers: a page paints the row and runs a click (Cancel) before the next layer', async () => {
    const model = await loadModel(FAMILIES[0][1]().files);
    const seen = [];
    await model.patchSweep({
      clean: { ids: clean },
      corrupted: { ids: corrupted },
      target,
      step: 'input',
      onProgress: ({ layer }) => {
        seen.push(`layer ${layer}`);
        const channel = new MessageChannel(); // a task queued now (as a click's), before the sweep's break
        channel.port1.onmessage = () => {
          seen.push(`task after ${layer}`);
          channel.port1.close();
        };
        channel.port2.postMessage(null);
      },
    });
    expect(seen.slice(0, 2)).toEqual(['layer 0', 'task after 0']);
  });

  it('lets tasks in between the layer calls of a batch too: no task runs more than one layer call', async () => {
    const model = await loadModel(FAMILIES[0][1]().files);
    const L = model.spec.numLayers;
    expect(L).toBeGreaterThan(1);
    const tasks = queuedTasks();
    const before = [];
    await model.patchSweep({
      clean: { ids: clean },
      corrupted: { ids: corrupted },
      target,
      step: 'input',
      onProgress: () => before.push(tasks.count()),
    });
    tasks.stop();
    // layer 0's cells run layers 0 … L − 1 (one batch): L − 1 breaks between its layer calls before its progress
    expect(before[0]).toBeGreaterThanOrEqual(L - 1);
  });
});

describe('BERT: every row sees every other, so each cell runs whole from its layer', () => {
  it.each(['input', 'headOutput'])('a sweep of %s: every cell as in the reference', async (step) => {
    const fixture = bertFixture({ seed: 24 });
    const model = await loadModel(fixture.files);
    const ids = { clean: [3, 1, 4, 1, 5, 9], corrupted: [3, 1, 4, 7, 5, 9] };
    const bertTarget = [0, 3];
    const p = await model.patchSweep({
      clean: { ids: ids.clean },
      corrupted: { ids: ids.corrupted },
      target: bertTarget,
      step,
      position: 2,
    });
    const ref = referencePatchSweep(fixture, { ...ids, target: bertTarget, step, position: 2 });
    const gap = Math.abs(ref.clean - ref.corrupted);
    expect(gap).toBeGreaterThan(0.03); // BERT's post-norm fixture moves its logits little
    // a later token's patch reaches the earlier position of the metric; a head's too
    expect(Math.abs(step === 'input' ? ref.scores[0][3] : ref.scores[1][0])).toBeGreaterThan(0.05);
    const atol = (4 * VALUES.atol * (1 + Math.abs(ref.clean) + Math.abs(ref.corrupted))) / gap;
    expectClose(p.scores.data, ref.scores.flat(), { atol, rtol: 0, what: step });
  });
});

describe('batchRows: the most rows of cells in one layer call', () => {
  /** The sweep's scores, and the tasks that ran before its first progress (a task that queues itself again). */
  async function sweep(model, step, batchRows) {
    const tasks = queuedTasks();
    const before = [];
    const p = await model.patchSweep({
      clean: { ids: clean },
      corrupted: { ids: corrupted },
      target,
      step,
      ...(batchRows === undefined ? {} : { batchRows }),
      onProgress: () => before.push(tasks.count()),
    });
    tasks.stop();
    return { scores: Array.from(p.scores.data), m: [p.clean, p.corrupted], first: before[0] };
  }

  it.each(['input', 'headOutput'])('a sweep of %s gives the same scores in smaller batches', async (step) => {
    const model = await loadModel(FAMILIES[1][1]().files);
    const whole = await sweep(model, step);
    for (const batchRows of [1, 2, 5, 1000]) {
      const small = await sweep(model, step, batchRows);
      expect(small.scores, `batchRows ${batchRows}`).toEqual(whole.scores);
      expect(small.m).toEqual(whole.m);
    }
    // one row a batch: layer 0's cells (tokens 3 … 7) are 5 batches, each its own layer calls with breaks between
    expect((await sweep(model, step, 1)).first).toBeGreaterThan(whole.first);
  });

  it.each([0, -1, 2.5, '8', null, Infinity])('batchRows %s: BAD_OPTION naming it', async (batchRows) => {
    const model = await loadModel(FAMILIES[0][1]().files);
    await expect(
      model.patchSweep({ clean: { ids: clean }, corrupted: { ids: corrupted }, target, step: 'input', batchRows }),
    ).rejects.toMatchObject({ code: 'BAD_OPTION', message: expect.stringMatching(/batchRows/) });
  });
});

describe("target 'top': the pair from the sweep's own runs", () => {
  /** The id of the largest logit of row `position` of a run's logits [n, V] (the lowest id of a tie). */
  function topOf(logits, position) {
    const V = logits.shape[1];
    const row = Array.from(logits.data.subarray(position * V, (position + 1) * V));
    return row.indexOf(Math.max(...row));
  }

  it.each(['input', 'headOutput'])(
    'a sweep of %s: each run’s top token at the position, the same scores as with that target given',
    async (step) => {
      const model = await loadModel(FAMILIES[2][1]().files); // Qwen2's fixture: the tops differ at tokens 5 to 7
      for (const position of [undefined, 5]) {
        const at = position ?? n - 1;
        const options = { attentions: false, hiddenStates: false };
        const pair = [
          topOf((await model.run({ ids: clean }, options)).logits, at),
          topOf((await model.run({ ids: corrupted }, options)).logits, at),
        ];
        expect(pair[0], 'the fixture’s runs must differ in their top token').not.toBe(pair[1]);
        const events = [];
        const top = await model.patchSweep({
          clean: { ids: clean },
          corrupted: { ids: corrupted },
          target: 'top',
          step,
          position,
          onProgress: (e) => events.push(e.target),
        });
        expect(top.target).toEqual(pair);
        expect(events.every((t) => t.join() === pair.join())).toBe(true);
        const given = await model.patchSweep({
          clean: { ids: clean },
          corrupted: { ids: corrupted },
          target: pair,
          step,
          position,
        });
        expect(Array.from(top.scores.data)).toEqual(Array.from(given.scores.data));
        expect([top.clean, top.corrupted]).toEqual([given.clean, given.corrupted]);
        expect(given.target).toEqual(pair);
      }
    },
  );

  it('both runs’ top token the same: m is its logit alone ([a])', async () => {
    const model = await loadModel(FAMILIES[0][1]().files);
    const r = await model.run({ ids: clean }, { attentions: false, hiddenStates: false });
    const p = await model.patchSweep({
      clean: { ids: clean },
      corrupted: { ids: clean },
      target: 'top',
      step: 'input',
    });
    expect(p.target).toEqual([topOf(r.logits, n - 1)]);
    expect(p.clean).toBe(p.corrupted);
  });

  it.each(['bottom', [], null])('target %s: BAD_OPTION naming it', async (bad) => {
    const model = await loadModel(FAMILIES[0][1]().files);
    await expect(
      model.patchSweep({ clean: { ids: clean }, corrupted: { ids: corrupted }, target: bad, step: 'input' }),
    ).rejects.toMatchObject({ code: 'BAD_OPTION', message: expect.stringMatching(/target must be .* or 'top'/) });
  });
});
