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
import { caseFile, writeCaseData } from './common.mjs';
import { parseBenchArgs } from './rows.mjs';
import { formatTable, mb } from './table.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

const { args, rows, cases } = parseBenchArgs(process.argv.slice(2), { native: true });
// Each row's child process: its implementation's script, its settings as BENCH_* variables.
const IMPLS = rows.map((row) => ({
  ...row,
  binary: row.native ? args.native : undefined,
  script: row.impl && `impl-${row.impl}.mjs`,
  env: {
    ...(row.settings?.reuse ? { BENCH_REUSE: '1' } : {}),
    ...(row.settings?.workers ? { BENCH_WORKERS: String(row.settings.workers) } : {}),
    ...(row.settings?.threads ? { BENCH_THREADS: String(row.settings.threads) } : {}),
  },
}));
const runsCase = (impl, spec) => !impl.cases || impl.cases.includes(spec.name);

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
