// Where a layer's attention weights are in a checkpoint: which tensors, and how each of wq … bo is cut from them.
// The one place that turns the family tables (families/) into a layer's sources ({ name, part?, transpose? }), for
// attentionWeightsFrom (attention-weights-from.js) and for readers that hold only names and shapes (the page's
// "Use your own model", through attentionTensorsOf).
import { AttentionError, describe } from '../errors.js';
import { guarded, readRecord } from '../read.js';
import { candidateNames, FAMILIES } from './families/index.js';

/** The family rows of a layer's attention, in the order of this package's weights. */
export const ATTENTION_SLOTS = ['wQkv', 'bQkv', 'wQ', 'wK', 'wV', 'wO', 'bQ', 'bK', 'bV', 'bO'];

/**
 * The sources of a layer's weights: { wq: { name, part?: { index, of }, transpose? }, … }, for the tensors `has`
 * holds. A fused tensor (GPT-2's c_attn) gives q, k and v as its column blocks (part; H·d_k, H_kv·d_k, H_kv·d_k
 * wide), its row blocks (part.byRows: Phi-3's qkv_proj), or by head (part.perHead: GPT-NeoX's query_key_value, whose
 * rows are [q_h | k_h | v_h] for each head h); a family that stores
 * torch.nn.Linear's [out, in] has its weight matrices transposed, GPT-2's Conv1D [in, out] not.
 */
export function layerSources(family, layer, prefix, has) {
  const transposed = family.choices.layout === 'outIn';
  const sources = {};
  for (const row of family.layer(layer)) {
    if (!ATTENTION_SLOTS.includes(row.slot)) continue;
    const name = candidateNames(row, prefix).find(has);
    if (name === undefined) continue;
    const kind = row.slot[0];
    const flip = kind === 'w' && transposed ? { transpose: true } : {};
    // [q | k | v] by rows in an [out, in] tensor (Phi-3's qkv_proj), by columns in GPT-2's Conv1D [in, out]
    const perHead = family.choices.qkvLayout === 'perHead' ? { perHead: true } : transposed ? { byRows: true } : {};
    if (row.slot.endsWith('Qkv'))
      ['q', 'k', 'v'].forEach(
        (x, index) => (sources[kind + x] = { name, part: { index, of: 3, ...perHead }, ...flip }),
      );
    else sources[row.slot.toLowerCase()] = { name, ...flip };
  }
  return sources;
}

const SENTINEL = '\u0000';
const escape = (text) => text.replace(/[.*+?^${}()|[\]\\]/gu, '\\$&');

/**
 * Recognises a checkpoint's family from its tensors' names alone (no config.json, no data) and gives one layer's
 * sources.
 * @param {string[] | Map<string, unknown> | Record<string, unknown>} tensors  the names, or tensors by name
 * @param {{ layer?: number }} [options]  the layer (default: the first the names hold)
 * @returns {{ family: string, label: string, choices: object, prefix: string, layers: number[], layer: number,
 *   sources: object } | null}  `label`: the family as people write it (spec.labels.family); `choices`: the family's
 *   (spec.choices)
 */
export function attentionTensorsOf(tensors, options) {
  // A getter or Proxy trap of the caller's that throws is BAD_OPTION saying so; the names are read once.
  return guarded('BAD_OPTION', "attentionTensorsOf's arguments", () => tensorsOf(tensors, options));
}

function tensorsOf(tensors, options) {
  const { layer } = readRecord(options, 'attentionTensorsOf options', ['layer'], 'option');
  if (layer !== undefined && !(Number.isSafeInteger(layer) && layer >= 0)) {
    throw new AttentionError('BAD_OPTION', `layer must be an integer of 0 or more, got ${describe(layer)}`);
  }
  const names = Array.isArray(tensors)
    ? [...tensors]
    : [...(tensors instanceof Map ? tensors.keys() : Object.keys(tensors ?? {}))];
  const has = (name) => names.includes(name);
  for (const family of Object.values(FAMILIES)) {
    const probe = family.layer(SENTINEL).find((r) => r.slot.startsWith('w')).name;
    const [before, after] = probe.split(SENTINEL).map(escape);
    for (const prefix of family.prefixes) {
      const match = new RegExp(`^${escape(prefix)}${before}(\\d+)${after}$`, 'u');
      const layers = [
        ...new Set(
          names
            .map((n) => match.exec(n)?.[1])
            .filter(Boolean)
            .map(Number),
        ),
      ].sort((a, b) => a - b);
      if (!layers.length) continue;
      const chosen = layers.includes(layer) ? layer : layers[0];
      const sources = layerSources(family, chosen, prefix, has);
      const { name, label, choices } = family;
      return { family: name, label, choices, prefix, layers, layer: chosen, sources };
    }
  }
  return null;
}
