// Tiny model files for the "Use your own model" page tests, written byte by byte in the exact layouts the panel reads
// (tests/js/fixtures/io/writers.js), from numbers exact in float32, with their float64 references.
import { npyFile, npzFile, safetensorsFile, tensorBytes } from '../../js/fixtures/io/writers.js';
import { attention64 } from './reference64.mjs';

/** A matrix of multiples of 1/64 in [-scale, scale] (exact in float32), from a small linear congruential generator. */
export function randomRows(rows, cols, scale = 1, seed = { value: 7 }) {
  return Array.from({ length: rows }, () =>
    Array.from({ length: cols }, () => {
      seed.value = (seed.value * 1103515245 + 12345) % 2147483648;
      return (Math.round(((seed.value / 2147483648) * 2 - 1) * 64) / 64) * scale;
    }),
  );
}

export const f32 = (name, values, shape) => ({ name, dtype: 'F32', shape, bytes: tensorBytes('F32', values) });
const transpose = (m) => m[0].map((_, j) => m.map((row) => row[j]));

/**
 * A GPT-2-shaped safetensors file of `layers` layers (fused c_attn [d, 3d], c_proj, biases), the hidden states X
 * [1, n, d] entering `layer`, that layer's attentions, and the README script's JSON ("layer": `layer`).
 */
export function gpt2Files({ n = 6, d = 32, heads = 4, layers = 2, layer = 1 } = {}) {
  const seed = { value: 7 };
  const x = randomRows(n, d, 1, seed);
  const weights = Array.from({ length: layers }, () => ({
    cAttn: randomRows(d, 3 * d, 0.5, seed),
    cAttnBias: randomRows(1, 3 * d, 0.25, seed)[0],
    cProj: randomRows(d, d, 0.5, seed),
    cProjBias: randomRows(1, d, 0.25, seed)[0],
  }));
  // The float64 reference of a layer: a bias is a last row of W against a column of ones in X.
  const reference = (l) => {
    const { cAttn, cAttnBias } = weights[l];
    const ones = x.map((row) => [...row, 1]);
    const part = (k) => [...cAttn.map((row) => row.slice(k * d, (k + 1) * d)), cAttnBias.slice(k * d, (k + 1) * d)];
    return attention64({ x: ones, wq: part(0), wk: part(1), wv: part(2), numHeads: heads, causal: true });
  };
  const ref = reference(layer);
  const file = safetensorsFile([
    f32('hidden_states', x.flat(), [1, n, d]),
    ...weights.flatMap((w, l) => [
      f32(`h.${l}.attn.c_attn.weight`, w.cAttn.flat(), [d, 3 * d]),
      f32(`h.${l}.attn.c_attn.bias`, w.cAttnBias, [3 * d]),
      f32(`h.${l}.attn.c_proj.weight`, w.cProj.flat(), [d, d]),
      f32(`h.${l}.attn.c_proj.bias`, w.cProjBias, [d]),
    ]),
    f32(`attentions.${layer}`, ref.weights.flat(2), [1, heads, n, n]),
  ]);
  const tokens = ['The', 'Ġcat', 'Ġsat', 'Ġon', 'Ġthe', 'Ġmat'].slice(0, n);
  const json = JSON.stringify({ tokens, layer, num_attention_heads: heads });
  return { x, weights, ref, reference, file, json, n, d, heads, layer };
}

/**
 * A LLaMA-style layer with grouped-query attention: q_proj [H·d_k, d] and k_proj, v_proj [H_kv·d_k, d] (Linear
 * [out, in]), o_proj, X, and a JSON with SentencePiece tokens ("▁the"), num_attention_heads and num_key_value_heads.
 */
export function llamaFiles({ n = 6, d = 16, heads = 4, kvHeads = 2 } = {}) {
  const seed = { value: 11 };
  const dK = d / heads;
  const x = randomRows(n, d, 1, seed);
  const wq = randomRows(d, heads * dK, 0.5, seed);
  const wk = randomRows(d, kvHeads * dK, 0.5, seed);
  const wv = randomRows(d, kvHeads * dK, 0.5, seed);
  const wo = randomRows(heads * dK, d, 0.5, seed);
  const at = 'model.layers.0.self_attn';
  const file = safetensorsFile([
    f32('hidden_states', x.flat(), [n, d]),
    f32(`${at}.q_proj.weight`, transpose(wq).flat(), [heads * dK, d]),
    f32(`${at}.k_proj.weight`, transpose(wk).flat(), [kvHeads * dK, d]),
    f32(`${at}.v_proj.weight`, transpose(wv).flat(), [kvHeads * dK, d]),
    f32(`${at}.o_proj.weight`, transpose(wo).flat(), [d, heads * dK]),
  ]);
  const tokens = ['<s>', '▁The', '▁cat', '▁sat', '▁on', '▁the'].slice(0, n);
  const json = JSON.stringify({ tokens, num_attention_heads: heads, num_key_value_heads: kvHeads });
  const ref = attention64({ x, wq, wk, wv, wo, numHeads: heads, numKvHeads: kvHeads, causal: true });
  return { x, wq, wk, wv, wo, ref, file, json, heads, kvHeads, dK };
}

/**
 * A GPT-NeoX (Pythia) layer: query_key_value [3·d, d] laid out by head (head h's q, k and v rows in turn, Linear
 * [out, in]), attention.dense, X, and a JSON with num_attention_heads.
 */
export function neoxFiles({ n = 6, d = 16, heads = 4 } = {}) {
  const seed = { value: 13 };
  const dK = d / heads;
  const x = randomRows(n, d, 1, seed);
  const [wq, wk, wv] = [0, 1, 2].map(() => randomRows(d, d, 0.5, seed)); // [in, out]
  const wo = randomRows(d, d, 0.5, seed);
  // row (h·3 + part)·d_k + c of query_key_value is column h·d_k + c of W_q, W_k or W_v
  const fused = Array.from({ length: 3 * d }, (_, r) => {
    const [h, part, c] = [Math.floor(r / (3 * dK)), Math.floor(r / dK) % 3, r % dK];
    return [wq, wk, wv][part].map((row) => row[h * dK + c]);
  });
  const at = 'gpt_neox.layers.0.attention';
  const file = safetensorsFile([
    f32('hidden_states', x.flat(), [n, d]),
    f32(`${at}.query_key_value.weight`, fused.flat(), [3 * d, d]),
    f32(`${at}.dense.weight`, transpose(wo).flat(), [d, d]),
  ]);
  const json = JSON.stringify({
    tokens: ['The', ' cat', ' sat', ' on', ' the', ' mat'].slice(0, n),
    num_attention_heads: heads,
  });
  const ref = attention64({ x, wq, wk, wv, wo, numHeads: heads, causal: true });
  return { x, wq, wk, wv, wo, ref, file, json, heads, dK };
}

/** The arrays of `<attention-explorer src>` (x, wq, wk, wv, wo, [in, out]) as a plain .npz, with their reference. */
export async function plainNpz({ n = 5, d = 8, heads = 2 } = {}) {
  const seed = { value: 3 };
  const m = {
    x: randomRows(n, d, 1, seed),
    wq: randomRows(d, d, 0.5, seed),
    wk: randomRows(d, d, 0.5, seed),
    wv: randomRows(d, d, 0.5, seed),
    wo: randomRows(d, d, 0.5, seed),
  };
  const npy = (rows) => npyFile({ shape: [rows.length, rows[0].length], values: rows.flat() });
  const file = await npzFile(Object.fromEntries(Object.entries(m).map(([k, rows]) => [k, npy(rows)])));
  return { ...m, file, ref: attention64({ ...m, numHeads: heads }), npy };
}

/** The file input of "Use your own model" given these files ({ name, bytes or text }). */
export async function dropFiles(page, files) {
  await page.setInputFiles(
    '.model-panel input[type="file"]',
    files.map(({ name, data }) => ({ name, mimeType: 'application/octet-stream', buffer: Buffer.from(data) })),
  );
}
