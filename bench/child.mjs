// The body of every JS implementation's child process: `node --expose-gc bench/impl-<name>.mjs '<job json>'`.
// Loads the implementation, warms it up on a small problem, reads one case's inputs, times it, and prints
// one JSON line.
//   job: { spec: a case from common.mjs, dataDir, quick }
import {
  D,
  equalizeAllocator,
  maxAbsError,
  measure,
  peakRss,
  randomNormal,
  readCaseData,
  startMemoryWindow,
} from './common.mjs';

/** The inputs of a small problem like `spec` (n = 32), for warming an implementation up. */
export function warmupCase(spec) {
  const n = 32;
  const size = spec.heads * n * D;
  return {
    spec: { ...spec, n, name: 'warm-up' },
    data: { q: randomNormal(size, 1), k: randomNormal(size, 2), v: randomNormal(size, 3) },
  };
}

const dataBytes = (data) => data.q.byteLength + data.k.byteLength + data.v.byteLength + data.ref.byteLength;

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
 * implementation's hot code with its optimizing tier.
 *
 * Every child starts from the same malloc state (equalizeAllocator).
 *
 * peakBytes: the process's peak resident memory above the bare Node process it started as, less the case's
 * inputs: loading and compiling the implementation, warming it up, preparing for the case (an onnxruntime
 * session, say) and every call. Cases whose results reach 256 KiB collect garbage between samples (outside the
 * timed region, as idle time between calls would), so that one call's results are alive at a time; results
 * of smaller calls may pile up until the collector runs.
 */
export async function runChild(impl) {
  const job = JSON.parse(process.argv[2]);
  const { spec } = job;
  const print = (result) => process.stdout.write(JSON.stringify({ case: spec.name, ...result }) + '\n');
  const reason = impl.unsupported?.(spec, job);
  if (reason) return print({ na: reason });
  try {
    equalizeAllocator();
    const bare = startMemoryWindow();
    const lib = await impl.load();
    const warm = warmupCase(spec);
    const warmup = await impl.prepare(lib, warm.spec, warm.data);
    for (let i = 0; i < (job.quick ? 1 : 30); i++) await warmup.call();

    const data = readCaseData(job.dataDir, spec);
    const { call, memoryBytes } = await impl.prepare(lib, spec, data);

    let first = await call();
    const error = maxAbsError(first.output, data);
    if (spec.weights && first.weights?.length !== spec.heads * spec.n * spec.n) {
      throw new Error(`weights were not returned (length ${first.weights?.length})`);
    }
    if (first.output.length !== spec.heads * spec.n * D) throw new Error(`output has length ${first.output.length}`);
    first = null;

    const big = spec.heads * spec.n * (spec.weights ? spec.n : D) * 4 >= 2 ** 18;
    const timing = await measure(
      call,
      job.quick
        ? { budgetMs: 0, minSamples: 2, maxSamples: 2, warmup: 0 }
        : {
            budgetMs: spec.long ? 0 : 1500,
            minSamples: spec.long ? 3 : 7,
            maxSamples: 400,
            warmup: spec.long ? 1 : 2,
            collect: big,
          },
    );
    print({
      ...timing,
      maxAbsError: error,
      peakBytes: Math.max(0, peakRss() - bare - dataBytes(data)),
      wasmBytes: memoryBytes?.(),
    });
  } catch (e) {
    print({
      failed: String(e?.message ?? e)
        .split('\n')[0]
        .slice(0, 200),
    });
  }
}
