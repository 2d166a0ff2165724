// The body of every JS implementation's child process: `node --expose-gc bench/impl-<name>.mjs '<job json>'`.
// Loads the implementation, times one case (time-case.mjs) on the inputs of its files, and prints one JSON line.
//   job: { spec: a case from cases.mjs, dataDir, quick }
import { equalizeAllocator, measure, peakRss, readCaseData, startMemoryWindow } from './common.mjs';
import { timeCase } from './time-case.mjs';

const dataBytes = (data) => data.q.byteLength + data.k.byteLength + data.v.byteLength + data.ref.byteLength;

/**
 * @param {{
 *   load: () => Promise<unknown>,
 *   unsupported?: (spec, job) => string | undefined,
 *   prepare: (lib, spec, data) => Promise<{ call: () => any, memoryBytes?: () => number }>,
 * }} impl  see timeCase
 *
 * Every child starts from the same malloc state (equalizeAllocator).
 *
 * peakBytes: the process's peak resident memory above the bare Node process it started as, less the case's
 * inputs: loading and compiling the implementation, warming it up, preparing for the case (an onnxruntime
 * session, say) and every call.
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
    const data = readCaseData(job.dataDir, spec);
    const { memoryBytes, ...timing } = await timeCase(impl, lib, job, data, measure);
    print({ ...timing, peakBytes: Math.max(0, peakRss() - bare - dataBytes(data)), wasmBytes: memoryBytes });
  } catch (e) {
    print({
      failed: String(e?.message ?? e)
        .split('\n')[0]
        .slice(0, 200),
    });
  }
}
