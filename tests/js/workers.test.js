// createAttention({ workers }): every method × every weight combination gives the same bits as one thread, and
// the regressions of "reliability, round 2" (#1, #3, #5, #6, #7, #16) stay fixed. Node and Chromium.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AttentionError, createAttention } from '../../src/js/index.js';
import { randomBooleanMask, randomTensor, seededRandom } from './reference.js';

/** Same keys in the same order, same shapes, and every value the same float32. */
function expectSameBits(actual, expected, what = '') {
  expect(Object.keys(actual), what).toEqual(Object.keys(expected));
  for (const key of Object.keys(expected)) {
    expect(actual[key].shape, `${what} ${key}`).toEqual(expected[key].shape);
    expect(Array.from(actual[key].data), `${what} ${key}`).toEqual(Array.from(expected[key].data));
  }
}

/** One thread's answer, or its error. */
function attempt(run) {
  try {
    return run();
  } catch (error) {
    return error;
  }
}

const eye2 = [
  [1, 0],
  [0, 1],
];

describe('workers: every method and weight combination matches one thread', () => {
  let single;
  let parallel;
  beforeAll(async () => {
    [single, parallel] = await Promise.all([createAttention(), createAttention({ workers: 3 })]);
  });
  afterAll(() => parallel.terminate());

  // numHeads 4 with numKvHeads 1, 2 or 4 spreads whole kv groups or parts of one group over 3 workers
  const HEADS = [null, { numHeads: 4 }, { numHeads: 4, numKvHeads: 2 }, { numHeads: 4, numKvHeads: 1 }];
  const OPTIONS = [
    {},
    { causal: true },
    { returnWeights: false },
    { returnSteps: true, causal: 'bottom-right' },
    { scale: 0.5 },
  ];

  for (const method of ['selfAttention', 'crossAttention', 'multiHeadAttention']) {
    it(`${method}: with/without numHeads, numKvHeads, wo, bo, biases, batch, mask, causal, returnWeights, returnSteps`, async () => {
      const random = seededRandom(101);
      let count = 0;
      for (const heads of method === 'multiHeadAttention' ? HEADS.slice(1) : HEADS) {
        for (const batched of [false, true]) {
          for (const projection of ['none', 'wo', 'wo+bo', 'biases+wo+bo']) {
            for (const [o, options] of OPTIONS.entries()) {
              const h = heads?.numHeads ?? 1;
              const kv = heads?.numKvHeads ?? h;
              const [lenQ, lenK, dModel, dContext, dK, dV] = [5, method === 'crossAttention' ? 7 : 5, 6, 4, 2, 3];
              const x = randomTensor(random, batched ? [2, lenQ, dModel] : [lenQ, dModel]);
              const context = randomTensor(random, batched ? [2, lenK, dContext] : [lenK, dContext]);
              const dIn = method === 'crossAttention' ? dContext : dModel;
              const weights = {
                wq: randomTensor(random, [dModel, h * dK]),
                wk: randomTensor(random, [dIn, kv * dK]),
                wv: randomTensor(random, [dIn, kv * dV]),
                ...(heads ?? {}),
              };
              if (projection !== 'none') weights.wo = randomTensor(random, [h * dV, 4]);
              if (projection.includes('bo')) weights.bo = randomTensor(random, [4]);
              if (projection.startsWith('biases')) {
                Object.assign(weights, {
                  bq: randomTensor(random, [h * dK]),
                  bk: randomTensor(random, [kv * dK]),
                  bv: randomTensor(random, [kv * dV]),
                });
              }
              // a mask on every other combination, broadcast over heads or per head
              const headed = heads !== null;
              const maskShape = [...(batched ? [2] : []), ...(headed ? [o % 2 ? h : 1] : []), lenQ, lenK];
              const call = { ...options, ...(o % 2 === 0 ? { mask: randomBooleanMask(random, maskShape, 0.8) } : {}) };
              const args = method === 'crossAttention' ? [x, context, weights, call] : [x, weights, call];
              const expected = attempt(() => single[method](...args));
              const what = `${method} ${JSON.stringify(heads)} batched=${batched} ${projection} ${JSON.stringify(options)}`;
              if (expected instanceof Error) {
                await expect(parallel[method](...args), what).rejects.toMatchObject({
                  code: expected.code,
                  message: expected.message,
                });
              } else {
                expectSameBits(await parallel[method](...args), expected, what);
              }
              count++;
            }
          }
        }
      }
      expect(count).toBeGreaterThan(100);
    });
  }

  it('scaledDotProductAttention: heads, kv groups, batch, masks, causal, returnWeights false, returnSteps', async () => {
    const random = seededRandom(103);
    for (const lead of [[], [4], [2, 4]]) {
      for (const kv of lead.length ? [4, 2, 1] : [null]) {
        for (const options of OPTIONS) {
          const kvLead = kv === null ? lead : [...lead.slice(0, -1), kv];
          const q = randomTensor(random, [...lead, 5, 3]);
          const k = randomTensor(random, [...kvLead, 6, 3]);
          const v = randomTensor(random, [...kvLead, 6, 2]);
          const mask = randomBooleanMask(random, [...lead.slice(0, -1), ...(lead.length ? [1] : []), 5, 6], 0.8);
          const call = { ...options, mask };
          expectSameBits(
            await parallel.scaledDotProductAttention(q, k, v, call),
            single.scaledDotProductAttention(q, k, v, call),
          );
        }
      }
    }
  });

  it('#1: selfAttention and crossAttention with wo and no numHeads (a TypeError on split)', async () => {
    const w = {
      wq: eye2,
      wk: eye2,
      wv: [
        [1, 2],
        [3, 4],
      ],
      wo: eye2,
    };
    expectSameBits(await parallel.selfAttention(eye2, w), single.selfAttention(eye2, w));
    const wb = { ...w, bo: [0.5, -1] };
    expectSameBits(
      await parallel.crossAttention(
        eye2,
        [
          [1, 2],
          [3, 4],
          [5, 6],
        ],
        wb,
      ),
      single.crossAttention(
        eye2,
        [
          [1, 2],
          [3, 4],
          [5, 6],
        ],
        wb,
      ),
    );
  });

  it("#5: an array with a function-valued property, and a Proxy as data, give one thread's answer", async () => {
    const withFunction = { data: Object.assign([1, 0, 0, 1], { describe() {} }), shape: [2, 2] };
    const proxy = { data: new Proxy([1, 2, 3, 4], {}), shape: [2, 2] }; // Array.isArray: true
    for (const [x, wv] of [
      [withFunction, eye2],
      [eye2, proxy],
      [withFunction, proxy],
    ]) {
      const w = { wq: eye2, wk: eye2, wv };
      expectSameBits(await parallel.selfAttention(x, w), single.selfAttention(x, w));
      expectSameBits(
        await parallel.multiHeadAttention(x, { ...w, numHeads: 2 }),
        single.multiHeadAttention(x, { ...w, numHeads: 2 }),
      );
      expectSameBits(await parallel.scaledDotProductAttention(x, wv, x), single.scaledDotProductAttention(x, wv, x));
    }
  });

  it('#4: a cyclic extra property on the data reaches no worker, and the pool keeps answering', async () => {
    const meta = {};
    meta.self = meta;
    const x = { data: Object.assign([1, 0, 0, 1], { meta }), shape: [2, 2] };
    const w = { wq: eye2, wk: eye2, wv: x };
    expectSameBits(await parallel.scaledDotProductAttention(x, x, x), single.scaledDotProductAttention(x, x, x));
    expectSameBits(await parallel.selfAttention(x, w), single.selfAttention(x, w));
    expectSameBits(
      await parallel.multiHeadAttention(x, { ...w, numHeads: 2 }),
      single.multiHeadAttention(x, { ...w, numHeads: 2 }),
    );
    const q = randomTensor(seededRandom(5), [6, 3, 2]);
    expectSameBits(await parallel.scaledDotProductAttention(q, q, q), single.scaledDotProductAttention(q, q, q));
  });

  it('#7: every input is read inside the call; changing wo, bo or x after it returns changes nothing', async () => {
    const random = seededRandom(107);
    const x = randomTensor(random, [3, 70, 8]);
    const weights = {
      wq: randomTensor(random, [8, 4 * 2]),
      wk: randomTensor(random, [8, 2 * 2]),
      wv: randomTensor(random, [8, 2 * 3]),
      wo: randomTensor(random, [4 * 3, 5]),
      bo: randomTensor(random, [5]),
      numHeads: 4,
      numKvHeads: 2,
    };
    const expected = single.multiHeadAttention(x, weights);
    const selfWeights = { wq: weights.wq, wk: weights.wq, wv: weights.wv, wo: randomTensor(random, [3 * 2, 5]) };
    const expectedSelf = single.selfAttention(x, selfWeights);
    const pending = parallel.multiHeadAttention(x, weights);
    const pendingSelf = parallel.selfAttention(x, selfWeights);
    for (const t of [weights.wo, weights.bo, x, weights.wq, selfWeights.wo]) t.data.fill(3e38);
    expectSameBits(await pending, expected);
    expectSameBits(await pendingSelf, expectedSelf);
  });

  it('#16: detached methods work', async () => {
    const { scaledDotProductAttention, selfAttention, crossAttention, multiHeadAttention } = parallel;
    const w = { wq: eye2, wk: eye2, wv: eye2 };
    expectSameBits(
      await scaledDotProductAttention(eye2, eye2, eye2),
      single.scaledDotProductAttention(eye2, eye2, eye2),
    );
    expectSameBits(await selfAttention(eye2, w), single.selfAttention(eye2, w));
    expectSameBits(await crossAttention(eye2, eye2, w), single.crossAttention(eye2, eye2, w));
    expectSameBits(
      await multiHeadAttention(eye2, { ...w, numHeads: 2 }),
      single.multiHeadAttention(eye2, { ...w, numHeads: 2 }),
    );
  });

  it('bad input rejects (never throws synchronously) with the same AttentionError as one thread', async () => {
    for (const method of ['selfAttention', 'crossAttention', 'multiHeadAttention', 'scaledDotProductAttention']) {
      let promise;
      expect(() => {
        promise = parallel[method]('nope', 'nope', 'nope');
      }).not.toThrow();
      const error = await promise.catch((e) => e);
      expect(error).toBeInstanceOf(AttentionError);
      expect(error.message).toBe(attempt(() => single[method]('nope', 'nope', 'nope')).message);
    }
  });

  it("#6: TOO_LARGE is the whole call's, checked on the calling thread, naming the caller's shapes", async () => {
    // [2, 11586, 11586] weights are 1024.1 MiB: one thread refuses; 2 or 3 workers must refuse too
    const [heads, len] = [2, 11586];
    const q = { data: new Float32Array(heads * len), shape: [heads, len, 1] };
    const expected = attempt(() => single.scaledDotProductAttention(q, q, q));
    expect(expected.code).toBe('TOO_LARGE');
    const error = await parallel.scaledDotProductAttention(q, q, q).catch((e) => e);
    expect(error).toBeInstanceOf(AttentionError);
    expect(error.code).toBe('TOO_LARGE');
    expect(error.message).toBe(expected.message);
    expect(error.message).toContain('[2, 11586, 11586]');
    const x = { data: new Float32Array(len), shape: [len, 1] };
    const w = { wq: [[1, 1]], wk: [[1, 1]], wv: [[1, 1]], numHeads: 2 };
    const selfError = await parallel.multiHeadAttention(x, w).catch((e) => e);
    expect(selfError.message).toBe(attempt(() => single.multiHeadAttention(x, w)).message);
  });
});

describe('workers: terminate', () => {
  it('#3: calls after terminate() reject with TERMINATED; terminate twice is harmless', async () => {
    const parallel = await createAttention({ workers: 2 });
    await parallel.terminate();
    await parallel.terminate();
    const w = { wq: eye2, wk: eye2, wv: eye2 };
    const calls = [
      parallel.scaledDotProductAttention(eye2, eye2, eye2),
      parallel.multiHeadAttention(eye2, { ...w, numHeads: 2 }),
      parallel.selfAttention(eye2, w),
      parallel.crossAttention(eye2, eye2, w),
    ];
    for (const call of calls) {
      const error = await call.catch((e) => e);
      expect(error).toBeInstanceOf(AttentionError);
      expect(error.code).toBe('TERMINATED');
    }
  });
});

// Where workers cannot start, createAttention({ workers }) rejects with WORKERS_UNAVAILABLE, never a raw
// DOMException. The real CSP cases run in tests/cdn (a second origin under a Content-Security-Policy).
describe.runIf(typeof window !== 'undefined')('workers: unavailable (browser)', () => {
  const withWorker = async (Replacement, run) => {
    const original = globalThis.Worker;
    globalThis.Worker = Replacement;
    try {
      return await run();
    } finally {
      globalThis.Worker = original;
    }
  };

  it('no Worker at all: WORKERS_UNAVAILABLE', async () => {
    const error = await withWorker(undefined, () => createAttention({ workers: 2 }).catch((e) => e));
    expect(error).toBeInstanceOf(AttentionError);
    expect(error.code).toBe('WORKERS_UNAVAILABLE');
  });

  it('the script on another origin and the blob: worker refused too: WORKERS_UNAVAILABLE naming worker-src blob:', async () => {
    const urls = [];
    class Refused {
      constructor(url) {
        urls.push(String(url));
        throw new DOMException('refused', 'SecurityError');
      }
    }
    const error = await withWorker(Refused, () => createAttention({ workers: 1 }).catch((e) => e));
    expect(error).toBeInstanceOf(AttentionError);
    expect(error.code).toBe('WORKERS_UNAVAILABLE');
    expect(error.message).toMatch(/worker-src blob: http/);
    expect(urls[0]).toMatch(/worker\.js/);
    expect(urls[1]).toMatch(/^blob:/); // the same-origin blob: worker was tried second
  });
});
