// @tensorflow/tfjs-backend-wasm (single-threaded SIMD build): matMul, mul, softmax, matMul.
import path from 'node:path';
import { createRequire } from 'node:module';
import { runChild } from './child.mjs';
import { D } from './common.mjs';

runChild({
  async load() {
    const tf = await import('@tensorflow/tfjs-core');
    const wasm = await import('@tensorflow/tfjs-backend-wasm');
    const dist = path.dirname(createRequire(import.meta.url).resolve('@tensorflow/tfjs-backend-wasm'));
    wasm.setWasmPaths(dist + path.sep);
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
