// One (case, implementation) timing, anywhere: the body of a Node child process (child.mjs) and of a page of
// the browser bench (browser/page.mjs). Warms the implementation up on a small problem, prepares the case,
// checks the first call's results, then times it.
import { D, maxAbsError, measure as measureHere, randomNormal } from './cases.mjs';

/** The inputs of a small problem like `spec` (n = 32), for warming an implementation up. */
export function warmupCase(spec) {
  const n = 32;
  const size = spec.heads * n * D;
  return {
    spec: { ...spec, n, name: 'warm-up' },
    data: { q: randomNormal(size, 1), k: randomNormal(size, 2), v: randomNormal(size, 3) },
  };
}

/** The max abs error of a call's results; throws when they are missing or of the wrong length. */
function checkResults(spec, data, { output, weights }) {
  if (spec.weights && weights?.length !== spec.heads * spec.n * spec.n) {
    throw new Error(`weights were not returned (length ${weights?.length})`);
  }
  if (output.length !== spec.heads * spec.n * D) throw new Error(`output has length ${output.length}`);
  return maxAbsError(output, data);
}

/**
 * @param {{
 *   prepare: (lib, spec, data) => Promise<{ call: () => any, memoryBytes?: () => number }>,
 * }} impl
 *   prepare returns `call`, which computes attention on the case's inputs (copies included) and returns
 *   (or resolves to) { output: [heads, n, D] floats, weights?: [heads, n, n] floats }.
 * @param lib  what impl.load() resolved to
 * @param job  { spec: a case of cases.mjs, quick }
 * @param data the case's inputs, checked rows and reference (common.mjs's readCaseData)
 * @param measure  the timing loop (cases.mjs's, or Node's with page faults)
 *
 * Before timing, a small problem of the same kind runs 30 times, so that the engine has compiled the
 * implementation's hot code with its optimizing tier. Cases whose results reach 256 KiB collect garbage
 * between samples (outside the timed region, as idle time between calls would), so that one call's results are
 * alive at a time; results of smaller calls may pile up until the collector runs.
 * @returns the timing of measure(), maxAbsError, and `memoryBytes` (the implementation's WebAssembly memory)
 */
export async function timeCase(impl, lib, job, data, measure = measureHere) {
  const { spec } = job;
  const warm = warmupCase(spec);
  const warmup = await impl.prepare(lib, warm.spec, warm.data);
  for (let i = 0; i < (job.quick ? 1 : 30); i++) await warmup.call();

  const { call, memoryBytes } = await impl.prepare(lib, spec, data);
  const error = checkResults(spec, data, await call()); // keeps no reference to them

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
          collect: big && job.collect !== false,
        },
  );
  return { ...timing, maxAbsError: error, memoryBytes: memoryBytes?.() };
}
