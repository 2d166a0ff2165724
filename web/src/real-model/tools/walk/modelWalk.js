// A real model's head in the page's step-by-step walk: the page's state made from that layer (its normed input x
// and its W's, from the checkpoint) and the walk's result read from the model's own captures of the layer's heads,
// in the layout selfAttention returns, so that steps 1 to 8 show the model's numbers.
import { adoptFlat } from '../../../app/attentionCalls.js';
import { AS_THE_MODEL, widenKvHeads } from '../../../own-model/modelFile.js';
import { checkSizes, withSizes } from '../../../shared/state.js';
import { tokenWord } from '../../../shared/tokens.js';

const made = new WeakMap(); // data → its rows: the same weights (another head of the layer) are not nested again

/**
 * [rows, cols] float data as rows (the page's matrix form), made once per data array, with the data handed to the
 * page's caches as the rows' flat copy (calls.js adoptFlat; the model's float32 numbers, read as they are, never
 * written): the steps then read it instead of flattening the rows again. X's rows are arrays of numbers; a weight's
 * (`views`) are Float32Array views of the data, read only: GPT-2's W_q, W_k, W_v and W_o as arrays were 2.4 million
 * numbers made for every layer opened, 6 ms and a garbage collection of 10 to 20 ms in the click that opened it.
 */
export function rowsOf({ data, shape: [rows, cols] }, { views = false } = {}) {
  if (made.has(data)) return made.get(data);
  const flat = data instanceof Float32Array ? data.subarray(0, rows * cols) : Float32Array.from(data);
  const out = new Array(rows);
  for (let i = 0; i < rows; i++) {
    if (views) {
      out[i] = flat.subarray(i * cols, (i + 1) * cols);
      continue;
    }
    const row = new Array(cols);
    for (let j = 0, at = i * cols; j < cols; j++) row[j] = flat[at + j];
    out[i] = row;
  }
  adoptFlat(out, flat, flat);
  made.set(data, out);
  return out;
}

/** Tensors [a, b] stacked into one [count, a, b]. */
function stack(tensors) {
  const [rows, cols] = tensors[0].shape;
  const data = new Float32Array(tensors.length * rows * cols);
  tensors.forEach((t, i) => data.set(t.data, i * rows * cols));
  return { data, shape: [tensors.length, rows, cols] };
}

/**
 * The layer's sizes as the page names them, or the reasons it does not fit the page's steps (d_model ≤ 1024, …).
 * @param {{ numHeads: number, numKvHeads: number, headDim: number, dModel: number }} spec  the model's sizes
 */
export function walkSizes(spec, n) {
  const sizes = { n, dModel: spec.dModel, dK: spec.headDim, dV: spec.headDim, numHeads: spec.numHeads };
  return { sizes, errors: Object.values(checkSizes(sizes)) };
}

/**
 * The page's state for head `head` of a layer: X is the layer's normed input (attention's x), the W's and biases
 * are the layer's (attentionWeightsFrom), grouped-query models keep their key/value heads (kvHeads), decoders are
 * causal, and the rows are labelled with the model's tokens.
 * @param {object} state  the page's state now
 * @param {{ x: { data: Float32Array, shape: number[] }, weights: object, tokens: string[], head: number,
 *   spec: object, name?: string }} layer  spec: model.spec; name: the model as the texts name it
 */
export function walkState(state, { x, weights, tokens, head, spec, name = 'this model' }) {
  const n = x.shape[0];
  const { sizes } = walkSizes(spec, n);
  const H = spec.numHeads;
  const G = spec.numKvHeads;
  const grouped = G < H;
  const views = { views: true };
  let wk = rowsOf(weights.wk, views);
  let wv = rowsOf(weights.wv, views);
  if (grouped) [wk, wv] = [widenKvHeads(wk, G, H), widenKvHeads(wv, G, H)];
  const biases = {};
  for (const key of ['bq', 'bk', 'bv', 'bo']) {
    if (weights[key]) biases[key] = { data: Float32Array.from(weights[key].data), shape: [weights[key].data.length] };
  }
  const words = tokens.map((token, i) => tokenWord(String(token).trim(), `t${i}`) || `t${i}`);
  const base = withSizes(
    { ...state, sentence: words.join(' '), x: null, wq: null, wk: null, wv: null, wo: null },
    sizes,
  );
  return {
    ...base,
    x: rowsOf(x),
    wq: rowsOf(weights.wq, views),
    wk,
    wv,
    wo: rowsOf(weights.wo, views),
    kvHeads: grouped ? G : null,
    head,
    ...AS_THE_MODEL,
    // What step 1 says X is (shared/provenance.js): the normed input of a pre-norm layer, or its input.
    modelLayer: {
      name,
      normed: ['preNorm', 'sandwich'].includes(spec.choices.placement) ? spec.labels.norms[0] : null,
      rotary: Boolean(spec.choices.rope),
    },
    causal: spec.choices.causal,
    biases,
  };
}

/**
 * The walk's result from the captures of every head of one layer (capture[h] is head h's, model.run's
 * `captures`), in selfAttention's layout: q [H, n, d_k], k and v [H_kv, n, d_k], the scores and weights
 * [H, n, n], heads [H, n, d_k], concat [n, H·d_k] and output [n, d_model] (after W_o).
 */
export function captureResult(captures, spec) {
  const H = spec.numHeads;
  const group = H / spec.numKvHeads;
  const kvFirst = Array.from({ length: spec.numKvHeads }, (_, g) => captures[g * group]);
  const pick = (list, key) => stack(list.map((c) => c[key]));
  const result = {
    q: pick(captures, 'q'),
    k: pick(kvFirst, 'k'),
    v: pick(kvFirst, 'v'),
    rawScores: pick(captures, 'rawScores'),
    scaledScores: pick(captures, 'scaledScores'),
    scores: pick(captures, 'scores'),
    weights: pick(captures, 'weights'),
    heads: pick(captures, 'headOutput'),
    concat: { data: captures[0].concat.data, shape: captures[0].concat.shape },
    output: { data: captures[0].output.data, shape: captures[0].output.shape },
  };
  if (captures[0].qRotated) {
    result.qRotated = pick(captures, 'qRotated');
    result.kRotated = pick(kvFirst, 'kRotated');
  }
  return result;
}
