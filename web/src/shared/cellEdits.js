// What a typed cell, a pasted matrix or a click on the mask makes of the state, or why it is refused.
import { maskCell } from './inputs.js';
import { causalCellMessage } from './explanations.js';
import { INPUT_TITLES, currentMatrix, headBlock, headWidth, matrixShape } from './matrices.js';
import { parseMatrix, parseNumber } from './parse.js';
import { LIMITS, checkSizes, withSizes } from './state.js';
import { cellName, quote } from './tooltips.js';

/** The largest magnitude a person may type or paste. */
export const MAX_TYPED = LIMITS.typed;

/** The sizes of a state, as checkSizes and withSizes take them. */
export function sizesOf(state) {
  return { n: state.n, dModel: state.dModel, dK: state.dK, dV: state.dV, numHeads: state.numHeads };
}

/**
 * The state with `text` typed into cell (i, j) of the shown head's block of an input matrix (W_k edits W_q
 * while W_k = W_q is on; W_k and W_v of grouped heads edit the block their group shares).
 * @returns {{ state: object } | { error: string }}
 */
export function typedCell(state, name, i, j, text) {
  const value = parseNumber(text);
  const shown = text.length > 20 ? `${text.slice(0, 20)}…` : text;
  if (value === null) {
    return {
      error: `${cellName(state, name, i, j)}: ${quote(shown)} is not a number. The last good value is still used; type a number like 0.5 or -1e-3, or press Escape.`,
    };
  }
  if (Math.abs(value) > MAX_TYPED)
    return { error: `${cellName(state, name, i, j)}: ${shown} is too large; use numbers from -1000000 to 1000000.` };
  const target = name === 'wk' && state.shareQK ? 'wq' : name;
  const matrix = currentMatrix(state, target).map((row) => row.slice());
  const col = headBlock(state, name) * headWidth(state, name) + j; // W_k, W_v: the kv head's block, when grouped
  matrix[i][col] = value;
  return { state: { ...state, [target]: matrix } };
}

/**
 * The state with a pasted matrix as X (which sets n and d_model) or as a W (which sets d_k or d_v).
 * @returns {{ state: object, message: string } | { error: string }}
 */
export function pastedMatrix(state, target, text) {
  let matrix;
  try {
    matrix = parseMatrix(text);
  } catch (e) {
    return { error: `${e.message}. Nothing was changed.` };
  }
  const [rows, cols] = [matrix.length, matrix[0].length];
  const big = matrix.flat().find((v) => Math.abs(v) > MAX_TYPED);
  if (big !== undefined)
    return { error: `${big} is too large; use numbers from -1000000 to 1000000. Nothing was changed.` };
  const sizes = sizesOf(state);
  const title = INPUT_TITLES[target];
  if (target === 'wo') {
    const [wantRows, wantCols] = matrixShape(state, 'wo');
    if (rows !== wantRows || cols !== wantCols) {
      return {
        error: `W_o needs heads × d_v = ${wantRows} rows and d_model = ${wantCols} columns, but this matrix is ${rows}×${cols}. Nothing was changed.`,
      };
    }
    return { state: { ...state, wo: matrix }, message: `Pasted a ${rows}×${cols} matrix into W_o.` };
  }
  if (target === 'x') {
    sizes.n = rows;
    sizes.dModel = cols;
  } else {
    if (rows !== state.dModel) {
      return {
        error: `${title} needs d_model = ${state.dModel} rows (one per embedding dimension), but this matrix has ${rows}. Change d_model, or paste X first. Nothing was changed.`,
      };
    }
    if (cols % state.numHeads !== 0) {
      return {
        error: `${title} has ${cols} columns, which ${state.numHeads} heads cannot share equally. Nothing was changed.`,
      };
    }
    sizes[target === 'wv' ? 'dV' : 'dK'] = cols / state.numHeads;
  }
  const errors = Object.values(checkSizes(sizes));
  if (errors.length)
    return { error: `This ${rows}×${cols} matrix does not fit: ${errors.join('; ')}. Nothing was changed.` };
  const next = withSizes(state, sizes);
  next[target === 'wk' && state.shareQK ? 'wq' : target] = matrix;
  return { state: next, message: `Pasted a ${rows}×${cols} matrix into ${title}.` };
}

/**
 * The state with mask cell (i, j) flipped between allowed and blocked; refused where the causal mask rules.
 * @returns {{ state: object } | { error: string }}
 */
export function toggledMask(state, i, j) {
  if (maskCell(state, i, j) === 'causal') return { error: causalCellMessage(state, i, j) };
  const mask = state.mask
    ? state.mask.map((row) => row.slice())
    : Array.from({ length: state.n }, () => new Array(state.n).fill(true));
  mask[i][j] = !mask[i][j];
  return { state: { ...state, mask: mask.every((row) => row.every(Boolean)) ? null : mask } };
}
