// Why divide by √d_k: an experiment run with the library on random queries and keys.
import { createRng } from '../../shared/rng.js';
import { meanRowEntropy, meanVariance } from '../../shared/stats.js';

/** The d_k values of the experiment. */
export const EXPERIMENT_DKS = [1, 2, 4, 8, 16, 32, 64, 128, 256];

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
