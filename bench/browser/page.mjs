// The page of the browser bench (bench/browser.mjs): times one (case, implementation), named in the URL's hash
// as JSON { impl, settings, spec, dataUrl, quick }, and leaves the result in globalThis.benchResult (a Promise).
import { caseFileName } from '../cases.mjs';
import { timeCase } from '../time-case.mjs';
import { attentionWasm } from '../impls/attention-wasm.mjs';
import { jsLoops } from '../impls/js-loops.mjs';
import { onnxruntimeWeb } from '../impls/onnxruntime-web.mjs';
import { tfjsWasm } from '../impls/tfjs-wasm.mjs';

const IMPLS = {
  'attention-wasm': attentionWasm,
  'onnxruntime-web': onnxruntimeWeb,
  'tfjs-wasm': () => tfjsWasm({ wasmPath: '/node_modules/@tensorflow/tfjs-backend-wasm/dist/' }),
  'js-loops': jsLoops,
};

async function fetchTyped(url, Type) {
  const response = await fetch(url);
  if (!response.ok) throw new Error(`${url}: HTTP ${response.status}`);
  return new Type(await response.arrayBuffer());
}

async function run() {
  const job = JSON.parse(decodeURIComponent(globalThis.location.hash.slice(1)));
  const impl = IMPLS[job.impl](job.settings);
  const reason = impl.unsupported?.(job.spec, job);
  if (reason) return { na: reason };
  const lib = await impl.load();
  const file = (part) => job.dataUrl + caseFileName(job.spec, part);
  const data = {
    q: await fetchTyped(file('q'), Float32Array),
    k: await fetchTyped(file('k'), Float32Array),
    v: await fetchTyped(file('v'), Float32Array),
    rows: await fetchTyped(file('rows'), Int32Array),
    ref: await fetchTyped(file('ref'), Float64Array),
  };
  const { memoryBytes, ...timing } = await timeCase(impl, lib, job, data);
  return { ...timing, wasmBytes: memoryBytes, crossOriginIsolated: globalThis.crossOriginIsolated };
}

globalThis.benchResult = run().catch((e) => ({
  failed: String(e?.message ?? e)
    .split('\n')[0]
    .slice(0, 200),
}));
