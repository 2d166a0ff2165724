// A real model's head in the steps, edited: a number typed into the walk's X or one of its W's becomes an edit of
// attention-wasm/model's run (`edits`: { layer, step, row, col, value }, the step named as the engine names it), so
// that the model runs again with every edit and the later layers and the next token follow. Also the edits' link
// text ("0.x.3.5_0.25*1.wq.2.10_-1": layer.step.row.col_value, joined by "*", none of which a query string escapes).
import { headBlock, headWidth } from '../../../shared/matrices.js';
import { parseNumber } from '../../../shared/parse.js';

/** The walk's grids a reader may edit, by the engine's step names (the same as the page's matrix names). */
export const EDITABLE_STEPS = Object.freeze(['x', 'wq', 'wk', 'wv', 'wo']);

/** The most edits a link holds. */
export const MAX_EDITS = 64;

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

/** The shortest decimal that reads back as float32 `value` (0.1, not 0.10000000149011612). */
function shortFloat32(value) {
  for (let digits = 1; digits < 9; digits++) {
    const text = String(Number(value.toPrecision(digits)));
    if (Math.fround(Number(text)) === value) return text;
  }
  return String(value);
}

/** The edits as a link's text (see the file's note). */
export function editsText(edits) {
  return edits.map((e) => `${e.layer}.${e.step}.${e.row}.${e.col}_${shortFloat32(e.value)}`).join('*');
}

/** The edits a link's text holds; parts it cannot read are left out (the model checks the ranges when it runs). */
export function readEdits(text) {
  const edits = [];
  for (const part of String(text ?? '').split('*')) {
    const m = /^(\d{1,4})\.(x|wq|wk|wv|wo)\.(\d{1,6})\.(\d{1,6})_(\S{1,32})$/.exec(part);
    const value = m && parseNumber(m[5]);
    if (value === null || !Number.isFinite(value) || edits.length >= MAX_EDITS) continue;
    edits.push({ layer: Number(m[1]), step: m[2], row: Number(m[3]), col: Number(m[4]), value: Math.fround(value) });
  }
  return edits;
}
