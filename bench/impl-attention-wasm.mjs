// attention-wasm through its public API, copies in and out included. BENCH_SIMD=0 runs the scalar build;
// BENCH_WORKERS=N spreads each call over N workers (createAttention({ workers: N })).
import { runChild } from './child.mjs';
import { D } from './common.mjs';

const unpack = (r) => ({ output: r.output.data, weights: r.weights?.data });

runChild({
  async load() {
    const { createAttention } = await import('../src/js/index.node.js');
    const workers = process.env.BENCH_WORKERS ? Number(process.env.BENCH_WORKERS) : undefined;
    return createAttention({ simd: process.env.BENCH_SIMD !== '0', ...(workers ? { workers } : {}) });
  },
  async prepare(attention, spec, data) {
    const shape = spec.heads === 1 ? [spec.n, D] : [spec.heads, spec.n, D];
    const q = { data: data.q, shape };
    const k = { data: data.k, shape };
    const v = { data: data.v, shape };
    const options = { causal: spec.causal, returnWeights: spec.weights };
    return {
      // Synchronous on one thread, so that no await adds to the tiny cases; a Promise with workers.
      call: attention.workers
        ? async () => unpack(await attention.scaledDotProductAttention(q, k, v, options))
        : () => unpack(attention.scaledDotProductAttention(q, k, v, options)),
      memoryBytes: () => attention.memoryBytes,
    };
  },
});
