// attention-wasm through its public API, copies in and out included. Runs in Node (impl-attention-wasm.mjs)
// and in the browser bench's page. settings.simd false: the scalar build; settings.workers N: each call spread
// over N workers (createAttention({ workers: N })); settings.reuse: results written into the same arrays at every
// call (options.out) instead of new ones. settings.entry: the package's entry (Node's index.node.js in Node).
import { D } from '../cases.mjs';

const unpack = (r) => ({ output: r.output.data, weights: r.weights?.data });

export const attentionWasm = ({ simd = true, workers, reuse = false, entry = '../../src/js/index.js' } = {}) => ({
  async load() {
    const { createAttention } = await import(entry);
    return createAttention({ simd, ...(workers ? { workers } : {}) });
  },
  async prepare(attention, spec, data) {
    const shape = spec.heads === 1 ? [spec.n, D] : [spec.heads, spec.n, D];
    const q = { data: data.q, shape };
    const k = { data: data.k, shape };
    const v = { data: data.v, shape };
    const options = { causal: spec.causal, returnWeights: spec.weights };
    if (reuse) {
      const { n, heads } = spec;
      options.out = {
        output: new Float32Array(heads * n * D),
        ...(spec.weights ? { weights: new Float32Array(heads * n * n) } : {}),
      };
    }
    return {
      // Synchronous on one thread, so that no await adds to the tiny cases; a Promise with workers.
      call: attention.workers
        ? async () => unpack(await attention.scaledDotProductAttention(q, k, v, options))
        : () => unpack(attention.scaledDotProductAttention(q, k, v, options)),
      memoryBytes: () => attention.memoryBytes,
    };
  },
});
