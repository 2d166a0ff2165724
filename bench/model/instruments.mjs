// The instruments' bench (issue 36 §3): each instrument's time as a ratio to one full forward (model.run with every
// attention, hidden state and logit) at the same length, on GPT-2 small's shapes with random weights (checkpoint.mjs),
// resident, in one process on one thread, the cases interleaved round by round (a forward measured beside each):
//   patchSweep 'input'       16 tokens, 12 × 16 cells          target ≤ 40×
//   patchSweep 'headOutput'  16 tokens, 12 × 12 cells          target ≤ 60×
//     both with the prompts differing at tokens 5 and 11 (the cells before 5 change nothing: they score 0 unrun), and
//     differing at every token ('worst': every cell runs)
//   attribute                32 tokens                         target ≤ 2×
//   unembed of every layer   32 tokens, 13 hidden states       target ≤ 2×
//   headScores               4 sequences of 24 tokens          target ≤ 2× (a forward of 24)
//
//   node bench/model/instruments.mjs [--rounds 3] [--quick] [--only sweep,worst,lens] [--dir build/bench-model]
//     [--workers 0,1,2]
// (--quick: a 2-layer d_model 64 model, 1 round.) Prints one line per case: its median time, the median forward's and
// the median of the rounds' ratios. --workers: one model per count (0: no workers; loadModel's `workers`), every case
// run on each in turn within a round, each beside its own model's forward; a line per case and count, with the
// median ratio of its time to the same round's time without workers (when 0 is among the counts). CPU: the
// process's CPU time during the case (every thread's, the workers' included).
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadModel } from '../../src/js/model/index.node.js';
import { benchIds, writeGpt2Checkpoint } from './checkpoint.mjs';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback);
const quick = args.includes('--quick') || process.env.BENCH_QUICK === '1';
const rounds = Number(option('rounds', quick ? 1 : 3));
const only = option('only', 'sweep,worst,lens').split(',');
const shape = quick
  ? { layers: 2, d: 64, heads: 2, vocab: 1000, positions: 64 }
  : { layers: 12, d: 768, heads: 12, vocab: 50257, positions: 1024 };
const dir = path.join(
  path.resolve(root, option('dir', 'build/bench-model')),
  `gpt2-${quick ? 'quick-' : ''}${shape.layers}`,
);
console.error(`writing ${dir} (once)`);
writeGpt2Checkpoint(dir, shape);
const counts = option('workers', '0').split(',').map(Number);
const models = [];
for (const workers of counts) models.push(await loadModel(dir, workers ? { workers } : {}));
const V = shape.vocab;

const ids = (n, seed) => benchIds(n, V, seed);
const cleanIds = ids(16, 11);
const corruptedIds = cleanIds.map((id, i) => (i === 5 || i === 11 ? (id + 7) % V : id));
const target = [cleanIds[15], corruptedIds[11]];
// the worst case: the prompts differ from their first token on, so that no cell is skipped and every cell runs from 0
const allDifferent = cleanIds.map((id) => (id + 13) % V);
const at32 = ids(32, 12);
const sequences = [13, 14, 15, 16].map((seed) => ids(24, seed));

const CASES = [
  [
    'sweep',
    "patchSweep 'input', 16 tokens",
    16,
    40,
    (model) => model.patchSweep({ clean: { ids: cleanIds }, corrupted: { ids: corruptedIds }, target, step: 'input' }),
  ],
  [
    'sweep',
    "patchSweep 'headOutput', 16 tokens",
    16,
    60,
    (model) =>
      model.patchSweep({ clean: { ids: cleanIds }, corrupted: { ids: corruptedIds }, target, step: 'headOutput' }),
  ],
  [
    'worst',
    "patchSweep 'input', every token differs",
    16,
    40,
    (model) => model.patchSweep({ clean: { ids: cleanIds }, corrupted: { ids: allDifferent }, target, step: 'input' }),
  ],
  [
    'worst',
    "patchSweep 'headOutput', every token differs",
    16,
    60,
    (model) =>
      model.patchSweep({ clean: { ids: cleanIds }, corrupted: { ids: allDifferent }, target, step: 'headOutput' }),
  ],
  ['lens', 'attribute, 32 tokens', 32, 2, (model) => model.attribute({ ids: at32 }, { target: [at32[5], at32[9]] })],
  [
    'lens',
    'unembed of every layer, 32 tokens',
    32,
    2,
    async (model, run) => {
      for (const hidden of run.hiddenStates) await model.unembed(hidden);
    },
  ],
  ['lens', 'headScores, 4 sequences of 24', 24, 2, (model) => model.headScores('induction', { ids: sequences })],
].filter(([group]) => only.includes(group));

const forwardOf = (n) => (n === 32 ? at32 : n === 16 ? cleanIds : sequences[0]);
const time = async (f) => {
  const t0 = performance.now();
  await f();
  return performance.now() - t0;
};
const median = (xs) => xs.slice().sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// warm-up: every weight resident, every code path compiled, on every model
const prepared = new Map();
for (const model of models) {
  for (const n of new Set(CASES.map((c) => c[2]))) prepared.set(n, await model.run({ ids: forwardOf(n) }));
  for (const [, , n, , run] of CASES) await run(model, prepared.get(n));
}

const results = CASES.map(() => models.map(() => ({ own: [], cpu: [], forward: [], ratio: [], versus: [] })));
for (let round = 0; round < rounds; round++) {
  for (const [i, [, , n, , run]] of CASES.entries()) {
    const owns = [];
    for (const [m, model] of models.entries()) {
      const forward = await time(() => model.run({ ids: forwardOf(n) }));
      const cpu = process.cpuUsage(); // every thread's: the workers' too
      const own = await time(() => run(model, prepared.get(n)));
      const { user, system } = process.cpuUsage(cpu);
      results[i][m].cpu.push((user + system) / 1000);
      const after = await time(() => model.run({ ids: forwardOf(n) }));
      const mean = (forward + after) / 2; // the forward on either side of the case
      owns.push(own);
      results[i][m].own.push(own);
      results[i][m].forward.push(mean);
      results[i][m].ratio.push(own / mean);
    }
    const alone = counts.indexOf(0);
    if (alone >= 0) models.forEach((_, m) => results[i][m].versus.push(owns[m] / owns[alone]));
  }
}
const load = os.loadavg()[0].toFixed(1);
console.log(`instruments on GPT-2 small's shapes, resident, ${rounds} round(s), load ${load}, workers ${counts}`);
for (const [i, [, name, , limit]] of CASES.entries()) {
  for (const [m, workers] of counts.entries()) {
    const { own, cpu, forward, ratio, versus } = results[i][m];
    const label = counts.length > 1 ? `${name}, ${workers} worker${workers === 1 ? '' : 's'}` : name;
    const vs = versus.length && workers ? `   ${median(versus).toFixed(2)}× no workers' time` : '';
    const line = `${label.padEnd(50)} ${median(own).toFixed(0).padStart(7)} ms (CPU ${median(cpu).toFixed(0).padStart(6)})   forward ${median(forward).toFixed(0).padStart(5)} ms   ${median(ratio).toFixed(1).padStart(5)}× (target ≤ ${limit}×)${vs}`;
    console.log(line);
  }
}
for (const model of models) await model.dispose();
