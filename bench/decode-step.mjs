// A decode step with the KV cache against the full forward, side by side in one process (issue 24 §5):
//   node bench/decode-step.mjs [--rounds 5] [--layers 12] [--d 768] [--heads 12] [--vocab 50257] [--workers 2]
//                              [--hand-offs] [--keep]
// Writes a GPT-2-small-shaped checkpoint with random weights (12 layers, d_model 768, 12 heads, vocab 50 257,
// 1024 positions; model.safetensors in F32, as GPT-2's, ~500 MB) to a temp folder, loads it from there with
// attention-wasm/model, and times, interleaved round by round so that a busy machine slows all alike:
//   full forward    model.run(32 ids) with every attention, the hidden states and the logits (run()'s defaults)
//   prefill         generate()'s first step on 31 ids: reads every weight once and keeps it resident
//   decode step     its second step: the 32nd token through every layer over the cache (32 tokens of context)
//   step, no cache of weights  the same step with residentBytes: 0 (every layer read again, as run() reads it)
//   decode step, N workers   the decode step of a model loaded with { workers: N } for each N of --workers (default
//                            2; 0: none): the layers and the KV cache split over N worker_threads (model/shards.js),
//                            every layer of the step as one chain through shared memory (model/shard-chain.js)
//   decode step, N workers, hand-offs   with --hand-offs: the same with every layer handed off by messages, as where
//                            there is no SharedArrayBuffer
// Prints a Markdown table of ms: median and min of the rounds, and each median over the full forward's.
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { loadModel } from '../src/js/model/index.node.js';
import { useSharedMemory } from '../src/js/model/shards.js';
import { writeGpt2Checkpoint } from './model/checkpoint.mjs';
import { seededRandom } from '../tests/js/seeded-random.js';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : fallback;
};
const rounds = arg('rounds', 5);
const layers = arg('layers', 12);
const [d, heads, vocab, positions] = [arg('d', 768), arg('heads', 12), arg('vocab', 50257), 1024];
const CONTEXT = 32;

const dir = mkdtempSync(join(os.tmpdir(), 'decode-step-'));
try {
  writeGpt2Checkpoint(dir, { layers, d, heads, vocab, positions }); // the model bench's writer
  const bytes = statSync(join(dir, 'model.safetensors')).size;
  // residentBytes 0: the model keeps no weights across runs, so that the full forward reads them at every run and a
  // generation keeps its own (its residentBytes), as measured here.
  const model = await loadModel(dir, { residentBytes: 0 });
  const workerCounts = String(process.argv[process.argv.indexOf('--workers') + 1] ?? '2');
  const split = process.argv.includes('--workers') ? workerCounts.split(',').map(Number).filter(Boolean) : [2];
  const handOffs = process.argv.includes('--hand-offs');
  const onWorkers = [];
  for (const workers of split) {
    onWorkers.push(await loadModel(dir, { workers }));
    if (!handOffs) continue;
    useSharedMemory(false);
    onWorkers.push(await loadModel(dir, { workers }));
    useSharedMemory(true);
  }
  const random = seededRandom(7);
  const ids = Array.from({ length: CONTEXT }, () => Math.floor(((random() + 1) / 2) * vocab));
  const baseline = model.heapBytesInUse();

  const cpu = {}; // per row: CPU ms of each sample (this process's, every thread)
  let lastCpu = 0;
  const time = async (call) => {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    await call();
    const t = performance.now() - t0;
    const c = process.cpuUsage(c0);
    lastCpu = (c.user + c.system) / 1000;
    return t;
  };
  const push = (name, t) => {
    samples[name].push(t);
    (cpu[name] ??= []).push(lastCpu);
  };
  /** Prefill and decode step times of one generation of 31 + 1 tokens, and the heap during it. */
  const generation = async (residentBytes, on = model) => {
    const steps = on.generate({ ids: ids.slice(0, CONTEXT - 1) }, { maxNewTokens: 2, residentBytes });
    const prefill = await time(() => steps.next());
    const step = await time(() => steps.next()); // lastCpu: the step's
    const heap = model.heapBytesInUse() - baseline;
    await steps.return();
    return { prefill, step, heap };
  };
  const samples = { 'full forward': [], prefill: [], 'decode step': [], 'step, no cache of weights': [] };
  const names = split.flatMap((n) => {
    const name = `decode step, ${n} worker${n > 1 ? 's' : ''}`;
    return handOffs ? [name, `${name}, hand-offs`] : [name];
  });
  for (const name of names) samples[name] = [];
  for (const m of onWorkers) await generation(undefined, m); // warm-up
  let heap = 0;
  await model.run({ ids }); // warm-up: every path compiled and optimized
  await generation(undefined);
  for (let round = 0; round < rounds; round++) {
    push('full forward', await time(() => model.run({ ids })));
    const resident = await generation(undefined);
    samples.prefill.push(resident.prefill);
    push('decode step', resident.step);
    heap = resident.heap;
    push('step, no cache of weights', (await generation(0)).step);
    for (const [i, m] of onWorkers.entries()) push(names[i], (await generation(undefined, m)).step);
  }
  const median = (t) => t.slice().sort((a, b) => a - b)[t.length >> 1];
  const full = median(samples['full forward']);
  const f = (x) => (x < 10 ? x.toFixed(2) : x.toFixed(1));
  const lines = [
    `| GPT-2 shape: ${layers} layers, d_model ${d}, ${heads} heads, vocab ${vocab}; ${CONTEXT} tokens | median ms | min ms | × full forward | × decode step | CPU ms | CPU × decode step's |`,
    '|---|--:|--:|--:|--:|--:|--:|',
  ];
  for (const [name, t] of Object.entries(samples))
    lines.push(
      `| ${name} | ${f(median(t))} | ${f(Math.min(...t))} | ${(median(t) / full).toFixed(3)} | ${(median(t) / median(samples['decode step'])).toFixed(2)} | ${cpu[name] ? f(median(cpu[name])) : ''} | ${cpu[name] ? (median(cpu[name]) / median(cpu['decode step'])).toFixed(2) : ''} |`,
    );
  console.log(lines.join('\n'));
  const mib = (b) => (b / 2 ** 20).toFixed(0);
  const load = os
    .loadavg()
    .map((x) => x.toFixed(2))
    .join(', ');
  console.log(
    `\n${os.cpus()[0]?.model}, Node ${process.version}; ${rounds} rounds; checkpoint ${mib(bytes)} MiB; heap during a generation ${mib(heap)} MiB (resident weights and the cache), after it ${mib(model.heapBytesInUse() - baseline)} MiB; WebAssembly memory ${mib(model.memoryBytes)} MiB; load ${load}.`,
  );
  await model.dispose();
  for (const m of onWorkers) await m.dispose();
} finally {
  if (!process.argv.includes('--keep')) rmSync(dir, { recursive: true, force: true });
}
