// attentionWeightsFrom: one layer's attention weights of a checkpoint, in this package's layout, so that
// selfAttention(x, attentionWeightsFrom(tensors, { layer, config }), { causal }) computes that layer's attention
// from its normed input x. The family tables (families.js) name the tensors; the same shape checks as loadModel.
import { AttentionError, describe } from '../errors.js';
import { findPrefix, resolveRows } from './checkpoint.js';
import { parseConfigText, readConfig } from './config.js';
import { FAMILIES } from './families.js';

const ATTENTION_SLOTS = ['wQkv', 'bQkv', 'wQ', 'wK', 'wV', 'wO', 'bQ', 'bK', 'bV', 'bO'];

/** [rows, cols] row-major → its transpose [cols, rows] (torch.nn.Linear's [out, in] → [in, out]). */
function transpose({ data, shape: [rows, cols] }) {
  const out = new Float32Array(rows * cols);
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = data[r * cols + c];
  return { data: out, shape: [cols, rows] };
}

/** Columns [from, to) of [rows, cols] (GPT-2's c_attn split into q, k and v), or of a vector. */
function columns({ data, shape }, from, to) {
  if (shape.length === 1) return { data: Float32Array.from(data.subarray(from, to)), shape: [to - from] };
  const [rows, cols] = shape;
  const out = new Float32Array(rows * (to - from));
  for (let r = 0; r < rows; r++) out.set(data.subarray(r * cols + from, r * cols + to), r * (to - from));
  return { data: out, shape: [rows, to - from] };
}

/** The tensors as a checkpoint of one file, for the family tables' lookups. */
function tensorCheckpoint(tensors) {
  const map = tensors instanceof Map ? tensors : new Map(Object.entries(tensors ?? {}));
  const shapeOf = (t) => (Array.isArray(t?.shape) ? t.shape : undefined);
  return {
    description: 'the tensors given',
    entry: (names) => {
      const name = names.find((n) => shapeOf(map.get(n)));
      return name && { file: 'the tensors given', name, shape: shapeOf(map.get(name)) }; // no dtype: values in memory
    },
    names: () => [...map.keys()],
    get: (name) => map.get(name),
  };
}

/** A tensor as float32 data (a Float32Array is used as it is). */
function float32(tensor, name) {
  const data = tensor.data;
  if (data instanceof Float32Array) return { data, shape: tensor.shape.slice() };
  if (data instanceof Float64Array || Array.isArray(data))
    return { data: Float32Array.from(data), shape: tensor.shape.slice() };
  throw new AttentionError(
    'NOT_A_TENSOR',
    `tensor ${JSON.stringify(name)} has data ${describe(data)}, not float values`,
  );
}

/**
 * One layer's attention weights from a checkpoint's tensors (e.g. readSafetensors of model.safetensors), with or
 * without their usual prefixes.
 *
 * | family  | from                                         | to (this package's layout)                     |
 * |---------|----------------------------------------------|------------------------------------------------|
 * | GPT-2   | c_attn [d, 3d] + bias, c_proj [d, d] + bias | wq, wk, wv [d, d] (c_attn's column blocks), wo  |
 * | BERT    | query, key, value [d, d] (Linear [out, in])  | wq, wk, wv [d, d] transposed; wo likewise       |
 * | LLaMA   | q_proj [H·d_k, d], k_proj, v_proj [H_kv·d_k, d], o_proj | transposed; numKvHeads; rope          |
 *
 * @param {Record<string, { data: ArrayLike<number>, shape: number[] }> | Map<string, object>} tensors
 * @param {{ layer: number, config: object | string }} options  config: config.json, parsed or as text
 * @returns {{ wq, wk, wv, wo, bq?, bk?, bv?, bo?, numHeads: number, numKvHeads: number, rope? }}
 */
export function attentionWeightsFrom(tensors, options) {
  const { layer, config: given } = options ?? {};
  const json = typeof given === 'string' ? parseConfigText(given) : given;
  if (json === null || typeof json !== 'object') {
    throw new AttentionError(
      'BAD_OPTION',
      `attentionWeightsFrom needs { layer, config } with config.json's object, got ${describe(given)}`,
    );
  }
  const config = readConfig(json);
  if (!Number.isInteger(layer) || layer < 0 || layer >= config.numLayers) {
    throw new AttentionError(
      'BAD_OPTION',
      `layer must be an integer from 0 to ${config.numLayers - 1}, got ${describe(layer)}`,
    );
  }
  const spec = FAMILIES[config.family];
  const checkpoint = tensorCheckpoint(tensors);
  const prefix = findPrefix(checkpoint, spec.prefixes, spec.layer(0).find((r) => r.slot.startsWith('w')).name);
  const rows = spec.layer(layer).filter((r) => ATTENTION_SLOTS.includes(r.slot));
  const got = Object.fromEntries(
    resolveRows(checkpoint, rows, config, prefix).map((e) => [e.slot, float32(checkpoint.get(e.name), e.name)]),
  );
  const { numHeads, numKvHeads, headDim } = config;
  const [q, kv] = [numHeads * headDim, numKvHeads * headDim];
  const w = {};
  if (got.wQkv) {
    [w.wq, w.wk, w.wv] = [columns(got.wQkv, 0, q), columns(got.wQkv, q, q + kv), columns(got.wQkv, q + kv, q + 2 * kv)];
    [w.bq, w.bk, w.bv] = [columns(got.bQkv, 0, q), columns(got.bQkv, q, q + kv), columns(got.bQkv, q + kv, q + 2 * kv)];
    w.wo = got.wO;
  } else {
    [w.wq, w.wk, w.wv, w.wo] = [transpose(got.wQ), transpose(got.wK), transpose(got.wV), transpose(got.wO)];
    for (const [from, to] of [
      ['bQ', 'bq'],
      ['bK', 'bk'],
      ['bV', 'bv'],
    ])
      if (got[from]) w[to] = got[from];
  }
  if (got.bO) w.bo = got.bO;
  const rope = config.rope && {
    theta: config.rope.theta,
    dim: config.rope.dim,
    style: 'half',
    invFreq: Array.from(config.rope.invFreq),
  };
  return { ...w, numHeads, numKvHeads, ...(rope ? { rope } : {}) };
}
