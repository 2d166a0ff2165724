// From the page's state to the arguments of attention-wasm's selfAttention, and back to per-head views
// of its results.
import { currentMatrix, kvHeadsOf } from './matrices.js';
import { addMatrices, sinusoidalPositions } from './positions.js';
import { columnBlockOf, tensorOf } from './reuse.js';
import { tokenLabels, tokenize } from './tokens.js';

/**
 * The `scale` option: with scaling, 1/(T·√d_k) (left to the library's default 1/√d_k when T = 1);
 * without, 1/T.
 * @returns {number | undefined}
 */
export function scaleFor(state) {
  if (state.scaling) return state.temperature === 1 ? undefined : 1 / (state.temperature * Math.sqrt(state.dK));
  return 1 / state.temperature;
}

/** The factor the scores are multiplied by, as a number. */
export function scaleValue(state) {
  return scaleFor(state) ?? 1 / Math.sqrt(state.dK);
}

/** X as attention gets it: the embeddings, plus the positional encodings when they are on. */
export function attentionInput(state) {
  const x = currentMatrix(state, 'x');
  return state.positions ? addMatrices(x, sinusoidalPositions(state.n, state.dModel)) : x;
}

/** Row and column labels: one per token. */
export function labelsFor(state) {
  return tokenLabels(tokenize(state.sentence), state.n);
}

/** The mask option (nested booleans, true = may attend), or undefined when every cell allows. */
export function maskOption(state) {
  return state.mask ? state.mask.map((row) => row.slice()) : undefined;
}

/**
 * Whether query i may attend to key j, after both the clicked mask and the causal mask.
 * @returns {'open' | 'blocked' | 'causal'}
 */
export function maskCell(state, i, j) {
  if (state.causal && j > i) return 'causal';
  return state.mask && !state.mask[i][j] ? 'blocked' : 'open';
}

/** The first `width` columns of a matrix as `{ data, shape }`, made once per matrix (W_k, W_v of grouped heads). */
function firstColumns(rows, width) {
  if (width === rows[0].length) return tensorOf(rows);
  return { data: columnBlockOf(rows, 0, width).data, shape: [rows.length, width] };
}

/**
 * The arguments of `attn.selfAttention(x, weights, options)` for the state. numHeads is always given, so
 * every per-head result has a head dimension: q [H, n, d_k], weights [H, n, n], heads [H, n, d_v]; then
 * concat [n, H·d_v] and, through W_o, output [n, d_model]. With grouped-query attention (kvHeadsOf < H), W_k and W_v
 * give their first G blocks and numKvHeads is G: k [G, n, d_k], v [G, n, d_v].
 */
export function attentionCall(state) {
  const flat = tensorOf; // made once per matrix: an unchanged matrix is not copied again
  const options = { causal: state.causal, returnSteps: true };
  const scale = scaleFor(state);
  if (scale !== undefined) options.scale = scale;
  const mask = maskOption(state);
  if (mask) options.mask = mask;
  const G = kvHeadsOf(state);
  const weights = {
    wq: flat(currentMatrix(state, 'wq')),
    wk: firstColumns(currentMatrix(state, 'wk'), G * state.dK),
    wv: firstColumns(currentMatrix(state, 'wv'), G * state.dV),
    wo: flat(currentMatrix(state, 'wo')),
    numHeads: state.numHeads,
    ...fittingBiases(state, G),
  };
  if (G !== state.numHeads) weights.numKvHeads = G;
  return { x: flat(attentionInput(state)), weights, options };
}

/** The biases read from a model's file (state.biases: bq, bk, bv, bo as { data, shape }) that fit the sizes. */
function fittingBiases({ biases, numHeads, dK, dV, dModel }, kvHeads) {
  if (!biases) return {};
  const sizes = { bq: numHeads * dK, bk: kvHeads * dK, bv: kvHeads * dV, bo: dModel };
  return Object.fromEntries(Object.entries(biases).filter(([key, b]) => b && b.data.length === sizes[key]));
}

/**
 * One head's [rows, cols] matrix out of a [H, rows, cols] tensor, as a flat Float32Array view.
 * @param {{ data: Float32Array, shape: number[] }} tensor
 */
export function headSlice(tensor, head) {
  const [rows, cols] = tensor.shape.slice(-2);
  const size = rows * cols;
  return { data: tensor.data.subarray(head * size, (head + 1) * size), shape: [rows, cols] };
}

/** Columns [from, from + width) of a flat [rows, cols] matrix, e.g. one head's block of W_q. */
export function columnBlock(rows, from, width) {
  return rows.map((row) => row.slice(from, from + width));
}

/** The average of the heads' weights: a [n, n] matrix from [H, n, n]. */
export function averageHeads(weights) {
  const [numHeads, rows, cols] = weights.shape;
  const size = rows * cols;
  const out = new Float32Array(size);
  for (let h = 0; h < numHeads; h++) {
    for (let i = 0; i < size; i++) out[i] += weights.data[h * size + i];
  }
  for (let i = 0; i < size; i++) out[i] /= numHeads;
  return { data: out, shape: [rows, cols] };
}
