// The bench's cases and measurements that run anywhere (Node and the browser bench's page, bench/browser/):
// the cases, deterministic inputs, the float64 reference, the error and the timing loop. No Node built-ins.
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

/** The file name of one part (q, k, v, rows, ref) of a case's inputs. */
export const caseFileName = (spec, part) => `${spec.name.replace(/[^a-z0-9]+/gi, '_')}.${part}`;

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

/** Attention in float64 for the given global rows (head·n + i): scale 1/√D, causal top-left. */
export function referenceRows(spec, q, k, v, rows) {
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
 * `pageFaults`: a counter of page faults (Node's); the result then has the faults per timed call (garbage
 * collection before samples included).
 */
export async function measure(call, { budgetMs, minSamples, maxSamples, warmup = 2, collect = false, pageFaults }) {
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
  const faultsBefore = pageFaults?.();
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
  const faultsPerCall = pageFaults ? (pageFaults() - faultsBefore) / (m * batch) : undefined;
  return { medianMs, minMs: times[0], samples: m, batch, faultsPerCall, spreadMs: [times[0], times[m - 1]] };
}
