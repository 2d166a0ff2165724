// The words of "Why divide by √d_k?" (the page's own panel): the example's variances against the experiment's curves,
// and the line under the charts. The elements do not show the panel, so these stay out of lesson.js, which they load.
import { meanVariance } from '../../shared/stats.js';
import { formatValue } from '../../shared/format.js';
import { headSlice, scaleValue } from '../../shared/inputs.js';
import { sourcesText } from '../../shared/provenance.js';
import { randomInputs } from '../../shared/randomNote.js';
import { shortNumber } from '../../shared/tooltips.js';

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
 * after): near them, or off them, since one example has only n² scores of one random draw. With X, W_q or W_k not
 * from the seed (typed, designed, a file's) the curves, made of random queries and keys, need not apply at all.
 */
function roughness(state, raw, scaled) {
  const random = randomInputs(state);
  const others = ['x', 'wq', 'wk'].filter((name) => !random.includes(name));
  if (others.length) return `${sourcesText(state, others)}: not random, so the curves need not apply.`;
  const want = [state.dK, state.dK * scaleValue(state) ** 2];
  const near = [raw, scaled].every((v, k) => v >= want[k] / 1.5 && v <= want[k] * 1.5);
  const curves = `The curves give about ${shortNumber(want[0])} and ${shortNumber(want[1])} at d_k = ${state.dK}`;
  return near
    ? `${curves}: with only ${state.n * state.n} scores from one random draw these are rough, but near them.`
    : `${curves}: these are off by more than half, because ${state.n * state.n} scores from one random draw are a small sample; the curves average several random trials.`;
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
