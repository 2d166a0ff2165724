// Which tensors of a checkpoint are one layer's attention weights, and how each of this package's weights (wq … bo,
// [in, out]) is cut from them: the one place that turns the family tables (families.js) into a layer's sources, for
// attentionWeightsFrom and for readers that hold only names and shapes (the page's "Use your own model").
import { AttentionError, describe } from '../errors.js';
import { guarded, readRecord } from '../read.js';
import { candidateNames, FAMILIES } from './families.js';

/** The family rows of a layer's attention, in the order of this package's weights. */
export const ATTENTION_SLOTS = ['wQkv', 'bQkv', 'wQ', 'wK', 'wV', 'wO', 'bQ', 'bK', 'bV', 'bO'];

/**
 * The sources of a layer's weights: { wq: { name, part?: { index, of }, transpose? }, … }, for the tensors `has`
 * holds. A fused tensor (GPT-2's c_attn) gives q, k and v as its column blocks (part); a family that stores
 * torch.nn.Linear's [out, in] has its weight matrices transposed, GPT-2's Conv1D [in, out] not.
 */
export function layerSources(spec, layer, prefix, has) {
  const transposed = spec.choices.layout === 'outIn';
  const sources = {};
  for (const row of spec.layer(layer)) {
    if (!ATTENTION_SLOTS.includes(row.slot)) continue;
    const name = candidateNames(row.name, prefix).find(has);
    if (name === undefined) continue;
    const kind = row.slot[0];
    if (row.slot.endsWith('Qkv'))
      ['q', 'k', 'v'].forEach((x, index) => (sources[kind + x] = { name, part: { index, of: 3 } }));
    else sources[row.slot.toLowerCase()] = kind === 'w' && transposed ? { name, transpose: true } : { name };
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
 * @returns {{ family: string, prefix: string, layers: number[], layer: number, sources: object } | null}
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
  for (const [family, spec] of Object.entries(FAMILIES)) {
    const probe = spec.layer(SENTINEL).find((r) => r.slot.startsWith('w')).name;
    const [before, after] = probe.split(SENTINEL).map(escape);
    for (const prefix of spec.prefixes) {
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
      return { family, prefix, layers, layer: chosen, sources: layerSources(spec, chosen, prefix, has) };
    }
  }
  return null;
}
