// onnxruntime-web, wasm backend, one thread, running the graph of onnx-graph.mjs.
import { runChild } from './child.mjs';
import { D } from './common.mjs';
import { attentionModel } from './onnx-graph.mjs';

runChild({
  load: () => import('onnxruntime-web'),
  async prepare(ort, spec, data) {
    ort.env.wasm.numThreads = 1;
    ort.env.logLevel = 'error';
    const model = attentionModel({ heads: spec.heads, n: spec.n, d: D, causal: spec.causal, withWeights: spec.weights });
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
