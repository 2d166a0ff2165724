// Where the time of a call on workers goes: `node bench/workers-profile.mjs [calls]` runs 12 heads × 512
// (weights returned) on createAttention({ workers: 2 }) under V8's CPU profiler, every thread profiled (Node's
// --cpu-prof writes one profile per thread), and prints a Markdown table of each thread's milliseconds per call
// by part, beside one thread's time for the same call.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const calls = Number(process.argv[2] ?? 20);
const here = path.dirname(fileURLToPath(import.meta.url));

if (process.argv[3] === '--child') {
  const { createAttention } = await import('../src/js/index.node.js');
  const { randomNormal } = await import('./cases.mjs');
  const shape = [12, 512, 64];
  const [q, k, v] = [1, 2, 3].map((seed) => ({ data: randomNormal(12 * 512 * 64, seed), shape }));
  const [single, parallel] = await Promise.all([createAttention(), createAttention({ workers: 2 })]);
  for (let i = 0; i < 3; i++) await parallel.scaledDotProductAttention(q, k, v);
  const wall = (run) => {
    const times = [];
    return async () => {
      for (let i = 0; i < calls; i++) {
        const t0 = performance.now();
        await run();
        times.push(performance.now() - t0);
      }
      return times.sort((a, b) => a - b)[times.length >> 1];
    };
  };
  const parallelMs = await wall(() => parallel.scaledDotProductAttention(q, k, v))();
  const singleMs = await wall(() => single.scaledDotProductAttention(q, k, v))();
  console.log(JSON.stringify({ parallelMs, singleMs }));
  await parallel.terminate();
} else {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'workers-profile-'));
  const child = spawnSync(
    process.execPath,
    ['--cpu-prof', `--cpu-prof-dir=${dir}`, fileURLToPath(import.meta.url), String(calls), '--child'],
    {
      encoding: 'utf8',
      cwd: here,
    },
  );
  if (child.status !== 0) throw new Error(child.stderr);
  const { parallelMs, singleMs } = JSON.parse(child.stdout.trim().split('\n').pop());
  const PARTS = [
    [
      'compute (WebAssembly)',
      (chain) => chain.some((f) => f.startsWith('wasm-function')) && !chain.some((f) => f.startsWith('read ')),
    ],
    ['results out of WebAssembly memory', (chain) => chain.some((f) => f.startsWith('read attention.js'))],
    ['inputs into WebAssembly memory, scan', (chain) => chain.some((f) => /^(write|#checkValues) attention/.test(f))],
    ['assembling results (main)', (chain) => chain.some((f) => /^(assemblePairs|placePart) /.test(f))],
    ['touching the new result pages (main)', (chain) => chain.some((f) => f.startsWith('wholeResults '))],
    ['splitting inputs into copies (main)', (chain) => chain.some((f) => /^(gather|segment|copyRange) /.test(f))],
    ['NaN/±inf scan in JS (main)', (chain) => chain.some((f) => f.startsWith('checkPlanValues'))],
    ['posting and receiving messages', (chain) => chain.some((f) => /postMessage|messageport|pool\.js/.test(f))],
    ['garbage collection', (chain) => chain[0].startsWith('(garbage')],
    ['idle (waiting)', (chain) => chain[0].startsWith('(idle')],
  ];
  const columns = [];
  for (const file of fs.readdirSync(dir).sort()) {
    const profile = JSON.parse(fs.readFileSync(path.join(dir, file), 'utf8'));
    const nodes = new Map(profile.nodes.map((n) => [n.id, n]));
    const parent = new Map(profile.nodes.flatMap((n) => (n.children ?? []).map((c) => [c, n.id])));
    const name = (n) =>
      `${n.callFrame.functionName || '(anon)'} ${n.callFrame.url.split('/').pop()}:${n.callFrame.lineNumber + 1}`;
    const sums = new Map();
    profile.samples.forEach((id, i) => {
      const chain = [];
      for (let cur = id; cur !== undefined; cur = parent.get(cur)) chain.push(name(nodes.get(cur)));
      const part = PARTS.find(([, test]) => test(chain))?.[0] ?? 'other';
      sums.set(part, (sums.get(part) ?? 0) + profile.timeDeltas[i] / 1000);
    });
    columns.push(sums);
  }
  fs.rmSync(dir, { recursive: true, force: true });
  // The first profile is the main thread (one thread's calls included); the others the workers.
  const heads = ['main thread', ...columns.slice(1).map((_, i) => `worker ${i + 1}`)];
  const perCall = (sums, part) => ((sums.get(part) ?? 0) / (part === 'idle (waiting)' ? 2 * calls : calls)).toFixed(2);
  console.log(`| ms per call, 12 heads × 512 | ${heads.join(' | ')} |\n|---|${'--:|'.repeat(heads.length)}`);
  for (const part of [...PARTS.map(([p]) => p), 'other']) {
    console.log(`| ${part} | ${columns.map((sums) => perCall(sums, part)).join(' | ')} |`);
  }
  console.log(
    `\nWall time per call (median of ${calls}): ${parallelMs.toFixed(1)} ms on 2 workers, ${singleMs.toFixed(1)} ms on one thread`,
  );
  console.log(
    `(${(singleMs / parallelMs).toFixed(2)}×); load average ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}. The main thread's`,
  );
  console.log(
    "column also holds the one-thread calls (as compute and results out), the workers' their start-up (other).",
  );
}
