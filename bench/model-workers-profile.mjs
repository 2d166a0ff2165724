// Where a model's forward on workers spends its time, thread by thread (issue 38 §2):
//   node bench/model-workers-profile.mjs [--what decode|forward] [--workers 2] [--n 32] [--calls 10] [--top 12]
// Writes a GPT-2-small-shaped checkpoint with random weights (the model bench's writer) to a temp folder, then runs,
// in a child under V8's CPU profiler (Node's --cpu-prof writes one profile per thread), `calls` decode steps (32
// tokens of context; `--what decode`) or forwards of n tokens with every attention and the logits (`--what forward`)
// of a model loaded with { workers } (0: one thread), and prints per thread the milliseconds per call by part and
// the functions that take the most of it (self time).
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const arg = (name, fallback) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? process.argv[i + 1] : fallback;
};
const what = arg('what', 'decode');
const workers = Number(arg('workers', 2));
const n = Number(arg('n', 32));
const calls = Number(arg('calls', 10));
const top = Number(arg('top', 12));

if (process.argv.includes('--child')) {
  const { loadModel } = await import('../src/js/model/index.node.js');
  const model = await loadModel(arg('dir'), workers ? { workers } : {});
  const ids = Array.from({ length: n }, (_, i) => (i * 7919) % 50257);
  const times = [];
  if (what === 'decode') {
    const steps = model.generate({ ids: ids.slice(0, 31) }, { maxNewTokens: calls + 3 });
    await steps.next(); // the prefill
    await steps.next(); // a step to warm up
    for (let i = 0; i < calls; i++) {
      const t0 = performance.now();
      await steps.next();
      times.push(performance.now() - t0);
    }
    await steps.return();
  } else {
    await model.run({ ids });
    for (let i = 0; i < calls; i++) {
      const t0 = performance.now();
      await model.run({ ids });
      times.push(performance.now() - t0);
    }
  }
  console.log(JSON.stringify({ median: times.sort((a, b) => a - b)[times.length >> 1] }));
  await model.dispose();
} else {
  const here = path.dirname(fileURLToPath(import.meta.url));
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'model-workers-profile-'));
  const { writeGpt2Checkpoint } = await import('./model/checkpoint.mjs');
  const data = arg('dir') ?? path.join(dir, 'model');
  if (!arg('dir')) {
    fs.mkdirSync(data);
    writeGpt2Checkpoint(data, {});
  }
  const PARTS = [
    ['garbage collection', (chain) => chain[0].startsWith('(garbage')],
    ['idle (waiting)', (chain) => chain[0].startsWith('(idle')],
    ['compute (WebAssembly)', (chain) => /^(wasm-function|js-to-wasm|GenericJSToWasm)/.test(chain[0])],
    ["waiting at a chain's barriers", (chain) => chain[0].startsWith('barrier ')],
    [
      'messages',
      (chain) =>
        /^(postMessage|\(anon\) messageport|\(anon\) worker-thread)/.test(chain[0]) || /pool\.js/.test(chain[0]),
    ],
  ];
  /** Per thread: { parts: Map, self: Map } of profiled ms, from a child that runs `count` calls after its warm-up. */
  const profileRun = (count) => {
    const profiles = path.join(dir, `profiles-${count}`);
    const args = ['--what', what, '--workers', workers, '--n', n, '--calls', count, '--dir', data];
    const child = spawnSync(
      process.execPath,
      ['--cpu-prof', `--cpu-prof-dir=${profiles}`, fileURLToPath(import.meta.url), '--child', ...args.map(String)],
      { encoding: 'utf8', cwd: here },
    );
    if (child.status !== 0) throw new Error(child.stderr);
    const { median } = JSON.parse(child.stdout.trim().split('\n').pop());
    const threads = fs
      .readdirSync(profiles)
      .sort()
      .map((file) => {
        const profile = JSON.parse(fs.readFileSync(path.join(profiles, file), 'utf8'));
        const nodes = new Map(profile.nodes.map((node) => [node.id, node]));
        const parent = new Map(profile.nodes.flatMap((node) => (node.children ?? []).map((c) => [c, node.id])));
        const name = (node) =>
          `${node.callFrame.functionName || '(anon)'} ${node.callFrame.url.split('/').pop()}:${node.callFrame.lineNumber + 1}`;
        const parts = new Map();
        const self = new Map();
        profile.samples.forEach((id, i) => {
          const chain = [];
          for (let cur = id; cur !== undefined; cur = parent.get(cur)) chain.push(name(nodes.get(cur)));
          const ms = profile.timeDeltas[i] / 1000;
          const part = PARTS.find(([, test]) => test(chain))?.[0] ?? 'other JS';
          parts.set(part, (parts.get(part) ?? 0) + ms);
          self.set(chain[0], (self.get(chain[0]) ?? 0) + ms);
        });
        return { parts, self };
      });
    return { median, threads };
  };
  // the calls' share: a run of `calls` less one of none (the load, the prefill and the warm-up alike in both)
  const base = profileRun(0);
  const { median, threads } = profileRun(calls);
  const less = (a, b) => new Map([...a].map(([k, ms]) => [k, ms - (b?.get(k) ?? 0)]));
  for (const [t, { parts, self }] of threads.entries()) {
    const p = less(parts, base.threads[t]?.parts);
    const f = less(self, base.threads[t]?.self);
    const total = [...p.values()].reduce((a, b) => a + b, 0);
    console.log(
      `\n### ${t === 0 ? 'calling thread' : `worker ${t - 1}`} (${(total / calls).toFixed(1)} ms per call in all)`,
    );
    for (const [part, ms] of [...p].sort((a, b) => b[1] - a[1])) console.log(`  ${part}: ${(ms / calls).toFixed(2)}`);
    for (const [name, ms] of [...f].sort((a, b) => b[1] - a[1]).slice(0, top))
      console.log(`    ${(ms / calls).toFixed(2)}  ${name}`);
  }
  console.log(
    `\n${what}, workers ${workers}, n ${n}: median ${median.toFixed(1)} ms; load ${os
      .loadavg()
      .map((x) => x.toFixed(2))
      .join(' ')}`,
  );
  fs.rmSync(dir, { recursive: true, force: true });
}
