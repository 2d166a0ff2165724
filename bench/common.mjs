// Shared by the bench orchestrator (run.mjs) and every implementation's child process (impl-*.mjs):
// the cases, the input files, the float64 reference, and the timing and memory measurements.
import fs from 'node:fs';
import path from 'node:path';
import { seededRandom } from '../tests/js/seeded-random.js';

/** Head width of every case. */
export const D = 64;

/**
 * The cases of the full run. `heads` query heads and as many key/value heads; keys = queries (self-attention).
 * `weights`: the implementation must return the attention weights too (all but the long case).
 */
export const FULL_CASES = [
  { name: 'n=16', n: 16, heads: 1, causal: false, weights: true },
  { name: 'n=128', n: 128, heads: 1, causal: false, weights: true },
  { name: 'n=512', n: 512, heads: 1, causal: false, weights: true },
  { name: 'n=1024', n: 1024, heads: 1, causal: false, weights: true },
  { name: 'n=2048', n: 2048, heads: 1, causal: false, weights: true },
  { name: '12 heads × 512', n: 512, heads: 12, causal: false, weights: true },
  { name: 'causal n=512', n: 512, heads: 1, causal: true, weights: true },
  { name: 'long n=16384', n: 16384, heads: 1, causal: false, weights: false, long: true },
];

/** `npm test`'s run: tiny sizes, a few seconds in all, nothing timed seriously. */
export const QUICK_CASES = [
  { name: 'n=16', n: 16, heads: 1, causal: false, weights: true },
  { name: '2 heads × 33', n: 33, heads: 2, causal: false, weights: true },
  { name: 'causal n=17', n: 17, heads: 1, causal: true, weights: true },
  { name: 'long n=300', n: 300, heads: 1, causal: false, weights: false, long: true },
];

/** Query rows checked against the reference: all of them, or an even spread for the long case. */
export function checkedRows(spec) {
  const limit = spec.long ? 64 : spec.n;
  if (spec.n <= limit) return Int32Array.from({ length: spec.n * spec.heads }, (_, i) => i);
  const rows = [];
  for (let h = 0; h < spec.heads; h++) {
    for (let r = 0; r < limit; r++) rows.push(h * spec.n + Math.floor(((r + 0.5) * spec.n) / limit));
  }
  return Int32Array.from(rows);
}

export const flops = (spec) => 4 * spec.n * spec.n * D * spec.heads;

/** Deterministic normal(0, 1) floats (the tests' seeded generator + Box-Muller). */
export function randomNormal(count, seed) {
  const random = seededRandom(seed);
  const uniform = () => (1 - random()) / 2; // in (0, 1]: log() stays finite
  const out = new Float32Array(count);
  for (let i = 0; i < count; i += 2) {
    const r = Math.sqrt(-2 * Math.log(uniform()));
    const t = 2 * Math.PI * uniform();
    out[i] = r * Math.cos(t);
    if (i + 1 < count) out[i + 1] = r * Math.sin(t);
  }
  return out;
}

export const caseFile = (dir, spec, part) => path.join(dir, `${spec.name.replace(/[^a-z0-9]+/gi, '_')}.${part}`);

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

/** Attention in float64 for the given global rows (head·n + i): scale 1/√D, causal top-left. */
function referenceRows(spec, q, k, v, rows) {
  const { n } = spec;
  const scale = 1 / Math.sqrt(D);
  const out = new Float64Array(rows.length * D);
  const scores = new Float64Array(n);
  rows.forEach((row, r) => {
    const h = Math.floor(row / n);
    const i = row % n;
    const qi = row * D;
    const keys = spec.causal ? i + 1 : n;
    let max = -Infinity;
    for (let j = 0; j < keys; j++) {
      const kj = (h * n + j) * D;
      let dot = 0;
      for (let c = 0; c < D; c++) dot += q[qi + c] * k[kj + c];
      scores[j] = dot * scale;
      if (scores[j] > max) max = scores[j];
    }
    let sum = 0;
    for (let j = 0; j < keys; j++) {
      scores[j] = Math.exp(scores[j] - max);
      sum += scores[j];
    }
    for (let j = 0; j < keys; j++) {
      const w = scores[j] / sum;
      const vj = (h * n + j) * D;
      for (let c = 0; c < D; c++) out[r * D + c] += w * v[vj + c];
    }
  });
  return out;
}

/** Max |output − reference| over the checked rows; `output` is [heads, n, D]. */
export function maxAbsError(output, data) {
  let max = 0;
  data.rows.forEach((row, r) => {
    for (let c = 0; c < D; c++) {
      const e = Math.abs(output[row * D + c] - data.ref[r * D + c]);
      if (!(e <= max)) max = e;
    }
  });
  return max;
}

/**
 * Times `call`: `warmup` calls (at least one), then samples until `budgetMs` has passed and at least
 * `minSamples` were taken. Calls under half a millisecond are timed in batches of 2 ms or more, and
 * averaged. A `call` that returns a promise is awaited; a synchronous one is not (an await alone costs about
 * a microsecond).
 * `collect`: run the garbage collector before each sample, so that one call's results are alive at a time.
 * Also returns the minor page faults per timed call (garbage collection before samples included).
 */
export async function measure(call, { budgetMs, minSamples, maxSamples, warmup = 2, collect = false }) {
  let t0 = performance.now();
  const probe = call(); // the first warm-up call, and whether `call` is asynchronous
  const isAsync = typeof probe?.then === 'function';
  if (isAsync) await probe;
  const run = isAsync
    ? async (count) => {
        for (let i = 0; i < count; i++) await call();
      }
    : (count) => {
        for (let i = 0; i < count; i++) call();
      };
  await run(warmup - 1);
  let batch = 1;
  if ((performance.now() - t0) / Math.max(warmup, 1) < 0.5) {
    // Short calls: double the batch until one takes 2 ms.
    for (;;) {
      t0 = performance.now();
      await run(batch);
      if (performance.now() - t0 >= 2) break;
      batch *= 2;
    }
  }
  const times = [];
  const faultsBefore = minorPageFaults();
  const start = performance.now();
  while (times.length < maxSamples && (times.length < minSamples || performance.now() - start < budgetMs)) {
    if (collect) globalThis.gc?.();
    t0 = performance.now();
    await run(batch);
    times.push((performance.now() - t0) / batch);
  }
  times.sort((a, b) => a - b);
  const m = times.length;
  const medianMs = m % 2 ? times[(m - 1) / 2] : (times[m / 2 - 1] + times[m / 2]) / 2;
  const faultsPerCall = (minorPageFaults() - faultsBefore) / (m * batch);
  return { medianMs, minMs: times[0], samples: m, batch, faultsPerCall };
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
