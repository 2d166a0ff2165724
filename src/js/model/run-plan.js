// model.run's input and options, read and checked once into a run plan before anything is read from the checkpoint
// or computed (as plan.js does for the attention API). OPTIONS is the one list of run's options: each entry reads its
// option (undefined when not given) into the plan, in the table's order, and may check it against the entries above
// it; so a new option is one entry here. The forward (model.js) then reads the plan only.
import { AttentionError, describe, formatShape } from '../errors.js';
import { readFloatTensor } from '../convert.js';
import { readList, readRecord } from '../read.js';
import { firstNonFinite } from '../scan.js';
import { Tensor, nonFiniteError } from '../tensor.js';
import { readEdits } from './edits.js';
import { readSignal } from './signal.js';
import { readPatches } from './patches.js';
import { readAblate } from './ablation.js';
import { encodeText } from './tokenize.js';

const bad = (message) => new AttentionError('BAD_OPTION', message);

/** A list of integers (an array or typed array), each checked by `check(value, i)`. */
function integers(value, name, check) {
  if (!Array.isArray(value) && !(ArrayBuffer.isView(value) && !(value instanceof DataView))) {
    throw bad(`${name} must be an array of integers, got ${describe(value)}`);
  }
  return Array.from(value, (x, i) => {
    if (!Number.isSafeInteger(x)) throw bad(`${name}[${i}] is ${describe(x)}, not an integer`);
    check(x, i);
    return x;
  });
}

/** Token ids: integers in the vocabulary, at least one, at most the model's positions. */
function checkIds(ids, spec, name) {
  const list = integers(ids, name, (id, i) => {
    if (id < 0 || id >= spec.vocabSize) {
      throw bad(`${name}[${i}] is ${id}, outside the vocabulary [0, ${spec.vocabSize})`);
    }
  });
  if (list.length === 0) throw bad(`${name} is empty: give at least one token`);
  if (list.length > spec.maxPositions) {
    throw new AttentionError(
      'TOO_MANY_TOKENS',
      `${list.length} tokens, but this model has positions for ${spec.maxPositions} (config.json's ${spec.fields.maxPositions}${spec.positions.offset ? ` less the ${spec.positions.offset} before the first token's` : ''})`,
    );
  }
  return list;
}

/**
 * run's (and generate's) input: text (with the folder's tokenizer.json) or { ids } (token ids in [0, vocab)), at
 * most as many as the model has positions. @returns {{ ids: number[], rawTokens?: string[], tokens?: string[] }}
 */
export function readRunInput(input, spec, tokenizer, name = 'input') {
  const at = name === 'input' ? '' : `${name}.`;
  if (typeof input === 'string') {
    const instead = `pass token ids, ${name === 'input' ? 'run(' : `${name}: `}{ ids: [...] }${name === 'input' ? ')' : ''}`;
    const encoded = encodeText(input, tokenizer, instead); // model.tokenize's encoding (tokenize.js)
    const what = name === 'input' ? 'the tokenizer’s ids' : `the tokenizer’s ids of ${name}`;
    return { ...encoded, ids: checkIds(encoded.ids, spec, what) };
  }
  const { ids } = readRecord(input, name, ['ids'], name === 'input' ? 'input' : 'key');
  const list = checkIds(ids, spec, `${at}ids`);
  return tokenizer ? { ids: list, tokens: list.map(tokenizer.readable) } : { ids: list };
}

/** true or false, default true. */
function readFlag(value, name) {
  if (value !== undefined && typeof value !== 'boolean')
    throw bad(`${name} must be true or false, got ${describe(value)}`);
  return value ?? true;
}

/** A layer and a head of the model, for `where`'s message. */
function checkLayerHead(spec, layer, head, where) {
  if (!Number.isInteger(layer) || layer < 0 || layer >= spec.numLayers) {
    throw bad(`${where}: layer ${describe(layer)} is not a layer of this model (0 to ${spec.numLayers - 1})`);
  }
  if (!Number.isInteger(head) || head < 0 || head >= spec.numHeads) {
    throw bad(`${where}: head ${describe(head)} is not a head of this model (0 to ${spec.numHeads - 1})`);
  }
}

/**
 * `logits`: true (every row), false, 'last', or the rows wanted, each a token of the input; with `logitRows`, the
 * rows of the LM head to compute: null for all, else the list ('last': [n − 1]).
 */
function readLogits(value, { n }) {
  if (value === undefined || typeof value === 'boolean' || value === 'last') {
    const logits = value ?? true;
    return { logits, logitRows: logits === 'last' ? [n - 1] : null };
  }
  if (!Array.isArray(value) || value.length === 0) {
    throw bad(`logits must be true, false, 'last' or a non-empty array of rows, got ${describe(value)}`);
  }
  const rows = value.map((row, i) => {
    if (!Number.isInteger(row) || row < 0) throw bad(`logits[${i}] is ${describe(row)}, not a row (an integer ≥ 0)`);
    return row;
  });
  const outside = rows.find((row) => row >= n);
  if (outside !== undefined) throw bad(`logits asks for row ${outside}, but the input has ${n} tokens`);
  return { logits: rows, logitRows: rows };
}

const HIDDEN_STATE = {
  name: 'from.hiddenState',
  ranks: [2],
  layout: '[n, d_model]',
  mask: false,
  shapeName: 'from.hiddenState.shape',
  dataName: 'from.hiddenState.data',
};

/**
 * `from`: { layer, hiddenState [n, d_model] }, a start at a layer's input (hiddenStates[layer] of a run of the same
 * ids), so that a change in layer L (an ablation, an edit, a head opened) recomputes layers L and after only. Layers
 * before it are not run, so none of them may be captured, ablated or edited. `first` is the first layer run.
 * @returns {{ from: { layer: number, hidden: object, tensor: Tensor } | null, first: number }} `hidden` as a call's
 *   input, `tensor` as hiddenStates[layer]
 */
function readFrom(value, { spec, n, plan }) {
  if (value === undefined) return { from: null, first: 0 };
  const from = readRecord(value, 'from', ['layer', 'hiddenState'], 'key');
  const { layer } = from;
  if (!Number.isInteger(layer) || layer < 0 || layer >= plan.layers) {
    throw bad(`from.layer must be a layer that runs, 0 to ${plan.layers - 1}, got ${describe(layer)}`);
  }
  const hidden = readFloatTensor(from.hiddenState, HIDDEN_STATE);
  const [rows, cols] = hidden.shape;
  if (rows !== n || cols !== spec.dModel) {
    throw new AttentionError(
      'SHAPE_MISMATCH',
      `from.hiddenState has shape ${formatShape(hidden.shape)}, but layer ${layer}'s input is [n, d_model] = ${formatShape([n, spec.dModel])} for these ${n} tokens`,
    );
  }
  const skipped = [...plan.capture, ...plan.ablate].map((c) => c.layer).find((l) => l < layer);
  if (skipped !== undefined) {
    throw bad(`layer ${skipped} is captured or ablated, but the run starts at layer ${layer} (from.layer)`);
  }
  const early = [...plan.edits, ...plan.patches].find((edit) => edit.layer < layer);
  if (early) {
    const what = plan.edits.includes(early) ? 'an edit' : 'a patch';
    throw bad(`${what} of layer ${early.layer}, but the run starts at layer ${layer} (from.layer)`);
  }
  const data = Float32Array.from(hidden.data); // the caller's array may change after the call: the run keeps a copy
  const at = firstNonFinite(data, false); // NaN or ±Infinity, refused before any weight is read
  if (at >= 0) throw nonFiniteError({ data, name: 'from.hiddenState', shape: hidden.shape }, at);
  return { from: { layer, hidden: { ...hidden, data }, tensor: new Tensor(data, [rows, cols]) }, first: layer };
}

/**
 * run's options, in the order they are read: each entry reads its option's value (undefined when not given) with
 * `{ spec, n, plan }` (the model's normalized description, the number of tokens, and the plan so far, with the
 * options above it) and returns the fields it sets in the plan.
 */
const OPTIONS = {
  attentions: (value) => ({ attentions: readFlag(value, 'attentions') }),
  hiddenStates: (value) => ({ hiddenStates: readFlag(value, 'hiddenStates') }),
  logits: readLogits,
  capture: (value, { spec }) => ({
    capture: readList(value ?? undefined, 'capture', 'an array of { layer, head }').map((entry, i) => {
      const { layer, head } = readRecord(entry, `capture[${i}]`, ['layer', 'head'], 'key');
      checkLayerHead(spec, layer, head, `capture[${i}]`);
      return { layer, head };
    }),
  }),
  // ablation.js: [layer, head] or { layer, head, mode, reference }, a reference prompt read as the input
  ablate: (value, { spec, n, tokenizer }) => ({
    ablate: readAblate(value, spec, n, (input, name) => readRunInput(input, spec, tokenizer, name)),
  }),
  edits: (value, { spec, n }) => ({ edits: readEdits(value, spec, n) }), // edits.js: each step's shape
  patches: (value, { spec, n }) => ({ patches: readPatches(value, spec, n) }), // patches.js: each step's full shape
  topK: (value, { spec }) => {
    const topK = value ?? 5;
    if (!Number.isInteger(topK) || topK < 1) throw bad(`topK must be a positive integer, got ${describe(topK)}`);
    return { topK: Math.min(topK, spec.vocabSize) };
  },
  tokenTypeIds: (value, { spec, n }) => {
    if (value === undefined) return { tokenTypeIds: undefined };
    const tokenTypeIds = integers(value, 'tokenTypeIds', (type, i) => {
      if (type < 0 || type >= Math.max(spec.typeVocabSize, 1)) {
        throw bad(`tokenTypeIds[${i}] is ${type}, outside [0, ${spec.typeVocabSize}) (type_vocab_size)`);
      }
    });
    if (tokenTypeIds.length !== n)
      throw bad(`tokenTypeIds holds ${tokenTypeIds.length} types for ${n} tokens: one each`);
    return { tokenTypeIds };
  },
  signal: (value) => ({ signal: readSignal(value, 'run options') }),
  // the first `layers` layers only (a view of layer 3 needs 3 layers' weights); fewer than all gives no logits
  layers: (value, { spec, plan }) => {
    const layers = value ?? spec.numLayers;
    if (!Number.isInteger(layers) || layers < 1 || layers > spec.numLayers) {
      throw bad(`layers must be a whole number from 1 to ${spec.numLayers}, got ${describe(value)}`);
    }
    for (const { layer } of [...plan.capture, ...plan.ablate, ...plan.patches]) {
      if (layer >= layers) throw bad(`layer ${layer} is captured, ablated or patched, but only ${layers} layer(s) run`);
    }
    return { layers };
  },
  // per-token next-token cross-entropy (loss.js): the LM head of every row; decoders only, all layers
  loss: (value, { spec, plan }) => {
    const loss = readFlag(value, 'loss') && value !== undefined;
    if (loss && !spec.choices.causal) {
      throw new AttentionError(
        'UNSUPPORTED_MODEL',
        `loss is the next-token cross-entropy of a decoder; this ${spec.family} model predicts masked tokens`,
      );
    }
    if (loss && plan.layers < spec.numLayers)
      throw bad(`loss needs every layer's output, but layers is ${plan.layers}`);
    return { loss };
  },
  from: readFrom,
};

/** The options run takes, in OPTIONS' order. */
export const RUN_OPTIONS = Object.freeze(Object.keys(OPTIONS));

/**
 * A run's plan: its input and options, read and checked against the model's sizes.
 *
 * | field                      | what                                                                          |
 * |----------------------------|-------------------------------------------------------------------------------|
 * | ids, tokens?, rawTokens?   | the input (readRunInput)                                                      |
 * | n                          | ids.length                                                                    |
 * | attentions, hiddenStates   | booleans: return them                                                         |
 * | logits, logitRows          | true / false / 'last' / rows; the LM head's rows: null (all) or a list        |
 * | capture                    | [{ layer, head }]                                                             |
 * | ablate                     | [{ layer, head, mode, reference: { ids } | null }] (ablation.js)             |
 * | edits                      | [{ layer, head?, step, row, col, value }] (edits.js)                          |
 * | patches                    | [{ layer, head?, step, rows, data, cols }] (patches.js)                       |
 * | topK                       | how many tokens `next` lists (at most the vocabulary)                         |
 * | tokenTypeIds               | number[] or undefined                                                         |
 * | signal                     | an AbortSignal or undefined                                                   |
 * | layers                     | the layers run: [first, layers)                                               |
 * | loss                       | boolean: the next-token cross-entropy (every row's logits computed)           |
 * | from, first                | the start at a layer's input ({ layer, hidden, tensor }) or null; its layer (0) |
 * @param {object} spec  the model's normalized description (spec.js)
 * @param {{ encode: Function, readable: Function } | null} tokenizer
 */
export function readRunPlan(input, options, spec, tokenizer) {
  const plan = readRunInput(input, spec, tokenizer);
  plan.n = plan.ids.length;
  const given = readRecord(options, 'options', RUN_OPTIONS, 'option');
  const context = { spec, n: plan.n, plan, tokenizer };
  for (const [name, read] of Object.entries(OPTIONS)) Object.assign(plan, read(given[name], context));
  return plan;
}
