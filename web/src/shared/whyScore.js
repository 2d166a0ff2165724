// Why a score or a weight is what it is: a score's dot product term by term, and a weight as e^s over its row's
// sum, from the numbers attention-wasm returned (q, k and the scores of its result with returnSteps).
import { formatValue } from './format.js';
import { headSlice, scaleValue } from './inputs.js';
import { headBlock } from './matrices.js';

/** How many terms a readout lists before it sums up the rest. */
export const SHOWN_TERMS = 6;

/**
 * The terms of q·k, largest magnitude first (ties keep the order of t).
 * @param {ArrayLike<number>} q  [d_k]
 * @param {ArrayLike<number>} k  [d_k]
 * @returns {{ t: number, q: number, k: number, product: number }[]}
 */
export function dotTerms(q, k) {
  return Array.from(q, (value, t) => ({ t, q: value, k: k[t], product: value * k[t] })).sort(
    (a, b) => Math.abs(b.product) - Math.abs(a.product) || a.t - b.t,
  );
}

const signed = (value, precision) => `${value < 0 ? '−' : '+'}${formatValue(Math.abs(value), precision)}`;

/**
 * The lines that explain score (i, j) of the shown head: q_i·k_j = Σ_t q_it·k_jt, the largest terms first.
 * @param {object} result  selfAttention's result with returnSteps: q [H, n, d_k], k [H_kv, n, d_k] (the shown head
 *   reads its kv head's keys)
 * @returns {string[]}
 */
export function scoreTermLines(state, result, i, j) {
  const { dK, n, head, precision } = state;
  const q = headSlice(result.q, head).data.subarray(i * dK, (i + 1) * dK);
  const k = headSlice(result.k, headBlock(state, 'wk')).data.subarray(j * dK, (j + 1) * dK);
  const terms = dotTerms(q, k);
  const lines = [`q·k = Σ_t q_t·k_t over d_k = ${dK} term${dK > 1 ? 's' : ''}, largest first:`];
  for (const term of terms.slice(0, SHOWN_TERMS)) {
    lines.push(
      `t=${term.t}: ${formatValue(term.q, precision)} × ${formatValue(term.k, precision)} = ${signed(term.product, precision)}`,
    );
  }
  if (terms.length > SHOWN_TERMS) {
    const rest = terms.slice(SHOWN_TERMS).reduce((sum, term) => sum + term.product, 0);
    lines.push(`${terms.length - SHOWN_TERMS} smaller terms: ${signed(rest, precision)}`);
  }
  const raw = headSlice(result.rawScores, head).data[i * n + j];
  lines.push(`sum: q·k = ${formatValue(raw, precision)}`);
  return lines;
}

/**
 * The lines that explain weight (i, j) of the shown head: e^{s_ij} / Σ_k e^{s_ik}, with s the scaled and masked
 * scores. When a score is large, every e^s is shown divided by e^{max s} (softmax does the same, so as not to overflow).
 * @param {object} result  selfAttention's result with returnSteps: scores [H, n, n], weights [H, n, n]
 * @returns {string[]}
 */
export function weightLines(state, result, i, j) {
  const { n, head, precision } = state;
  const s = headSlice(result.scores, head).data.subarray(i * n, (i + 1) * n);
  const weight = headSlice(result.weights, head).data[i * n + j];
  const open = Array.from(s).filter((v) => v !== -Infinity);
  if (open.length === 0) return ['every key of this row is blocked: no weights, the row stays 0'];
  if (s[j] === -Infinity) return ['blocked: e^(−∞) = 0, so the weight is 0'];
  const top = Math.max(...open);
  const shift = top > 30 ? top : 0;
  const e = (v) => Math.exp(v - shift);
  const sum = open.reduce((total, v) => total + e(v), 0);
  const exp = (v) => (shift ? `e^(${formatValue(v, 2)}−${formatValue(shift, 2)})` : `e^${formatValue(v, 2)}`);
  const terms = open.length <= 4 ? open.map(exp).join(' + ') : `${open.length} terms e^s`;
  const blocked =
    open.length < n ? `; ${n - open.length} blocked key${n - open.length > 1 ? 's' : ''} add e^(−∞) = 0` : '';
  return [
    `w = e^s / Σ e^s over the row (s = scaled${blocked ? ' and masked' : ''} scores):`,
    `${exp(s[j])} / (${terms})${blocked}`,
    `= ${Number(e(s[j]).toPrecision(4))} / ${Number(sum.toPrecision(4))} = ${formatValue(weight, precision)}`,
  ];
}

/** The scale step as a line: scaled score = factor × q·k. */
export function scaledLine(state, result, i, j) {
  const raw = headSlice(result.rawScores, state.head).data[i * state.n + j];
  return `scaled: ${formatValue(raw, state.precision)} × ${Number(scaleValue(state).toPrecision(4))}`;
}
