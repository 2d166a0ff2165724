// The page of the model bench in Chromium (browser.mjs): globalThis.modelBench.setup(folder URL, ids, sizes) reads
// the checkpoint's files into Blobs (as a picked folder's Files) and loads attention-wasm/model and onnxruntime-web
// side by side (ours with its weights resident, the default, on `workers` Web Workers for each count given, and read at
// every run; onnxruntime-web on `ortThreads` threads, which only a cross-origin-isolated page has); run(i) times one
// forward of
// contender i; outputs(i) returns its last outputs as base64 float32.
import * as ort from 'onnxruntime-web';
import { openSafetensors } from '../../src/js/io/index.js';
import { loadModel } from '../../src/js/model/index.js';
import { oursContender, ortContender } from './contenders.mjs';

const contenders = [];
const last = [];

const base64 = (arrays) => {
  const total = arrays.reduce((s, a) => s + a.byteLength, 0);
  const bytes = new Uint8Array(total);
  let at = 0;
  for (const a of arrays) {
    bytes.set(new Uint8Array(a.buffer, a.byteOffset, a.byteLength), at);
    at += a.byteLength;
  }
  let text = '';
  for (let i = 0; i < bytes.length; i += 0x8000) text += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(text);
};

globalThis.modelBench = {
  async setup(folder, ids, sizes, workerCounts = [], ortThreads = 1) {
    const get = async (name) => (await fetch(`${folder}/${name}`)).blob();
    const files = new Map([
      ['config.json', await get('config.json')],
      ['model.safetensors', await get('model.safetensors')],
    ]);
    contenders.push(await oursContender(loadModel, files, ids));
    for (const count of workerCounts) {
      const name = `attention-wasm, ${count} worker${count > 1 ? 's' : ''}`;
      contenders.push(await oursContender(loadModel, files, ids, { workers: count }, name));
    }
    const reading = 'attention-wasm, read at every run';
    contenders.push(await oursContender(loadModel, files, ids, { residentBytes: 0 }, reading));
    const file = await openSafetensors(files.get('model.safetensors'));
    contenders.push(await ortContender(ort, sizes, (name) => file.read(name), ids, ortThreads));
    for (const c of contenders) await c.run(); // warm-up
    return contenders.map((c) => c.name);
  },
  async run(i) {
    globalThis.gc?.();
    const t0 = performance.now();
    last[i] = await contenders[i].run();
    return { ms: performance.now() - t0 };
  },
  outputs(i) {
    const r = last[i];
    return { logits: base64([r.logits]), attentions: base64(r.attentions) };
  },
  memory() {
    const ours = contenders[0].model;
    return { wasmBytes: ours.memoryBytes, heapBytes: performance.memory?.usedJSHeapSize };
  },
};
