// Doing only the work a change needs: flat copies of the page's nested matrices made once per matrix (a matrix
// that did not change is the same array, so its copy is reused), and whether two selfAttention calls are the same
// (then the last result stands: switching the head shown, for instance, computes nothing).

const flat64 = new WeakMap();
const tensors = new WeakMap();
const blocks = new WeakMap();
const singles = new WeakMap();

function cached(cache, rows, make) {
  let value = cache.get(rows);
  if (value === undefined) {
    value = make();
    cache.set(rows, value);
  }
  return value;
}

/** The rows of a matrix as one Float64Array (the exact numbers, for display), made once per matrix. */
export function flatRows(rows) {
  return cached(flat64, rows, () => flatten(rows));
}

/** Rows of equal length as one Float64Array (rows.flat() is many times slower on large matrices). */
export function flatten(rows) {
  const cols = rows.length ? rows[0].length : 0;
  const out = new Float64Array(rows.length * cols);
  for (let i = 0; i < rows.length; i++) out.set(rows[i], i * cols);
  return out;
}

/**
 * Hands in the flat copies of a matrix made elsewhere (a worker): `flat` is flatten(rows), `single` is
 * Float32Array.from(flat). flatRows, tensorOf and float32Call then use them.
 */
export function adoptFlat(rows, flat, single) {
  flat64.set(rows, flat);
  singles.set(flat, single);
}

/** The matrix as `{ data, shape }` for attention-wasm (exact float64 numbers), made once per matrix. */
export function tensorOf(rows) {
  return cached(tensors, rows, () => ({ data: flatRows(rows), shape: [rows.length, rows[0].length] }));
}

/** Columns [from, from + width) of a nested matrix, as rows and as flat data; made once per matrix and block. */
export function columnBlockOf(rows, from, width) {
  const byBlock = cached(blocks, rows, () => new Map());
  const key = `${from}|${width}`;
  let block = byBlock.get(key);
  if (!block) {
    const part = rows.map((row) => row.slice(from, from + width));
    block = { rows: part, data: flatten(part) };
    byBlock.set(key, block);
  }
  return block;
}

const WEIGHT_KEYS = ['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo'];

/**
 * Whether two calls `{ x, weights, options }` (as attentionCall makes them) give the same result: the same
 * data arrays and the same options.
 */
export function sameCall(a, b) {
  if (!a || !b || a.x.data !== b.x.data) return false;
  for (const key of WEIGHT_KEYS) if (a.weights[key]?.data !== b.weights[key]?.data) return false;
  if (a.weights.numHeads !== b.weights.numHeads || a.weights.numKvHeads !== b.weights.numKvHeads) return false;
  return JSON.stringify(a.options) === JSON.stringify(b.options);
}

/**
 * The call with float32 copies of its data, made once per array: attention-wasm computes in float32 and rounds
 * float64 input the same way (to nearest), so the result is bit for bit the same, without converting millions of
 * unchanged numbers at every call.
 */
export function float32Call({ x, weights, options }) {
  const single = (tensor) => ({
    data: cached(singles, tensor.data, () => Float32Array.from(tensor.data)),
    shape: tensor.shape,
  });
  const next = { ...weights };
  for (const key of WEIGHT_KEYS) if (weights[key]) next[key] = single(weights[key]);
  return { x: single(x), weights: next, options };
}

/** Whether call `a` differs from `b` only in its scale (a temperature change): the projections stay as they were. */
export function onlyScaleChanged(a, b) {
  if (!a || !b || a.options.scale === b.options.scale) return false;
  return sameCall(a, { ...b, options: { ...b.options, scale: a.options.scale } });
}

/** Multiply-adds of a state's projections (X·W_q, X·W_k, X·W_v, concat·W_o): what a full update costs. */
export function projectionWork({ n, dModel, dK, dV, numHeads }) {
  return n * dModel * numHeads * (2 * dK + 2 * dV);
}

/** Above this much projection work (GPT-2 small at n = 64 is 151 M), a temperature drag previews the weights only. */
export const PREVIEW_WORK = 20e6;

/** Whether the change from `before` to `state` is a temperature change on a layer large enough to preview. */
export function previewsTemperature(before, state) {
  return (
    Boolean(before) &&
    state.temperature !== before.temperature &&
    state.scaling === before.scaling &&
    projectionWork(state) > PREVIEW_WORK
  );
}
