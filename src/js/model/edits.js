// model.run's `edits`: numbers of a layer's steps replaced inside the forward (src/core/model/edits.h), each right
// after the forward computes its step, so that the rest of that layer, the later layers, the logits and `next`
// follow from them. Read and checked here, before anything is read from the checkpoint; each layer call then gets
// its own as rows of [step, block, row, col, value].
import { AttentionError, describe } from '../errors.js';
import { LAYER_STEPS } from '../generated/model-abi.js';
import { readList, readRecord } from '../read.js';
import { made } from './calls.js';

const bad = (message) => new AttentionError('BAD_OPTION', message);

// What each step's edit (and patch: patches.js) addresses: `head` 'query' (a head's own step), 'kv' (its key-value head's, GQA: shared),
// or none (the layer's); `cols` its width; `rope` a step of RoPE models only. Every row is a token (n rows), but for
// the weights (`weight`: the slots they are read into), in attentionWeightsFrom's layout [in, out].
const model = (c) => c.dModel;
const head = (c) => c.headDim;
const keys = (c, n) => n;
export const STEPS = {
  x: { cols: model },
  q: { head: 'query', cols: head },
  k: { head: 'kv', cols: head },
  v: { head: 'kv', cols: head },
  qRotated: { head: 'query', cols: head, rope: true },
  kRotated: { head: 'kv', cols: head, rope: true },
  rawScores: { head: 'query', cols: keys },
  scaledScores: { head: 'query', cols: keys },
  scores: { head: 'query', cols: keys },
  weights: { head: 'query', cols: keys },
  headOutput: { head: 'query', cols: head },
  concat: { cols: (c) => c.numHeads * c.headDim },
  output: { cols: model },
  residual: { cols: model },
  mlpInput: { cols: model },
  mlpHidden: { cols: (c) => c.dFf },
  mlpOutput: { cols: model },
  hidden: { cols: model },
  wq: { weight: 'wQ', part: 0, rows: model, cols: (c) => c.numHeads * c.headDim },
  wk: { weight: 'wK', part: 1, rows: model, cols: (c) => c.numKvHeads * c.headDim },
  wv: { weight: 'wV', part: 2, rows: model, cols: (c) => c.numKvHeads * c.headDim },
  wo: { weight: 'wO', rows: (c) => c.numHeads * c.headDim, cols: model },
};

/** The steps an edit may change, in the forward's order. */
export const EDITABLE_STEPS = Object.freeze(Object.keys(STEPS));

/**
 * run's `edits` for n tokens: [{ layer, head?, step, row, col, value }], each checked against the model's sizes.
 * `head` is given for a head's steps (for k, v and kRotated any head that reads that key-value head) and for no
 * other. @returns {{ layer: number, head: number | undefined, step: string, row: number, col: number, value: number }[]}
 */
export function readEdits(list, spec, n) {
  return readList(list, 'edits', 'an array of { layer, head?, step, row, col, value }').map((entry, i) => {
    const edit = readRecord(entry, `edits[${i}]`, ['layer', 'head', 'step', 'row', 'col', 'value'], 'key');
    const name = `edits[${i}] (step ${typeof edit.step === 'string' ? `'${edit.step}'` : describe(edit.step)})`;
    const step = Object.hasOwn(STEPS, edit.step) ? STEPS[edit.step] : null;
    if (!step) throw bad(`${name}: step must be one of ${EDITABLE_STEPS.join(', ')}`);
    if (step.rope && !spec.rope) throw bad(`${name}: ${edit.step} is a step of RoPE models only (LLaMA family)`);
    const within = (key, value, size, what) => {
      if (!Number.isInteger(value) || value < 0 || value >= size)
        throw bad(`${name}: ${key} ${describe(value)} is not ${what} (0 to ${size - 1})`);
    };
    within('layer', edit.layer, spec.numLayers, 'a layer of this model');
    if (step.head) within('head', edit.head, spec.numHeads, 'a head of this model');
    else if (edit.head !== undefined)
      throw bad(`${name}: ${edit.step} is the layer's step, not a head's: leave head out`);
    if (step.weight) within('row', edit.row, step.rows(spec), `a row of ${edit.step}`);
    else within('row', edit.row, n, 'a token of this input');
    within('col', edit.col, step.cols(spec, n), `a column of ${edit.step}`);
    if (typeof edit.value !== 'number' || !Number.isFinite(Math.fround(edit.value)))
      throw bad(`${name}: value must be a finite float32 number, got ${describe(edit.value)}`);
    return { layer: edit.layer, head: edit.head, step: edit.step, row: edit.row, col: edit.col, value: edit.value };
  });
}

/**
 * Layer l's edits for its call: the `edits` input [m, 5] (step, block, row, col, value), how many, and the steps they
 * change as bits 1 << LAYER_STEPS (the core's scratch depends on them); null when none edits layer l.
 */
export function layerEdits(edits, l, spec) {
  const mine = edits.filter((edit) => edit.layer === l && !STEPS[edit.step].weight);
  if (!mine.length) return null;
  const rows = new Float32Array(mine.length * 5); // [m, 5]
  const group = spec.numHeads / spec.numKvHeads;
  let steps = 0;
  mine.forEach(({ step, head, row, col, value }, e) => {
    const kind = STEPS[step].head;
    const block = kind === 'kv' ? Math.floor(head / group) : kind ? head : 0;
    rows.set([LAYER_STEPS[step], block, row, col, value], e * 5);
    steps |= 1 << LAYER_STEPS[step];
  });
  return { tensor: made(rows, [mine.length, 5], 'edits'), count: mine.length, steps };
}

/**
 * Writes layer l's weight edits (wq, wk, wv, wo: [in, out] as attentionWeightsFrom gives them) into the layer's
 * weights as read from the checkpoint (`inputs`, by slot), each edited tensor copied first: [in, out] (kInOut, GPT-2's
 * fused c_attn holding q | k | v side by side) or [out, in] (kOutIn). A weight the model keeps in WebAssembly memory
 * (`kept.addresses`, by slot, resident.js) is copied out of `kept.heap` into `inputs`, and the call reads the copy.
 */
export function editWeights(edits, l, inputs, spec, kept) {
  const write = weightWriter(inputs, spec, kept);
  for (const { layer, step, row, col, value } of edits)
    if (layer === l && STEPS[step].weight) write(step, row, col, value);
  return write;
}

/**
 * A writer of one layer's weights for one run (editWeights'): write(step, row, col, value) sets number [row, col] of
 * weight step `step` ([in, out]) in a copy of that weight, made at its first write.
 */
export function weightWriter(inputs, spec, kept = { addresses: {}, entries: [], heap: null }) {
  const copied = new Set();
  const { numHeads: H, numKvHeads: Hkv, headDim: dK } = spec;
  const has = (slot) => slot in inputs || slot in kept.addresses;
  return (step, row, col, value) => {
    const { weight, part } = STEPS[step];
    const fused = weight !== 'wO' && !has(weight);
    const slot = fused ? 'wQkv' : weight;
    if (!copied.has(slot) && slot in kept.addresses) {
      const entry = kept.entries.find((e) => e.slot === slot);
      const at = kept.addresses[slot] / 4;
      const data = kept.heap().slice(at, at + entry.shape.reduce((a, b) => a * b, 1));
      inputs[slot] = { data, shape: entry.shape };
      delete kept.addresses[slot];
    } else if (!copied.has(slot)) {
      inputs[slot] = { ...inputs[slot], data: inputs[slot].data.slice() };
    }
    copied.add(slot);
    const [rows, cols] = inputs[slot].shape; // as stored
    // the fused column: q | k | v side by side, or by head ([q_h | k_h | v_h], GPT-NeoX's)
    const perHead = fused && spec.choices.qkvLayout === 'perHead';
    const column = perHead
      ? Math.floor(col / dK) * 3 * dK + part * dK + (col % dK)
      : (fused ? [0, H * dK, (H + Hkv) * dK][part] : 0) + col;
    const at = spec.choices.layout === 'inOut' ? row * cols + column : column * cols + row;
    if (at >= rows * cols) throw new AttentionError('INTERNAL', `edit of ${step} outside ${slot}`);
    inputs[slot].data[at] = value;
  };
}
