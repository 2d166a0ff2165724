// options.out when a call fails: nothing is written, on one thread and on workers, whichever way it fails — an
// overflow in the output projection (after the heads succeeded), in the scores, a worker that dies or a pool
// terminated in the middle of a call, an out array whose buffer is transferred while a call is under way or after
// a call was prepared — and out arrays over SharedArrayBuffer memory are refused.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createAttention } from '../../src/js/index.js';
import { injectFault } from '../../src/js/pool.js';
import { seededRandom } from './reference.js';

const FILL = 7;
const random = seededRandom(22);
/** Positive values: every projection, score and output is positive, so that a huge W_o or scale overflows. */
const positive = (shape) => ({
  data: Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => 0.5 + 0.5 * Math.abs(random())),
  shape,
});
const x = positive([5, 4]);
const context = positive([6, 4]);
const [wq, wk, wv, wo] = [positive([4, 4]), positive([4, 4]), positive([4, 4]), positive([4, 3])];
const huge = { data: new Float32Array(12).fill(3e38), shape: [4, 3] }; // concat·W_o overflows float32
const [q, k, v] = [positive([2, 5, 3]), positive([2, 6, 3]), positive([2, 6, 2])];
const [wk1, wv1] = [positive([4, 2]), positive([4, 2])]; // one kv head of d_k = d_v = 2

// Each call with a way to make its last step fail: `projection` swaps in W_o that overflows (calls with W_o).
const CALLS = {
  scaledDotProductAttention: (a, options) => a.scaledDotProductAttention(q, k, v, options),
  'selfAttention, one head': (a, options, big) => a.selfAttention(x, { wq, wk, wv, wo: big ?? wo }, options),
  'multiHeadAttention, 2 heads': (a, options, big) =>
    a.multiHeadAttention(x, { wq, wk, wv, wo: big ?? wo, numHeads: 2 }, options),
  'crossAttention, 2 heads over 1 kv head': (a, options, big) =>
    a.crossAttention(x, context, { wq, wk: wk1, wv: wv1, wo: big ?? wo, numHeads: 2, numKvHeads: 1 }, options),
};
const withProjection = (name) => name !== 'scaledDotProductAttention';
const headed = (name) => name.includes('2 heads');

/** Out arrays for every result of `call`, filled with FILL, and a check that they still hold only FILL. */
async function outFor(attn, call) {
  const result = await call(attn, {});
  const out = Object.fromEntries(
    Object.entries(result).map(([key, t]) => [key, new Float32Array(t.data.length).fill(FILL)]),
  );
  const untouched = (what) => {
    for (const [key, array] of Object.entries(out)) {
      if (array.length)
        expect(
          array.every((value) => value === FILL),
          `${what}: out.${key} was written`,
        ).toBe(true);
    }
  };
  return { out, untouched };
}

/** The error of a call (sync or async), which must fail. */
const failure = async (run) => {
  try {
    await run();
  } catch (error) {
    return error;
  }
  return expect.fail('the call did not fail');
};

const detach = (array) => structuredClone(array.buffer, { transfer: [array.buffer] });

// Workers start, die and are replaced here: ample time on a busy machine (each test takes well under a second).
describe('a failed call writes nothing into options.out', { timeout: 30_000 }, () => {
  let single;
  let parallel;
  beforeAll(async () => {
    [single, parallel] = await Promise.all([createAttention(), createAttention({ workers: 2 })]);
  });
  afterAll(() => parallel.terminate());

  for (const [name, call] of Object.entries(CALLS)) {
    for (const where of ['one thread', 'workers']) {
      const attn = () => (where === 'workers' ? parallel : single);

      it.runIf(withProjection(name))(`${name} (${where}): the output projection overflows`, async () => {
        const { out, untouched } = await outFor(attn(), call);
        const error = await failure(() => call(attn(), { out }, huge));
        expect(error.code).toBe('PROJECTION_OVERFLOW');
        untouched('PROJECTION_OVERFLOW');
      });

      it(`${name} (${where}): the scores overflow`, async () => {
        const { out, untouched } = await outFor(attn(), call);
        const error = await failure(() => call(attn(), { out, scale: 3e38 }));
        expect(error.code).toBe('SCORE_OVERFLOW');
        untouched('SCORE_OVERFLOW');
      });

      it(`${name} (${where}): an out array detached before or during the call`, async () => {
        const { out, untouched } = await outFor(attn(), call);
        const last = Object.keys(out).at(-1);
        if (where === 'one thread') detach(out[last]);
        const running = (async () => call(attn(), { out }))();
        if (where === 'workers') detach(out[last]); // the call has read its arguments and is under way
        const error = await failure(() => running);
        expect(error.name).toBe('AttentionError');
        expect(error.code).toBe('SHAPE_MISMATCH');
        expect(error.message).toContain(`options.out.${last}`);
        untouched('detached');
      });
    }

    it(`${name} (workers): a worker that dies in the first part of the call`, async () => {
      const { out, untouched } = await outFor(parallel, call);
      await injectFault(parallel, 0, 'exit');
      const error = await failure(() => call(parallel, { out }));
      expect(error.code).toBe('WORKER_FAILED');
      untouched('WORKER_FAILED');
    });

    it.runIf(headed(name))(`${name} (workers): a worker that dies in the output projection`, async () => {
      const { out, untouched } = await outFor(parallel, call);
      const running = call(parallel, { out }); // the heads are posted; the projection goes to worker 0 after them
      await injectFault(parallel, 0, 'exit');
      const error = await failure(() => running);
      expect(error.code).toBe('WORKER_FAILED');
      untouched('WORKER_FAILED in the projection');
    });

    it.runIf(headed(name))(`${name} (workers): terminate() while the output projection runs`, async () => {
      const own = await createAttention({ workers: 2 });
      const { out, untouched } = await outFor(own, call);
      const running = call(own, { out }).catch((e) => e); // the heads, on both workers
      const behind = own.scaledDotProductAttention(q, k, v); // queued behind the heads on both workers
      await injectFault(own, 0, 'stall'); // worker 0's next call after these, the projection, is never answered
      await behind; // so the heads are back, and the projection is under way
      await own.terminate();
      expect((await running).code).toBe('TERMINATED');
      untouched('TERMINATED');
    });
  }
});

describe('out arrays checked at every call', { timeout: 30_000 }, () => {
  let attn;
  beforeAll(async () => {
    attn = await createAttention();
  });

  it('a prepared call whose out array was detached since prepare() throws SHAPE_MISMATCH and writes nothing', () => {
    const out = { output: new Float32Array(2 * 5 * 2), weights: new Float32Array(2 * 5 * 6) };
    const run = attn.prepare({ q: q.shape, k: k.shape, v: v.shape }, { out });
    run(q.data, k.data, v.data);
    out.output.fill(FILL);
    detach(out.weights);
    expect(() => run(q.data, k.data, v.data)).toThrow(
      expect.objectContaining({
        name: 'AttentionError',
        code: 'SHAPE_MISMATCH',
        message: expect.stringMatching(
          /^options\.out\.weights held 60 floats but holds 0 now: its buffer was detached/,
        ),
      }),
    );
    expect(out.output.every((value) => value === FILL)).toBe(true);
  });

  it('a prepared layer refuses a detached out array before it writes anything', async () => {
    const layer = await attn.prepareSelfAttention({ wq, wk, wv, wo });
    const out = { output: new Float32Array(5 * 3).fill(FILL), weights: new Float32Array(25) };
    detach(out.weights);
    expect(() => layer.run(x, { out })).toThrow(expect.objectContaining({ code: 'SHAPE_MISMATCH' }));
    expect(out.output.every((value) => value === FILL)).toBe(true);
    layer.free();
  });

  const shared = globalThis.SharedArrayBuffer; // undefined in a page without cross-origin isolation
  it.runIf(shared)('refuses out arrays over SharedArrayBuffer memory, one posted to itself included', async () => {
    const memory = new shared(4 * 100);
    const posted = structuredClone(memory); // another object over the same memory, as a worker's message gives
    expect(posted).not.toBe(memory);
    const out = { output: new Float32Array(memory, 0, 20), weights: new Float32Array(posted, 0, 60) };
    const parallel = await createAttention({ workers: 2 });
    try {
      for (const call of [
        () => attn.scaledDotProductAttention(q, k, v, { out }),
        () => attn.prepare({ q: q.shape, k: k.shape, v: v.shape }, { out }),
        () => parallel.scaledDotProductAttention(q, k, v, { out }),
        () => parallel.multiHeadAttention(x, { wq, wk, wv, numHeads: 2 }, { out: { concat: out.output } }),
      ]) {
        const error = await failure(call);
        expect(error.code).toBe('BAD_OPTION');
        expect(error.message).toMatch(/^options\.out\.(output|concat) is over a SharedArrayBuffer/);
      }
    } finally {
      await parallel.terminate();
    }
    expect(new Float32Array(memory).every((value) => value === 0)).toBe(true);
  });
});
