// What each worker of loadModel({ workers }) keeps of a layer (shards.js): tensor parallelism by heads and by the
// MLP's hidden units. Worker w gets a contiguous range of key-value heads (and the query heads that read them), of
// query heads' rows of W_o, and of the MLP's hidden units: W_up's and W_gate's columns, W_down's rows. Its calls then
// give a part of attention's W_o product and of the MLP's W_down product, [n, d] each, which the model's side sums
// (with the biases b_o and b_down, which it keeps). The norms and Qwen3's and Gemma 3's q and k norms (by head) go
// whole to every worker; OLMo-2's q and k norms over the whole projection ([H·d_k], [H_kv·d_k]) are cut with the heads,
// and its norms after each half stay on the calling thread (shards.js). How many workers (autoWorkers).
//
// A matrix is sliced along its output (columns of [in, out] in kInOut, rows of [out, in] in kOutIn) or along its
// input (the other way), into a fresh Float32Array: a worker's share is its own, transferred to it.

import { platform } from '../platform.js';

export const MAX_WORKERS = 64; // the most workers loadModel takes
export const AUTO_WORKERS = 8; // and the most 'auto' picks

/**
 * The most bytes of weights 'auto' gives one worker: half of the model's WebAssembly memory (2 GB at most, wasm.js's
 * module), the other half left for a run's activations, attention weights and a generation's KV cache.
 */
export const WORKER_SHARE_BYTES = 2 ** 30;

/** The count 'auto' starts from: one less than the processors (at least 1, at most AUTO_WORKERS). */
export function autoWorkers() {
  const cores = platform.cores?.() ?? globalThis.navigator?.hardwareConcurrency ?? 2;
  return Math.max(1, Math.min(AUTO_WORKERS, cores - 1));
}

/**
 * loadModel's `workers: 'auto'`: the first count from `start` (autoWorkers()) to AUTO_WORKERS whose largest share,
 * `shareBytes(count)`, fits `limit` bytes; 0 (every layer on the calling thread, read at each run) when none does.
 * @param {(count: number) => number} shareBytes  the largest worker's bytes of weights with `count` workers
 */
export function pickWorkers(shareBytes, start = autoWorkers(), limit = WORKER_SHARE_BYTES) {
  for (let count = start; count <= AUTO_WORKERS; count++) if (shareBytes(count) <= limit) return count;
  return 0;
}

/** Rows [r0, r1) of the LM head's V that worker w of `count` keeps: cut at multiples of 4, the last takes the rest. */
export function headRows(V, count, w) {
  const cut = (i) => (i === count ? V : Math.floor((i * V) / (4 * count)) * 4);
  return [cut(w), cut(w + 1)];
}

/** What fraction of a layer's tensor in `slot` a worker with `part` keeps (layerShare's slices): 0 for b_o, b_down. */
function slotFraction(spec, { heads: [h0, h1], kv: [g0, g1], ff: [f0, f1] }, slot) {
  const { numHeads: H, numKvHeads: Hkv, dFf } = spec;
  if (spec.qkNormWhole && slot === 'qNorm') return (h1 - h0) / H;
  if (spec.qkNormWhole && slot === 'kNorm') return (g1 - g0) / Hkv;
  if (WHOLE.includes(slot)) return 1;
  if (h1 === h0 && /^[wb](Q|K|V|Qkv|O)$/.test(slot)) return 0;
  if (['wQ', 'bQ', 'wO'].includes(slot)) return (h1 - h0) / H;
  if (['wK', 'bK', 'wV', 'bV'].includes(slot)) return (g1 - g0) / Hkv;
  if (['wQkv', 'bQkv'].includes(slot)) return (h1 - h0 + 2 * (g1 - g0)) / (H + 2 * Hkv);
  if (['wUp', 'bUp', 'wGate', 'bGate', 'wDown'].includes(slot)) return (f1 - f0) / dFf;
  return 0;
}

/**
 * The largest bytes of float32 weights one of `count` workers keeps (its share of every layer and its rows of the
 * LM head and its bias), from the tensors' shapes alone: what loadModel({ workers: 'auto' }) weighs before any read.
 * @param {object} tensors  resolveModel's { layers: [[{ slot, shape }]], head, headBias }
 */
export function workerShareBytes(spec, tensors, count) {
  const floats = (shape) => shape.reduce((a, b) => a * b, 1);
  const shares = shardParts(spec, count).map((part, w) => {
    let bytes = 0;
    for (const entries of tensors.layers) {
      for (const { slot, shape } of entries) bytes += Math.round(floats(shape) * slotFraction(spec, part, slot)) * 4;
    }
    if (tensors.head) {
      const [V, d] = tensors.head.shape;
      const [r0, r1] = headRows(V, count, w);
      bytes += (r1 - r0) * (d + (tensors.headBias ? 1 : 0)) * 4;
    }
    return bytes;
  });
  return Math.max(...shares);
}

/** loadModel's count for `workers: 'auto'` once the tensors are resolved: pickWorkers over the model's shares. */
export const autoWorkerCount = (spec, tensors) => pickWorkers((count) => workerShareBytes(spec, tensors, count));

/**
 * The placement the workers' calls take: the sandwich's halves as pre-norm's (shards.js's #norm does its others);
 * post-branch's (OLMo-2's) as they are, without the norms after each half (the workers are not given them: #norm).
 */
export const workerPlacement = ({ choices: { placement } }) => (placement === 'sandwich' ? 'preNorm' : placement);

/**
 * [from, to) ranges of `total` items cut into `parts` contiguous ranges of near-equal length, in whole `unit`s where
 * `unit` divides `total` (some ranges are empty when there are fewer units than parts).
 */
export function ranges(total, parts, unit = 1) {
  const step = total % unit === 0 ? unit : 1;
  const units = total / step;
  return Array.from({ length: parts }, (_, w) => [
    Math.floor((w * units) / parts) * step,
    Math.floor(((w + 1) * units) / parts) * step,
  ]);
}

/**
 * Each worker's part of a model: { heads: [h0, h1), kv: [g0, g1), ff: [f0, f1) }. Heads are cut at key-value
 * groups (a worker's query heads read its own key-value heads); with more workers than key-value heads, the last
 * workers have no heads. The MLP's hidden units are cut in multiples of 4 where d_ff allows.
 */
export function shardParts(spec, count) {
  const { numHeads: H, numKvHeads: Hkv, dFf } = spec;
  const group = H / Hkv;
  const kv = ranges(Hkv, count);
  const ff = ranges(dFf, count, 4);
  return kv.map(([g0, g1], w) => ({ heads: [g0 * group, g1 * group], kv: [g0, g1], ff: ff[w] }));
}

/** Output units [o0, o1) of a weight [in, out] (kInOut) or [out, in] (kOutIn). */
export function outputSlice(data, inDim, outDim, layout, o0, o1) {
  const width = o1 - o0;
  if (layout === 'outIn') return data.slice(o0 * inDim, o1 * inDim); // [width, in]
  const out = new Float32Array(inDim * width); // [in, width]
  for (let i = 0; i < inDim; i++) out.set(data.subarray(i * outDim + o0, i * outDim + o1), i * width);
  return out;
}

/** Input units [i0, i1) of a weight [in, out] (kInOut) or [out, in] (kOutIn): the output units of its transpose. */
export const inputSlice = (data, inDim, outDim, layout, i0, i1) =>
  outputSlice(data, outDim, inDim, layout === 'inOut' ? 'outIn' : 'inOut', i0, i1);

const WHOLE = ['norm1Weight', 'norm1Bias', 'norm2Weight', 'norm2Bias', 'qNorm', 'kNorm'];

/**
 * A worker's share of one layer, as the tensors its 'keep' writes ({ slot: { data, shape, name } }): `layer` is the
 * layer's weights by slot (Float32Arrays, as read), `part` shardParts' entry. A fused q|k|v by blocks (GPT-2's c_attn)
 * becomes the share's separate w_q, w_k, w_v (and biases); by head (GPT-NeoX) it stays fused, its heads' blocks.
 * b_o and b_down are not in it; nor are the sandwich's and OLMo-2's norms after each half (shards.js keeps them).
 */
export function layerShare(spec, layer, part, name) {
  const { dModel: d, numHeads: H, numKvHeads: Hkv, headDim: dK, dFf } = spec;
  const { layout, qkvLayout } = spec.choices;
  const share = {};
  const put = (slot, data) => (share[slot] = { data, shape: [data.length], name: `${name}.${slot}` });
  const whole = spec.qkNormWhole ? WHOLE.filter((slot) => slot !== 'qNorm' && slot !== 'kNorm') : WHOLE;
  for (const slot of whole) if (layer[slot]) put(slot, layer[slot].data.slice());
  const [h0, h1] = part.heads;
  const [g0, g1] = part.kv;
  if (h1 > h0) {
    const q = [h0 * dK, h1 * dK];
    const k = [g0 * dK, g1 * dK];
    if (spec.qkNormWhole && layer.qNorm) put('qNorm', layer.qNorm.data.slice(...q)); // OLMo-2's: its heads' columns
    if (spec.qkNormWhole && layer.kNorm) put('kNorm', layer.kNorm.data.slice(...k));
    const out = (slot, weight, bias, width, [o0, o1]) => {
      put(slot, outputSlice(layer[weight].data, d, width, layout, o0, o1));
      if (layer[bias]) put(`b${slot.slice(1)}`, layer[bias].data.slice(o0, o1));
    };
    if (layer.wQkv && qkvLayout === 'perHead') {
      out('wQkv', 'wQkv', 'bQkv', 3 * H * dK, [3 * q[0], 3 * q[1]]);
    } else if (layer.wQkv) {
      const width = (H + 2 * Hkv) * dK;
      out('wQ', 'wQkv', 'bQkv', width, q);
      out('wK', 'wQkv', 'bQkv', width, [H * dK + k[0], H * dK + k[1]]);
      out('wV', 'wQkv', 'bQkv', width, [(H + Hkv) * dK + k[0], (H + Hkv) * dK + k[1]]);
    } else {
      out('wQ', 'wQ', 'bQ', H * dK, q);
      out('wK', 'wK', 'bK', Hkv * dK, k);
      out('wV', 'wV', 'bV', Hkv * dK, k);
    }
    put('wO', inputSlice(layer.wO.data, H * dK, d, layout, q[0], q[1]));
  }
  const [f0, f1] = part.ff;
  if (f1 > f0) {
    put('wUp', outputSlice(layer.wUp.data, d, dFf, layout, f0, f1));
    if (layer.bUp) put('bUp', layer.bUp.data.slice(f0, f1));
    if (layer.wGate) put('wGate', outputSlice(layer.wGate.data, d, dFf, layout, f0, f1));
    if (layer.bGate) put('bGate', layer.bGate.data.slice(f0, f1));
    put('wDown', inputSlice(layer.wDown.data, dFf, d, layout, f0, f1));
  }
  return share;
}
