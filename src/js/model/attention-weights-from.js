// attentionWeightsFrom(tensors, { layer, config }): one layer's attention weights cut out of a checkpoint's tensors.
// They come in this package's layout, so that selfAttention(x, attentionWeightsFrom(tensors, { layer, config }),
// { causal }) computes that layer's attention from its normed input x. The family tables (families/) name the
// tensors (attention-sources.js says how each is cut); the same shape checks as loadModel.
import { AttentionError, describe, formatShape } from '../errors.js';
import { guarded, readRecord } from '../read.js';
import { findPrefix, resolveRows } from './checkpoint.js';
import { layerInvFreq, parseConfigText, readSpec } from './spec.js';
import { candidateNames, FAMILIES } from './families/index.js';
import { ATTENTION_SLOTS, QK_NORM_SLOTS, layerSources } from './attention-sources.js';

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

/** Part `index` of 3 of each of the `heads` blocks of a tensor's rows ([3·H·d_k, …]: GPT-NeoX's q_h | k_h | v_h). */
function headRows({ data, shape }, index, heads) {
  const rowSize = shape.slice(1).reduce((a, b) => a * b, 1);
  const dK = shape[0] / 3 / heads;
  const out = new Float32Array(heads * dK * rowSize);
  for (let h = 0; h < heads; h++) {
    const from = (h * 3 + index) * dK * rowSize;
    out.set(data.subarray(from, from + dK * rowSize), h * dK * rowSize);
  }
  return { data: out, shape: [heads * dK, ...shape.slice(1)] };
}

/**
 * A source (layerSources) cut out of its tensor: the block of q, k or v (H·d_k, H_kv·d_k, H_kv·d_k columns, or rows
 * with part.byRows), or a head's rows (part.perHead), then the transpose.
 */
function cut({ data, shape }, { part, transpose: flip }, heads, kvHeads) {
  let t = { data, shape: shape.slice() };
  if (part?.perHead) t = headRows(t, part.index, heads);
  else if (part) {
    const axis = part.byRows ? 0 : shape.length - 1;
    const dK = shape[axis] / (heads + 2 * kvHeads);
    const widths = [heads * dK, kvHeads * dK, kvHeads * dK];
    const from = widths.slice(0, part.index).reduce((a, b) => a + b, 0);
    const range = [from, from + widths[part.index]];
    t = part.byRows && shape.length === 2 ? transpose(columns(transpose(t), ...range)) : columns(t, ...range);
  }
  return flip ? transpose(t) : t;
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

/**
 * A tensor as float32 data (a Float32Array is used as it is): numbers only (NOT_A_TENSOR), exactly as many as its
 * shape holds (DATA_LENGTH_MISMATCH), each read once.
 */
function float32(tensor, name) {
  const { data, shape } = tensor;
  let values;
  if (data instanceof Float32Array) values = data;
  else if (data instanceof Float64Array) values = Float32Array.from(data);
  else if (Array.isArray(data)) {
    values = new Float32Array(data.length);
    for (let i = 0; i < data.length; i++) {
      const value = data[i];
      if (typeof value !== 'number') {
        throw new AttentionError(
          'NOT_A_TENSOR',
          `tensor ${JSON.stringify(name)} has data[${i}] ${describe(value)}, not a number: give a flat array (or a Float32Array) of its values`,
        );
      }
      values[i] = value;
    }
  } else {
    throw new AttentionError(
      'NOT_A_TENSOR',
      `tensor ${JSON.stringify(name)} has data ${describe(data)}, not float values`,
    );
  }
  const count = shape.reduce((a, b) => a * b, 1);
  if (values.length !== count) {
    throw new AttentionError(
      'DATA_LENGTH_MISMATCH',
      `tensor ${JSON.stringify(name)} has ${values.length} values, but its shape ${formatShape(shape)} holds ${count}`,
    );
  }
  return { data: values, shape: shape.slice() };
}

/**
 * The spec of a minimal config ({ family, numHeads, numKvHeads? }, no config.json): the sizes it leaves out come
 * from the tensors' shapes: d_model and d_k from W_q's (GPT-2: c_proj's rows), H_kv from W_k's rows unless given.
 */
function sizesFromShapes({ family, numHeads, numKvHeads }, found) {
  if (!Number.isInteger(numHeads) || numHeads < 1)
    throw new AttentionError('BAD_OPTION', `config.numHeads must be a positive integer, got ${describe(numHeads)}`);
  if (numKvHeads !== undefined && numKvHeads !== null && !(Number.isInteger(numKvHeads) && numKvHeads >= 1))
    throw new AttentionError('BAD_OPTION', `config.numKvHeads must be a positive integer, got ${describe(numKvHeads)}`);
  const shape = (slot) => found.find((f) => f.slot === slot)?.entry?.shape ?? [];
  const fused = found.some((f) => f.slot === 'wQkv'); // q, k and v in one tensor (GPT-2's c_attn, Phi-3's qkv_proj)
  const outIn = FAMILIES[family].choices.layout === 'outIn';
  const [dModel, q] = fused
    ? outIn
      ? [shape('wQkv')[1], shape('wO')[1]]
      : [shape('wQkv')[0], shape('wO')[0]]
    : [shape('wQ')[1], shape('wQ')[0]];
  const headDim = q / numHeads;
  const fusedRows = shape('wQkv')[outIn ? 0 : 1];
  const kvHeads = numKvHeads ?? (fused ? (fusedRows / headDim - numHeads) / 2 : (shape('wK')[0] ?? q) / headDim);
  // A tensor missing leaves its size undefined: resolveRows names it (MISSING_TENSOR).
  const known = q !== undefined && dModel !== undefined;
  if (known && (!Number.isInteger(headDim) || !Number.isInteger(kvHeads) || kvHeads < 1 || numHeads % kvHeads)) {
    throw new AttentionError(
      'WEIGHT_SHAPE_MISMATCH',
      `${q} query columns (${fused ? 'c_proj' : 'W_q'}) do not split into ${numHeads} heads with ${kvHeads} key/value heads`,
    );
  }
  return { family, numHeads, numKvHeads: kvHeads, headDim, dModel, rope: null };
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
 * | Gemma 2 | as LLaMA; query_pre_attn_scalar, softcap, window | as LLaMA; scale, softcap, window          |
 * | Qwen3 … | as LLaMA; q_norm, k_norm [d_k] ([H·d_k] OLMo-2) | as LLaMA; qkNorm (selfAttention refuses it) |
 *
 * @param {Record<string, { data: ArrayLike<number>, shape: number[] }> | Map<string, object>} tensors
 * @param {{ layer: number, config: object | string, tokens?: number }} options  tokens: the sequence's length,
 *   which picks LongRoPE's factors (its long ones past original_max_position_embeddings; default 0: the short ones);
 *   config: config.json, parsed or as text; or, when
 *   there is none (one layer's tensors), { family: 'gpt2' | 'bert' | 'llama', numHeads, numKvHeads? }: d_model and
 *   d_k come from the shapes, H_kv from W_k's rows unless given, biases are read when present, and nothing else
 *   (no rope, scale, softcap, window or qkNorm)
 * @returns {{ wq, wk, wv, wo, bq?, bk?, bv?, bo?, numHeads: number, numKvHeads: number, rope?, scale?, softcap?,
 *   window?, qkNorm?: { norm, over: 'head' | 'projection', eps, q, k } }}
 */
export function attentionWeightsFrom(tensors, options) {
  // A getter or Proxy trap of the caller's that throws, anywhere in the arguments, is BAD_OPTION saying so.
  return guarded('BAD_OPTION', "attentionWeightsFrom's arguments", () => weightsFrom(tensors, options));
}

/** The option `tokens` (the sequence's length, for LongRoPE's factors), checked: an integer ≥ 0, default 0. */
export function readTokens(tokens = 0) {
  if (!Number.isSafeInteger(tokens) || tokens < 0) {
    throw new AttentionError('BAD_OPTION', `tokens must be an integer of 0 or more, got ${describe(tokens)}`);
  }
  return tokens;
}

function weightsFrom(tensors, options) {
  const keys = ['layer', 'config', 'tokens'];
  const { layer, config: given, tokens } = readRecord(options, 'attentionWeightsFrom options', keys, 'option');
  readTokens(tokens);
  const config = typeof given === 'string' ? parseConfigText(given) : given;
  if (config === null || typeof config !== 'object') {
    throw new AttentionError(
      'BAD_OPTION',
      `attentionWeightsFrom needs { layer, config } with config.json's object, got ${describe(given)}`,
    );
  }
  const checkpoint = tensorCheckpoint(tensors);
  // without config.json: { family, numHeads, numKvHeads? }
  const minimal = typeof config.family === 'string' && config.model_type === undefined;
  if (minimal && !Object.hasOwn(FAMILIES, config.family)) {
    throw new AttentionError(
      'BAD_OPTION',
      `config.family must be one of ${Object.keys(FAMILIES).join(', ')}, got ${describe(config.family)}`,
    );
  }
  const known = minimal ? null : readSpec(config);
  const numLayers = known ? known.numLayers : Infinity;
  if (!Number.isInteger(layer) || layer < 0 || layer >= numLayers) {
    const range = known ? `from 0 to ${numLayers - 1}` : 'of 0 or more';
    throw new AttentionError('BAD_OPTION', `layer must be an integer ${range}, got ${describe(layer)}`);
  }
  const family = FAMILIES[known?.family ?? config.family];
  const prefix = findPrefix(
    checkpoint,
    family.prefixes,
    family.layer(layer).find((r) => r.slot.startsWith('w')),
  );
  // q_norm and k_norm with config.json (its eps and norm); without one, the projections' weights alone
  const slots = minimal ? ATTENTION_SLOTS : [...ATTENTION_SLOTS, ...QK_NORM_SLOTS];
  let rows = family.layer(layer).filter((r) => slots.includes(r.slot));
  // Without config.json, a bias is read when the tensors hold it.
  const held = (r) => checkpoint.entry(candidateNames(r, prefix));
  if (minimal) rows = rows.filter((r) => !r.slot.startsWith('b') || held(r)).map((r) => ({ ...r, when: undefined }));
  const spec =
    known ??
    sizesFromShapes(
      config,
      rows.map((r) => ({ slot: r.slot, entry: held(r) })),
    );
  const entries = resolveRows(checkpoint, rows, spec, prefix);
  const byName = new Map(entries.map((e) => [e.name, float32(checkpoint.get(e.name), e.name)]));
  const bySlot = (slot) => byName.get(entries.find((e) => e.slot === slot)?.name);
  const { numHeads, numKvHeads } = spec;
  const w = {};
  for (const [slot, source] of Object.entries(layerSources(family, layer, prefix, (n) => byName.has(n))))
    w[slot] = cut(byName.get(source.name), source, numHeads, numKvHeads);
  return { ...w, numHeads, numKvHeads, ...(known ? layerOptions(known, layer, readTokens(tokens), bySlot) : {}) };
}

/**
 * What else the layer's attention computes, as selfAttention's weights carry it: its rope (LongRoPE's factors for a
 * sequence of `tokens`, and its attention factor), the scores' scale, softcap and window when not the defaults, and
 * the q/k norms (qkNorm), which selfAttention refuses (scaledDotProductAttention runs the rest once q and k are normed).
 */
function layerOptions(spec, layer, tokens, bySlot) {
  const options = {};
  if (spec.rope) {
    const factor = spec.rope.scale ?? 1;
    options.rope = {
      theta: spec.rope.theta,
      dim: spec.rope.dim,
      style: 'half',
      invFreq: Array.from(layerInvFreq(spec, layer, tokens)), // LongRoPE: the long factors past its original length
      ...(factor === 1 ? {} : { attentionFactor: factor }),
    };
  }
  if (spec.attentionScale) options.scale = spec.attentionScale;
  if (spec.softcap) options.softcap = spec.softcap;
  if (spec.windows[layer]) options.window = spec.windows[layer];
  const [q, k] = QK_NORM_SLOTS.map(bySlot);
  if (q && k) {
    const over = spec.qkNormWhole ? 'projection' : 'head';
    options.qkNorm = { norm: spec.choices.norm, over, eps: spec.eps, q, k };
  }
  return options;
}
