// A float64 reference of attention in plain loops, written from the definitions, for the tests to hold the
// WebAssembly results to. Tensors here are { data: Float64Array | Float32Array, shape }.
import { expect } from 'vitest';

export { seededRandom } from './seeded-random.js';

/** A Float32Array tensor of the given shape with seeded values in [-scale, scale). */
export function randomTensor(random, shape, scale = 1) {
  const size = shape.reduce((a, b) => a * b, 1);
  return { data: Float32Array.from({ length: size }, () => random() * scale), shape };
}

/** A random boolean mask as { data: Uint8Array, shape }, with roughly `density` of the entries open. */
export function randomBooleanMask(random, shape, density = 0.7) {
  const size = shape.reduce((a, b) => a * b, 1);
  return { data: Uint8Array.from({ length: size }, () => (random() * 0.5 + 0.5 < density ? 1 : 0)), shape };
}

/** A tensor of rank 2 to 4 as [B, H, L, d] (leading 1s), as referenceAttention takes it. */
export const as4d = (t) => ({ data: t.data, shape: [...Array(4 - t.shape.length).fill(1), ...t.shape] });

const index4 = (shape, b, h, i, j) => ((b * shape[1] + h) * shape[2] + i) * shape[3] + j;

/**
 * Reference scaled dot-product attention on 4-D [B, H, L, d] inputs.
 * mask: { kind: 'boolean' | 'additive', data, dims: [4 sizes, each 1 or full] } or null.
 * Returns Float64Arrays: output [B,H,Lq,dv], weights/scores/scaledScores/rawScores [B,H,Lq,Lk].
 */
export function referenceAttention(q, k, v, { scale, causal = false, mask = null, softcap = 0, window = 0 } = {}) {
  const [B, H, Lq, dK] = q.shape;
  const [, Hkv, Lk] = k.shape;
  const dV = v.shape[3];
  const s = scale ?? 1 / Math.sqrt(dK);
  const group = H / Hkv;
  const square = [B, H, Lq, Lk];
  const size = B * H * Lq * Lk;
  const out = {
    output: new Float64Array(B * H * Lq * dV),
    weights: new Float64Array(size),
    scores: new Float64Array(size),
    scaledScores: new Float64Array(size),
    rawScores: new Float64Array(size),
  };
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < H; h++) {
      const hk = Math.floor(h / group);
      for (let i = 0; i < Lq; i++) {
        const row = new Float64Array(Lk);
        for (let j = 0; j < Lk; j++) {
          let dot = 0;
          for (let c = 0; c < dK; c++)
            dot += q.data[index4(q.shape, b, h, i, c)] * k.data[index4(k.shape, b, hk, j, c)];
          let allowed = true;
          if (causal === true || causal === 'top-left') allowed = j <= i;
          if (causal === 'bottom-right') allowed = j <= i + Lk - Lq;
          // the window: PyTorch's mask tril(ones(L_q, L_k), diagonal = shift) & ~tril(…, diagonal = shift − window)
          const shift = causal === 'bottom-right' ? Lk - Lq : 0;
          if (window > 0 && j <= i + shift - window) allowed = false;
          let add = 0;
          if (mask) {
            const [mb, mh, mi, mj] = mask.dims;
            const m =
              mask.data[index4(mask.dims, mb === 1 ? 0 : b, mh === 1 ? 0 : h, mi === 1 ? 0 : i, mj === 1 ? 0 : j)];
            if (mask.kind === 'boolean') allowed = allowed && m !== 0 && m !== false;
            else add = m;
          }
          const at = index4(square, b, h, i, j);
          out.rawScores[at] = dot;
          out.scaledScores[at] = dot * s;
          const capped = softcap > 0 ? Math.tanh((dot * s) / softcap) * softcap : dot * s;
          row[j] = allowed ? capped + add : -Infinity;
          out.scores[at] = row[j];
        }
        const max = Math.max(...row);
        let sum = 0;
        for (let j = 0; j < Lk; j++) {
          row[j] = max === -Infinity ? 0 : Math.exp(row[j] - max);
          sum += row[j];
        }
        for (let j = 0; j < Lk; j++) {
          const w = sum === 0 ? 0 : row[j] / sum;
          out.weights[index4(square, b, h, i, j)] = w;
          for (let c = 0; c < dV; c++)
            out.output[index4([B, H, Lq, dV], b, h, i, c)] += w * v.data[index4(v.shape, b, hk, j, c)];
        }
      }
    }
  }
  return out;
}

/** Reference x·w + bias on [rows, cols] row-major data. */
export function referenceMatmul(x, rows, inner, w, cols, bias) {
  const out = new Float64Array(rows * cols);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      let sum = bias ? bias[c] : 0;
      for (let e = 0; e < inner; e++) sum += x[r * inner + e] * w[e * cols + c];
      out[r * cols + c] = sum;
    }
  }
  return out;
}

/** Splits [L, heads·width] into [heads, L, width]. */
export function splitHeads(data, len, heads, width) {
  const out = new Float64Array(data.length);
  for (let h = 0; h < heads; h++) {
    for (let l = 0; l < len; l++) {
      for (let c = 0; c < width; c++) out[(h * len + l) * width + c] = data[l * heads * width + h * width + c];
    }
  }
  return out;
}

/**
 * Reference multi-head attention for one unbatched x [L_q, d_model] (context [L_k, d_context] or x).
 * Returns { q, k, v (split into heads), weights, heads, concat, output } as Float64Arrays.
 */
export function referenceMultiHead(x, w, { context = null, numHeads = 1, numKvHeads = numHeads, ...options } = {}) {
  const [Lq, dModel] = x.shape;
  const c = context ?? x;
  const [Lk, dContext] = c.shape;
  const dK = w.wq.shape[1] / numHeads;
  const dV = w.wv.shape[1] / numKvHeads;
  const q = splitHeads(referenceMatmul(x.data, Lq, dModel, w.wq.data, numHeads * dK, w.bq?.data), Lq, numHeads, dK);
  const k = splitHeads(
    referenceMatmul(c.data, Lk, dContext, w.wk.data, numKvHeads * dK, w.bk?.data),
    Lk,
    numKvHeads,
    dK,
  );
  const v = splitHeads(
    referenceMatmul(c.data, Lk, dContext, w.wv.data, numKvHeads * dV, w.bv?.data),
    Lk,
    numKvHeads,
    dV,
  );
  const attention = referenceAttention(
    { data: q, shape: [1, numHeads, Lq, dK] },
    { data: k, shape: [1, numKvHeads, Lk, dK] },
    { data: v, shape: [1, numKvHeads, Lk, dV] },
    options,
  );
  const width = numHeads * dV;
  const concat = new Float64Array(Lq * width);
  for (let h = 0; h < numHeads; h++) {
    for (let l = 0; l < Lq; l++) {
      for (let col = 0; col < dV; col++) concat[l * width + h * dV + col] = attention.output[(h * Lq + l) * dV + col];
    }
  }
  const output = w.wo ? referenceMatmul(concat, Lq, width, w.wo.data, w.wo.shape[1], w.bo?.data) : concat;
  return { q, k, v, ...attention, heads: attention.output, concat, output };
}

/**
 * Expects `actual` to match `expected` elementwise within atol + rtol·|expected|; -Infinity must match
 * exactly. Reports the first mismatch with its index.
 */
export function expectClose(actual, expected, { atol = 1e-5, rtol = 1e-4, what = 'value' } = {}) {
  expect(actual.length, `${what}: length`).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    const a = actual[i];
    const e = expected[i];
    if (e === -Infinity || a === -Infinity) {
      if (a !== e) expect.fail(`${what}[${i}] is ${a} but the reference is ${e}`);
      continue;
    }
    if (!(Math.abs(a - e) <= atol + rtol * Math.abs(e))) {
      expect.fail(`${what}[${i}] is ${a} but the reference is ${e} (|diff| ${Math.abs(a - e)})`);
    }
  }
}

/** The edge sizes around the 4-float SIMD width (kEdgeSizes in tests/native/case_data.h). */
export const EDGE_SIZES = [1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 64];

/** Both builds: every API test runs against SIMD and scalar. */
export const VARIANTS = [
  { name: 'simd', simd: true },
  { name: 'scalar', simd: false },
];
