// attention-wasm through its public API, copies in and out included. BENCH_SIMD=0 runs the scalar build.
import { runChild } from './child.mjs';
import { D } from './common.mjs';

runChild({
  async load() {
    const { createAttention } = await import('../src/js/index.js');
    return createAttention({ simd: process.env.BENCH_SIMD !== '0' });
  },
  async prepare(attention, spec, data) {
    const shape = spec.heads === 1 ? [spec.n, D] : [spec.heads, spec.n, D];
    const q = { data: data.q, shape };
    const k = { data: data.k, shape };
    const v = { data: data.v, shape };
    const options = { causal: spec.causal, returnWeights: spec.weights };
    return {
      call() {
        const r = attention.scaledDotProductAttention(q, k, v, options);
        return { output: r.output.data, weights: r.weights?.data };
      },
      memoryBytes: () => attention.memoryBytes,
    };
  },
});
