// The note under the weights while they rest on random numbers: the pattern means nothing yet, except what the mask
// or W_k = W_q force, which the note names as forced rather than chance.
import { formatValue } from './format.js';
import { headSlice, labelsFor, maskCell } from './inputs.js';
import { headBlock } from './matrices.js';
import { listWords, sourceOf, sourcesText } from './provenance.js';
import { quote } from './tooltips.js';

const TITLES = { x: 'X', wq: 'W_q', wk: 'W_k' };

/** The inputs of attention's pattern (X, W_q, W_k) whose numbers are random from the seed (edited or not). */
export function randomInputs(state) {
  return ['x', 'wq', 'wk'].filter((name) => sourceOf(state, name).from === 'seed');
}

/** Whether the shown head's keys are its queries: W_k = W_q on, the same block of it, and no biases of a file. */
function keysAreQueries(state) {
  return state.shareQK && headBlock(state, 'wk') === state.head && !state.biases?.bq && !state.biases?.bk;
}

/** The open keys of query i (after the causal mask and the clicked one). */
const openKeys = (state, i) =>
  Array.from({ length: state.n }, (_, j) => j).filter((j) => maskCell(state, i, j) === 'open');

/** Why row i, with the single open key j, gives all its attention to j. */
function forcedRow(state, labels, i, j, more) {
  const others = more ? ` (and ${more} more row${more > 1 ? 's' : ''} with one key open)` : '';
  const who =
    state.causal && i === 0 && j === 0
      ? `under the causal mask the first token, ${quote(labels[0])}, can only attend to itself`
      : `the mask leaves ${quote(labels[i])} a single key, ${i === j ? 'itself' : quote(labels[j])}`;
  return `Not chance: ${who}, so its weight there is 1 whatever the numbers${others}.`;
}

/**
 * Says, while the pattern rests on random numbers, that it means nothing yet, naming the largest weight that is
 * chance, and what is forced instead: a row with a single open key (the first token under the causal mask) gives it
 * weight 1, and with W_k = W_q each token's score with itself is |q|², which only a longer key can beat.
 * @returns {string}  empty when none of X, W_q and W_k is random
 */
export function randomNote(state, result) {
  const random = randomInputs(state);
  const names = random.map((name) => TITLES[name]);
  if (!names.length || !result) return '';
  const { n } = state;
  const labels = labelsFor(state);
  const { data } = headSlice(result.weights, state.head);
  const diagonal = keysAreQueries(state);
  const forced = [];
  let best = null;
  for (let i = 0; i < n; i++) {
    const open = openKeys(state, i);
    if (open.length === 1) forced.push({ i, j: open[0] });
    if (open.length < 2) continue;
    for (const j of open) {
      if (diagonal && i === j) continue;
      if (!best || data[i * n + j] > data[best.i * n + best.j]) best = { i, j };
    }
  }
  const chance = best
    ? `: that ${quote(labels[best.i])} gives ${formatValue(data[best.i * n + best.j], 2)} of its attention to ${best.i === best.j ? 'itself' : quote(labels[best.j])} is chance.`
    : '.';
  // Where the numbers come from: the seed for these, and the others' own source beside them.
  const others = ['x', 'wq', 'wk'].filter((name) => !random.includes(name));
  const besides = others.length ? ` (${sourcesText(state, others)})` : '';
  const parts = [
    `${listWords(names)} ${names.length === 1 ? 'holds' : 'are'} random numbers from seed ${state.seed}${besides}, not trained weights, so this pattern means nothing yet${chance}`,
  ];
  if (forced.length) parts.push(forcedRow(state, labels, forced[0].i, forced[0].j, forced.length - 1));
  if (diagonal) {
    const selfish = Array.from({ length: n }, (_, i) => i).filter((i) => {
      const row = data.subarray(i * n, (i + 1) * n);
      return maskCell(state, i, i) === 'open' && row.every((w) => w <= row[i]);
    }).length;
    parts.push(
      `Not chance either: with W_k = W_q, K = Q, so each token's score with itself is q·q = |q|², and q·k ≤ |q|·|k| means only a key longer than q can score more. ` +
        `The bright diagonal is built in (here ${selfish} of ${n} rows look most at themselves); which rows it wins depends on the random lengths.`,
    );
  }
  parts.push('Training is what makes W_q and W_k pick out useful patterns; type your own numbers to shape one.');
  return parts.join(' ');
}
