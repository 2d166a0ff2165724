// onnxruntime-web, wasm backend, running the graph of onnx-graph.mjs: one thread, or BENCH_THREADS.
import { runChild } from './child.mjs';
import { D } from './common.mjs';
import { attentionModel } from './onnx-graph.mjs';

runChild({
  async load() {
    const ort = await import('onnxruntime-web');
    ort.env.wasm.numThreads = Number(process.env.BENCH_THREADS ?? 1); // before the first session starts the backend
    ort.env.logLevel = 'error';
    return ort;
  },
  async prepare(ort, spec, data) {
    const { heads, n, causal, weights } = spec;
    const model = attentionModel({ heads, n, d: D, causal, withWeights: weights });
    const session = await ort.InferenceSession.create(model, {
      executionProviders: ['wasm'],
      graphOptimizationLevel: 'all',
    });
    const dims = [spec.heads, spec.n, D];
    return {
      async call() {
        const r = await session.run({
          q: new ort.Tensor('float32', data.q, dims),
          k: new ort.Tensor('float32', data.k, dims),
          v: new ort.Tensor('float32', data.v, dims),
        });
        return { output: r.output.data, weights: r.weights?.data };
      },
    };
  },
});
