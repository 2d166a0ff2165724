// The model bench's contenders that run in JavaScript, in Node (run.mjs) and in the bench page (page.mjs): each is
// { name, run(): Promise<{ logits: Float32Array, attentions: Float32Array[] }> } over the same checkpoint and ids.
import { gpt2Model } from './gpt2-onnx.mjs';

/**
 * attention-wasm/model: model.run with every attention and the logits, as a page would call it. `options` are
 * loadModel's: by default the weights stay resident after the first run; `{ residentBytes: 0 }` reads them at every run.
 */
export async function oursContender(loadModel, source, ids, options = {}, name = 'attention-wasm') {
  const model = await loadModel(source, options);
  return {
    name,
    model,
    async run() {
      const r = await model.run({ ids }, { attentions: true, logits: true });
      return { logits: r.logits.data, attentions: r.attentions.map((a) => a.data) };
    },
    close: () => model.dispose(),
  };
}

/**
 * onnxruntime-web (wasm backend, `threads` threads: 1 by default; more need SharedArrayBuffer, which Node has) on
 * gpt2-onnx.mjs's graph, built from the same checkpoint: `read(name)` reads one of its tensors ({ data, shape }).
 */
export async function ortContender(ort, sizes, read, ids, threads = 1) {
  ort.env.wasm.numThreads = threads; // before the first session starts the backend (one setting per process)
  ort.env.logLevel = 'error';
  const session = await ort.InferenceSession.create(await gpt2Model({ ...sizes, n: ids.length }, read), {
    executionProviders: ['wasm'],
    graphOptimizationLevel: 'all',
  });
  const n = ids.length;
  const feeds = {
    ids: new ort.Tensor('int64', BigInt64Array.from(ids, BigInt), [n]),
    positions: new ort.Tensor(
      'int64',
      BigInt64Array.from({ length: n }, (_, i) => BigInt(i)),
      [n],
    ),
  };
  return {
    name: 'onnxruntime-web',
    async run() {
      const r = await session.run(feeds);
      return {
        logits: r.logits.data,
        attentions: Array.from({ length: sizes.layers }, (_, l) => r[`attentions.${l}`].data),
      };
    },
  };
}

/** The largest |a − b| over the logits and over every attention. */
export function compareOutputs(a, b) {
  const maxAbs = (x, y) => {
    let m = 0;
    for (let i = 0; i < x.length; i++) m = Math.max(m, Math.abs(x[i] - y[i]));
    return x.length === y.length ? m : NaN;
  };
  return {
    logits: maxAbs(a.logits, b.logits),
    attentions: Math.max(...a.attentions.map((x, l) => maxAbs(x, b.attentions[l]))),
  };
}
