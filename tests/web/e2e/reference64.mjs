// A float64 reference of multi-head attention, written out loop by loop, that the page tests check the page's
// float32 numbers against.

import { EXAMPLES } from '../../../web/src/shared/examples.js';
import { generatedMatrix, kvHeadsOf } from '../../../web/src/shared/matrices.js';

const zeros = (rows, cols) => Array.from({ length: rows }, () => new Array(cols).fill(0));

export function matmul(a, b) {
  const out = zeros(a.length, b[0].length);
  for (let i = 0; i < a.length; i++) {
    for (let k = 0; k < b.length; k++) {
      for (let j = 0; j < b[0].length; j++) out[i][j] += a[i][k] * b[k][j];
    }
  }
  return out;
}

/** Columns [from, from + width) of a nested matrix: a head's block of a W. */
export const columns = (m, from, width) => m.map((row) => row.slice(from, from + width));

/**
 * Multi-head self-attention in float64.
 * @param {{ x: number[][], wq: number[][], wk: number[][], wv: number[][], wo?: number[][], numHeads: number,
 * *   numKvHeads?: number, context?: number[][], causal?: boolean, scale?: number }} args  heads are column blocks of
 * *   the W's; numKvHeads: W_k and W_v have that many blocks, query head h using block ⌊h / (H / H_kv)⌋; context: K
 * *   and V come from it (cross-attention)
 * @returns {{ weights: number[][][], heads: number[][][], keys: number[][][], values: number[][][], concat: number[][], output: number[][] }}
 */
export function attention64({
  x,
  wq,
  wk,
  wv,
  wo,
  numHeads,
  numKvHeads = numHeads,
  context = x,
  causal = false,
  scale,
}) {
  const n = x.length;
  const dK = wq[0].length / numHeads;
  const dV = wv[0].length / numKvHeads;
  const group = numHeads / numKvHeads;
  const keys = [];
  const values = [];
  for (let g = 0; g < numKvHeads; g++) {
    keys.push(matmul(context, columns(wk, g * dK, dK)));
    values.push(matmul(context, columns(wv, g * dV, dV)));
  }
  const factor = scale ?? 1 / Math.sqrt(dK);
  const weights = [];
  const heads = [];
  for (let h = 0; h < numHeads; h++) {
    const q = matmul(x, columns(wq, h * dK, dK));
    const k = keys[Math.floor(h / group)];
    const v = values[Math.floor(h / group)];
    const w = q.map((qi, i) => {
      const scores = k.map((kj, j) =>
        causal && j > i ? -Infinity : factor * qi.reduce((s, a, c) => s + a * kj[c], 0),
      );
      const top = Math.max(...scores);
      const e = scores.map((s) => Math.exp(s - top));
      const sum = e.reduce((a, b) => a + b, 0);
      return e.map((value) => value / sum);
    });
    weights.push(w);
    heads.push(matmul(w, v));
  }
  const concat = Array.from({ length: n }, (_, i) => heads.flatMap((head) => head[i]));
  return { weights, heads, keys, values, concat, output: wo ? matmul(concat, wo) : concat };
}

/**
 * A page example (examples.js) from its seed's matrices, and its float64 reference: with kv heads (grouped-query
 * attention), W_k and W_v give their first kv-heads blocks.
 * @returns {{ m: Record<string, number[][]>, state: object, ref: ReturnType<typeof attention64> }}
 */
export function exampleReference(id) {
  const state = EXAMPLES.find((e) => e.id === id).state();
  const m = Object.fromEntries(['x', 'wq', 'wk', 'wv', 'wo'].map((name) => [name, generatedMatrix(state, name)]));
  const G = kvHeadsOf(state);
  const ref = attention64({
    ...m,
    wk: columns(m.wk, 0, G * state.dK),
    wv: columns(m.wv, 0, G * state.dV),
    numHeads: state.numHeads,
    numKvHeads: G,
    causal: state.causal,
  });
  return { m, state, ref };
}
