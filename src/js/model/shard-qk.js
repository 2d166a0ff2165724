// OLMo-2's q and k norms under loadModel({ workers }) (shard-layer.js): each is an RMS norm over a token's whole q (or
// k) projection, H·d_k (H_kv·d_k) columns of which each worker holds its heads'. A layer's first calls give each
// worker's per-token Σ x² over its columns (forward.h's qk_squares, in double) and those columns (qk_projections);
// here the sums are added in worker order and each token's 1 / √(Σ / width + eps) computed as norms.cc's norm
// computes it; each worker's attention call is then given them (qk_scales) with its own columns back (qk_projected,
// not projected again) and scales its columns by them (norms.h's rms_scale). With one worker the sums are one
// thread's and so are the bits.
import { made } from './calls.js';

/** The bits of float64s as a Float32Array of twice their count, the core's double inputs and outputs. */
const asFloats = (doubles) => new Float32Array(doubles.buffer, doubles.byteOffset, doubles.length * 2);
const asDoubles = (floats) => new Float64Array(floats.slice().buffer); // a fresh buffer: offset 0

/**
 * The outputs of worker part `part`'s first call of a layer: its q's and k's Σ x² per token, [2, n] doubles, and its
 * q and k columns, [n, its heads·d_k] then [n, its key-value heads·d_k].
 */
export const squaresShapes = (spec, n, { heads: [h0, h1], kv: [g0, g1] }) => ({
  qkSquares: [4 * n],
  qkProjections: [n * (h1 - h0 + g1 - g0) * spec.headDim],
});

/**
 * The whole q and k norms' scales of n tokens from the workers' first calls (`parts`: [{ part, result }] in worker
 * order): for a worker part, the inputs of its attention call, qk_scales [2, n] doubles (a copy per worker: each
 * call's inputs are transferred) and its own q and k columns back.
 */
export function qkScales(spec, n, parts) {
  const { numHeads: H, numKvHeads: Hkv, headDim: dK } = spec;
  const eps = Math.fround(spec.eps); // the core's float32 eps, widened as in norms.cc
  const sums = new Float64Array(2 * n); // [2, n]: Σ q², then Σ k²
  for (const { result } of parts) {
    const squares = asDoubles(result.qkSquares.data);
    for (let i = 0; i < 2 * n; i++) sums[i] += squares[i];
  }
  const scales = new Float64Array(2 * n);
  for (let i = 0; i < 2 * n; i++) scales[i] = 1 / Math.sqrt(sums[i] / ((i < n ? H : Hkv) * dK) + eps);
  return (part) => {
    const { data, shape } = parts.find((p) => p.part === part).result.qkProjections;
    return {
      qkScales: made(asFloats(scales.slice()), [4 * n], "the whole q and k norms' scales"),
      qkProjected: made(data, shape, 'the q and k projections'),
    };
  };
}
