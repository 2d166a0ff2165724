// A prepared layer is exactly selfAttention whatever form its arguments take: a property test (fast-check) over
// every input form selfAttention accepts (Float32Array, Float64Array, number[] data, nested arrays with number or
// typed-array rows, { data, dims }, getters, Proxies, subarrays, SharedArrayBuffer memory) × runs that change rows
// (by values float32 can and cannot tell apart), the options and masks, the shape of x, or put a value beyond
// float32 in x.
// Every run gives selfAttention's bits, or its error; the weights are given in one of those forms too, and their
// buffers are transferred once the layer is made.
import { beforeAll, describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { createAttention } from '../../src/js/index.js';
import { seededRandom } from './reference.js';

const CASES = 100;
const Shared = globalThis.SharedArrayBuffer; // undefined in a page without cross-origin isolation

/** Float32 or Float64 `values` in one of the memory layouts a typed array can have. */
function typed(values, type, memory) {
  const n = values.length;
  if (memory === 'subarray') {
    const array = new type(n + 5);
    array.set(values, 3);
    return array.subarray(3, 3 + n);
  }
  if (memory === 'shared' && Shared) {
    const array = new type(new Shared((n + 2) * type.BYTES_PER_ELEMENT), type.BYTES_PER_ELEMENT * 2, n);
    array.set(values);
    return array;
  }
  return type.from(values);
}

/** Row-major `values` of `shape` as nested arrays; the innermost rows as `rows` (number[] or a typed array type). */
function nested(values, shape, rows) {
  if (shape.length === 1) return rows === Array ? Array.from(values) : rows.from(values);
  const [size, ...rest] = shape;
  const step = rest.reduce((a, b) => a * b, 1);
  return Array.from({ length: size }, (_, i) => nested(values.subarray(i * step, (i + 1) * step), rest, rows));
}

class Getters {
  #data;
  #shape;
  constructor(data, shape) {
    this.#data = data;
    this.#shape = shape;
  }
  get data() {
    return this.#data;
  }
  get shape() {
    return this.#shape;
  }
}

/** Every form of a float tensor that selfAttention reads, made from float64 `values` of `shape`. */
const FORMS = {
  float32: (v, shape) => ({ data: Float32Array.from(v), shape }),
  float64: (v, shape) => ({ data: Float64Array.from(v), shape }),
  numbers: (v, shape) => ({ data: Array.from(v), shape }),
  dims: (v, shape) => ({ data: Float64Array.from(v), dims: shape }),
  nested: (v, shape) => nested(v, shape, Array),
  rows32: (v, shape) => nested(v, shape, Float32Array),
  rows64: (v, shape) => nested(v, shape, Float64Array),
  ownGetters: (v, shape) => ({
    get data() {
      return typed(v, Float64Array, 'subarray');
    },
    get shape() {
      return shape.slice();
    },
  }),
  classGetters: (v, shape) => new Getters(typed(v, Float32Array, 'subarray'), shape),
  proxy: (v, shape) => new Proxy({ data: Float64Array.from(v), shape }, {}),
  proxyNested: (v, shape) => new Proxy(nested(v, shape, Array), {}),
  subarray32: (v, shape) => ({ data: typed(v, Float32Array, 'subarray'), shape }),
  subarray64: (v, shape) => ({ data: typed(v, Float64Array, 'subarray'), shape }),
  shared32: (v, shape) => ({ data: typed(v, Float32Array, 'shared'), shape }),
  shared64: (v, shape) => ({ data: typed(v, Float64Array, 'shared'), shape }),
};
const FORM_NAMES = Object.keys(FORMS);

/** A mask option of [L, L] (broadcast over batch and heads): nested booleans, a Uint8Array, or additive float64. */
function maskOf(kind, shape, random) {
  const n = shape[shape.length - 2];
  const cells = Array.from({ length: n * n }, () => random());
  if (kind === 'booleans')
    return { mask: nested(Float64Array.from(cells), [n, n], Array).map((r) => r.map((c) => c > -0.5)) };
  if (kind === 'bytes') return { mask: { data: Uint8Array.from(cells, (c) => (c > -0.5 ? 1 : 0)), shape: [n, n] } };
  if (kind === 'additive') {
    return { mask: { data: Float64Array.from(cells, (c) => (c < -0.7 ? -Infinity : c / 3)), shape: [n, n] } };
  }
  return {};
}

/** Every result holds exactly the bits (and the shape) of `expected`'s. */
function sameBits(actual, expected, what) {
  expect(Object.keys(actual), what).toEqual(Object.keys(expected));
  for (const key of Object.keys(expected)) {
    expect(actual[key].shape, `${what}: ${key}`).toEqual(expected[key].shape);
    const bits = (t) => new Uint32Array(Float32Array.from(t.data).buffer);
    const [a, b] = [bits(actual[key]), bits(expected[key])];
    const differ = a.findIndex((value, i) => value !== b[i]);
    expect(differ, `${what}: ${key} differs first at ${differ}`).toBe(-1);
  }
}

/** The result of `call`, or its error as { code, message }. */
function outcome(call) {
  try {
    return { result: call() };
  } catch (error) {
    return { error: { name: error.name, code: error.code, message: error.message } };
  }
}

const step = fc.record({
  form: fc.constantFrom(...FORM_NAMES),
  change: fc.constantFrom('none', 'rows', 'rows', 'invisible', 'beyondFloat32', 'shape'),
  rows: fc.array(fc.nat(), { minLength: 1, maxLength: 3 }),
  causal: fc.boolean(),
  returnWeights: fc.boolean(),
  mask: fc.constantFrom('none', 'none', 'booleans', 'bytes', 'additive'),
});

const layerCase = fc.record({
  lenQ: fc.integer({ min: 1, max: 13 }),
  batch: fc.constantFrom(0, 0, 2),
  dModel: fc.constantFrom(3, 8, 16, 17),
  heads: fc.constantFrom([0, 0], [2, 2], [2, 1]),
  dK: fc.constantFrom(2, 3, 4),
  dV: fc.constantFrom(2, 5),
  wo: fc.boolean(),
  biases: fc.boolean(),
  weightForm: fc.constantFrom(...FORM_NAMES),
  seed: fc.integer(),
  steps: fc.array(step, { minLength: 2, maxLength: 6 }),
});

describe('a prepared layer over every input form', () => {
  let attn;
  beforeAll(async () => {
    attn = await createAttention();
  });

  it(`gives selfAttention's bits or error, run after run (${CASES} cases)`, async () => {
    await fc.assert(
      fc.asyncProperty(layerCase, async (c) => {
        const random = seededRandom(c.seed);
        const values = (n) => Float64Array.from({ length: n }, () => random() + random() * 1e-9);
        const [numHeads, numKvHeads] = c.heads;
        const h = numHeads || 1;
        const hk = numKvHeads || 1;
        const shapes = { wq: [c.dModel, h * c.dK], wk: [c.dModel, hk * c.dK], wv: [c.dModel, hk * c.dV] };
        if (c.wo) shapes.wo = [h * c.dV, 5];
        if (c.biases) Object.assign(shapes, { bq: [h * c.dK], bv: [hk * c.dV] });
        const numbers = Object.fromEntries(Object.entries(shapes).map(([k, s]) => [k, values(s[0] * (s[1] ?? 1))]));
        const make = (form) => {
          const w = Object.fromEntries(Object.entries(shapes).map(([k, s]) => [k, FORMS[form](numbers[k], s)]));
          return numHeads ? { ...w, numHeads, numKvHeads } : w;
        };
        const reference = make('float64'); // the same numbers, never transferred
        const given = make(c.weightForm);
        const layer = await attn.prepareSelfAttention(given);
        try {
          for (const w of Object.values(given)) {
            const data = w?.data;
            if (ArrayBuffer.isView(data) && !(Shared && data.buffer instanceof Shared)) {
              structuredClone(data.buffer, { transfer: [data.buffer] }); // the layer holds copies
            }
          }
          let shape = c.batch ? [c.batch, c.lenQ, c.dModel] : [c.lenQ, c.dModel];
          let x = values(shape.reduce((a, b) => a * b, 1));
          const rowCount = x.length / c.dModel;
          for (const [i, s] of c.steps.entries()) {
            if (s.change === 'shape') {
              shape = [1 + ((c.lenQ + i) % 11), c.dModel];
              x = values(shape[0] * c.dModel);
            } else if (s.change !== 'none') {
              x = x.slice();
              for (const r of s.rows) {
                const row = r % (x.length / c.dModel);
                const start = row * c.dModel;
                if (s.change === 'rows') x.set(values(c.dModel), start);
                // a float64 change float32 cannot see (the value rounds to the same float), or one it cannot hold
                if (s.change === 'invisible') x[start] = Math.fround(x[start]) + 2 ** -40;
                if (s.change === 'beyondFloat32') x[start + (r % c.dModel)] = 1e39;
              }
            }
            const options = { causal: s.causal, returnWeights: s.returnWeights, ...maskOf(s.mask, shape, random) };
            const what = `step ${i} (${s.form}, ${s.change}, x ${shape.join('×')} of ${rowCount} rows at first)`;
            const got = outcome(() => layer.run(FORMS[s.form](x, shape), options));
            const expected = outcome(() => attn.selfAttention(FORMS[s.form](x, shape), reference, options));
            if (expected.error) expect(got.error ?? 'no error', what).toEqual(expected.error);
            else if (got.error) expect.fail(`${what}: ${got.error.code}: ${got.error.message}`);
            else sameBits(got.result, expected.result, what);
            if (s.change === 'beyondFloat32') x = values(x.length); // a fresh x for the next step
          }
        } finally {
          layer.free();
        }
      }),
      { numRuns: CASES },
    );
  }, 120_000);
});
