// The bench: every case against every implementation, each (case, implementation) in a fresh process,
// printed as one Markdown table and written to bench/results.json.
//
//   node bench/run.mjs [--quick] [--native <binary>] [--impls a,b] [--cases n=512,...] [--out <file>]
//
// --quick (or BENCH_QUICK=1): tiny sizes, two timed calls each, nothing written unless --out is given.
// --native: the native build of the core (bench/native_bench.cc); without it the native column is n/a.
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { FULL_CASES, QUICK_CASES, caseFile, writeCaseData } from './common.mjs';
import { formatTable, mb } from './table.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

function parseArgs(argv) {
  const args = { quick: process.env.BENCH_QUICK === '1', native: null, impls: null, cases: null, out: null };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    if (a === '--quick') args.quick = true;
    else if (a === '--native') args.native = argv[++i];
    else if (a === '--impls')
      args.impls = argv[++i].split(/,(?! )/); // names may hold ', '
    else if (a === '--cases') args.cases = argv[++i].split(',');
    else if (a === '--out') args.out = argv[++i];
    else throw new Error(`unknown argument ${a}`);
  }
  return args;
}

const args = parseArgs(process.argv.slice(2));
const REUSE_CASES = ['n=16', 'n=128', 'n=512', '12 heads × 512', '2 heads × 33'];
const IMPLS = [
  { name: 'attention-wasm', script: 'impl-attention-wasm.mjs' },
  { name: 'onnxruntime-web', script: 'impl-onnxruntime-web.mjs' },
  { name: 'native', binary: args.native },
  { name: 'tfjs-wasm', script: 'impl-tfjs-wasm.mjs' },
  { name: 'js-loops', script: 'impl-js-loops.mjs' },
  // Results into the same arrays at every call (options.out), against onnxruntime-web's fresh arrays: its
  // pre-allocated fetches came back as zeros with the wasm backend (1.30), so it has no such row.
  {
    name: 'attention-wasm, reused outputs',
    script: 'impl-attention-wasm.mjs',
    env: { BENCH_REUSE: '1' },
    cases: REUSE_CASES,
  },
  // Two cores each, on the case that splits over heads; their ratio column compares the two with each other.
  {
    name: 'attention-wasm, 2 workers',
    script: 'impl-attention-wasm.mjs',
    env: { BENCH_WORKERS: '2' },
    cases: ['12 heads × 512', '2 heads × 33'],
    base: 'onnxruntime-web, 2 threads',
  },
  {
    name: 'onnxruntime-web, 2 threads',
    script: 'impl-onnxruntime-web.mjs',
    env: { BENCH_THREADS: '2' },
    cases: ['12 heads × 512', '2 heads × 33'],
    base: 'onnxruntime-web, 2 threads',
  },
].filter((impl) => !args.impls || args.impls.includes(impl.name));
const runsCase = (impl, spec) => !impl.cases || impl.cases.includes(spec.name);
const cases = (args.quick ? QUICK_CASES : FULL_CASES).filter((c) => !args.cases || args.cases.includes(c.name));

function runNative(binary, spec, dataDir) {
  const prefix = caseFile(dataDir, spec, '').slice(0, -1);
  const argv = [
    `--n=${spec.n}`,
    `--heads=${spec.heads}`,
    `--causal=${+spec.causal}`,
    `--weights=${+spec.weights}`,
    `--long=${+!!spec.long}`,
    `--quick=${+args.quick}`,
    `--data=${prefix}`,
  ];
  return spawnSync(binary, argv, { encoding: 'utf8', timeout: 30 * 60e3, maxBuffer: 1 << 20 });
}

function runOne(impl, spec, dataDir) {
  if (impl.name === 'native' && !impl.binary) return { na: 'not built (pass --native)' };
  const job = JSON.stringify({ spec, dataDir, quick: args.quick });
  const child = impl.binary
    ? runNative(impl.binary, spec, dataDir)
    : spawnSync(process.execPath, ['--expose-gc', path.join(here, impl.script), job], {
        encoding: 'utf8',
        timeout: 30 * 60e3,
        maxBuffer: 1 << 20,
        env: { ...process.env, ...impl.env },
      });
  const line = child.stdout?.trim().split('\n').pop();
  if (child.status !== 0 || !line) {
    const why = (child.stderr || child.error?.message || '').trim().split('\n').pop();
    return { failed: `exit ${child.status ?? child.signal}: ${why}` };
  }
  return JSON.parse(line);
}

const loadBefore = os.loadavg();
const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'attention-bench-'));
const results = [];
try {
  cases.forEach((spec, i) => {
    writeCaseData(dataDir, spec, 1000 + 17 * i);
    for (const impl of IMPLS.filter((it) => runsCase(it, spec))) {
      const r = runOne(impl, spec, dataDir);
      results.push({ impl: impl.name, ...r, case: spec.name, spec });
      const outcome = r.medianMs !== undefined ? `${r.medianMs.toFixed(4)} ms` : r.na ? 'n/a' : `FAILED ${r.failed}`;
      process.stderr.write(`${spec.name.padEnd(16)} ${impl.name.padEnd(16)} ${outcome}\n`);
    }
  });
} finally {
  fs.rmSync(dataDir, { recursive: true, force: true });
}

const table = formatTable(cases, IMPLS, results, [
  ['× native', (r, spec, ratio) => ratio(r, 'native')],
  ['peak RSS MB', (r) => mb(r.peakBytes)],
  ['WASM memory MB', (r) => mb(r.wasmBytes)],
]);

console.log(table);

const machine = {
  cpu: os.cpus()[0]?.model,
  cores: os.cpus().length,
  node: process.version,
  platform: `${os.platform()} ${os.release()}`,
  loadAverage: { before: loadBefore, after: os.loadavg() },
  date: new Date().toISOString(),
};
const load = (l) => l.map((x) => x.toFixed(2)).join(' ');
console.log(
  `\n${machine.cpu}, ${machine.cores} cores, Node ${machine.node}; load average ${load(loadBefore)} before, ` +
    `${load(machine.loadAverage.after)} after.`,
);
console.log(`Times are per call, copies in and out included, each implementation in its own process after a warm-up
on a small problem, and from the same malloc state (glibc's thresholds raised to their maximum in every process, as
loading onnxruntime-web's 14 MB .wasm does on its own; results.json records each run's page faults per call);
where results reach 256 KiB, garbage is collected between samples, outside the timed region.
GFLOP/s (4·n²·d per head) and ratios from the median; d = 64; weights returned except in the long case.
The rows on two cores ("2 workers", "2 threads") give their ratio to onnxruntime-web on 2 threads.
Peak RSS: the process's peak resident memory above the bare Node (or C++) process it started as, less the inputs:
loading and compiling the implementation, its warm-up, any session, and the calls. WASM memory: the module's linear
memory at the end. Max abs error: output against a float64 reference (all rows; 64 rows in the long case).`);
const out = args.out ?? (args.quick ? null : path.join(here, 'results.json'));
if (out) fs.writeFileSync(out, JSON.stringify({ machine, quick: args.quick, results, table }, null, 2) + '\n');
const failed = results.filter((r) => r.failed);
if (failed.length) {
  console.error(`${failed.length} implementation runs failed`);
  process.exitCode = 1;
}
