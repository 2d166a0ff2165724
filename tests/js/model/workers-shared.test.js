// loadModel({ workers }) with shared memory (shard-chain.js, worker-chain.js): where SharedArrayBuffer exists (Node; a
// page only with cross-origin isolation) the plain layers of a pre-norm or parallel model run as one chain per worker,
// the workers summing each other's parts through a shared buffer in worker order; elsewhere, and for the other layers,
// each layer is handed off by messages (shard-layer.js). Both paths sum the same parts in the same order, so their
// results are the same bits (and with one worker one thread's); a worker that dies in a chain fails the run with
// WORKER_FAILED and the next run works; dispose() ends the workers mid-chain.
import { afterEach, describe, expect, it } from 'vitest';
import { chainsOf, useSharedMemory } from '../../../src/js/model/shards.js';
import { injectFault } from '../../../src/js/pool.js';
import { gpt2Fixture, llamaFixture } from './fixtures.js';
import { disposedAfterEach } from './disposed-models.js';
import { neoxFixture, phi3Fixture } from './fixtures-families.js';
import { gemmaFixture, olmo2Fixture } from './fixtures-gemma.js';
import { bertFixture } from './fixtures.js';

const shared = typeof SharedArrayBuffer === 'function' && globalThis.crossOriginIsolated !== false;

const CHAINING = [
  ['GPT-2 (pre-norm, biases)', () => gpt2Fixture({ layers: 3, heads: 4 })],
  ['LLaMA, GQA 4/2, RoPE', () => llamaFixture()],
  ['GPT-NeoX (parallel halves, partial RoPE)', () => neoxFixture()],
  ['Phi-3 (a window, LongRoPE)', () => phi3Fixture({ kvHeads: 2, slidingWindow: 5, seed: 28 })],
  ['Gemma (GeGLU, embeddings × √d_model)', () => gemmaFixture({ version: 1 })],
];
const HANDED_OFF = [
  ['BERT (post-norm)', () => bertFixture()],
  ['Gemma 2 (the sandwich)', () => gemmaFixture({ seed: 16 })],
  ['OLMo-2 (whole q/k norms)', () => olmo2Fixture({ kvHeads: 2 })],
];

const IDS = [3, 1, 4, 1, 5, 9, 2, 6];

/** Every float of a run (attentions, hidden states, logits, captures), as plain arrays by name. */
function bits(r) {
  const out = {};
  r.attentions?.forEach((t, l) => t && (out[`attentions[${l}]`] = Array.from(t.data)));
  r.hiddenStates?.forEach((t, l) => t && (out[`hiddenStates[${l}]`] = Array.from(t.data)));
  if (r.logits) out.logits = Array.from(r.logits.data);
  r.captures?.forEach((c, i) => {
    for (const [name, t] of Object.entries(c)) if (t?.data) out[`captures[${i}].${name}`] = Array.from(t.data);
  });
  return out;
}

/** A greedy generation's ids, p and attention rows. */
async function generation(model, options = {}) {
  const steps = [];
  for await (const step of model.generate({ ids: [3, 1, 4] }, { maxNewTokens: 4, ...options })) {
    steps.push({ id: step.id, p: step.p, attentions: step.attentions.map((a) => Array.from(a.data)) });
  }
  return steps;
}

describe('loadModel({ workers }) with shared memory', () => {
  const loadDisposed = disposedAfterEach();
  afterEach(() => useSharedMemory(true));
  /** A model loaded with shared memory allowed (`chain`) or not (every layer handed off by messages). */
  const load = async (fixture, options, chain = true) => {
    useSharedMemory(chain);
    const model = await loadDisposed(fixture, options);
    useSharedMemory(true);
    return model;
  };

  it.each(CHAINING)('%s: chains equal the hand-offs bit for bit, and one worker one thread', async (_, make) => {
    const fixture = make();
    const one = await load(fixture);
    const want = bits(await one.run({ ids: IDS }));
    for (const count of [1, 2, 3]) {
      const chained = await load(fixture, { workers: count });
      const messages = await load(fixture, { workers: count }, false);
      expect(chainsOf(chained).chains).toBe(shared);
      expect(chainsOf(messages).chains).toBe(false);
      const got = bits(await chained.run({ ids: IDS }));
      expect(got).toEqual(bits(await messages.run({ ids: IDS })));
      if (count === 1) expect(got).toEqual(want);
      expect(chainsOf(chained).chained).toBe(shared ? one.spec.numLayers : 0);
      expect(chainsOf(messages).chained).toBe(0);
      // a capture and an edit at layer 1 are handed off; the layers around them chain
      const options = {
        capture: [{ layer: 1, head: 1 }],
        edits: [{ layer: 1, step: 'residual', row: 2, col: 1, value: 0.5 }],
        ablate: [[0, 1]],
        logits: [0, IDS.length - 1],
      };
      const before = chainsOf(chained).chained;
      expect(bits(await chained.run({ ids: IDS }, options))).toEqual(bits(await messages.run({ ids: IDS }, options)));
      expect(chainsOf(chained).chained - before).toBe(shared ? one.spec.numLayers - 1 : 0);
      // a generation: every layer of a step as one chain, the KV cache split with the heads
      const steps = await generation(chained);
      expect(steps).toEqual(await generation(messages));
      if (count === 1) expect(steps).toEqual(await generation(one));
      await Promise.all([chained.dispose(), messages.dispose()]);
    }
  });

  it.each(HANDED_OFF)('%s: its layers need a whole sum here: handed off, as without shared memory', async (_, make) => {
    const fixture = make();
    const one = await load(fixture);
    const model = await load(fixture, { workers: 1 });
    expect(chainsOf(model).chains).toBe(false);
    expect(bits(await model.run({ ids: IDS }))).toEqual(bits(await one.run({ ids: IDS })));
    expect(chainsOf(model).chained).toBe(0);
  });

  for (const fault of ['exit', 'reject', 'throw']) {
    it(`a worker that fails in a chain (${fault}) fails the run; the next run works`, async () => {
      const fixture = llamaFixture();
      const want = bits(await (await load(fixture, { workers: 2 }, false)).run({ ids: IDS }));
      const model = await load(fixture, { workers: 2 });
      await injectFault(model, 1, fault);
      const error = await model.run({ ids: IDS }).catch((e) => e);
      if (fault === 'throw') {
        expect(error.message).toMatch(/fault injected/);
      } else {
        expect(error.code).toBe('WORKER_FAILED');
        expect(error.message).toMatch(/^worker 1 /);
      }
      expect(chainsOf(model).stopped).toBe(shared ? 1 : 0); // its peer stopped at a barrier, not waiting for ever
      expect(bits(await model.run({ ids: IDS }))).toEqual(want);
      // and a generation whose worker dies: WORKER_FAILED, then the next one works
      const steps = await generation(model);
      await injectFault(model, 0, fault);
      const failed = await generation(model).catch((e) => e);
      expect(fault === 'throw' ? failed.message : failed.code).toMatch(
        fault === 'throw' ? /fault injected/ : /WORKER_FAILED/,
      );
      expect(await generation(model)).toEqual(steps);
    });
  }

  it('an abort once a chain is posted stops its workers at a barrier: ABORTED, and the next run works', async () => {
    const fixture = gpt2Fixture({ layers: 3, heads: 4 });
    const want = bits(await (await load(fixture, { workers: 2 }, false)).run({ ids: IDS }));
    const controller = new AbortController();
    // the chain's 'layer' events come before it is posted: aborting at its last one aborts the posted chain
    const onProgress = ({ phase, layer }) => phase === 'layer' && layer === 2 && controller.abort('enough');
    const model = await load(fixture, { workers: 2, onProgress });
    const error = await model.run({ ids: IDS }, { signal: controller.signal }).catch((e) => e);
    expect(error.code).toBe('ABORTED');
    expect(error.cause).toBe('enough');
    expect(chainsOf(model).stopped).toBe(shared ? 1 : 0); // stopped by the abort, not run to its end
    expect(bits(await model.run({ ids: IDS }))).toEqual(want);
  });

  it('dispose() during a chain ends the workers: the run fails with TERMINATED', async () => {
    const model = await load(gpt2Fixture({ layers: 3, heads: 4 }), { workers: 2 });
    const running = model.run({ ids: IDS }).catch((e) => e);
    await model.dispose();
    expect((await running).code).toBe('TERMINATED');
    expect((await model.run({ ids: IDS }).catch((e) => e)).code).toBe('TERMINATED');
  });
});
