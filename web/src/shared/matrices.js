// The input matrices X, W_q, W_k, W_v and W_o of a state: generated from the seed, or the numbers a person
// typed or pasted (an "override" of the same shape).
import { embeddingRow } from './positions.js';
import { randomMatrix } from './rng.js';
import { tokenLabels, tokenize } from './tokens.js';

/** The editable input matrices, in the order they are used. */
export const INPUT_NAMES = ['x', 'wq', 'wk', 'wv', 'wo'];

/** Display names of the input matrices. */
export const INPUT_TITLES = { x: 'X', wq: 'W_q', wk: 'W_k', wv: 'W_v', wo: 'W_o' };

/**
 * The shape of an input matrix. Heads sit side by side as column blocks:
 *
 * | name   | shape                      |
 * |--------|----------------------------|
 * | x      | [n, dModel]                |
 * | wq, wk | [dModel, numHeads·dK]      |
 * | wv     | [dModel, numHeads·dV]      |
 * | wo     | [numHeads·dV, dModel]      |
 * @returns {[number, number]}
 */
export function matrixShape(state, name) {
  if (name === 'x') return [state.n, state.dModel];
  if (name === 'wo') return [state.numHeads * state.dV, state.dModel];
  return [state.dModel, state.numHeads * (name === 'wv' ? state.dV : state.dK)];
}

/** The width of one head's block of columns in an input matrix (the whole width for x and W_o). */
export function headWidth(state, name) {
  if (name === 'x' || name === 'wo') return state.dModel;
  return name === 'wv' ? state.dV : state.dK;
}

/**
 * The key and value heads the layer computes: state.kvHeads when it divides the heads (grouped-query attention,
 * W_k and W_v then use their first kvHeads blocks), else one per head (ordinary multi-head attention).
 */
export function kvHeadsOf(state) {
  const { numHeads: H, kvHeads: G } = state;
  return Number.isInteger(G) && G >= 1 && G < H && H % G === 0 ? G : H;
}

/**
 * The block of columns of W_q, W_k or W_v that query head `h` reads: its own of W_q; of W_k and W_v, its kv
 * head's, ⌊h / (H / kvHeads)⌋, which the other heads of its group share. 0 for X and W_o (no blocks).
 */
export function headBlock(state, name, h = state.head) {
  if (name === 'x' || name === 'wo') return 0;
  if (name === 'wq') return h;
  return Math.floor(h / (state.numHeads / kvHeadsOf(state)));
}

/** The query heads that share kv head `g`: h with headBlock(state, 'wk', h) = g (one head when not grouped). */
export function headsOfKv(state, g) {
  const group = state.numHeads / kvHeadsOf(state);
  return Array.from({ length: group }, (_, k) => g * group + k);
}

/** Column c of a weight matrix as a stable key (head, column in head), so heads keep values when d_k changes. */
const columnKey = (width) => (c) => Math.floor(c / width) * 64 + (c % width);

/**
 * Where designed matrices come from: designedHeads.js hands in its designedMatrix when it loads. A page or element
 * that shows designed heads imports it first, so that the others do not download it.
 */
let designedSource = null;

/** Called by designedHeads.js as it loads. */
export function provideDesigned(designedMatrix) {
  designedSource = designedMatrix;
}

function designedOf(state, name) {
  if (!designedSource)
    throw new Error('a designed matrix was asked for before web/src/lessons/designed-heads/designedHeads.js loaded');
  return designedSource(state, name);
}

const generated = new Map();
const prepared = new Map();
const DESIGNED = new Set(['x', 'wq', 'wk']);

/** What a generated matrix depends on; `key` joins it all (equal keys give the same numbers). */
function generation(state, name) {
  const [rows, cols] = matrixShape(state, name);
  const width = headWidth(state, name);
  // X looks each token up in the embedding table; links of version 1 drew X by row number instead.
  // Designed heads build X, W_q and W_k by hand (designedHeads.js).
  const designed = Boolean(state.design) && DESIGNED.has(name);
  const byToken = (name === 'x' && state.embed !== 'row') || designed;
  const labels = byToken ? tokenLabels(tokenize(state.sentence), rows) : [];
  const key = [name, state.seed, state.dist, rows, cols, width, state.dModel, designed, byToken, ...labels].join('|');
  return { rows, cols, width, designed, byToken, labels, key };
}

/** The generated matrices cached now, to put back with restoreGenerated (a rehearsal computes other states). */
export const cachedGenerated = () => new Map(generated);

/**
 * Puts back what cachedGenerated() returned: the state shown then gets the very arrays of its last call again, so
 * that the next change still finds its inputs unchanged (a head switched keeps the result, a temperature step on a
 * large layer previews the weights).
 */
export function restoreGenerated(saved) {
  for (const [name, entry] of saved) generated.set(name, entry);
}

/** generation(state, name).key, for matrices made elsewhere (prepareGenerated). */
export const generationKey = (state, name) => generation(state, name).key;

let rowsByToken = { key: '', rows: new Map() };

/**
 * A token's row of the embedding table, kept while the seed, distribution and width stay: a word typed makes one
 * new row, not n (the rows are shared between X's, which are never changed in place).
 */
function tokenRow(state, token, cols) {
  const key = `${state.seed}|${state.dist}|${cols}`;
  if (rowsByToken.key !== key || rowsByToken.rows.size > 4096) rowsByToken = { key, rows: new Map() };
  let row = rowsByToken.rows.get(token);
  if (!row) {
    row = embeddingRow(state.seed, state.dist, token, cols);
    rowsByToken.rows.set(token, row);
  }
  return row;
}

/**
 * Hands in a matrix made elsewhere (e.g. in a worker, by this same generatedMatrix, ahead of a new seed):
 * generatedMatrix(state, name) then returns it instead of generating it again. One per name is kept.
 * @param {string} key  generationKey(state, name) of the state it was made for
 */
export function prepareGenerated(name, key, matrix) {
  prepared.set(name, { key, matrix });
}

/**
 * The matrix the seed gives. X has variance 1; W_q, W_k and W_v have standard deviation 1/√d_model so that
 * Q, K and V also have variance about 1, and W_o 1/√(H·d_v) so that the layer's output does too. Values are rounded to 2 decimals so the page shows them exactly.
 * The result is cached and shared: copy it before changing it.
 * @returns {number[][]}
 */
export function generatedMatrix(state, name) {
  const { rows, cols, width, designed, byToken, labels, key } = generation(state, name);
  const ready = prepared.get(name); // a matrix handed in takes the place of the one cached, if any
  if (ready?.key === key) {
    prepared.delete(name);
    generated.set(name, ready);
    return ready.matrix;
  }
  const cached = generated.get(name);
  if (cached?.key === key) return cached.matrix;
  const matrix = designed
    ? designedOf(state, name)
    : byToken
      ? labels.map((token) => tokenRow(state, token, cols))
      : randomMatrix({
          seed: state.seed,
          stream: name,
          rows,
          cols,
          dist: state.dist,
          std: { x: 1, wo: 1 / Math.sqrt(rows) }[name] ?? 1 / Math.sqrt(state.dModel),
          colKey: name === 'x' || name === 'wo' ? undefined : columnKey(width),
        });
  generated.set(name, { key, matrix });
  return matrix;
}

/** The matrix in use: the override, else the generated one. With shareQK, W_k is W_q. */
export function currentMatrix(state, name) {
  if (name === 'wk' && state.shareQK) return currentMatrix(state, 'wq');
  return state[name] ?? generatedMatrix(state, name);
}

/**
 * An override carried over to new sizes: cells that still exist keep their numbers (weight columns move
 * with their head), new cells come from the seed.
 * @param {number[][] | null} old  the override under `before`
 * @returns {number[][] | null}
 */
export function resizeOverride(old, before, after, name) {
  if (!old) return null;
  const [rows, cols] = matrixShape(after, name);
  const [oldRows, oldCols] = matrixShape(before, name);
  if (rows === oldRows && cols === oldCols && headWidth(before, name) === headWidth(after, name)) {
    return old.map((row) => row.slice());
  }
  const fresh = generatedMatrix(after, name).map((row) => row.slice());
  if (name === 'wo') return resizeRowBlocks(old, fresh, before.dV, after.dV);
  const oldWidth = headWidth(before, name);
  const newWidth = headWidth(after, name);
  for (let i = 0; i < Math.min(rows, oldRows); i++) {
    for (let j = 0; j < cols; j++) {
      const head = name === 'x' ? 0 : Math.floor(j / newWidth);
      const within = name === 'x' ? j : j % newWidth;
      const oldJ = head * oldWidth + within;
      if (within < oldWidth && oldJ < oldCols) fresh[i][j] = old[i][oldJ];
    }
  }
  return fresh;
}

/** W_o carried over: its rows are the heads' blocks of d_v, so a row moves with its head. */
function resizeRowBlocks(old, fresh, oldDV, newDV) {
  for (let i = 0; i < fresh.length; i++) {
    const within = i % newDV;
    const oldI = Math.floor(i / newDV) * oldDV + within;
    if (within >= oldDV || oldI >= old.length) continue;
    for (let j = 0; j < Math.min(fresh[i].length, old[oldI].length); j++) fresh[i][j] = old[oldI][j];
  }
  return fresh;
}

/** Resizes a mask (true = may attend): kept cells keep their value, new cells allow. Null when all allow. */
export function resizeMask(mask, n) {
  if (!mask) return null;
  const next = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => mask[i]?.[j] ?? true));
  return next.every((row) => row.every(Boolean)) ? null : next;
}
