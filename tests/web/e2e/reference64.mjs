// A float64 reference of multi-head attention, written out loop by loop, that the page tests check the page's
// float32 numbers against.

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

const columns = (m, from, width) => m.map((row) => row.slice(from, from + width));

/**
 * Multi-head self-attention in float64.
 * @param {{ x: number[][], wq: number[][], wk: number[][], wv: number[][], wo?: number[][], numHeads: number,
 * *   causal?: boolean, scale?: number }} args  heads are column blocks of the W's
 * @returns {{ weights: number[][][], heads: number[][][], concat: number[][], output: number[][] }}
 */
export function attention64({ x, wq, wk, wv, wo, numHeads, causal = false, scale }) {
  const n = x.length;
  const dK = wq[0].length / numHeads;
  const dV = wv[0].length / numHeads;
  const factor = scale ?? 1 / Math.sqrt(dK);
  const weights = [];
  const heads = [];
  for (let h = 0; h < numHeads; h++) {
    const q = matmul(x, columns(wq, h * dK, dK));
    const k = matmul(x, columns(wk, h * dK, dK));
    const v = matmul(x, columns(wv, h * dV, dV));
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
  return { weights, heads, concat, output: wo ? matmul(concat, wo) : concat };
}
