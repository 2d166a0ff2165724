// model.run's `patches`: whole activations replaced inside the forward (TransformerLens's hooks that return a value),
// each right after the forward computes its step, so that everything after it follows. A patch names a step as
// `edits` and the captures do, or 'input' (the residual stream entering the layer, hiddenStates[layer]: TransformerLens's
// resid_pre), and gives the step's full value; `rows` says which token rows of it are replaced (default all). The
// 'input' rows are written into the layer's input before its call; every other step's become rows of the layer call's
// `edits` input (edits.js's layout: [step, block, row, col, value]), after the run's own edits, so that a patch wins.
import { AttentionError, describe, formatShape } from '../errors.js';
import { readFloatTensor } from '../convert.js';
import { readList, readRecord } from '../read.js';
import { LAYER_STEPS } from '../generated/model-abi.js';
import { Tensor } from '../tensor.js';
import { EDITABLE_STEPS, STEPS } from './edits.js';

const bad = (message) => new AttentionError('BAD_OPTION', message);

/** The steps a patch may replace: 'input', then every step `edits` accepts, in the forward's order. */
export const PATCH_STEPS = Object.freeze(['input', ...EDITABLE_STEPS]);

const INPUT = { cols: (c) => c.dModel };

/** The [rows, cols] of a step's value for n tokens: [n, cols], or a weight's [in, out]. */
export function patchShape(step, spec, n) {
  const info = step === 'input' ? INPUT : STEPS[step];
  return [info.weight ? info.rows(spec) : n, info.cols(spec, n)];
}

/** Finds the first value of `data` that is not a finite float32 (but −∞ where `masked` allows it), or -1. */
function firstNonFinite(data, masked) {
  for (let i = 0; i < data.length; i++) {
    if (!Number.isFinite(Math.fround(data[i])) && !(masked && data[i] === -Infinity)) return i;
  }
  return -1;
}

/**
 * Checks a step name against the model: one of PATCH_STEPS, and a RoPE step only on a model with RoPE. `name` names
 * the entry in messages. @returns the step's table row (edits.js's STEPS, or 'input''s)
 */
export function readStep(step, spec, name, allowed = PATCH_STEPS) {
  if (typeof step !== 'string' || !allowed.includes(step)) {
    throw bad(`${name}: step ${describe(step)} is not one of ${allowed.join(', ')}`);
  }
  const info = step === 'input' ? INPUT : STEPS[step];
  if (info.rope && !spec.rope) {
    throw bad(
      `${name}: step '${step}' is a step of RoPE models only (the LLaMA family); this ${spec.family} model has none`,
    );
  }
  return info;
}

/**
 * run's `patches` for n tokens: [{ layer, head?, step, rows?, value }], each checked against the model's sizes:
 * `value` of the step's full shape (patchShape) and finite, `rows` distinct rows of it.
 * @returns {{ layer: number, head: number | undefined, step: string, rows: number[], data: Float32Array,
 *   cols: number }[]}  data: the value as float32, [shape rows, cols]
 */
export function readPatches(list, spec, n) {
  return readList(list, 'patches', 'an array of { layer, head?, step, rows?, value }').map((entry, i) => {
    const patch = readRecord(entry, `patches[${i}]`, ['layer', 'head', 'step', 'rows', 'value'], 'key');
    const name = `patches[${i}] (step ${typeof patch.step === 'string' ? `'${patch.step}'` : describe(patch.step)})`;
    const info = readStep(patch.step, spec, name);
    const within = (key, value, size, what) => {
      if (!Number.isInteger(value) || value < 0 || value >= size)
        throw bad(`${name}: ${key} ${describe(value)} is not ${what} (0 to ${size - 1})`);
    };
    within('layer', patch.layer, spec.numLayers, 'a layer of this model');
    if (info.head) within('head', patch.head, spec.numHeads, 'a head of this model');
    else if (patch.head !== undefined)
      throw bad(`${name}: ${patch.step} is the layer's step, not a head's: leave head out`);
    const shape = patchShape(patch.step, spec, n);
    let rows = Array.from({ length: shape[0] }, (_, r) => r);
    if (patch.rows !== undefined) {
      if (!Array.isArray(patch.rows) || patch.rows.length === 0)
        throw bad(`${name}: rows must be a non-empty array of rows, got ${describe(patch.rows)}`);
      const what = info.weight ? `a row of ${patch.step}` : 'a token of this input';
      patch.rows.forEach((row, r) => within(`rows[${r}]`, row, shape[0], what));
      if (new Set(patch.rows).size !== patch.rows.length) throw bad(`${name}: rows lists a row twice`);
      rows = patch.rows.slice();
    }
    const value = readFloatTensor(patch.value, {
      name: `${name}.value`,
      ranks: [2],
      layout: `[${info.weight ? 'in' : 'n'}, ${info.weight ? 'out' : 'cols'}]`,
      mask: false,
      shapeName: `${name}.value.shape`,
      dataName: `${name}.value.data`,
      allowNegativeInfinity: patch.step === 'scores',
    });
    if (value.shape[0] !== shape[0] || value.shape[1] !== shape[1]) {
      throw new AttentionError(
        'SHAPE_MISMATCH',
        `${name}.value has shape ${formatShape(value.shape)}, but ${patch.step} of layer ${patch.layer} is ${formatShape(shape)} (the step's full shape; rows picks the rows replaced)`,
      );
    }
    const data = Float32Array.from(value.data); // a copy: the caller's array may change after the call
    const at = firstNonFinite(value.data, patch.step === 'scores');
    if (at >= 0) {
      const [r, c] = [Math.floor(at / shape[1]), at % shape[1]];
      const allowed = patch.step === 'scores' ? ' (or −Infinity: a masked key)' : '';
      throw new AttentionError(
        'NON_FINITE',
        `${name}.value[${r}][${c}] is ${value.data[at]}, not a finite float32${allowed}`,
      );
    }
    return { layer: patch.layer, head: patch.head, step: patch.step, rows, data, cols: shape[1] };
  });
}

/** Layer l's input x [n, d] with the 'input' patches of layer l written into it: a new Tensor, or x itself. */
export function patchInput(patches, l, x) {
  const mine = patches.filter((p) => p.layer === l && p.step === 'input');
  if (!mine.length) return x;
  const data = Float32Array.from(x.data);
  for (const { rows, data: value, cols } of mine) {
    for (const r of rows) data.set(value.subarray(r * cols, (r + 1) * cols), r * cols);
  }
  return new Tensor(data, x.shape.slice());
}

/**
 * Layer l's patches of the layer call's steps as rows of its `edits` input, [m, 5] (step, block, row, col, value), with
 * their count; null when none. Weight patches are not among them (writeWeightPatches).
 */
export function patchEditRows(patches, l, spec) {
  const mine = patches.filter((p) => p.layer === l && p.step !== 'input' && !STEPS[p.step].weight);
  if (!mine.length) return null;
  const count = mine.reduce((sum, p) => sum + p.rows.length * p.cols, 0);
  const data = new Float32Array(count * 5); // [m, 5]
  const group = spec.numHeads / spec.numKvHeads;
  let e = 0;
  for (const { step, head, rows, data: value, cols } of mine) {
    const kind = STEPS[step].head;
    const block = kind === 'kv' ? Math.floor(head / group) : kind ? head : 0;
    const code = LAYER_STEPS[step];
    for (const r of rows) {
      for (let c = 0; c < cols; c++, e++) data.set([code, block, r, c, value[r * cols + c]], e * 5);
    }
  }
  return { data, count, steps: mine.map((p) => p.step) };
}

/** Writes layer l's weight patches (wq, wk, wv, wo) through `write` (edits.js's weightWriter). */
export function writeWeightPatches(patches, l, write) {
  for (const { layer, step, rows, data, cols } of patches) {
    if (layer !== l || step === 'input' || !STEPS[step].weight) continue;
    for (const r of rows) for (let c = 0; c < cols; c++) write(step, r, c, data[r * cols + c]);
  }
}
