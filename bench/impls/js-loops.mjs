// Plain JavaScript loops over Float32Arrays: the baseline any page could write by hand. Runs in Node
// (impl-js-loops.mjs) and in the browser bench's page.
import { D } from '../cases.mjs';

function attention(q, k, v, heads, n, causal, withWeights) {
  const output = new Float32Array(heads * n * D);
  const weights = withWeights ? new Float32Array(heads * n * n) : null;
  const row = new Float32Array(n);
  const scale = 1 / Math.sqrt(D);
  for (let h = 0; h < heads; h++) {
    const base = h * n * D;
    for (let i = 0; i < n; i++) {
      const keys = causal ? i + 1 : n;
      let max = -Infinity;
      for (let j = 0; j < keys; j++) {
        let dot = 0;
        for (let c = 0; c < D; c++) dot += q[base + i * D + c] * k[base + j * D + c];
        row[j] = dot * scale;
        if (row[j] > max) max = row[j];
      }
      let sum = 0;
      for (let j = 0; j < keys; j++) {
        row[j] = Math.exp(row[j] - max);
        sum += row[j];
      }
      const out = base + i * D;
      for (let j = 0; j < keys; j++) {
        const w = row[j] / sum;
        if (weights) weights[(h * n + i) * n + j] = w;
        for (let c = 0; c < D; c++) output[out + c] += w * v[base + j * D + c];
      }
    }
  }
  return { output, weights };
}

export const jsLoops = () => ({
  load: async () => null,
  unsupported: (spec, job) => (spec.long && !job.quick ? 'about a minute a call' : undefined),
  async prepare(_, spec, data) {
    return { call: () => attention(data.q, data.k, data.v, spec.heads, spec.n, spec.causal, spec.weights) };
  },
});
