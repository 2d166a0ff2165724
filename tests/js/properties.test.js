// Property-based tests (fast-check) of the public API against the float64 reference: random shapes (the
// SIMD edge sizes among them), masks, causal modes and scales; values up to ±1e4; invariances; the
// SIMD and scalar builds agreeing to 1e-6; and the same problems passed in adversarial forms (getters, Proxies,
// holes, polluted prototypes), which give the same bits or a clear AttentionError.
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { AttentionError, createAttention } from '../../src/js/index.js';
import { EDGE_SIZES, expectClose, referenceAttention } from './reference.js';

const RUNS = 1000;
const size = fc.oneof(fc.constantFrom(...EDGE_SIZES.filter((n) => n <= 33)), fc.integer({ min: 1, max: 24 }));
const width = fc.oneof(fc.constantFrom(1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17), fc.integer({ min: 1, max: 20 }));

/** An attention problem: shapes, options, and values of magnitude up to `magnitude`. */
const problem = (magnitude) =>
  fc
    .record({
      batch: fc.integer({ min: 1, max: 2 }),
      numKvHeads: fc.integer({ min: 1, max: 2 }),
      group: fc.integer({ min: 1, max: 3 }),
      lenQ: size,
      lenK: size,
      dK: width,
      dV: width,
      causal: fc.constantFrom(false, true, 'bottom-right'),
      scale: fc.option(fc.oneof(fc.constant(0), fc.double({ min: -3, max: 3, noNaN: true })), { nil: undefined }),
      maskKind: fc.constantFrom('none', 'boolean', 'additive'),
      broadcast: fc.array(fc.boolean(), { minLength: 4, maxLength: 4 }),
      seed: fc.integer(),
    })
    .map((p) => {
      const numHeads = p.numKvHeads * p.group;
      let state = p.seed >>> 0;
      const random = () => {
        state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
        return state / 2 ** 32;
      };
      const tensor = (shape) => ({
        data: Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, () => (random() * 2 - 1) * magnitude),
        shape,
      });
      const full = [p.batch, numHeads, p.lenQ, p.lenK];
      const dims = full.map((n, i) => (p.broadcast[i] ? 1 : n));
      const count = dims.reduce((a, b) => a * b, 1);
      let mask = null;
      if (p.maskKind === 'boolean')
        mask = { data: Uint8Array.from({ length: count }, () => (random() < 0.75 ? 1 : 0)), shape: dims };
      if (p.maskKind === 'additive') {
        mask = {
          data: Float32Array.from({ length: count }, () => (random() < 0.15 ? -Infinity : (random() * 2 - 1) * 5)),
          shape: dims,
        };
      }
      return {
        ...p,
        numHeads,
        q: tensor([p.batch, numHeads, p.lenQ, p.dK]),
        k: tensor([p.batch, p.numKvHeads, p.lenK, p.dK]),
        v: tensor([p.batch, p.numKvHeads, p.lenK, p.dV]),
        mask,
        options: { causal: p.causal, scale: p.scale, ...(mask ? { mask } : {}) },
      };
    });

const referenceOf = (t) =>
  referenceAttention(t.q, t.k, t.v, {
    scale: t.scale,
    causal: t.causal,
    mask: t.mask && { kind: t.maskKind, data: t.mask.data, dims: t.mask.shape },
  });

describe('properties over random problems', () => {
  let simd;
  let scalar;
  beforeAll(async () => {
    [simd, scalar] = await Promise.all([createAttention({ simd: true }), createAttention({ simd: false })]);
  });

  it(`matches the float64 reference (${RUNS} cases per build)`, () => {
    for (const attn of [simd, scalar]) {
      fc.assert(
        fc.property(problem(2), (t) => {
          const r = attn.scaledDotProductAttention(t.q, t.k, t.v, { ...t.options, returnSteps: true });
          const ref = referenceOf(t);
          // float32 rounds a score by up to a few units of 2^-24 of the sum of |q·k| terms (≤ |scale|·d_k·2² here)
          // plus the additive mask (≤ 5); a softmax turns that into the same absolute error of its exponent, so
          // the weights move by up to w·(1 − w)·that and the output by |v| (≤ 2) times it. A sharp row (scale 2.5,
          // d_k 19) gives 5e-5; a usual one (scale 1/√d_k) 4e-6, under the fixed atol.
          const scale = Math.abs(t.scale ?? 1 / Math.sqrt(t.dK));
          const scoreError = 2 ** -22 * (scale * t.dK * 4 + 5);
          expectClose(r.output.data, ref.output, { atol: 1e-5 + 2 * scoreError, what: 'output' });
          expectClose(r.weights.data, ref.weights, { atol: 1e-6 + scoreError / 4, what: 'weights' });
          expectClose(r.scores.data, ref.scores, { what: 'scores' });
        }),
        { numRuns: RUNS },
      );
    }
  });

  it(`values up to ±1e4: finite results, rows summing to 1 or 0, outputs inside the values' range (${RUNS} cases)`, () => {
    fc.assert(
      fc.property(problem(1e4), (t) => {
        const r = simd.scaledDotProductAttention(t.q, t.k, t.v, t.options);
        const ref = referenceOf(t);
        const [B, H, Lq, Lk] = [t.batch, t.numHeads, t.lenQ, t.lenK];
        // Plain comparisons with a message on failure: an expect() per element would take seconds.
        const check = (ok, message) => {
          if (!ok) expect.fail(message);
        };
        for (let row = 0; row < B * H * Lq; row++) {
          let sum = 0;
          for (let j = 0; j < Lk; j++) {
            const w = r.weights.data[row * Lk + j];
            check(Number.isFinite(w) && w >= 0 && w <= 1, `weights[${row}][${j}] is ${w}`);
            check(ref.scores[row * Lk + j] !== -Infinity || w === 0, `masked weights[${row}][${j}] is ${w}, not 0`);
            sum += w;
          }
          const open = ref.weights.subarray(row * Lk, (row + 1) * Lk).some((w) => w > 0);
          check(open ? Math.abs(sum - 1) < 1e-5 : sum === 0, `row ${row} of the weights sums to ${sum}`);
          // each output is a convex combination of the value rows (or 0 when every key is masked)
          const kvHead = Math.floor((Math.floor(row / Lq) % H) / t.group) + Math.floor(row / (H * Lq)) * t.numKvHeads;
          for (let c = 0; c < t.dV; c++) {
            const out = r.output.data[row * t.dV + c];
            check(Number.isFinite(out), `output[${row}][${c}] is ${out}`);
            if (!open) {
              check(out === 0, `output[${row}][${c}] of a fully masked row is ${out}, not 0`);
              continue;
            }
            let lo = Infinity;
            let hi = -Infinity;
            for (let j = 0; j < Lk; j++) {
              const value = t.v.data[(kvHead * Lk + j) * t.dV + c];
              lo = Math.min(lo, value);
              hi = Math.max(hi, value);
            }
            const slack = 1e-5 * Math.max(Math.abs(lo), Math.abs(hi));
            check(
              out >= lo - slack && out <= hi + slack,
              `output[${row}][${c}] = ${out} is outside the values' range [${lo}, ${hi}]`,
            );
          }
        }
      }),
      { numRuns: RUNS },
    );
  });

  it(`permuting keys and values together, and shifting a row of scores, change nothing (${RUNS} cases)`, () => {
    fc.assert(
      fc.property(problem(2), fc.integer(), fc.double({ min: -50, max: 50, noNaN: true }), (t, seed, shift) => {
        const Lk = t.lenK;
        const order = Array.from({ length: Lk }, (_, j) => j);
        for (let j = Lk - 1, s = seed >>> 0; j > 0; j--) {
          s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
          const i = s % (j + 1);
          [order[i], order[j]] = [order[j], order[i]];
        }
        const permute = (x, w) => {
          const out = new Float32Array(x.data.length);
          for (let block = 0; block < x.data.length / (Lk * w); block++) {
            order.forEach((from, to) =>
              out.set(x.data.subarray((block * Lk + from) * w, (block * Lk + from + 1) * w), (block * Lk + to) * w),
            );
          }
          return { data: out, shape: x.shape };
        };
        // causal and the mask tie keys to positions; the invariance holds without them
        const base = { scale: t.scale };
        const a = simd.scaledDotProductAttention(t.q, t.k, t.v, base);
        const b = simd.scaledDotProductAttention(t.q, permute(t.k, t.dK), permute(t.v, t.dV), base);
        expectClose(b.output.data, a.output.data, { atol: 1e-5, what: 'permuted output' });
        const shifted = simd.scaledDotProductAttention(t.q, t.k, t.v, {
          ...base,
          mask: { data: Float32Array.from({ length: t.lenQ }, () => shift), shape: [t.lenQ, 1] },
        });
        expectClose(shifted.weights.data, a.weights.data, { atol: 1e-5, what: 'shifted weights' });
        expectClose(shifted.output.data, a.output.data, { atol: 1e-5, what: 'shifted output' });
      }),
      { numRuns: RUNS },
    );
  });

  it(`the SIMD and scalar builds agree to 1e-6 on values in [-1, 1] (${RUNS} cases)`, () => {
    fc.assert(
      fc.property(problem(1), (t) => {
        const a = simd.scaledDotProductAttention(t.q, t.k, t.v, t.options);
        const b = scalar.scaledDotProductAttention(t.q, t.k, t.v, t.options);
        expectClose(a.output.data, b.output.data, { atol: 1e-6, rtol: 0, what: 'output' });
        expectClose(a.weights.data, b.weights.data, { atol: 1e-6, rtol: 0, what: 'weights' });
      }),
      { numRuns: RUNS },
    );
  });
});

/** Reads of each element or property through a form below; each must be at most 1. */
let reads = new Map(); // not an object: the polluted prototype below must not answer for it
const count = (key) => {
  const n = (reads.get(key) ?? 0) + 1;
  reads.set(key, n);
  return n;
};
let nextKey = 0;

/** The same tensor ({ data: Float32Array, shape }) in another form, one that answers NaN to any second read. */
const FORMS = {
  typed: (t) => t,
  float64: (t) => ({ data: Float64Array.from(t.data), shape: [...t.shape] }),
  numbers: (t) => ({ data: Array.from(t.data), shape: [...t.shape] }),
  nested: (t) => {
    const build = (axis, offset) =>
      axis === t.shape.length - 1
        ? Array.from(t.data.subarray(offset, offset + t.shape[axis]))
        : Array.from({ length: t.shape[axis] }, (_, i) =>
            build(axis + 1, offset + i * t.shape.slice(axis + 1).reduce((a, b) => a * b, 1)),
          );
    return build(0, 0);
  },
  getters: (t) => {
    const data = Array.from(t.data);
    data.forEach((x, i) => {
      const key = nextKey++;
      Object.defineProperty(data, i, { enumerable: true, get: () => (count(key) === 1 ? x : NaN) });
    });
    return { data, shape: [...t.shape] };
  },
  proxies: (t) => {
    const wrap = (target) => {
      const key = nextKey;
      nextKey += target.length + 1;
      return new Proxy(target, {
        get: (o, k) => {
          if (k === 'length') return count(key) === 1 ? o.length : o.length + 64;
          const i = Number(k);
          return Number.isInteger(i) && count(key + 1 + i) > 1 ? NaN : o[k];
        },
      });
    };
    const tensor = { data: wrap(Array.from(t.data)), shape: wrap([...t.shape]) };
    const key = nextKey++;
    return new Proxy(tensor, { get: (o, k) => (count(`${key}.${String(k)}`) === 1 ? o[k] : undefined) });
  },
};

/** Non-enumerable, as a polluting library might add them (Embind's glue enumerates its own records). */
function withPollutedPrototype(call) {
  const keys = ['causal', 'mask', 'scale', 'data', 'shape', '0'];
  for (const key of keys)
    Object.defineProperty(Object.prototype, key, { value: 7, configurable: true, writable: true });
  try {
    return call();
  } finally {
    for (const key of keys) delete Object.prototype[key];
  }
}

const form = fc.constantFrom(...Object.keys(FORMS));

describe('properties over adversarial forms of random problems', () => {
  let attn;
  let baseline;
  beforeAll(async () => {
    attn = await createAttention();
    baseline = attn.heapBytesInUse();
  });

  it(`getters, Proxies, nested arrays and a polluted prototype give the same bits, each value read once (${RUNS / 4} cases)`, () => {
    fc.assert(
      fc.property(problem(2), form, form, form, fc.boolean(), (t, fq, fk, fv, polluted) => {
        const expected = attn.scaledDotProductAttention(t.q, t.k, t.v, t.options);
        reads = new Map();
        const options = { ...t.options };
        const call = () => attn.scaledDotProductAttention(FORMS[fq](t.q), FORMS[fk](t.k), FORMS[fv](t.v), options);
        const r = polluted ? withPollutedPrototype(call) : call();
        expect(Math.max(0, ...reads.values())).toBeLessThanOrEqual(1);
        expect(r.output.data).toEqual(expected.output.data);
        expect(r.weights.data).toEqual(expected.weights.data);
        expect(attn.heapBytesInUse()).toBe(baseline);
      }),
      { numRuns: RUNS / 4 },
    );
  });

  const FAULTS = {
    hole: [(t) => ({ data: t.data, shape: [, ...t.shape.slice(1)] }), 'BAD_DIMENSION'], // eslint-disable-line no-sparse-arrays
    selfHolding: [
      () => {
        const a = [0];
        a[0] = a;
        return a;
      },
      'BAD_RANK',
    ],
    revoked: [
      () => {
        const { proxy, revoke } = Proxy.revocable([], {});
        revoke();
        return proxy;
      },
      'NOT_A_TENSOR',
    ],
    throwingGetter: [
      (t) => ({
        get data() {
          throw new Error('no');
        },
        shape: t.shape,
      }),
      'NOT_A_TENSOR',
    ],
    objectValue: [
      (t) => ({ data: [{ valueOf: () => 1 }, ...Array.from(t.data).slice(1)], shape: t.shape }),
      'NOT_A_NUMBER',
    ],
    bigintShape: [(t) => ({ data: t.data, shape: [10n, ...t.shape.slice(1)] }), 'BAD_DIMENSION'],
    mapAsTensor: [
      (t) =>
        new Map([
          ['data', t.data],
          ['shape', t.shape],
        ]),
      'NOT_A_TENSOR',
    ],
  };

  it(`a fault anywhere in an argument is a clear AttentionError, and the heap returns to its baseline (${RUNS / 4} cases)`, () => {
    fc.assert(
      fc.property(
        problem(2),
        fc.constantFrom(...Object.keys(FAULTS)),
        fc.integer({ min: 0, max: 2 }),
        (t, fault, position) => {
          const [make, code] = FAULTS[fault];
          const args = [t.q, t.k, t.v];
          args[position] = make(args[position]);
          let error;
          try {
            attn.scaledDotProductAttention(...args, t.options);
          } catch (e) {
            error = e;
          }
          expect(error).toBeInstanceOf(AttentionError);
          expect(error.code).toBe(code);
          expect(attn.heapBytesInUse()).toBe(baseline);
        },
      ),
      { numRuns: RUNS / 4 },
    );
  });
});
