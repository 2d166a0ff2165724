// Step 10, rotary position embeddings (RoPE): each pair of dimensions of q and k turned by position × frequency,
// computed by the public API's `rope` option, and the shift test: moving the whole sentence by s positions leaves the
// scores of RoPE as they are, while with the sinusoidal P of step 9 added to X they change.
import { attentionCall, headSlice, labelsFor } from '../../shared/inputs.js';
import { currentMatrix, headBlock } from '../../shared/matrices.js';
import { sinusoidalPositions } from '../../shared/positions.js';
import { columnBlockOf } from '../../shared/reuse.js';
import { quote, shortNumber } from '../../shared/tooltips.js';

/** The columns RoPE turns: all of d_k, or d_k − 1 when it is odd (the API's default `dim`). */
export const ropeDim = (dK) => dK - (dK % 2);

/**
 * Which dimensions pair up: pair i is [a, b], turned by the angle position × frequency i.
 * 'half' (LLaMA, GPT-NeoX's rotate_half): i with i + dim/2; 'interleaved' (GPT-J): 2i with 2i + 1.
 * @returns {[number, number][]}
 */
export function ropePairs(style, dim) {
  const half = dim / 2;
  return Array.from({ length: half }, (_, i) => (style === 'interleaved' ? [2 * i, 2 * i + 1] : [i, i + half]));
}

/** Frequency of pair i, in radians per position: 1 / theta^(2i / dim), as `rope_theta` defines it. */
export function ropeFrequencies(theta, dim) {
  return Array.from({ length: dim / 2 }, (_, i) => 1 / theta ** ((2 * i) / dim));
}

/** The positions from..from + n − 1. */
const positionsFrom = (from, n) => Array.from({ length: n }, (_, i) => from + i);

/** The largest |a − b| of two equal-length arrays, and their difference as a Float64Array. */
function difference(a, b) {
  const change = Float64Array.from(a, (v, i) => b[i] - v);
  let largest = 0;
  for (const v of change) largest = Math.max(largest, Math.abs(v));
  return { change, largest };
}

/**
 * The weights of one head: the blocks of W_q (head h), W_k and W_v (its kv head g) and their biases, as one head, so
 * that the lesson's four runs compute only the head they show.
 */
function oneHead(state, weights, h, g) {
  const { dK, dV, dModel } = state;
  const block = (name, b, width) => ({
    data: columnBlockOf(currentMatrix(state, name), b * width, width).data,
    shape: [dModel, width],
  });
  const one = { wq: block('wq', h, dK), wk: block('wk', g, dK), wv: block('wv', g, dV), numHeads: 1 };
  const bias = (key, b, width) => {
    if (weights[key]) one[key] = { data: weights[key].data.slice(b * width, (b + 1) * width), shape: [width] };
  };
  bias('bq', h, dK);
  bias('bk', g, dK);
  bias('bv', g, dV);
  return one;
}

/**
 * Runs the head shown of the state's layer (its X without P, its W_q and W_k, no mask) with the `rope` option at
 * positions 0…n−1 and s…s+n−1, and without rope with the sinusoidal P of those positions added to X. Scores are QKᵀ
 * before scaling and softmax.
 *
 * | result                  | shape   |
 * |-------------------------|---------|
 * | q, qRotated             | [n, d_k] | the head shown, at positions s…s+n−1 (before and after the rotation)
 * | k, kRotated             | [n, d_k] | its kv head's
 * | rope.scores[0 or 1]     | [n, n]   | RoPE, at 0… and at s…
 * | rope.change             | [n, n]   | scores at s… − scores at 0…
 * | sinusoidal.scores, .change | [n, n] | the same with P added to X instead
 * @param {{ selfAttention: Function }} attn  an instance from createAttention()
 * @returns {object}  `{ error }` when d_k < 2 (no pair to turn)
 */
export function ropeStep(attn, state) {
  const { n, dK, dModel, ropeTheta: theta, ropeStyle: style, ropeShift: shift } = state;
  if (dK < 2) return { error: `d_k = ${dK} has no pair of dimensions to turn: RoPE needs d_k ≥ 2. Raise d_k.` };
  const dim = ropeDim(dK);
  const head = state.head;
  const kvHead = headBlock(state, 'wk');
  const base = attentionCall({ ...state, positions: false, causal: false, mask: null });
  const weights = oneHead(state, base.weights, head, kvHead);
  const options = { ...base.options, returnSteps: true };
  const run = (x, rope) => attn.selfAttention(x, weights, rope ? { ...options, rope } : options);
  const withRope = (from) => run(base.x, { theta, style, positions: positionsFrom(from, n) });
  const embeddings = currentMatrix(state, 'x');
  const withP = (from) => {
    const p = sinusoidalPositions(n, dModel, from);
    const data = new Float64Array(n * dModel);
    for (let i = 0; i < n; i++) for (let j = 0; j < dModel; j++) data[i * dModel + j] = embeddings[i][j] + p[i][j];
    return run({ data, shape: [n, dModel] });
  };
  const scoresOf = (result) => headSlice(result.rawScores, 0).data;
  const compare = (at0, atShift) => {
    const scores = [scoresOf(at0), scoresOf(atShift)];
    return { scores, ...difference(scores[0], scores[1]) };
  };
  const rope0 = withRope(0);
  const ropeS = shift === 0 ? rope0 : withRope(shift);
  const p0 = withP(0);
  const pS = shift === 0 ? p0 : withP(shift);
  return {
    head,
    kvHead,
    dim,
    theta,
    style,
    shift,
    labels: labelsFor(state),
    positions: positionsFrom(shift, n),
    pairs: ropePairs(style, dim),
    frequencies: ropeFrequencies(theta, dim),
    q: headSlice(ropeS.q, 0).data,
    qRotated: headSlice(ropeS.qRotated, 0).data,
    k: headSlice(ropeS.k, 0).data,
    kRotated: headSlice(ropeS.kRotated, 0).data,
    rope: compare(rope0, ropeS),
    sinusoidal: compare(p0, pS),
  };
}

/** The pairs in words: "(0, 4) (1, 5) (2, 6) (3, 7)". */
export const pairsText = (pairs) => pairs.map(([a, b]) => `(${a}, ${b})`).join(' ');

/** The angle a token at `position` turns pair i by, in words: "4 × 0.1 = 0.4 rad (23°)". */
export function angleText(position, frequency) {
  const angle = position * frequency;
  const degrees = ((angle * 180) / Math.PI) % 360;
  return `${position} × ${shortNumber(frequency)} = ${shortNumber(angle)} rad (${Math.round(degrees)}°${angle >= 2 * Math.PI ? ' after whole turns' : ''})`;
}

/** One dial's text alternative: the token, its position, the pair, the angle and the arrows before and after. */
export function dialText(step, t, i, dK) {
  const [a, b] = step.pairs[i];
  const pair = (v) => `(${shortNumber(v[t * dK + a])}, ${shortNumber(v[t * dK + b])})`;
  return (
    `${quote(step.labels[t])} at position ${step.positions[t]}, pair ${i} (dimensions ${a} and ${b}), frequency ` +
    `${shortNumber(step.frequencies[i])}: turned by ${angleText(step.positions[t], step.frequencies[i])}. ` +
    `q ${pair(step.q)} → ${pair(step.qRotated)}; k ${pair(step.k)} → ${pair(step.kRotated)}.`
  );
}

const styleWords = {
  half: 'half (LLaMA, GPT-NeoX: rotate_half): dimension i pairs with i + d/2',
  interleaved: 'interleaved (GPT-J): dimension 2i pairs with 2i + 1',
};

/** The pairing and the frequencies, in words. */
export function pairingText(step) {
  const freqs = step.frequencies.map(shortNumber).join(', ');
  return `Pairs, ${styleWords[step.style]}: ${pairsText(step.pairs)}. With θ = ${step.theta.toLocaleString('en')} and ${step.dim} dimensions turned, their frequencies are ${freqs} radians per position: the first pair turns fastest, the last slowest.`;
}

/** What the shift test found, in words. */
export function ropeText(state, step) {
  if (step.error) return step.error;
  const { n } = state;
  const { shift, rope, sinusoidal } = step;
  const moved =
    shift === 0
      ? 'Move the shift above 0 to move the whole sentence along. '
      : `Shifted by s = ${shift}, the tokens stand at positions ${shift}–${shift + n - 1} instead of 0–${n - 1}: every q and k turns further, by s × its pair's frequency. `;
  const tiny = rope.largest < 1e-3 * Math.max(1, ...Array.from(rope.scores[0], Math.abs));
  const ropeWords =
    rope.largest === 0
      ? 'RoPE: the scores stay exactly the same'
      : `RoPE: the scores stay the same: the largest change is ${rope.largest.toExponential(1)}${tiny ? ', float32 rounding' : ''}`;
  const pWords =
    sinusoidal.largest === 0
      ? 'with P added to X (step 9), they do not change either'
      : `with P added to X instead (step 9), the same shift changes them by up to ${shortNumber(sinusoidal.largest)}`;
  const extra = state.positions ? ' (X is taken without P here: RoPE replaces it.)' : '';
  const grouped = step.kvHead !== step.head ? ` Head ${step.head} uses the K of kv head ${step.kvHead}.` : '';
  return `${moved}${ropeWords}; ${pWords}.${extra}${grouped}`;
}
