// model.attentionWeights(layer): a loaded model's layer's attention weights, from its memory or its checkpoint.
// They are those attentionWeightsFrom gives from the checkpoint's tensors: copied out of WebAssembly memory when the
// model keeps that layer there (resident.js), else read from its checkpoint (that layer's attention tensors only).
import { AttentionError, describe } from '../errors.js';
import { readRecord } from '../read.js';
import { ATTENTION_SLOTS, QK_NORM_SLOTS } from './attention-sources.js';
import { readSignal } from './signal.js';
import { attentionWeightsFrom, readTokens } from './attention-weights-from.js';

/**
 * @param {{ spec: object, config: object, entries: object[][], resident: object | null, checkpoint: object,
 *   heap: () => Float32Array }} model  the model's parts: its layers' entries (checkpoint.js) and its stores
 * @param {number} layer  from 0
 * @param {{ signal?: AbortSignal, tokens?: number }} [options]  tokens: as attentionWeightsFrom's (LongRoPE's factors)
 */
export async function layerAttentionWeights(model, layer, options) {
  const { numLayers } = model.spec;
  if (!Number.isInteger(layer) || layer < 0 || layer >= numLayers) {
    throw new AttentionError(
      'BAD_OPTION',
      `layer must be an integer from 0 to ${numLayers - 1}, got ${describe(layer)}`,
    );
  }
  const { signal: given, tokens } = readRecord(options, 'options', ['signal', 'tokens'], 'option');
  const signal = readSignal(given, 'attentionWeights options');
  readTokens(tokens); // before anything is read
  const entries = model.entries[layer];
  const wanted = entries.filter((entry) => [...ATTENTION_SLOTS, ...QK_NORM_SLOTS].includes(entry.slot));
  const tensors = new Map();
  const kept = model.resident && (await model.resident.group(`layer ${layer}`, entries, signal));
  for (const entry of kept ? [] : wanted) {
    const { data } = await model.checkpoint.read(entry, undefined, signal);
    tensors.set(entry.name, { data, shape: entry.shape });
  }
  // Resident weights are viewed in WebAssembly memory, with no await from here to the copies below: cutting them
  // into this package's layout copies most of them (GPT-2's c_attn into three blocks), once instead of twice.
  const heap = model.heap();
  for (const entry of kept ? wanted : []) {
    const address = kept.addresses[entry.slot];
    const size = entry.shape.reduce((a, b) => a * b, 1);
    const data = address ? heap.subarray(address / 4, address / 4 + size) : kept.inputs[entry.slot].data;
    tensors.set(entry.name, { data, shape: entry.shape });
  }
  const weights = attentionWeightsFrom(tensors, { layer, config: model.config, tokens });
  const copied = (value) => (value?.data?.buffer === heap.buffer ? { ...value, data: value.data.slice() } : value);
  for (const [slot, value] of Object.entries(weights)) weights[slot] = copied(value);
  if (weights.qkNorm) weights.qkNorm = { ...weights.qkNorm, q: copied(weights.qkNorm.q), k: copied(weights.qkNorm.k) };
  return weights;
}
