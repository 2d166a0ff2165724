// Softcapping and sliding windows, Gemma 2's two kinds of layer: the page's layer run causal as a global layer and as
// a sliding-window one, and with its scores capped, through the public API's `window` and `softcap` options.
import { attentionCall, headSlice, labelsFor } from '../../shared/inputs.js';

/** The keys query i sees: all i + 1 up to itself (global), or the last `w` of them (sliding, w given). */
export const keysSeen = (i, w = Infinity) => Math.min(i + 1, w);

/** The scores a causal layer of n tokens computes: n(n + 1)/2 (global), or Σ min(i + 1, w) (sliding). */
export const scoresComputed = (n, w = Infinity) =>
  Array.from({ length: n }, (_, i) => keysSeen(i, w)).reduce((a, b) => a + b, 0);

/** A flat [n, n] head slice as rows of plain numbers. */
const rowsOf = (tensor, head, n) => {
  const data = headSlice(tensor, head).data;
  return Array.from({ length: n }, (_, i) => Array.from(data.subarray(i * n, (i + 1) * n)));
};

/** The cell (i ≥ j, causal) whose scaled score is largest in magnitude. */
function largestScore(scaled) {
  let best = { i: 0, j: 0, value: scaled[0][0] };
  scaled.forEach((row, i) =>
    row.forEach((value, j) => {
      if (j <= i && Math.abs(value) > Math.abs(best.value)) best = { i, j, value };
    }),
  );
  return best;
}

/** The row (with two keys or more) whose largest weight is largest: the sharpest; null with a single token. */
function sharpestRow(weights) {
  let best = null;
  weights.forEach((row, i) => {
    if (i === 0) return; // a causal first row sees itself only: its weight is 1 with or without a cap
    const top = Math.max(...row.slice(0, i + 1));
    if (!best || top > best.top) best = { i, j: row.indexOf(top), top };
  });
  return best;
}

/**
 * Runs the state's layer (head `state.head`) causal three times through `selfAttention`: as a global layer, as a
 * sliding-window layer (`window: w`) and with its scores capped (`softcap: c`), as Gemma 2's layers do.
 *
 * | result           | shape    |                                                                  |
 * |------------------|----------|------------------------------------------------------------------|
 * | globalWeights    | [n][n]   | the global layer's weights (row i: keys 0..i)                    |
 * | slidingWeights   | [n][n]   | the sliding layer's (row i: keys i − w + 1..i)                   |
 * | scaled           | [n][n]   | q·kᵀ·scale, before the cap and the masks (scaledScores)          |
 * | capped           | [n][n]   | tanh(scaled / c)·c with the causal mask (−Infinity above it)     |
 * | cappedWeights    | [n][n]   | the softmax of the capped scores                                 |
 * @param {{ selfAttention: Function }} attn
 */
export function softcapWindowStep(attn, state) {
  const { n, head } = state;
  const w = state.slidingWindow;
  const c = state.softcap;
  const call = attentionCall({ ...state, causal: true, mask: null });
  const options = { ...call.options, causal: true, returnSteps: true };
  const global = attn.selfAttention(call.x, call.weights, options);
  const sliding = attn.selfAttention(call.x, call.weights, { ...options, window: w });
  const capped = attn.selfAttention(call.x, call.weights, { ...options, softcap: c });
  const globalWeights = rowsOf(global.weights, head, n);
  const slidingWeights = rowsOf(sliding.weights, head, n);
  const scaled = rowsOf(global.scaledScores, head, n);
  const cappedScores = rowsOf(capped.scores, head, n);
  const cappedWeights = rowsOf(capped.weights, head, n);
  const largest = largestScore(scaled);
  const sharp = sharpestRow(globalWeights);
  const last = n - 1;
  return {
    window: w,
    softcap: c,
    labels: labelsFor(state),
    globalWeights,
    slidingWeights,
    scaled,
    capped: cappedScores,
    cappedWeights,
    scores: { global: scoresComputed(n), sliding: scoresComputed(n, w) },
    // The keys the last token no longer sees in the sliding layer, and the weight the global layer gave them.
    lost: {
      count: Math.max(0, last + 1 - w),
      weight: globalWeights[last].slice(0, Math.max(0, last + 1 - w)).reduce((a, b) => a + b, 0),
    },
    largest: { ...largest, capped: cappedScores[largest.i][largest.j] },
    widest: Math.max(...cappedScores.flatMap((row, i) => row.slice(0, i + 1).map(Math.abs))),
    sharpest: sharp && { ...sharp, cappedTop: cappedWeights[sharp.i][sharp.j] },
  };
}
