// Rotary position embeddings in float64, as the Hugging Face modeling code writes them: LLaMA/GPT-NeoX's
// `rotate_half` (cos and sin of cat(freqs, freqs)) and GPT-J's `rotate_every_two` (cos and sin repeated per pair),
// with a partial rotary dim (the first `dim` columns rotated, the rest passed through). Written from those
// definitions, apart from src/js/rope.js and src/core/rope.cc.

/** inv_freq = 1 / (base ** (arange(0, dim, 2) / dim)), in float64. */
export function referenceInvFreq(theta, dim) {
  const out = [];
  for (let i = 0; i < dim; i += 2) out.push(1 / theta ** (i / dim));
  return out;
}

/** rotate_half(x) = cat(-x2, x1) of a vector's first `dim` values. */
function rotateHalf(x, dim) {
  const half = dim / 2;
  return Array.from({ length: dim }, (_, i) => (i < half ? -x[i + half] : x[i - half]));
}

/** rotate_every_two(x) = stack(-x[1::2], x[::2]) interleaved. */
function rotateEveryTwo(x, dim) {
  return Array.from({ length: dim }, (_, i) => (i % 2 === 0 ? -x[i + 1] : x[i - 1]));
}

/**
 * One vector x [d] at `position`, rotated: x·cos + rotate(x)·sin on its first `dim` values, the rest unchanged.
 * @param {{ invFreq: number[], dim: number, style: 'half' | 'interleaved' }} rope
 */
export function referenceRotate(x, position, { invFreq, dim, style }) {
  const freqs = invFreq.map((f) => position * f);
  // emb: cat(freqs, freqs) for rotate_half; repeat_interleave(freqs, 2) for GPT-J
  const emb = Array.from({ length: dim }, (_, i) => (style === 'half' ? freqs[i % (dim / 2)] : freqs[i >> 1]));
  const rotated = style === 'half' ? rotateHalf(x, dim) : rotateEveryTwo(x, dim);
  return Array.from(x, (value, i) => (i < dim ? value * Math.cos(emb[i]) + rotated[i] * Math.sin(emb[i]) : value));
}

/**
 * Every row of a [..., L, d] tensor rotated by its position (row i of each head: positions[i], or i).
 * @returns {Float64Array}
 */
export function referenceRotateRows(data, shape, rope, positions) {
  const [L, d] = shape.slice(-2);
  const out = new Float64Array(data.length);
  for (let row = 0; row < data.length / d; row++) {
    const i = row % L;
    out.set(referenceRotate(Array.from(data.subarray(row * d, (row + 1) * d)), positions?.[i] ?? i, rope), row * d);
  }
  return out;
}
