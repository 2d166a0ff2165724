// The float64 pieces of the reference forwards (reference.js, reference-families.js), written from the Hugging Face
// modeling code and not from the code under test: tolerances, products, norms, activations, attention, RoPE rows and
// the writer of a layer's steps (edits and hooks).
import { editorFor } from './edit-reference.js';
import { referenceRotate } from './rope-reference.js';

// Tolerances of the model's results against this reference. The forward is float32 and the reference float64 on
// the same stored values (BF16 values are exact in both), so what differs is float32 rounding: sums of ≤ 4·d = 96
// products, a few norms and softmaxes per layer, two or three layers. Measured: at most 3e-7 on attention weights
// (in [0, 1]) and 1.1e-6 on hidden states and logits (values up to ~5). Held to atol 2e-6 (weights) and
// 5e-6 + 5e-6·|x| (the rest): 5x the measured error, and far below what a real fault gives (a transposed weight, a
// wrong norm, a missing bias, a wrong eps: 1e-4 and up).
export const WEIGHTS = { atol: 2e-6, rtol: 0 };
export const VALUES = { atol: 5e-6, rtol: 5e-6 };

/** x [n, in] · Wᵀ for W [out, in] (torch.nn.Linear), + b. */
export function linear(x, n, W, b) {
  const [out, inner] = W.shape;
  const y = new Float64Array(n * out);
  for (let i = 0; i < n; i++) {
    for (let o = 0; o < out; o++) {
      let sum = b ? b.data[o] : 0;
      for (let e = 0; e < inner; e++) sum += x[i * inner + e] * W.data[o * inner + e];
      y[i * out + o] = sum;
    }
  }
  return y;
}

/** LayerNorm of the n rows of x [n, d]: (x − mean) / sqrt(var + eps) · w + b. */
export function layerNorm(x, n, w, b, eps) {
  const d = w.data.length;
  const y = new Float64Array(n * d);
  for (let i = 0; i < n; i++) {
    const row = x.subarray(i * d, (i + 1) * d);
    const mean = row.reduce((s, v) => s + v, 0) / d;
    const variance = row.reduce((s, v) => s + (v - mean) ** 2, 0) / d;
    for (let c = 0; c < d; c++) y[i * d + c] = ((row[c] - mean) / Math.sqrt(variance + eps)) * w.data[c] + b.data[c];
  }
  return y;
}

/** RMSNorm of the n rows of x [n, d]: x / sqrt(mean(x²) + eps) · w. */
export function rmsNorm(x, n, w, eps) {
  const d = w.data.length;
  const y = new Float64Array(n * d);
  for (let i = 0; i < n; i++) {
    const row = x.subarray(i * d, (i + 1) * d);
    const scale = 1 / Math.sqrt(row.reduce((s, v) => s + v * v, 0) / d + eps);
    for (let c = 0; c < d; c++) y[i * d + c] = row[c] * scale * w.data[c];
  }
  return y;
}

const erf = (x) => {
  // Abramowitz–Stegun 7.1.26 is too coarse for a reference: sum the Taylor series (|x| small) or the continued
  // fraction of erfc (|x| large), both to float64 precision.
  const a = Math.abs(x);
  if (a < 3) {
    let term = a;
    let sum = a;
    for (let k = 1; k < 200; k++) {
      term *= (-a * a) / k;
      sum += term / (2 * k + 1);
      if (Math.abs(term) < 1e-20) break;
    }
    return Math.sign(x) * ((2 / Math.sqrt(Math.PI)) * sum);
  }
  let f = 0;
  for (let k = 60; k >= 1; k--) f = k / 2 / (a + f);
  const erfc = Math.exp(-a * a) / Math.sqrt(Math.PI) / (a + f);
  return Math.sign(x) * (1 - erfc);
};

/** The activations by config.json's name: GPT-2's gelu_new (tanh), BERT's gelu (erf), LLaMA's silu. */
export const ACT = {
  gelu_new: (x) => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x ** 3))),
  gelu: (x) => 0.5 * x * (1 + erf(x / Math.SQRT2)),
  silu: (x) => x / (1 + Math.exp(-x)),
};

/** Rows of an embedding for ids. */
export const rows = (E, ids) => {
  const d = E.shape[1];
  const out = new Float64Array(ids.length * d);
  ids.forEach((id, i) => out.set(E.data.subarray(id * d, (id + 1) * d), i * d));
  return out;
};

/**
 * Attention of [n, H·dk] q and [n, Hkv·dk] k, v (repeat_kv for GQA), scaled by dk^-0.5 (or `scale`), capped by
 * tanh(s / softcap)·softcap when given (Gemma 2), masked by `allowed(i, j)`.
 * @returns {{ weights: Float64Array [H, n, n], context: Float64Array [n, H·dk] }}
 */
export function attend(q, k, v, n, H, Hkv, dk, allowed, ablated = new Set(), { scale, softcap } = {}) {
  const weights = new Float64Array(H * n * n);
  const context = new Float64Array(n * H * dk);
  for (let h = 0; h < H; h++) {
    const g = Math.floor(h / (H / Hkv));
    for (let i = 0; i < n; i++) {
      const s = [];
      for (let j = 0; j < n; j++) {
        let dot = 0;
        for (let c = 0; c < dk; c++) dot += q[i * H * dk + h * dk + c] * k[j * Hkv * dk + g * dk + c];
        const scaled = scale === undefined ? dot / Math.sqrt(dk) : dot * scale;
        s.push(allowed(i, j) ? (softcap ? Math.tanh(scaled / softcap) * softcap : scaled) : -Infinity);
      }
      const max = Math.max(...s);
      const e = s.map((x) => Math.exp(x - max));
      const sum = e.reduce((a, b) => a + b, 0);
      for (let j = 0; j < n; j++) {
        const w = e[j] / sum;
        weights[(h * n + i) * n + j] = w;
        if (ablated.has(h)) continue; // head_mask 0: the head's output is 0
        for (let c = 0; c < dk; c++) context[i * H * dk + h * dk + c] += w * v[j * Hkv * dk + g * dk + c];
      }
    }
  }
  return { weights, context };
}

export const add = (a, b) => a.map((x, i) => x + b[i]);
export const T = (W) => ({ data: W.data, shape: W.shape });

/** The heads of layer l that `ablate` ([[layer, head], …]) zeroes. */
export const ablatedIn = (ablate, l) => new Set(ablate.filter(([layer]) => layer === l).map(([, head]) => head));

/**
 * Layer l's writer of its steps: edit(step, array) writes the run's `edits` into the array (edit-reference.js), then
 * calls `hook(l, step, array, { n, H, Hkv, dk })`, which may change the array in place; returns the array.
 */
export function stepWriter(edits, hook, l, dims) {
  const edit = editorFor(edits, l, dims);
  return (step, array) => {
    edit(step, array);
    hook?.(l, step, array, dims);
    return array;
  };
}

/** Each head's row of x [n, heads·dk] rotated by its position (rope-reference.js). */
export function rotateRows(x, n, heads, dk, rope) {
  const out = new Float64Array(x.length);
  for (let i = 0; i < n; i++) {
    for (let h = 0; h < heads; h++) {
      const at = i * heads * dk + h * dk;
      out.set(referenceRotate(Array.from(x.subarray(at, at + dk)), i, rope), at);
    }
  }
  return out;
}
