// The input matrices X, W_q, W_k and W_v of a state: generated from the seed, or the numbers a person
// typed or pasted (an "override" of the same shape).
import { randomMatrix } from './rng.js';

/** The editable input matrices, in the order they are used. */
export const INPUT_NAMES = ['x', 'wq', 'wk', 'wv'];

/** Display names of the input matrices. */
export const INPUT_TITLES = { x: 'X', wq: 'W_q', wk: 'W_k', wv: 'W_v' };

/**
 * The shape of an input matrix. Heads sit side by side as column blocks:
 *
 * | name   | shape                      |
 * |--------|----------------------------|
 * | x      | [n, dModel]                |
 * | wq, wk | [dModel, numHeads·dK]      |
 * | wv     | [dModel, numHeads·dV]      |
 * @returns {[number, number]}
 */
export function matrixShape(state, name) {
  if (name === 'x') return [state.n, state.dModel];
  return [state.dModel, state.numHeads * (name === 'wv' ? state.dV : state.dK)];
}

/** The width of one head's block of columns in an input matrix (the whole width for x). */
export function headWidth(state, name) {
  if (name === 'x') return state.dModel;
  return name === 'wv' ? state.dV : state.dK;
}

/** Column c of a weight matrix as a stable key (head, column in head), so heads keep values when d_k changes. */
const columnKey = (width) => (c) => Math.floor(c / width) * 64 + (c % width);

const generated = new Map();

/**
 * The matrix the seed gives. X has variance 1; a W has standard deviation 1/√d_model so that Q, K and V
 * also have variance about 1. Values are rounded to 2 decimals so the page shows them exactly.
 * The result is cached and shared: copy it before changing it.
 * @returns {number[][]}
 */
export function generatedMatrix(state, name) {
  const [rows, cols] = matrixShape(state, name);
  const width = headWidth(state, name);
  const key = [name, state.seed, state.dist, rows, cols, width, state.dModel].join('|');
  const cached = generated.get(name);
  if (cached?.key === key) return cached.matrix;
  const matrix = randomMatrix({
    seed: state.seed,
    stream: name,
    rows,
    cols,
    dist: state.dist,
    std: name === 'x' ? 1 : 1 / Math.sqrt(state.dModel),
    colKey: name === 'x' ? undefined : columnKey(width),
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

/** Resizes a mask (true = may attend): kept cells keep their value, new cells allow. Null when all allow. */
export function resizeMask(mask, n) {
  if (!mask) return null;
  const next = Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => mask[i]?.[j] ?? true));
  return next.every((row) => row.every(Boolean)) ? null : next;
}
