// The body of every JS implementation's child process: `node --expose-gc bench/impl-<name>.mjs '<job json>'`.
// Loads the implementation, reads one case's inputs, times it, and prints one JSON line.
//   job: { spec: a case from common.mjs, dataDir, quick }
import { D, maxAbsError, measure, readCaseData, rss } from './common.mjs';

/**
 * @param {{
 *   load: () => Promise<unknown>,
 *   unsupported?: (spec) => string | undefined,
 *   prepare: (lib, spec, data) => Promise<{ call: () => any, memoryBytes?: () => number }>,
 * }} impl
 *   prepare returns `call`, which computes attention on the case's inputs (copies included) and returns
 *   (or resolves to) { output: [heads, n, D] floats, weights?: [heads, n, n] floats }.
 */
export async function runChild(impl) {
  const job = JSON.parse(process.argv[2]);
  const { spec } = job;
  const print = (result) => process.stdout.write(JSON.stringify({ case: spec.name, ...result }) + '\n');
  const reason = impl.unsupported?.(spec, job);
  if (reason) return print({ na: reason });
  try {
    const lib = await impl.load();
    const data = readCaseData(job.dataDir, spec);
    const { call, memoryBytes } = await impl.prepare(lib, spec, data);
    globalThis.gc?.();
    const before = rss();

    const first = await call();
    const error = maxAbsError(first.output, data);
    if (spec.weights && first.weights?.length !== spec.heads * spec.n * spec.n) {
      throw new Error(`weights were not returned (length ${first.weights?.length})`);
    }
    if (first.output.length !== spec.heads * spec.n * D) throw new Error(`output has length ${first.output.length}`);

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
    const after = rss();
    print({
      ...timing,
      maxAbsError: error,
      peakBytes: Math.max(0, after.peak - before.now),
      wasmBytes: memoryBytes?.(),
    });
  } catch (e) {
    print({ failed: String(e?.message ?? e).split('\n')[0].slice(0, 200) });
  }
}
