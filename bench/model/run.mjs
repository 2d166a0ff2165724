// The model bench: a GPT-2-small-shaped checkpoint with random weights (12 layers, d_model 768, 12 heads, vocab
// 50 257, F32, the Hub's layout; checkpoint.mjs) and a full forward of 32 tokens with every attention and the
// logits, side by side in one process (or one page with --browser), interleaved round by round:
//   attention-wasm              loadModel(folder).run: the weights resident in WebAssembly memory after the first run
//                               (loadModel's default residentBytes), as onnxruntime-web keeps its weights
//   attention-wasm, read at every run   residentBytes 0: the weights read from the files, one layer at a time
//   attention-wasm, in memory, read at every run   the same with the files' bytes in memory (no file reads)
//   attention-wasm, N workers   loadModel(folder, { workers: N }) for each N of --workers (default 1,2): the layers
//                               split over N worker_threads by heads and MLP units (model/shards.js)
//   onnxruntime-web             wasm backend, 1 thread (--ort-threads N: N threads, one setting per process), on the
//                               same GPT-2 graph built from the same weights (gpt2-onnx.mjs)
//   native                      the same C++ forward built with g++ -O3 -msse4.2 (native.cc), reading the same file
// Each contender's outputs are compared with attention-wasm's (max abs difference of the logits and of every
// attention). Then the memory of the forward in fresh processes (memory.mjs): read at every run, the WebAssembly
// memory against one layer's weights + 64 MiB, and the JS heap, for a checkpoint of half the layers and the whole
// one; and the whole one resident.
//
//   node bench/model/run.mjs --native <model_native_bench> [--rounds 5] [--n 32] [--workers 1,2] [--ort-threads 1]
//                            [--only-fast] [--browser [--isolated]] [--quick] [--dir build/bench-model]
//                            [--baseline <another copy's src/js/model/index.node.js>] [--hand-offs]
// (--hand-offs: for each N of --workers one more contender, "attention-wasm, N workers, hand-offs": every layer handed
// off by messages, as where there is no SharedArrayBuffer, beside the default chains through shared memory; Node.)
// (--only-fast: without the two contenders that read at every run, and without the memory section.)
// (--browser --isolated: the page served cross-origin isolated (COOP/COEP), where onnxruntime-web can take
// --ort-threads N threads and SharedArrayBuffer exists; without --isolated it has 1 thread, as most pages.)
// (--baseline: one more contender, "attention-wasm, baseline", the resident forward of another build of the package,
// e.g. a copy of src/ made before a change, interleaved with this one in the same rounds.)
//   node bench/model/run.mjs --family [--rounds 3] [--quick]: the families bench instead (families.mjs)
// (npm run bench:model builds the native driver and runs this; --quick: a 2-layer d_model 64 model, 1 round.)
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import * as ort from 'onnxruntime-web';
import { openSafetensors } from '../../src/js/io/index.js';
import { loadModel } from '../../src/js/model/index.node.js';
import { useSharedMemory } from '../../src/js/model/shards.js';
import { benchIds, writeGpt2Checkpoint } from './checkpoint.mjs';
import { compareOutputs, oursContender, ortContender } from './contenders.mjs';
import { runInPage } from './browser.mjs';
import { startNative } from './native-child.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const flag = (name) => args.includes(`--${name}`);
const option = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
const quick = flag('quick') || process.env.BENCH_QUICK === '1';
const browser = flag('browser');
const rounds = Number(option('rounds', quick ? 1 : 5));
const n = Number(option('n', quick ? 8 : 32));
const shape = quick
  ? { layers: 2, d: 64, heads: 2, vocab: 1000, positions: 64 }
  : { layers: 12, d: 768, heads: 12, vocab: 50257, positions: 1024 };
const native = option('native', null);
const workerCounts = option('workers', '1,2').split(',').filter(Boolean).map(Number);
const ortThreads = Number(option('ort-threads', 1));
const onlyFast = flag('only-fast');
const base = path.resolve(root, option('dir', 'build/bench-model'));
if (flag('family')) {
  // the families bench (families.mjs): Pythia-160M- and Qwen3-0.6B-shaped checkpoints against GPT-2 small's
  const { benchFamilies } = await import('./families.mjs');
  await benchFamilies({ base, quick, rounds: Number(option('rounds', quick ? 1 : 3)), n, loadModel });
  process.exit(0);
}
const folder = (layers) => path.join(base, `gpt2-${quick ? 'quick-' : ''}${layers}`);
const MiB = 2 ** 20;

const dir = folder(shape.layers);
console.error(`writing ${dir} (once)`);
writeGpt2Checkpoint(dir, shape);
const ids = benchIds(n, shape.vocab);
const sizes = { layers: shape.layers, d: shape.d, heads: shape.heads, vocab: shape.vocab };
const loadAvg = () => os.loadavg()[0].toFixed(1);
const loadBefore = loadAvg();

// ---- contenders ----
let contenders;
let page;
if (browser) {
  page = await runInPage(root, path.relative(root, dir), ids, sizes, workerCounts, {
    isolated: flag('isolated'),
    ortThreads,
  });
  contenders = page.contenders;
} else {
  const file = await openSafetensors(await fs.openAsBlob(path.join(dir, 'model.safetensors')));
  const inMemory = new Map(['config.json', 'model.safetensors'].map((f) => [f, fs.readFileSync(path.join(dir, f))]));
  const reading = { residentBytes: 0 };
  contenders = [await oursContender(loadModel, dir, ids)];
  for (const count of workerCounts) {
    const name = `attention-wasm, ${count} worker${count > 1 ? 's' : ''}`;
    contenders.push(await oursContender(loadModel, dir, ids, { workers: count }, name));
    if (flag('hand-offs')) {
      useSharedMemory(false);
      contenders.push(await oursContender(loadModel, dir, ids, { workers: count }, `${name}, hand-offs`));
      useSharedMemory(true);
    }
  }
  if (!onlyFast) {
    contenders.push(await oursContender(loadModel, dir, ids, reading, 'attention-wasm, read at every run'));
    contenders.push(
      await oursContender(loadModel, inMemory, ids, reading, 'attention-wasm, in memory, read at every run'),
    );
  }
  contenders.push(await ortContender(ort, sizes, (name) => file.read(name), ids, ortThreads));
  const baseline = option('baseline', null);
  if (baseline) {
    const other = await import(path.resolve(baseline));
    contenders.splice(1, 0, await oursContender(other.loadModel, dir, ids, {}, 'attention-wasm, baseline'));
  }
}
if (native) contenders.push(startNative(native, dir, ids, sizes));

// ---- outputs: each against attention-wasm's ----
const outputs = [];
for (const c of contenders) {
  const r = await c.run();
  outputs.push(c.outputs ? await c.outputs(path.join(os.tmpdir(), `model-bench-${process.pid}.bin`)) : r);
}
const differences = contenders.map((c, i) => (i ? compareOutputs(outputs[0], outputs[i]) : null));
outputs.length = 0;

// ---- rounds: every contender once per round, the order reversed every other round ----
const times = contenders.map(() => []);
const cpuTimes = contenders.map(() => []); // CPU time of the run (Node: this process's, every thread; the page: its renderer process's, CDP's ProcessTime; native: its own)
const coreTimes = [];
for (let round = 0; round < rounds; round++) {
  const order = contenders.map((_, i) => i);
  if (round % 2) order.reverse();
  for (const i of order) {
    const cpu0 = browser ? null : process.cpuUsage();
    const t0 = performance.now();
    const r = await contenders[i].run();
    const ms = performance.now() - t0;
    times[i].push(r?.totalMs ?? r?.ms ?? ms);
    const cpu = cpu0 && process.cpuUsage(cpu0);
    if (r?.cpuMs !== undefined || cpu) cpuTimes[i].push(r?.cpuMs ?? (cpu.user + cpu.system) / 1000);
    if (r?.coreMs) coreTimes.push(r.coreMs);
  }
}
const loadAfter = loadAvg();
const memory = page ? await page.memory() : null;
if (page) await page.close();
for (const c of contenders) await c.close?.();

// ---- memory, in fresh processes: half the layers and all of them ----
const memoryRows = [];
if (!browser && !onlyFast) {
  for (const [layers, resident] of [
    [shape.layers / 2, false],
    [shape.layers, false],
    [shape.layers, true],
  ]) {
    const at = folder(layers);
    writeGpt2Checkpoint(at, { ...shape, layers });
    const out = execFileSync(
      process.execPath,
      ['--expose-gc', path.join(root, 'bench/model/memory.mjs'), at, ids.join(','), resident ? 'resident' : 'read'],
      { encoding: 'utf8' },
    );
    memoryRows.push({ layers, resident, ...JSON.parse(out.trim().split('\n').pop()) });
  }
}

// ---- the tables ----
const stats = (t) => {
  const s = [...t].sort((a, b) => a - b);
  return { median: s[s.length >> 1], min: s[0] };
};
const fmt = (x) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));
const byName = Object.fromEntries(
  contenders.map((c, i) => [
    c.name,
    { ...stats(times[i]), cpu: cpuTimes[i].length ? stats(cpuTimes[i]).median : null },
  ]),
);
if (coreTimes.length) byName['native, the forward’s calls only'] = stats(coreTimes);
const ratio = (s, other, field) => (byName[other] ? (s[field] / byName[other][field]).toFixed(2) : '–');
const isolation = flag('isolated') ? ', cross-origin isolated' : ', no cross-origin isolation';
const env = browser ? `headless Chromium ${page.version}${isolation}` : `Node ${process.version}`;
console.log(
  `\nGPT-2 small's shapes (${shape.layers} layers, d_model ${shape.d}, ${shape.heads} heads, vocab ${shape.vocab}), ` +
    `F32, random weights; ${n} tokens, every attention and the logits; ${env}; ${rounds} rounds; ` +
    `onnxruntime-web on ${ortThreads} thread${ortThreads > 1 ? 's' : ''}.\n`,
);
console.log(
  `| contender | median ms | min ms | × native | (by min) | × onnxruntime-web | (by min) | × attention-wasm | CPU ms | CPU × native | CPU × onnxruntime-web | logits vs attention-wasm | attentions vs attention-wasm |`,
);
console.log('|---|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|');
const cpuRatio = (s, other) => (s.cpu && byName[other]?.cpu ? (s.cpu / byName[other].cpu).toFixed(2) : '');
for (const [name, s] of Object.entries(byName)) {
  const i = contenders.findIndex((c) => c.name === name);
  const diff = differences[i];
  const cells = [
    name,
    fmt(s.median),
    fmt(s.min),
    ratio(s, 'native', 'median'),
    ratio(s, 'native', 'min'),
    ratio(s, 'onnxruntime-web', 'median'),
    ratio(s, 'onnxruntime-web', 'min'),
    ratio(s, 'attention-wasm', 'median'),
    s.cpu ? fmt(s.cpu) : '',
    cpuRatio(s, 'native'),
    cpuRatio(s, 'onnxruntime-web'),
    diff ? diff.logits.toExponential(1) : '',
    diff ? diff.attentions.toExponential(1) : '',
  ];
  console.log(`| ${cells.join(' | ')} |`);
}
const layerBytes = (() => {
  const { d } = shape;
  return (12 * d * d + 13 * d) * 4; // c_attn, c_proj, c_fc, c_proj and their biases, ln_1, ln_2
})();
if (memoryRows.length) {
  console.log(
    `\nMemory of the forward (fresh process each; one layer's weights: ${(layerBytes / MiB).toFixed(1)} MiB, so the limit read at every run is ${((layerBytes + 64 * MiB) / MiB).toFixed(1)} MiB):\n`,
  );
  console.log(
    '| layers | weights | WebAssembly memory MiB | peak JS heap MiB | JS heap after gc MiB | peak ArrayBuffers MiB | peak RSS above start MiB |',
  );
  console.log('|--:|---|--:|--:|--:|--:|--:|');
  for (const m of memoryRows) {
    const cells = [
      m.layers,
      m.resident ? 'resident' : 'read at every run',
      m.wasmBytes,
      m.peakHeapBytes,
      m.heapAfterGcBytes,
      m.peakArrayBuffersBytes,
      m.peakRssAboveBytes,
    ];
    console.log(`| ${cells.map((x, i) => (i > 1 ? (x / MiB).toFixed(1) : x)).join(' | ')} |`);
  }
}
if (memory)
  console.log(
    `\nIn the page: WebAssembly memory ${(memory.wasmBytes / MiB).toFixed(1)} MiB; JS heap in use ${(memory.heapBytes / MiB).toFixed(1)} MiB.`,
  );
console.log(
  `\n${os.cpus()[0]?.model}, ${os.cpus().length} cores; load average ${loadBefore} before, ${loadAfter} after.`,
);

// Each contender computes the same forward: a difference past float32 rounding is a failure, not a row.
const bad = differences.filter((d) => d && !(d.logits < 1e-3 && d.attentions < 1e-4));
const wasmOver = memoryRows.some((m) => !m.resident && m.wasmBytes > layerBytes + 64 * MiB);
if (bad.length || wasmOver) {
  console.error(bad.length ? 'outputs differ beyond float32 rounding' : 'WebAssembly memory over one layer + 64 MiB');
  process.exitCode = 1;
}
