// Designed heads: X, W_q and W_k built by hand (not random) so that each head shows a pattern trained models are
// known for; loading this module hands designedMatrix to matrices.js. The lesson's check of which key each query
// attends to most is in designedLesson.js.
import { provideDesigned } from '../../shared/matrices.js';
import { tokenize } from '../../shared/tokens.js';

/** The number each designed weight holds: a match scores STRENGTH² = 25 before scaling. */
export const STRENGTH = 5;

/** The four designed patterns, in the order of the heads (head h shows DESIGNS[h mod 4]). */
export const DESIGNS = [
  {
    kind: 'previous',
    title: 'previous token',
    how:
      'W_k copies each token’s position into its key (position p → dimension p), and W_q writes position p into dimension p − 1, ' +
      'so the query at p scores 5 × 5 = 25 against the key just before it and 0 elsewhere; ' +
      'the first token looks at itself. Trained models have such previous-token heads (half of an induction head).',
  },
  {
    kind: 'first',
    title: 'first token (attention sink)',
    how:
      'W_q gives every token the same query, 5 in dimension 0 (read from its token columns, each of which holds one 1), ' +
      'and W_k puts 5 in dimension 0 for position 0 only. So every query scores 25 against the first token and 0 against the rest: ' +
      'an attention sink, where trained models park attention that has nowhere better to go.',
  },
  {
    kind: 'same',
    title: 'same word elsewhere',
    how:
      'W_q and W_k both copy the token columns, so q·k is 25 for two copies of the same word, and they copy the position ' +
      'with −5 and +5, which takes the 25 off again for a token and itself. A word that occurs once finds no match, so its ' +
      'attention spreads evenly (trained models have such duplicate-token heads).',
  },
  {
    kind: 'local',
    title: 'local window',
    how:
      'W_k copies each token’s position into its own dimension, and W_q writes position p into dimensions p − 1, p and p + 1. ' +
      'So a query scores 25 against its neighbours and itself and 0 further away: a window of three tokens around the ' +
      'query, both ways, as in Longformer’s local attention. Mistral 7B’s sliding window looks backwards only (the last ' +
      '4,096 tokens): this window with the causal mask on.',
  },
];

/** Token slots: the k-th distinct token of the sentence gets slot k (mod `slots`). */
export function tokenSlots(state, slots) {
  const tokens = tokenize(state.sentence);
  const seen = new Map();
  return Array.from({ length: state.n }, (_, i) => {
    const token = tokens[i] ?? `#${i + 1}`;
    if (!seen.has(token)) seen.set(token, seen.size % slots);
    return seen.get(token);
  });
}

/**
 * The designed X, W_q or W_k. X's first m = ⌊d_model / 2⌋ columns say which word a token is (one 1 in its word's
 * column), the next m where it stands (one 1 at its position, for positions below m). Each head's block of W_q and
 * W_k, [d_model, d_k], reads those columns as DESIGNS[h mod 4] says; cells past d_k are left out.
 *
 * | name    | shape                  |
 * |---------|------------------------|
 * | x       | [n, d_model]           |
 * | wq, wk  | [d_model, heads · d_k] |
 * @returns {number[][]}
 */
export function designedMatrix(state, name) {
  const { n, dModel, dK, numHeads } = state;
  const m = Math.floor(dModel / 2);
  if (name === 'x') {
    const slots = tokenSlots(state, m);
    return Array.from({ length: n }, (_, i) => {
      const row = new Array(dModel).fill(0);
      row[slots[i]] = 1;
      if (i < m) row[m + i] = 1;
      return row;
    });
  }
  const w = Array.from({ length: dModel }, () => new Array(numHeads * dK).fill(0));
  const a = STRENGTH;
  for (let h = 0; h < numHeads; h++) {
    const set = (row, col, value) => {
      if (col >= 0 && col < dK) w[row][h * dK + col] = value;
    };
    const kind = DESIGNS[h % DESIGNS.length].kind;
    for (let p = 0; p < m; p++) {
      const pos = m + p; // X's column of position p
      if (name === 'wk') {
        if (kind === 'same') {
          set(p, p, a);
          set(pos, m + p, a);
        } else if (kind !== 'first' || p === 0) set(pos, kind === 'first' ? 0 : p, a);
      } else if (kind === 'previous') set(pos, Math.max(p - 1, 0), a);
      else if (kind === 'first') set(p, 0, a);
      else if (kind === 'same') {
        set(p, p, a);
        set(pos, m + p, -a);
      } else for (const d of [-1, 0, 1]) set(pos, p + d, a);
    }
  }
  return w;
}

provideDesigned(designedMatrix);
