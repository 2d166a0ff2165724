// The page's explanations, written for the state and the result on screen: scaling, entropy, heads, outputs.
import { meanRowEntropy, meanVariance } from './experiment.js';
import { formatValue } from './format.js';
import { headSlice, labelsFor, scaleValue } from './inputs.js';
import { quote, shortNumber } from './tooltips.js';

/** What the output explanation says while no output row is chosen. */
export const OUTPUT_HINT = 'Hover over a row of the output (or move to it with the keyboard) to see how it is made.';

/**
 * How output row i is made: its largest weights times the value rows they take.
 * @param {object} state
 * @param {object | null} result  the last result of selfAttention (with steps)
 * @param {number | null} i       the output row, or null when none is chosen
 * @returns {{ text: string, weights: number[] | null }}  weights: row i of the attention weights, to fade V's rows by
 */
export function explainOutputRow(state, result, i) {
  if (i === null || !result || i >= state.n) return { text: OUTPUT_HINT, weights: null };
  const labels = labelsFor(state);
  const { data } = headSlice(result.weights, state.head);
  const weights = Array.from(data.subarray(i * state.n, (i + 1) * state.n));
  const terms = weights.map((w, j) => ({ w, j })).filter(({ w }) => w > 0).sort((a, b) => b.w - a.w);
  if (terms.length === 0) {
    return { text: `output(${quote(labels[i])}) = 0: every key is masked for this query, so it attends to nothing.`, weights };
  }
  const shown = terms.slice(0, 4).map(({ w, j }) => `${formatValue(w, 2)} × v(${quote(labels[j])})`);
  const rest = terms.length > 4 ? ` + ${terms.length - 4} smaller term${terms.length > 5 ? 's' : ''}` : '';
  return { text: `output(${quote(labels[i])}) = ${shown.join(' + ')}${rest}. The faded rows of V contribute little.`, weights };
}

/**
 * The scale step's title, formula and paragraph.
 * @returns {{ title: string, formula: string, text: string }}
 */
export function scaleTexts(state) {
  const { dK, temperature: T, scaling } = state;
  const factor = shortNumber(scaleValue(state));
  const root = `√${dK} = ${shortNumber(Math.sqrt(dK))}`;
  if (scaling) {
    return {
      title: T === 1 ? 'Scale: ÷ √d_k' : 'Scale: ÷ (T·√d_k)',
      formula: `1/(T·√d_k) = ${factor}`,
      text: `d_k = ${dK}, so every score is divided by ${root}${T === 1 ? '' : ` and by the temperature T = ${T}`}: multiplied by ${factor}. `
        + 'This keeps the scores near variance 1 whatever d_k is (see “Why divide by √d_k?” at the bottom). '
        + 'attention-wasm gets this factor as its scale option.',
    };
  }
  return {
    title: T === 1 ? 'Scale: off' : 'Scale: ÷ T',
    formula: `1/T = ${factor}`,
    text: `Scaling is off, so the scores are only divided by the temperature T = ${T} (multiplied by ${factor}). `
      + 'Switch “Divide the scores by √d_k” back on and compare the weights: without it, larger d_k gives sharper, more one-hot rows.',
  };
}

/** How spread out the chosen head's weight rows are, in bits, against the even spread over n keys. */
export function entropyText(state, result) {
  const { n } = state;
  const entropy = meanRowEntropy(headSlice(result.weights, state.head).data, n);
  return Number.isFinite(entropy)
    ? `How spread out are the rows? Their mean entropy is ${formatValue(entropy, 2)} bits. A row spread evenly over all ${n} keys has log₂${n} = ${formatValue(Math.log2(n), 2)} bits; a row on a single key has 0.`
    : 'Every row is fully masked, so no row has weights.';
}

/** The variance of the chosen head's scores before and after scaling, for "Why divide by √d_k?". */
export function varianceText(state, result) {
  const raw = meanVariance(headSlice(result.rawScores, state.head).data).variance;
  const scaled = meanVariance(headSlice(result.scaledScores, state.head).data).variance;
  return `In your example (d_k = ${state.dK}, ${state.n} tokens): the variance of QKᵀ is ${formatValue(raw, 2)}, and ${formatValue(scaled, 2)} after scaling. With so few numbers these are rough, but they follow the curves.`;
}

/** Which columns of W_q, W_k and W_v the shown head uses; empty with one head. */
export function headColumnsNote(state) {
  const { head, numHeads, dK, dV } = state;
  if (numHeads <= 1) return '';
  return `Showing head ${head + 1} of ${numHeads}: the W's below are its blocks of columns (${head * dK}–${(head + 1) * dK - 1} of W_q and W_k, ${head * dV}–${(head + 1) * dV - 1} of W_v). Choose the head in the settings or below the steps.`;
}

/** The paragraph above the heads' heatmaps. */
export function headsText(state) {
  const H = state.numHeads;
  if (H === 1) {
    return 'This example has one head. With several heads (try the “4 heads” example or set heads above), each head has its own W_q, W_k and W_v blocks and so its own attention pattern; their outputs are put side by side. They appear here next to each other, with their average.';
  }
  return `${H} heads, each with d_k = ${state.dK} and d_v = ${state.dV}. Each head attends in its own way; click a head to follow it through the steps above. The heads' outputs are concatenated into one [${state.n}, ${H * state.dV}] matrix. A transformer then multiplies it by W_o; that last step is left out here so you see the heads directly.`;
}

/** Why a click on a causally masked cell changes nothing. */
export function causalCellMessage(state, i, j) {
  const labels = labelsFor(state);
  return `Query ${quote(labels[i])} cannot see key ${quote(labels[j])} because of the causal mask (it comes later). Switch “Causal mask” off to change this cell.`;
}

/**
 * The line under the √d_k charts: the experiment's numbers at d_k = 8.
 * @param {{ dK: number, varianceRaw: number, varianceScaled: number, entropyRaw: number, entropyScaled: number }[]} rows
 */
export function scalingSummary(rows, seed) {
  const at8 = rows.find((r) => r.dK === 8);
  return `At d_k = 8: variance ${formatValue(at8.varianceRaw, 1)} unscaled against ${formatValue(at8.varianceScaled, 2)} scaled; row entropy ${formatValue(at8.entropyRaw, 2)} bits against ${formatValue(at8.entropyScaled, 2)}. Seed ${seed}.`;
}
