// Why divide by √d_k: an experiment run with the library on random queries and keys.
import { createRng } from './rng.js';

/** The d_k values of the experiment. */
export const EXPERIMENT_DKS = [1, 2, 4, 8, 16, 32, 64, 128, 256];

/** Mean and (population) variance of the finite values. */
export function meanVariance(data) {
  let count = 0;
  let sum = 0;
  let sumSquares = 0;
  for (const x of data) {
    if (!Number.isFinite(x)) continue;
    count++;
    sum += x;
    sumSquares += x * x;
  }
  if (count === 0) return { mean: NaN, variance: NaN };
  const mean = sum / count;
  return { mean, variance: Math.max(0, sumSquares / count - mean * mean) };
}

/**
 * The mean entropy of the rows of a weights matrix, in bits. A row spread evenly over m keys has log2(m) bits;
 * a row that puts all weight on one key has 0. Rows that are entirely masked (all zeros) are skipped.
 * @param {ArrayLike<number>} data  [rows, cols] row-major, or several such matrices one after another
 * @param {number} cols
 */
export function meanRowEntropy(data, cols) {
  let total = 0;
  let rows = 0;
  for (let start = 0; start + cols <= data.length; start += cols) {
    let entropy = 0;
    let mass = 0;
    for (let j = 0; j < cols; j++) {
      const p = data[start + j];
      mass += p;
      if (p > 0) entropy -= p * Math.log2(p);
    }
    if (mass > 0) {
      total += entropy;
      rows++;
    }
  }
  return rows ? total / rows : NaN;
}

/**
 * Runs the √d_k experiment: for each d_k, `trials` sets of `length` queries and keys with N(0, 1) entries,
 * through attention-wasm with and without scaling.
 * @param {{ scaledDotProductAttention: Function }} attn  an instance from createAttention()
 * @param {{ seed?: number, length?: number, trials?: number, dKs?: number[] }} [options]
 * @returns {{ length: number, maxEntropy: number, rows: { dK: number, varianceRaw: number,
 *   varianceScaled: number, entropyRaw: number, entropyScaled: number }[] }}
 */
export function runScalingExperiment(attn, { seed = 1, length = 16, trials = 8, dKs = EXPERIMENT_DKS } = {}) {
  const rows = dKs.map((dK) => {
    const rng = createRng(seed + dK * 7919);
    const draw = (width) => {
      const data = new Float32Array(trials * length * width);
      for (let i = 0; i < data.length; i++) data[i] = rng.normal();
      return { data, shape: [trials, length, width] };
    };
    const q = draw(dK);
    const k = draw(dK);
    const v = { data: new Float32Array(trials * length), shape: [trials, length, 1] };
    const scaled = attn.scaledDotProductAttention(q, k, v, { returnSteps: true });
    const raw = attn.scaledDotProductAttention(q, k, v, { scale: 1 });
    return {
      dK,
      varianceRaw: meanVariance(scaled.rawScores.data).variance,
      varianceScaled: meanVariance(scaled.scaledScores.data).variance,
      entropyRaw: meanRowEntropy(raw.weights.data, length),
      entropyScaled: meanRowEntropy(scaled.weights.data, length),
    };
  });
  return { length, maxEntropy: Math.log2(length), rows };
}
