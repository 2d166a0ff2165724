// The parts of the forward a run may leave out, read and checked before anything is read or computed: `from`, a
// start at a layer's input (hiddenStates[layer] of an earlier run), so that a change in layer L (an ablation, an
// edit, a head opened) recomputes layers L and after only; and `logits` of some rows, since the LM head of every
// row costs n times that of the one the prediction reads.
import { AttentionError, describe, formatShape } from '../errors.js';
import { readFloatTensor } from '../convert.js';
import { readRecord } from '../read.js';
import { Tensor } from '../tensor.js';

const bad = (message) => new AttentionError('BAD_OPTION', message);

const HIDDEN_STATE = {
  name: 'from.hiddenState',
  ranks: [2],
  layout: '[n, d_model]',
  mask: false,
  shapeName: 'from.hiddenState.shape',
  dataName: 'from.hiddenState.data',
};

/**
 * run's `from` for n tokens: { layer, hiddenState [n, d_model] } (the input of layer `layer`, as hiddenStates[layer]
 * of a run of the same ids gives it), or null. Layers before it are not run, so none of them may be captured,
 * ablated or edited. @returns {{ layer: number, hidden: object, tensor: Tensor } | null} `hidden` as a call's input
 */
export function readFrom(value, config, n, { layers, capture, ablate }) {
  if (value === undefined) return null;
  const from = readRecord(value, 'from', ['layer', 'hiddenState'], 'key');
  const { layer } = from;
  if (!Number.isInteger(layer) || layer < 0 || layer >= layers) {
    throw bad(`from.layer must be a layer that runs, 0 to ${layers - 1}, got ${describe(layer)}`);
  }
  const hidden = readFloatTensor(from.hiddenState, HIDDEN_STATE);
  const [rows, cols] = hidden.shape;
  if (rows !== n || cols !== config.dModel) {
    throw new AttentionError(
      'SHAPE_MISMATCH',
      `from.hiddenState has shape ${formatShape(hidden.shape)}, but layer ${layer}'s input is [n, d_model] = ${formatShape([n, config.dModel])} for these ${n} tokens`,
    );
  }
  const before = (l) => l < layer;
  const skipped = [...capture.map((c) => c.layer), ...ablate.map(([l]) => l)].find(before);
  if (skipped !== undefined) {
    throw bad(`layer ${skipped} is captured or ablated, but the run starts at layer ${layer} (from.layer)`);
  }
  const data = Float32Array.from(hidden.data); // the caller's array may change after the call: the run keeps a copy
  return { layer, hidden: { ...hidden, data }, tensor: new Tensor(data, [rows, cols]) };
}

/** Edits of layers a run from `from` does not run: BAD_OPTION (they would change nothing). */
export function checkEditsFrom(edits, from) {
  const early = from && edits.find((edit) => edit.layer < from.layer);
  if (early) throw bad(`an edit of layer ${early.layer}, but the run starts at layer ${from.layer} (from.layer)`);
}

/** run's `logits`: true (every row), false, 'last', or the rows wanted, each a token of the input. */
export function readLogits(value) {
  if (value === undefined || typeof value === 'boolean' || value === 'last') return value ?? true;
  if (!Array.isArray(value) || value.length === 0) {
    throw bad(`logits must be true, false, 'last' or a non-empty array of rows, got ${describe(value)}`);
  }
  return value.map((row, i) => {
    if (!Number.isInteger(row) || row < 0) throw bad(`logits[${i}] is ${describe(row)}, not a row (an integer ≥ 0)`);
    return row;
  });
}

/** The rows of the logits for n tokens: null for all, else the list ('last': [n − 1]), each checked against n. */
export function logitRows(logits, n) {
  if (logits === true || logits === false) return null;
  const rows = logits === 'last' ? [n - 1] : logits;
  const outside = rows.find((row) => row >= n);
  if (outside !== undefined) throw bad(`logits asks for row ${outside}, but the input has ${n} tokens`);
  return rows;
}

/** Rows `rows` of h [n, d], as a call's input [rows.length, d]; h itself when rows is null. */
export function pickRows(h, rows) {
  if (!rows) return h;
  const d = h.shape[1];
  const data = new Float32Array(rows.length * d);
  rows.forEach((row, i) => data.set(h.data.subarray(row * d, (row + 1) * d), i * d));
  return new Tensor(data, [rows.length, d]);
}
