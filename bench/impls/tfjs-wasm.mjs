// @tensorflow/tfjs-backend-wasm (single-threaded SIMD build): matMul, mul, softmax, matMul. Runs in Node
// (impl-tfjs-wasm.mjs) and in the browser bench's page (an import map resolves the packages there).
// settings.wasmPath: the folder of the backend's .wasm files, ending in a separator.
import { D } from '../cases.mjs';

export const tfjsWasm = ({ wasmPath }) => ({
  async load() {
    const tf = await import('@tensorflow/tfjs-core');
    const wasm = await import('@tensorflow/tfjs-backend-wasm');
    wasm.setWasmPaths(wasmPath);
    tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
    await tf.setBackend('wasm');
    await tf.ready();
    return { tf, wasm };
  },
  unsupported: (spec, job) => (spec.long && !job.quick ? 'materializes [n, n] scores: 1 GiB each' : undefined),
  async prepare({ tf }, spec, data) {
    const dims = [spec.heads, spec.n, D];
    let mask = null;
    if (spec.causal) {
      const m = new Float32Array(spec.n * spec.n);
      for (let i = 0; i < spec.n; i++) m.fill(-Infinity, i * spec.n + i + 1, (i + 1) * spec.n);
      mask = tf.tensor2d(m, [spec.n, spec.n]);
    }
    const scale = tf.scalar(1 / Math.sqrt(D));
    return {
      call() {
        const [output, weights] = tf.tidy(() => {
          const q = tf.tensor3d(data.q, dims);
          const k = tf.tensor3d(data.k, dims);
          const v = tf.tensor3d(data.v, dims);
          let scores = tf.mul(tf.matMul(q, k, false, true), scale);
          if (mask) scores = tf.add(scores, mask);
          const w = tf.softmax(scores);
          return [tf.matMul(w, v), w];
        });
        const result = { output: output.dataSync(), weights: spec.weights ? weights.dataSync() : undefined };
        output.dispose();
        weights.dispose();
        return result;
      },
      memoryBytes: () => tf.backend().wasm?.HEAPU8?.length,
    };
  },
});
