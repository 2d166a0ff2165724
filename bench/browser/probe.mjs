// The page of bench/fresh-arrays.mjs: several implementations of one case loaded side by side in one page, so
// that their calls can be interleaved. globalThis.probe.setup(spec, names) prepares them; .batch(name, count,
// collect) times `count` calls of one (each after gc() when `collect`) and returns the per-call times in ms.
import { D, randomNormal } from '../cases.mjs';
import { attentionWasm } from '../impls/attention-wasm.mjs';
import { onnxruntimeWeb } from '../impls/onnxruntime-web.mjs';

const MAKERS = {
  ours: () => attentionWasm(),
  'ours-out': () => attentionWasm({ reuse: true }),
  ort: () => onnxruntimeWeb(),
};

const calls = {};

globalThis.probe = {
  async setup(spec, names) {
    const size = spec.heads * spec.n * D;
    const data = { q: randomNormal(size, 1), k: randomNormal(size, 2), v: randomNormal(size, 3) };
    for (const name of names) {
      const impl = MAKERS[name]();
      const lib = await impl.load();
      calls[name] = (await impl.prepare(lib, spec, data)).call;
      for (let i = 0; i < 30; i++) await calls[name]();
    }
    return globalThis.crossOriginIsolated;
  },
  async batch(name, count, collect, settleMs = 0) {
    const call = calls[name];
    const times = [];
    for (let i = 0; i < count; i++) {
      if (collect) globalThis.gc();
      if (settleMs) await new Promise((resolve) => setTimeout(resolve, settleMs));
      const t0 = performance.now();
      await call();
      times.push(performance.now() - t0);
    }
    return times;
  },
};
