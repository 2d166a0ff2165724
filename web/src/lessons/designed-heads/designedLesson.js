// The designed-heads lesson: which key each query of a designed head should attend to most, the check of that
// against the weights computed, and the lesson as one call. The designs themselves are in designedHeads.js.
import { DESIGNS, tokenSlots } from './designedHeads.js';
import { attentionCall, maskCell } from '../../shared/inputs.js';

/**
 * The keys a designed head should attend to most from query i, among those the mask allows; null when the
 * design expects nothing there (a word that occurs once, for "same word elsewhere").
 * @returns {number[] | null}
 */
export function expectedKeys(state, kind, i) {
  const slots = tokenSlots(state, Math.floor(state.dModel / 2));
  let keys;
  if (kind === 'previous') keys = [Math.max(i - 1, 0)];
  else if (kind === 'first') keys = [0];
  else if (kind === 'local') keys = [i - 1, i, i + 1].filter((j) => j >= 0 && j < state.n);
  else keys = slots.map((s, j) => (s === slots[i] && j !== i ? j : -1)).filter((j) => j >= 0);
  keys = keys.filter((j) => maskCell(state, i, j) === 'open');
  return keys.length ? keys : null;
}

/**
 * Each designed head's pattern as computed: for every query, the key with the largest weight (the first of equal
 * ones) and whether it is one the design expects.
 *
 * | input    | shape      |
 * |----------|------------|
 * | weights  | [H, n, n]  | the weights of selfAttention (numHeads given)
 * @param {{ data: Float32Array, shape: number[] }} weights
 * @returns {{ head: number, design: object, rows: { argmax: number, weight: number, expected: number[] | null, ok: boolean | null }[], holds: number, checked: number }[]}
 */
export function designedPatterns(state, weights) {
  const { n, numHeads } = state;
  return Array.from({ length: numHeads }, (_, head) => {
    const design = DESIGNS[head % DESIGNS.length];
    const rows = Array.from({ length: n }, (_, i) => {
      const row = weights.data.subarray((head * n + i) * n, (head * n + i + 1) * n);
      let argmax = 0;
      for (let j = 1; j < n; j++) if (row[j] > row[argmax]) argmax = j;
      const expected = expectedKeys(state, design.kind, i);
      return { argmax, weight: row[argmax], expected, ok: expected ? expected.includes(argmax) : null };
    });
    const checked = rows.filter((r) => r.ok !== null);
    return { head, design, rows, holds: checked.filter((r) => r.ok).length, checked: checked.length };
  });
}

/**
 * Why the designed heads may not show their patterns at these sizes, or '' when they can.
 * @returns {string}
 */
export function designedSizeNote(state) {
  const m = Math.floor(state.dModel / 2);
  const notes = [];
  if (state.n > m)
    notes.push(
      `X has position columns for the first ${m} tokens only (d_model / 2): raise d_model to ${2 * state.n} or shorten the sentence`,
    );
  if (state.dK < state.dModel)
    notes.push(`the designs need d_k ≥ d_model = ${state.dModel} (now ${state.dK}), or their last columns are cut off`);
  if (state.positions) notes.push('the sinusoidal encodings are added on top of the designed X: switch them off');
  return notes.length ? `The patterns may break here: ${notes.join('; ')}.` : '';
}

/**
 * The designed-heads lesson as one call: the state's layer through selfAttention, then designedPatterns.
 * @param {{ selfAttention: Function }} attn
 */
export function designedStep(attn, state) {
  const call = attentionCall(state);
  const result = attn.selfAttention(call.x, call.weights, call.options);
  return { result, patterns: designedPatterns(state, result.weights), note: designedSizeNote(state) };
}
