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

/** A source as the end of a sentence "X is …" / "X and W_q are …". */
function phrase(state, { from, edits }) {
  const changed = edits ? `, with ${edits} number${edits > 1 ? 's' : ''} changed by hand` : '';
  if (from === 'file') return "read from your model's file";
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

/** Step 1's sentences on where X came from, and whether it says where a token stands. */
export function embeddingSourceText(state) {
  const source = sourceOf(state, 'x');
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
