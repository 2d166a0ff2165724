// Tokens, then positions: the embedding table X = E[token], the sinusoidal positional encodings P, and the
// word-order demo that shows attention alone does not see word order.
import { cellValue, randomRow } from './rng.js';

/**
 * Row `token` of the seeded embedding table: the same text always gets the same d_model numbers (variance 1,
 * 2 decimals, like the other generated matrices).
 * @returns {number[]}
 */
export function embeddingRow(seed, dist, token, dModel) {
  return randomRow({ seed, stream: `embedding:${token}`, cols: dModel, dist });
}

/**
 * The sinusoidal positional encodings of "Attention Is All You Need" (section 3.5):
 * P[pos][2i] = sin(pos / 10000^(2i/d_model)), P[pos][2i+1] = cos(pos / 10000^(2i/d_model)).
 *
 * | result | shape        |
 * |--------|--------------|
 * | P      | [n, d_model] | rows: positions from, from + 1, …
 * @returns {number[][]}
 */
export function sinusoidalPositions(n, dModel, from = 0) {
  // The divisors once per column, not once per cell: the same numbers, ~10 times fast at GPT-2's width.
  const divisors = Array.from({ length: dModel }, (_, d) => 10000 ** ((2 * Math.floor(d / 2)) / dModel));
  return Array.from({ length: n }, (_, row) =>
    divisors.map((divisor, d) => {
      const angle = (from + row) / divisor;
      return d % 2 === 0 ? Math.sin(angle) : Math.cos(angle);
    }),
  );
}

/** a + b, elementwise, for two matrices of the same shape. */
export const addMatrices = (a, b) => a.map((row, i) => row.map((v, j) => v + b[i][j]));

/**
 * The k-th shuffle of n positions: a seeded permutation, never the identity when n ≥ 2.
 * perm[p] is the original position of the token now at position p.
 * @returns {number[]}
 */
export function shuffleOrder(n, k, seed) {
  const perm = Array.from({ length: n }, (_, i) => i);
  if (n < 2) return perm;
  for (let attempt = 0; attempt < 8; attempt++) {
    for (let i = n - 1; i > 0; i--) {
      const u = (cellValue(seed, `shuffle:${k}:${attempt}`, i, 0, 'uniform') / Math.sqrt(3) + 1) / 2;
      const j = Math.min(i, Math.floor(u * (i + 1)));
      [perm[i], perm[j]] = [perm[j], perm[i]];
    }
    if (perm.some((p, i) => p !== i)) return perm;
  }
  return perm.map((_, i) => (i + 1) % n);
}
