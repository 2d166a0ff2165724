// The model bench's memory child (run.mjs starts one per checkpoint, with --expose-gc): loads the model, runs the
// forward twice, and prints one JSON line: the WebAssembly memory after them (it grows to its peak and never
// shrinks), the largest JS heap in use seen at any layer of the second run (V8's heap, sampled in onProgress), the
// JS heap after a collection, the largest external ArrayBuffer bytes seen, and the process's peak RSS.
//   node --expose-gc bench/model/memory.mjs <folder> <ids, comma-separated> <resident | read>
// (read: loadModel's residentBytes 0, the weights read at every run; resident: the default, kept after the first)
import { loadModel } from '../../src/js/model/index.node.js';
import { peakRss, startMemoryWindow } from '../common.mjs';

const [dir, idList, mode = 'read'] = process.argv.slice(2);
const ids = idList.split(',').map(Number);
const peak = { heap: 0, arrayBuffers: 0 };
const sample = () => {
  const m = process.memoryUsage();
  peak.heap = Math.max(peak.heap, m.heapUsed);
  peak.arrayBuffers = Math.max(peak.arrayBuffers, m.arrayBuffers);
};
const model = await loadModel(dir, { onProgress: sample, ...(mode === 'resident' ? {} : { residentBytes: 0 }) });
await model.run({ ids }, { attentions: true, logits: true });
globalThis.gc();
Object.assign(peak, { heap: 0, arrayBuffers: 0 });
const rssBefore = startMemoryWindow();
const r = await model.run({ ids }, { attentions: true, logits: true });
sample();
const peakRssBytes = peakRss() - rssBefore;
globalThis.gc();
const after = process.memoryUsage();
console.log(
  JSON.stringify({
    wasmBytes: model.memoryBytes,
    peakHeapBytes: peak.heap,
    heapAfterGcBytes: after.heapUsed,
    peakArrayBuffersBytes: peak.arrayBuffers,
    peakRssAboveBytes: peakRssBytes,
    layers: r.attentions.length,
  }),
);
