// A real model's head in the steps, edited: a number typed into the walk's X or one of its W's becomes an edit of
// attention-wasm/model's run (`edits`: { layer, step, row, col, value }, the step named as the engine names it), so
// that the model runs again with every edit and the later layers and the next token follow. The edits in a link:
// app/link.js's edits.
import { headBlock, headWidth } from '../../../shared/matrices.js';

/**
 * The engine's edit for cell (i, j) of the shown head's block of grid `name` of layer `layer`: X is the layer's
 * normed input [n, d_model]; a W's column is the head's (W_k and W_v: its key-value head's) block, as
 * attentionWeightsFrom lays them out ([d_model, H·d_k], [d_model, H_kv·d_k], W_o [H·d_k, d_model]).
 */
export function walkEdit(state, layer, name, i, j, value) {
  const col = headBlock(state, name) * headWidth(state, name) + j;
  return { layer, step: name, row: i, col, value: Math.fround(value) };
}

/** The edits with `edit` in place of one of the same cell (the last typed number counts). */
export function withEdit(edits, edit) {
  const same = (e) => e.layer === edit.layer && e.step === edit.step && e.row === edit.row && e.col === edit.col;
  return [...edits.filter((e) => !same(e)), edit];
}

/**
 * A layer's weights (attentionWeightsFrom's { wq, wk, wv, wo, … }) with that layer's weight edits applied (copies:
 * the walk shows the weights the model ran with).
 */
export function editedWeights(weights, edits, layer) {
  const out = { ...weights };
  for (const e of edits) {
    if (e.layer !== layer || !e.step.startsWith('w') || !out[e.step]) continue;
    const t = out[e.step];
    if (t === weights[e.step]) out[e.step] = { ...t, data: Float32Array.from(t.data) };
    out[e.step].data[e.row * t.shape[1] + e.col] = e.value;
  }
  return out;
}
