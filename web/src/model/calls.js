// What the page needs to do only the work a change needs, beside reuse.js: whether two selfAttention calls are
// the same (then the last result stands: switching the head shown, for instance, computes nothing), float32 copies
// made once per array, and when a temperature change previews the weights only.
import { cached, keepFlat } from './reuse.js';

const singles = new WeakMap();

/**
 * Hands in the flat copies of a matrix made elsewhere (a worker): `flat` is flatten(rows), `single` is
 * Float32Array.from(flat). flatRows, tensorOf and float32Call then use them.
 */
export function adoptFlat(rows, flat, single) {
  keepFlat(rows, flat);
  singles.set(flat, single);
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
