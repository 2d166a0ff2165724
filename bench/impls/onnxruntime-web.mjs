// onnxruntime-web, wasm backend, running the graph of onnx-graph.mjs on settings.threads threads (default 1).
// Runs in Node (impl-onnxruntime-web.mjs) and in the browser bench's page, where an import map resolves
// 'onnxruntime-web' and its threads need a cross-origin isolated page.
import { D } from '../cases.mjs';
import { attentionModel } from '../onnx-graph.mjs';

export const onnxruntimeWeb = ({ threads = 1 } = {}) => ({
  async load() {
    const ort = await import('onnxruntime-web');
    ort.env.wasm.numThreads = threads; // before the first session starts the backend
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
