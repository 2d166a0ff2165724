// Node's part of the bench, shared by the orchestrators (run.mjs, browser.mjs) and every implementation's child
// process (impl-*.mjs): the input files, the malloc state and the memory measurements. What runs anywhere (the
// cases, the reference, the timing loop) is in cases.mjs, re-exported here.
import fs from 'node:fs';
import path from 'node:path';
import { D, caseFileName, checkedRows, measure as measureAnywhere, randomNormal, referenceRows } from './cases.mjs';

export { D, FULL_CASES, QUICK_CASES, checkedRows, flops, maxAbsError, randomNormal } from './cases.mjs';

/** measure() of cases.mjs, counting this process's minor page faults per timed call. */
export const measure = (call, options) => measureAnywhere(call, { ...options, pageFaults: minorPageFaults });

export const caseFile = (dir, spec, part) => path.join(dir, caseFileName(spec, part));

/**
 * Writes q, k, v ([heads, n, D] float32), the checked rows (int32) and the float64 reference output
 * of those rows ([rows, D]) into `dir`, once per case.
 */
export function writeCaseData(dir, spec, seed) {
  const size = spec.heads * spec.n * D;
  const q = randomNormal(size, seed);
  const k = randomNormal(size, seed + 1);
  const v = randomNormal(size, seed + 2);
  const rows = checkedRows(spec);
  const ref = referenceRows(spec, q, k, v, rows);
  for (const [part, array] of [
    ['q', q],
    ['k', k],
    ['v', v],
    ['rows', rows],
    ['ref', ref],
  ]) {
    fs.writeFileSync(caseFile(dir, spec, part), new Uint8Array(array.buffer, array.byteOffset, array.byteLength));
  }
}

const readTyped = (file, Type) => {
  const bytes = fs.readFileSync(file);
  return new Type(bytes.buffer, bytes.byteOffset, bytes.byteLength / Type.BYTES_PER_ELEMENT);
};

export function readCaseData(dir, spec) {
  return {
    q: readTyped(caseFile(dir, spec, 'q'), Float32Array),
    k: readTyped(caseFile(dir, spec, 'k'), Float32Array),
    v: readTyped(caseFile(dir, spec, 'v'), Float32Array),
    rows: readTyped(caseFile(dir, spec, 'rows'), Int32Array),
    ref: readTyped(caseFile(dir, spec, 'ref'), Float64Array),
  };
}

/**
 * Puts glibc's malloc into the same state in every child process, before the implementation loads.
 * When glibc unmaps a large block it raises its mmap threshold to that block's size and its trim threshold
 * to twice that (up to 32 MiB and 64 MiB). onnxruntime-web reads its 14 MB .wasm into a Buffer while
 * loading, so its process runs with raised thresholds; attention-wasm (88 KB) and tfjs (0.4 MB) do not, and
 * there glibc returns the heap to the kernel after each garbage collection, so that the next calls' fresh
 * result buffers fault their pages in again. Measured at n = 128 before this: 17–32 minor page faults a call
 * for attention-wasm against 1 for onnxruntime-web, and a median of 0.21–0.23 ms against 0.16 ms with the
 * same code. Unmapping one block of just under 32 MiB first raises both thresholds to their maximum in every
 * process, whatever it loads. Node only: browsers allocate ArrayBuffers with their own allocators.
 */
export function equalizeAllocator() {
  allocateBlock(32 * 2 ** 20 - 2 ** 16); // never touched: no page of it becomes resident
  globalThis.gc?.(); // children run with --expose-gc; frees (unmaps) the block
}

/** Allocates a block that is garbage as soon as this returns. */
const allocateBlock = (bytes) => new ArrayBuffer(bytes).byteLength;

/** Minor page faults of this process so far (the kernel mapping a fresh page on first touch). */
export const minorPageFaults = () => process.resourceUsage().minorPageFault;

const statusKiB = (field) => {
  const match = fs.readFileSync('/proc/self/status', 'utf8').match(new RegExp(`${field}:\\s+(\\d+) kB`));
  return match ? Number(match[1]) * 1024 : undefined;
};

/**
 * Starts a window for peak-memory measurement: resets the kernel's high-water mark of resident memory
 * (Linux: "5" into /proc/self/clear_refs) and returns the resident bytes now. Elsewhere the lifetime peak
 * (maxRSS) stands in.
 */
export function startMemoryWindow() {
  try {
    fs.writeFileSync('/proc/self/clear_refs', '5');
  } catch {
    // not Linux, or not allowed: peakRss() falls back to maxRSS
  }
  return statusKiB('VmRSS') ?? process.memoryUsage.rss();
}

/** The high-water mark of resident memory since startMemoryWindow(), in bytes. */
export function peakRss() {
  return statusKiB('VmHWM') ?? process.resourceUsage().maxRSS * 1024;
}
