// The page's explanations, written for the state and the result on screen: scaling, entropy, heads, outputs.
import { meanRowEntropy } from './stats.js';
import { formatValue } from './format.js';
import { headSlice, labelsFor, scaleValue } from './inputs.js';
import { headBlock, headsOfKv, kvHeadsOf } from './matrices.js';
import { listWords, sourcesText } from './provenance.js';
import { randomInputs } from './randomNote.js';
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
    `Here ${sourcesText(state, ['wo'])}; double-click a cell to change it.`
  );
}

/** " (head 2 of 4)" after the titles of one head's matrices; empty with one head. */
export const headNote = (state) => (state.numHeads > 1 ? ` (head ${state.head} of ${state.numHeads})` : '');

/** The query heads that share the shown head's K and V, as words: "2 and 3". */
const sharers = (state) => listWords(headsOfKv(state, headBlock(state, 'wk')).map(String));

/**
 * After the titles of the shown head's W_k, W_v, K and V: with grouped-query attention, its kv head (" (kv head 1)",
 * which kvSharedNote says is shared; short, so that X · W_k = K stays on one line), else headNote.
 */
export function kvHeadNote(state) {
  return kvHeadsOf(state) === state.numHeads ? headNote(state) : ` (kv head ${headBlock(state, 'wk')})`;
}

/** The line under those titles: `note`, after "shared by heads 2 and 3 · " with grouped-query attention. */
export function kvSharedNote(state, note) {
  return kvHeadsOf(state) === state.numHeads ? note : `shared by heads ${sharers(state)} · ${note}`;
}

/**
 * Which columns of W_q, W_k and W_v the shown head uses; empty with one head. `where`: 'page', or 'element' (an
 * <attention-explorer>, which has the head buttons at its top and no settings).
 */
export function headColumnsNote(state, where = 'page') {
  const { head, numHeads, dK, dV } = state;
  if (numHeads <= 1) return '';
  const range = (block, width) => `${block * width}–${(block + 1) * width - 1}`;
  const g = headBlock(state, 'wk');
  const G = kvHeadsOf(state);
  const blocks =
    G === numHeads
      ? `${range(head, dK)} of W_q and W_k, ${range(head, dV)} of W_v`
      : `${range(head, dK)} of W_q; ${range(g, dK)} of W_k and ${range(g, dV)} of W_v, the block of kv head ${g}, which heads ${sharers(state)} share: kv heads = ${G}, grouped-query attention`;
  const ignored =
    state.kvHeads !== null && state.kvHeads !== numHeads && G === numHeads
      ? ` kv heads = ${state.kvHeads} does not divide the ${numHeads} heads, so every step computes ordinary multi-head attention.`
      : '';
  const choose = where === 'element' ? 'with the head buttons at the top' : 'in the settings or below the steps';
  return `Showing head ${head} of ${numHeads}: the W's below are its blocks of columns (${blocks}).${ignored} Choose the head ${choose}.`;
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
  const random = randomInputs(state).some((name) => name !== 'x')
    ? ' Here the blocks are random, so the heads differ only by chance; in a trained model each head learns to look for something different.'
    : '';
  const G = kvHeadsOf(state);
  const own =
    G === H
      ? 'Each head has its own blocks of W_q, W_k and W_v, so its own pattern'
      : `Each head has its own block of W_q, so its own queries and its own pattern, but with kv heads = ${G} each group of ${H / G} heads shares one block of W_k and W_v, so one K and one V (grouped-query attention)`;
  const follow = page
    ? 'click a head to follow it through the steps above'
    : 'the head buttons at the top choose the one the other steps show';
  const average = page
    ? " The average beside them is only a summary for the eye: no model computes it, since each head's output goes on whole into the concatenation."
    : '';
  const projection = page
    ? "W_o then turns it into the layer's output, below."
    : "W_o turns it into the layer's output.";
  return `${H} heads, each with d_k = ${state.dK} and d_v = ${state.dV}. ${own}; ${follow}.${random}${average} The heads' outputs are concatenated into one [${state.n}, ${H * state.dV}] matrix. ${projection}`;
}

export { randomInputs, randomNote } from './randomNote.js';

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
