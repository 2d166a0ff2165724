// What the page needs to do only the work a change needs, beside reuse.js: whether two selfAttention calls are
// the same (then the last result stands: switching the head shown, for instance, computes nothing), float32 copies
// made once per array, computing on a prepared layer while the weights stay (computeCall), and when a temperature
// change previews the weights only.
import { Tensor } from 'attention-wasm';
import { cached, keepFlat } from '../shared/reuse.js';

const singles = new WeakMap();

/**
 * Hands in the flat copies of a matrix made elsewhere (a worker): `flat` is flatten(rows), `single` is
 * Float32Array.from(flat). flatRows, tensorOf and float32Call then use them.
 */
export function adoptFlat(rows, flat, single) {
  keepFlat(rows, flat);
  singles.set(flat, single);
}

/** The weights' tensors of a selfAttention call, by name. */
export const WEIGHT_KEYS = ['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo'];

/** Whether two calls' weights are the same arrays (float32Call's copies) with the same heads and shapes. */
function sameWeights(a, b) {
  return (
    a.numHeads === b.numHeads &&
    a.numKvHeads === b.numKvHeads &&
    WEIGHT_KEYS.every((key) => a[key]?.data === b[key]?.data && String(a[key]?.shape) === String(b[key]?.shape))
  );
}

/**
 * Whether two calls `{ x, weights, options }` (as attentionCall makes them) give the same result: the same
 * data arrays and the same options.
 */
export function sameCall(a, b) {
  if (!a || !b || a.x.data !== b.x.data || !sameWeights(a.weights, b.weights)) return false;
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

let layer = null; // the prepared layer of the current weights: { attn, weights, run, free }
let preparing = null; // { attn, weights } whose layer is on its way
let latest = null; // the last call computed, which a new layer runs once to keep its projections
let projection = null; // { rows, of }: the rows of x the last computeCall projected, of all; { ahead }; null = all

/** Whether computeCall(attn, call) runs on a prepared layer (its weights' layer is ready). */
export function onPreparedLayer(attn, call) {
  return layer?.attn === attn && sameWeights(layer.weights, call.weights);
}

/**
 * How the last computeCall went: { rows, of } when it projected only `rows` of x's `of` rows again, { ahead: true }
 * when it took a result made ahead, null when it computed everything.
 */
export function lastProjection() {
  return projection;
}

/**
 * The page's selfAttention(x, weights, options), with the same bits: on a layer prepared for the weights
 * (prepareSelfAttention) while they stay, so that an edit of one token projects 4 rows of x again instead of all of
 * them, and a change of options none. New weights (a new seed, another size) are computed by selfAttention at once
 * (or taken from `madeAhead`, the result a worker computed for exactly this call) while their layer is prepared,
 * then run once on the latest x in a later task, ready for the next change.
 */
export function computeCall(attn, call, madeAhead = null) {
  const { x, weights, options } = call;
  latest = call;
  projection = madeAhead ? { ahead: true } : null;
  if (layer?.attn === attn && sameWeights(layer.weights, weights)) {
    if (madeAhead) return madeAhead; // the layer's x catches up at its next run
    const result = runInto(layer, x, options);
    const of = x.shape.length === 3 ? x.shape[0] * x.shape[1] : x.shape[0];
    projection = layer.projectedRows < of ? { rows: layer.projectedRows, of } : null;
    return result;
  }
  if (!preparing || preparing.attn !== attn || !sameWeights(preparing.weights, weights)) {
    const entry = { attn, weights };
    preparing = entry;
    attn.prepareSelfAttention(weights).then(
      (made) => {
        if (preparing !== entry) return made.free();
        preparing = null;
        layer?.free();
        layer = Object.assign(made, { attn, weights });
        try {
          // Projects every row once, and makes both sets of result arrays now rather than in the first edit.
          if (sameWeights(latest.weights, weights)) runInto(layer, latest.x, latest.options, true);
        } catch {
          // the same call failed in selfAttention too, and its error is on the page
        }
      },
      () => {
        if (preparing === entry) preparing = null; // selfAttention reports the error at every call
      },
    );
  }
  return madeAhead ?? attn.selfAttention(x, weights, options);
}

// Two sets of result arrays the layer writes into in turn (its `out`): ten fresh arrays at GPT-2's size are 2 MB
// of page faults, ~5 ms of every edit. The page still shows the last result while the next is written into the other.
const resultSets = { sizes: '', sets: [null, null], next: 0 };

/**
 * layer.run(x, options) into the set of arrays not shown. Each result comes back as a new view of its array: the
 * grids compare views by identity (renderScheduler.js sameView), and the same array holds new numbers every other call.
 */
function runInto(made, x, options, warm = false) {
  const out = resultSets.sets[resultSets.next];
  let result;
  try {
    result = made.run(x, out ? { ...options, out } : options);
  } catch (error) {
    if (!out) throw error;
    resultSets.sets = [null, null]; // other options, other results: new arrays (a bad input fails again here)
    result = made.run(x, options);
  }
  const sizes = Object.entries(result).map(([key, tensor]) => `${key} ${tensor.data.length}`);
  if (String(sizes) !== resultSets.sizes) resultSets.sets = [null, null];
  resultSets.sizes = String(sizes);
  resultSets.sets[resultSets.next] = Object.fromEntries(Object.entries(result).map(([key, t]) => [key, t.data]));
  resultSets.next = 1 - resultSets.next;
  if (warm && !resultSets.sets[resultSets.next]) {
    // fill() touches every page now, in this idle task: the first edit's copy then faults none in
    const fresh = (data) => new Float32Array(data.length).fill(0);
    resultSets.sets[resultSets.next] = Object.fromEntries(Object.entries(result).map(([k, t]) => [k, fresh(t.data)]));
  }
  const view = (data) => new Float32Array(data.buffer, data.byteOffset, data.length);
  return Object.fromEntries(Object.entries(result).map(([key, t]) => [key, new Tensor(view(t.data), t.shape)]));
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
