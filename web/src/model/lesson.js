// The page's explanations, written for the state and the result on screen: scaling, entropy, heads, outputs.
import { EXPERIMENT_LENGTH, EXPERIMENT_TRIALS, meanRowEntropy, meanVariance } from './experiment.js';
import { formatValue } from './format.js';
import { headSlice, labelsFor, scaleValue } from './inputs.js';
import { tokenize } from './tokens.js';
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
  const terms = weights
    .map((w, j) => ({ w, j }))
    .filter(({ w }) => w > 0)
    .sort((a, b) => b.w - a.w);
  if (terms.length === 0) {
    return {
      text: `output(${quote(labels[i])}) = 0: every key is masked for this query, so it attends to nothing.`,
      weights,
    };
  }
  const shown = terms.slice(0, 4).map(({ w, j }) => `${formatValue(w, 2)} × v(${quote(labels[j])})`);
  const rest = terms.length > 4 ? ` + ${terms.length - 4} smaller term${terms.length > 5 ? 's' : ''}` : '';
  return {
    text: `output(${quote(labels[i])}) = ${shown.join(' + ')}${rest}. The faded rows of V contribute little.`,
    weights,
  };
}

/**
 * The scale step's title, formula and paragraph.
 * @returns {{ title: string, formula: string, text: string }}
 */
export function scaleTexts(state) {
  const { dK, temperature: T, scaling } = state;
  const factor = shortNumber(scaleValue(state));
  const root = `√${dK} = ${shortNumber(Math.sqrt(dK))}`;
  // Temperature is the page's own knob: standard attention has T = 1, and the text must not claim variance 1 then.
  const temperature =
    T === 1
      ? ''
      : ` The temperature is not part of standard attention (which has T = 1): the page adds it so you can see softmax sharpen or flatten. Here it multiplies the scores' spread by 1/T = ${shortNumber(1 / T)}, so their variance is about ${shortNumber(1 / (T * T))} times what it would be at T = 1.`;
  if (scaling) {
    return {
      title: T === 1 ? 'Scale: ÷ √d_k' : 'Scale: ÷ (T·√d_k)',
      formula: `1/(T·√d_k) = ${factor}`,
      text:
        `d_k = ${dK}, so every score is divided by ${root}${T === 1 ? '' : ` and by the temperature T = ${T}`}: multiplied by ${factor}. ` +
        (T === 1
          ? 'This keeps the scores near variance 1 whatever d_k is (see “Why divide by √d_k?” at the bottom).'
          : 'Dividing by √d_k alone would keep the scores near variance 1 whatever d_k is (see “Why divide by √d_k?” at the bottom).') +
        `${temperature} attention-wasm gets this factor as its scale option.`,
    };
  }
  return {
    title: T === 1 ? 'Scale: off' : 'Scale: ÷ T',
    formula: `1/T = ${factor}`,
    text:
      (T === 1
        ? 'Scaling is off, so the scores are used as they are (multiplied by 1). '
        : `Scaling is off, so the scores are only divided by the temperature T = ${T} (multiplied by ${factor}). `) +
      `Their variance now grows with d_k. Switch “Divide the scores by √d_k” back on and compare the weights: without it, larger d_k gives sharper, more one-hot rows.${temperature}`,
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
  const intro = `In your example (d_k = ${state.dK}, ${state.n} tokens): the variance of QKᵀ is ${formatValue(raw, 2)}`;
  const rough = roughness(state, raw, scaled);
  if (!state.scaling && state.temperature === 1) {
    return `${intro}. Scaling is off, so the scores keep this variance: switch “Divide the scores by √d_k” on to bring it near 1. ${rough}`;
  }
  const how = state.scaling
    ? 'after scaling'
    : `after dividing by T = ${state.temperature} only (scaling by √d_k is off)`;
  return `${intro}, and ${formatValue(scaled, 2)} ${how}. ${rough}`;
}

/**
 * How the example's variances compare with the curves' (d_k before scaling, d_k times the squared scale factor
 * after): near them, or off them, since one example has only n² scores of one random draw. With typed X, W_q or W_k
 * the curves, made of random queries and keys, need not apply at all.
 */
function roughness(state, raw, scaled) {
  if (randomInputs(state).length < 3)
    return 'X, W_q or W_k hold your own numbers here, not random ones, so the curves need not apply.';
  const want = [state.dK, state.dK * scaleValue(state) ** 2];
  const near = [raw, scaled].every((v, k) => v >= want[k] / 1.5 && v <= want[k] * 1.5);
  const curves = `The curves give about ${shortNumber(want[0])} and ${shortNumber(want[1])} at d_k = ${state.dK}`;
  return near
    ? `${curves}: with only ${state.n * state.n} scores from one random draw these are rough, but near them.`
    : `${curves}: these are off by more than half, because ${state.n * state.n} scores from one random draw are a small sample; the curves average ${EXPERIMENT_TRIALS} trials of ${EXPERIMENT_LENGTH} tokens.`;
}

/** How concat · W_o makes the layer's output, with the shapes of the state. */
export function projectionText(state) {
  const { n, dV, dModel, numHeads: H } = state;
  const concat =
    H === 1
      ? `With one head, the concatenation is just its output, [${n}, ${dV}].`
      : `The ${H} heads' outputs side by side make one [${n}, ${H}·${dV}] = [${n}, ${H * dV}] matrix.`;
  return (
    `${concat} The output projection W_o has shape [H·d_v, d_model] = [${H * dV}, ${dModel}]: one row for each column of the heads, ` +
    `one column for each of the model's ${dModel} dimensions. So [${n}, ${H * dV}] · [${H * dV}, ${dModel}] gives the layer's output [${n}, ${dModel}], ` +
    'the width of X again, which the next layer and the residual connection (X + output) need. ' +
    `${H > 1 ? "Every output number takes from all the heads' columns: this is where the heads are mixed. " : ''}` +
    "Like the other W's, W_o is random from the seed here; double-click a cell to change it."
  );
}

/**
 * Which columns of W_q, W_k and W_v the shown head uses; empty with one head. `where`: 'page', or 'element' (an
 * <attention-explorer>, which has the head buttons at its top and no settings).
 */
export function headColumnsNote(state, where = 'page') {
  const { head, numHeads, dK, dV } = state;
  if (numHeads <= 1) return '';
  const choose = where === 'element' ? 'with the head buttons at the top' : 'in the settings or below the steps';
  return `Showing head ${head + 1} of ${numHeads}: the W's below are its blocks of columns (${head * dK}–${(head + 1) * dK - 1} of W_q and W_k, ${head * dV}–${(head + 1) * dV - 1} of W_v). Choose the head ${choose}.`;
}

/**
 * The paragraph above the heads' heatmaps. `where`: 'page' (heatmaps to click, their average, W_o below) or
 * 'element' (an <attention-explorer>: the heads' heatmaps only, the head buttons at its top).
 */
export function headsText(state, where = 'page') {
  const H = state.numHeads;
  const page = where !== 'element';
  if (H === 1) {
    return page
      ? 'This example has one head. With several heads (try the “4 heads” example or set heads above), each head has its own W_q, W_k and W_v blocks and so its own attention pattern; their outputs are put side by side. They appear here next to each other, with their average.'
      : 'This figure has one head. With several heads (the heads attribute), each head has its own W_q, W_k and W_v blocks and so its own attention pattern; their outputs are put side by side, and their heatmaps appear here.';
  }
  const random = randomInputs(state).length
    ? ' Here the blocks are random, so the heads differ only by chance; in a trained model each head learns to look for something different.'
    : '';
  const follow = page
    ? 'click a head to follow it through the steps above'
    : 'the head buttons at the top choose the one the other steps show';
  const average = page
    ? " The average beside them is only a summary for the eye: no model computes it, since each head's output goes on whole into the concatenation."
    : '';
  const projection = page
    ? "W_o then turns it into the layer's output, below."
    : "W_o turns it into the layer's output.";
  return `${H} heads, each with d_k = ${state.dK} and d_v = ${state.dV}. Each head has its own blocks of W_q, W_k and W_v, so its own pattern; ${follow}.${random}${average} The heads' outputs are concatenated into one [${state.n}, ${H * state.dV}] matrix. ${projection}`;
}

/** The inputs of attention's pattern (X, W_q, W_k) that come from the seed rather than from typed numbers. */
export function randomInputs(state) {
  if (state.design) return [];
  return ['x', 'wq', 'wk'].filter((name) => !(state[name] || (name === 'wk' && state.shareQK && state.wq)));
}

/**
 * Says, while the pattern rests on random numbers, that it means nothing yet, naming the largest weight shown.
 * @returns {string}  empty when X, W_q and W_k are all typed
 */
export function randomNote(state, result) {
  const names = randomInputs(state).map((name) => ({ x: 'X', wq: 'W_q', wk: 'W_k' })[name]);
  if (!names.length || !result) return '';
  const labels = labelsFor(state);
  const { data } = headSlice(result.weights, state.head);
  let best = 0;
  for (let k = 1; k < data.length; k++) if (data[k] > data[best]) best = k;
  const [i, j] = [Math.floor(best / state.n), best % state.n];
  const and = (list) => (list.length === 1 ? list[0] : `${list.slice(0, -1).join(', ')} and ${list[list.length - 1]}`);
  // Where the numbers come from: the seed for these, your own numbers for the others.
  const own = ['X', 'W_q', 'W_k'].filter((name) => !names.includes(name));
  const source = own.length ? ` (${and(own)} ${own.length === 1 ? 'holds' : 'hold'} your own numbers)` : '';
  return (
    `${and(names)} ${names.length === 1 ? 'holds' : 'are'} random numbers from seed ${state.seed}${source}, not trained weights, so this pattern means nothing yet: ` +
    `that ${quote(labels[i])} gives ${formatValue(data[best], 2)} of its attention to ${i === j ? 'itself' : quote(labels[j])} is chance. ` +
    'Training is what makes W_q and W_k pick out useful patterns; type your own numbers to shape one.'
  );
}

/**
 * Which tokens a too-small n leaves out, so that words are not dropped silently.
 * @returns {string}  empty when every word is a token
 */
export function tokenCountNote(state) {
  const words = tokenize(state.sentence);
  if (state.n >= words.length) return '';
  const left = words.slice(state.n).map(quote);
  const shown = left.length > 4 ? `${left.slice(0, 4).join(', ')} and ${left.length - 4} more` : left.join(', ');
  return `n = ${state.n} is smaller than the sentence's ${words.length} words, so only the first ${state.n} are tokens: ${shown} ${left.length === 1 ? 'is' : 'are'} left out. Raise n to ${Math.min(words.length, 64)} to use them all.`;
}

/** Why a click on a causally masked cell changes nothing. */
export function causalCellMessage(state, i, j) {
  const labels = labelsFor(state);
  return `Query ${quote(labels[i])} cannot see key ${quote(labels[j])} because of the causal mask (it comes later). Switch “Causal mask” off to change this cell.`;
}

/**
 * The line under the √d_k charts: the experiment's numbers at the experiment's d_k nearest to the state's.
 * @param {{ dK: number, varianceRaw: number, varianceScaled: number, entropyRaw: number, entropyScaled: number }[]} rows
 */
export function scalingSummary(rows, seed, dK = 8) {
  const distance = (r) => Math.abs(Math.log2(r.dK) - Math.log2(dK));
  const at = rows.reduce((a, b) => (distance(b) < distance(a) ? b : a));
  const near = at.dK === dK ? '' : ` (the experiment's d_k nearest to your ${dK})`;
  return `At d_k = ${at.dK}${near}: variance ${formatValue(at.varianceRaw, 1)} unscaled against ${formatValue(at.varianceScaled, 2)} scaled; row entropy ${formatValue(at.entropyRaw, 2)} bits against ${formatValue(at.entropyScaled, 2)}. Seed ${seed}.`;
}
