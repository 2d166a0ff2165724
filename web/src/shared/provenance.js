// Where the numbers of X, W_q, W_k, W_v and W_o came from: a model's file, numbers given (typed, pasted, a link or an
// element's data), the designed heads, or the seed; and those sources in words, so that every text follows them.
import { generatedMatrix, matrixShape } from './matrices.js';

/** The matrices' names as the texts write them. */
const TITLES = { x: 'X', wq: 'W_q', wk: 'W_k', wv: 'W_v', wo: 'W_o' };
const DESIGNED = new Set(['x', 'wq', 'wk']);

const changedCounts = new WeakMap(); // override rows → { base, count }

/** How many cells of the override `rows` differ from `base` (the seed's or the designed matrix), once per pair. */
function changedCells(rows, base) {
  const known = changedCounts.get(rows);
  if (known?.base === base) return known.count;
  let count = 0;
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i];
    const from = base[i];
    for (let j = 0; j < row.length; j++) if (row[j] !== from?.[j]) count++;
  }
  changedCounts.set(rows, { base, count });
  return count;
}

/**
 * Where a matrix's numbers came from.
 * - `file`: read from a model's file ("Use your own model");
 * - `given`: typed, pasted, from a link or an element's data, at least half of them unlike the seed's;
 * - `designed`: built by hand for the designed heads (X, W_q, W_k), `edits` of them changed;
 * - `seed`: random from the seed, `edits` of them changed.
 * @param {object} state
 * @param {'x' | 'wq' | 'wk' | 'wv' | 'wo'} name
 * @returns {{ from: 'file' | 'given' | 'designed' | 'seed', edits: number }}
 */
export function sourceOf(state, name) {
  if (name === 'wk' && state.shareQK) return sourceOf(state, 'wq');
  const base = state.design && DESIGNED.has(name) ? 'designed' : 'seed';
  const rows = state[name];
  if (!rows) return { from: base, edits: 0 };
  if (state.fromFile) return { from: 'file', edits: 0 };
  const edits = changedCells(rows, generatedMatrix(state, name));
  const [r, c] = matrixShape(state, name);
  return 2 * edits >= r * c ? { from: 'given', edits } : { from: base, edits };
}

/** "X", "X and W_q", "X, W_q and W_k". */
export function listWords(words) {
  return words.length < 2 ? words.join('') : `${words.slice(0, -1).join(', ')} and ${words[words.length - 1]}`;
}

/**
 * Where a model's numbers come from, as the texts say it: the file of the model a real model's head is from
 * (`state.modelLayer`, real-model/tools/walk/modelWalk.js), or the file given to "Use your own model".
 */
const fileOf = (state) => (state.modelLayer ? `${state.modelLayer.name}'s file` : "your model's file");

/** A source as the end of a sentence "X is …" / "X and W_q are …". */
function phrase(state, { from, edits }) {
  const changed = edits ? `, with ${edits} number${edits > 1 ? 's' : ''} changed by hand` : '';
  if (from === 'file') return `read from ${fileOf(state)}`;
  if (from === 'given') return 'numbers typed, pasted or given, not drawn from the seed';
  if (from === 'designed') return `built by hand for the designed heads${changed}`;
  return `random from seed ${state.seed}${changed}`;
}

/**
 * The sources of some matrices in words, those with the same source together: "X, W_q and W_k are random from
 * seed 42" or "X is read from your model's file; W_q is random from seed 42".
 * @param {string[]} names  of x, wq, wk, wv, wo
 */
export function sourcesText(state, names) {
  const groups = new Map();
  for (const name of names) {
    const words = phrase(state, sourceOf(state, name));
    groups.set(words, [...(groups.get(words) ?? []), TITLES[name]]);
  }
  return [...groups]
    .map(([words, titles]) => `${listWords(titles)} ${titles.length > 1 ? 'are' : 'is'} ${words}`)
    .join('; ');
}

/** Whether every one of `names` is random from the seed (edited or not). */
export const allSeeded = (state, names) => names.every((name) => sourceOf(state, name).from === 'seed');

/**
 * What X is for a real model's layer (`state.modelLayer`: { name, normed, rotary }): its input after the layer's
 * first norm (pre-norm models: GPT-2, LLaMA), or the hidden states entering it (post-norm: BERT), computed by the
 * model's run up to the layer; and where positions are.
 */
function modelLayerText({ name, normed, rotary }) {
  const what = normed
    ? `this layer's input after its first norm (${normed})`
    : 'the hidden states entering this layer (for the first layer, the embeddings after their norm)';
  const positions = rotary
    ? 'Positions are not added to X here: the model rotates q and k by position (RoPE).'
    : "They carry the position embeddings the model adds to the first layer's input.";
  return `Here X is computed by ${name}, run up to this layer: ${what}, not rows of the page's table. ${positions}`;
}

/** Step 1's note under X: what its rows are. */
export const xNote = (state) =>
  state.fromFile && state.modelLayer
    ? `${state.modelLayer.normed ? "the layer's normed input" : "the layer's input"} · rows: tokens`
    : 'embeddings · rows: tokens';

/** Step 1's sentences on where X came from, and whether it says where a token stands. */
export function embeddingSourceText(state) {
  const source = sourceOf(state, 'x');
  if (source.from === 'file' && state.modelLayer) return modelLayerText(state.modelLayer);
  if (source.from === 'file')
    return "Here X is read from your model's file: the hidden states entering this layer, not rows of the page's table. They carry what the model added before this layer (GPT-2 and BERT add position embeddings to the first layer's input).";
  if (source.from === 'given')
    return 'Here X holds numbers typed, pasted or given, not rows of a table drawn from the seed.';
  if (source.from === 'designed')
    return 'Here X is built by hand for the designed heads: a column for each word and one for each position, so X itself says where a token stands.';
  const edits = source.edits ? `, with ${source.edits} number${source.edits > 1 ? 's' : ''} changed by hand` : '';
  return `Here the table is random from the seed${edits}; a trained model learns it. X = E[token] says nothing about where a token stands.`;
}

/** What the designed-heads lesson says of an example that is not designed: where its X, W_q and W_k came from. */
export const notDesignedText = (state) =>
  `The current example is not designed: ${sourcesText(state, ['x', 'wq', 'wk'])}.`;
