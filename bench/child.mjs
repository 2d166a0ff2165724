// The body of every JS implementation's child process: `node --expose-gc bench/impl-<name>.mjs '<job json>'`.
// Loads the implementation, warms it up on a small problem, reads one case's inputs, times it, and prints
// one JSON line.
//   job: { spec: a case from common.mjs, dataDir, quick }
import { D, maxAbsError, measure, peakRss, randomNormal, readCaseData, startMemoryWindow } from './common.mjs';

/** The inputs of a small problem like `spec` (n = 32), for warming an implementation up. */
export function warmupCase(spec) {
  const n = 32;
  const size = spec.heads * n * D;
  return {
    spec: { ...spec, n, name: 'warm-up' },
    data: { q: randomNormal(size, 1), k: randomNormal(size, 2), v: randomNormal(size, 3) },
  };
}

/**
 * @param {{
 *   load: () => Promise<unknown>,
 *   unsupported?: (spec, job) => string | undefined,
 *   prepare: (lib, spec, data) => Promise<{ call: () => any, memoryBytes?: () => number }>,
 * }} impl
 *   prepare returns `call`, which computes attention on the case's inputs (copies included) and returns
 *   (or resolves to) { output: [heads, n, D] floats, weights?: [heads, n, n] floats }.
 *
 * Before timing, a small problem of the same kind runs 30 times, so that the engine has compiled the
 * implementation's hot code with its optimizing tier. peakBytes: the resident memory's peak during the case's
 * first call, above what was resident before it; peakBytesAllCalls: the same over all its calls, which also
 * counts results that the garbage collector has not yet freed.
 */
export async function runChild(impl) {
  const job = JSON.parse(process.argv[2]);
  const { spec } = job;
  const print = (result) => process.stdout.write(JSON.stringify({ case: spec.name, ...result }) + '\n');
  const reason = impl.unsupported?.(spec, job);
  if (reason) return print({ na: reason });
  try {
    const lib = await impl.load();
    const warm = warmupCase(spec);
    const warmup = await impl.prepare(lib, warm.spec, warm.data);
    for (let i = 0; i < (job.quick ? 1 : 30); i++) await warmup.call();

    const data = readCaseData(job.dataDir, spec);
    const { call, memoryBytes } = await impl.prepare(lib, spec, data);
    globalThis.gc?.();
    const before = startMemoryWindow();

    let first = await call();
    const callPeak = peakRss() - before;
    const error = maxAbsError(first.output, data);
    if (spec.weights && first.weights?.length !== spec.heads * spec.n * spec.n) {
      throw new Error(`weights were not returned (length ${first.weights?.length})`);
    }
    if (first.output.length !== spec.heads * spec.n * D) throw new Error(`output has length ${first.output.length}`);
    first = null;

    const big = spec.heads * spec.n * (spec.weights ? spec.n : D) * 4 > 2 ** 22;
    const timing = await measure(call, job.quick
      ? { budgetMs: 0, minSamples: 2, maxSamples: 2, warmup: 0 }
      : {
          budgetMs: spec.long ? 0 : 1500,
          minSamples: spec.long ? 3 : 7,
          maxSamples: 400,
          warmup: spec.long ? 1 : 2,
          collect: big,
        });
    print({
      ...timing,
      maxAbsError: error,
      peakBytes: Math.max(0, callPeak),
      peakBytesAllCalls: Math.max(0, peakRss() - before),
      wasmBytes: memoryBytes?.(),
    });
  } catch (e) {
    print({ failed: String(e?.message ?? e).split('\n')[0].slice(0, 200) });
  }
}
