// The tooltip of every cell of the page's matrices and heatmaps: lines of text from the state and the result.
import { formatValue } from './format.js';
import { headSlice, labelsFor, maskCell, scaleValue } from './inputs.js';
import { INPUT_TITLES } from './matrices.js';
import { scoreTermLines, weightLines } from './whyScore.js';

/** A token label in curly quotes. */
export const quote = (label) => `“${label}”`;

/** A number with at most 4 significant digits, e.g. the scale factor 0.3536. */
export const shortNumber = (value) => String(Number(value.toPrecision(4)));

const VECTORS = { q: ['query', 'W_q'], k: ['key', 'W_k'], v: ['value', 'W_v'], vOut: ['value', 'W_v'] };

const MASK_DETAIL = {
  open: 'allowed: + 0 (click to block)',
  blocked: 'blocked: + −∞ (click to allow)',
  causal: 'blocked by the causal mask: a later token',
};

/** The names of a cell of an input matrix in messages, e.g. `X, row “time”, column 2` or `W_q, row 1, column 3`. */
export function cellName(state, name, i, j) {
  if (name === 'x') return `X, row ${quote(labelsFor(state)[i])}, column ${j}`;
  return `${INPUT_TITLES[name]}, row ${i}, column ${j}`;
}

/** One of the query → key tooltips: the pair, then `detail`. */
function pair(state, i, j, detail) {
  const labels = labelsFor(state);
  return [`query ${quote(labels[i])} → key ${quote(labels[j])}`, detail];
}

/** A number at the page's precision. */
const shown = (state, value) => formatValue(value, state.precision);

/**
 * The tooltip lines of cell (i, j) of a matrix of the steps.
 * @param {object} state   the page's state
 * @param {object | null} result  the last result of selfAttention (with steps), for the scaled scores' QKᵀ
 * @param {string} matrix  x, wq, wk, wv, q, k, v, vOut, rawScores, scaledScores, mask, scores, weights, output,
 *                         concat, wo, layerOutput; or heatmap (the weights' heatmap), head (one head's), average (their average)
 * @param {number} value   the value shown in the cell
 * @returns {string[]}  a heading, then its lines: for a score, its dot product term by term; for a weight, e^s over
 *   the row's sum (whyScore.js)
 */
export function cellTooltip(state, result, matrix, i, j, value) {
  const lines = baseTooltip(state, result, matrix, i, j, value);
  if (!result?.q) return lines;
  const open = maskCell(state, i, j) === 'open';
  if (matrix === 'rawScores' || matrix === 'scaledScores' || (matrix === 'scores' && open))
    return [...lines, ...scoreTermLines(state, result, i, j)];
  if (matrix === 'weights' || matrix === 'heatmap') return [...lines, ...weightLines(state, result, i, j)];
  return lines;
}

/** The heading and first line of a cell's tooltip. */
function baseTooltip(state, result, matrix, i, j, value) {
  const labels = labelsFor(state);
  const open = maskCell(state, i, j) === 'open';
  switch (matrix) {
    case 'x':
      return [`token ${quote(labels[i])}`, `embedding dimension ${j}: ${shown(state, value)}`];
    case 'wq':
    case 'wk':
    case 'wv':
      return [
        `${INPUT_TITLES[matrix]} row ${i}, column ${j}`,
        `from embedding dimension ${i} to ${matrix === 'wv' ? 'd_v' : 'd_k'} dimension ${j}: ${shown(state, value)}`,
      ];
    case 'wo':
      return [
        `W_o row ${i}, column ${j}`,
        `from head ${Math.floor(i / state.dV)}'s output dimension ${i % state.dV} to model dimension ${j}: ${shown(state, value)}`,
      ];
    case 'layerOutput':
      return [
        `layer output of ${quote(labels[i])}, dimension ${j}`,
        `${shown(state, value)} = row ${quote(labels[i])} of the concatenated heads · column ${j} of W_o`,
      ];
    case 'q':
    case 'k':
    case 'v':
    case 'vOut': {
      const [letter, weights] = VECTORS[matrix];
      return [
        `${letter} of ${quote(labels[i])}, dimension ${j}`,
        `${shown(state, value)} = row ${quote(labels[i])} of X · column ${j} of ${weights}`,
      ];
    }
    case 'rawScores':
      return pair(state, i, j, `q·k = ${shown(state, value)}`);
    case 'scaledScores': {
      const raw = result ? headSlice(result.rawScores, state.head).data[i * state.n + j] : NaN;
      return pair(state, i, j, `${shown(state, raw)} × ${shortNumber(scaleValue(state))} = ${shown(state, value)}`);
    }
    case 'mask':
      return pair(state, i, j, MASK_DETAIL[maskCell(state, i, j)]);
    case 'scores':
      return pair(
        state,
        i,
        j,
        value === -Infinity ? 'blocked: −∞, its weight will be 0' : `score ${shown(state, value)}`,
      );
    case 'weights':
      return pair(
        state,
        i,
        j,
        open
          ? `weight ${shown(state, value)}: ${quote(labels[i])} takes ${formatValue(value * 100, 1)}% of its output from ${quote(labels[j])}`
          : 'masked: weight 0, nothing is taken from this key',
      );
    case 'heatmap':
      return pair(state, i, j, open ? `weight ${shown(state, value)}` : 'masked: weight 0');
    case 'head':
      return pair(state, i, j, `weight ${shown(state, value)}`);
    case 'average':
      return pair(state, i, j, `average weight ${shown(state, value)}`);
    case 'output':
      return [`output of ${quote(labels[i])}, dimension ${j}`, `${shown(state, value)} = Σ weight × value`];
    case 'concat':
      return [`token ${quote(labels[i])}, column ${j}`, shown(state, value)];
    default:
      throw new Error(`no tooltip for matrix ${matrix}`);
  }
}
