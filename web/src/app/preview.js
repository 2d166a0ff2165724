// Dragging the temperature on a large layer: each frame recomputes only softmax(Q·Kᵀ·scale) from the last Q, K and
// V (attention-wasm's scaledDotProductAttention, microseconds) and redraws only the score and weight matrices and the
// heatmaps; the rest (head outputs, W_o, layer output) is marked stale until the full update that follows when the
// slider rests. Uses only the public fields of Steps (grids, heatmap, headViews).
import { averageHeads, headSlice } from '../shared/inputs.js';

const STALE = ['output', 'vOut', 'concat', 'layerOutput'];

/**
 * Draws the new weights of `call` (which differs from the last full call only in its scale).
 * @param {object} attn    the Attention instance
 * @param {object} steps   the page's Steps view
 * @param {object} state   the page's state
 * @param {object} last    the last full result (q, k, v with a head dimension)
 * @param {{ options: object }} call
 * @returns {number} the milliseconds spent in WebAssembly
 */
export function previewWeights(attn, steps, state, last, call) {
  const { mask, causal, scale } = call.options;
  const options = { causal, returnSteps: true };
  if (scale !== undefined) options.scale = scale; // else the library's own 1/√d_k, as in selfAttention
  if (mask) options.mask = mask;
  const t0 = performance.now();
  const sdpa = attn.scaledDotProductAttention(last.q, last.k, last.v, options);
  const computeMs = performance.now() - t0;
  const h = state.head;
  const redraw = (grid, tensor) => {
    const view = grid.pending ?? grid.shownView;
    if (view) grid.update({ ...view, data: headSlice(tensor, h).data });
  };
  redraw(steps.grids.scaled, sdpa.scaledScores);
  redraw(steps.grids.scores, sdpa.scores);
  redraw(steps.grids.weights, sdpa.weights);
  const weights = headSlice(sdpa.weights, h);
  steps.heatmap.update({ ...steps.heatmap.view, data: weights.data });
  const maps = steps.headViews;
  if (maps.length === state.numHeads + 1) {
    for (let head = 0; head < state.numHeads; head++) {
      maps[head].map.update({ ...maps[head].map.view, data: headSlice(sdpa.weights, head).data });
    }
    maps[state.numHeads].map.update({ ...maps[state.numHeads].map.view, ...averageHeads(sdpa.weights) });
  }
  setStale(steps, true);
  return computeMs;
}

/** Marks the matrices computed after the weights as out of date (or up to date again). */
export function setStale(steps, stale) {
  for (const name of STALE) steps.grids[name].element.classList.toggle('stale', stale);
}
