// Where a layer's attention weights are in a checkpoint: which tensors, and how each of wq … bo is cut from them.
// The one place that turns the family tables (families/) into a layer's sources ({ name, part?, transpose? }), for
// attentionWeightsFrom (attention-weights-from.js) and for readers that hold only names and shapes (the page's
// "Use your own model", through attentionTensorsOf).
import { AttentionError, describe } from '../errors.js';
import { guarded, readRecord } from '../read.js';
import { parseConfigText } from './spec.js';
import { candidateNames, FAMILIES, familyOf } from './families/index.js';

/** The family rows of a layer's attention, in the order of this package's weights. */
export const ATTENTION_SLOTS = ['wQkv', 'bQkv', 'wQ', 'wK', 'wV', 'wO', 'bQ', 'bK', 'bV', 'bO'];

/** The rows of the norms of q and k after their projection (Qwen3's, Gemma 3's, OLMo-2's q_norm and k_norm). */
export const QK_NORM_SLOTS = ['qNorm', 'kNorm'];

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
 * Recognises a checkpoint's family (or takes config.json's, when given) and gives one layer's sources. From the names
 * alone, the family is the one whose layer the names hold most completely: the most of its tensors present (a norm,
 * q_norm and k_norm, the MLP's), then the fewest of its required ones absent, then the first in the families' order —
 * so names that fit two families equally (Gemma's and LLaMA's are the same names) give the earlier one (docs/model.md
 * lists those cases).
 * @param {string[] | Map<string, unknown> | Record<string, unknown>} tensors  the names, or tensors by name
 * @param {{ layer?: number, config?: object | string }} [options]  the layer (default: the first the names hold);
 *   config.json (parsed or as text) to take its family instead of guessing
 * @returns {{ family: string, label: string, choices: object, prefix: string, layers: number[], layer: number,
 *   sources: object, by: 'names' | 'config' } | null}  `label`: the family as people write it (spec.labels.family);
 *   `choices`: the family's (spec.choices)
 */
export function attentionTensorsOf(tensors, options) {
  // A getter or Proxy trap of the caller's that throws is BAD_OPTION saying so; the names are read once.
  return guarded('BAD_OPTION', "attentionTensorsOf's arguments", () => tensorsOf(tensors, options));
}

/** The layers of `family` under `prefix` that the names hold, ascending (by the family's first weight's name). */
function layersOf(family, prefix, names) {
  const probe = family.layer(SENTINEL).find((r) => r.slot.startsWith('w')).name;
  const [before, after] = probe.split(SENTINEL).map(escape);
  const match = new RegExp(`^${escape(prefix)}${before}(\\d+)${after}$`, 'u');
  const found = names.map((n) => match.exec(n)?.[1]).filter(Boolean);
  return [...new Set(found.map(Number))].sort((a, b) => a - b);
}

/** How completely the names hold a family's layer: [tensors present, required tensors absent]. */
function fit(family, layer, prefix, has) {
  const rows = family.layer(layer);
  const present = rows.filter((r) => candidateNames(r, prefix).some(has));
  const absent = rows.filter((r) => r.when === undefined && !present.includes(r));
  return [new Set(present.map((r) => r.name)).size, new Set(absent.map((r) => r.name)).size];
}

function tensorsOf(tensors, options) {
  const { layer, config } = readRecord(options, 'attentionTensorsOf options', ['layer', 'config'], 'option');
  if (layer !== undefined && !(Number.isSafeInteger(layer) && layer >= 0)) {
    throw new AttentionError('BAD_OPTION', `layer must be an integer of 0 or more, got ${describe(layer)}`);
  }
  const given = config === undefined ? null : familyOfConfig(config);
  const names = Array.isArray(tensors)
    ? [...tensors]
    : [...(tensors instanceof Map ? tensors.keys() : Object.keys(tensors ?? {}))];
  const held = new Set(names);
  const has = (name) => held.has(name);
  let best = null;
  (given ? [given] : Object.values(FAMILIES)).forEach((family, order) => {
    for (const prefix of family.prefixes) {
      const layers = layersOf(family, prefix, names);
      if (!layers.length) continue;
      const chosen = layers.includes(layer) ? layer : layers[0];
      const [present, absent] = fit(family, chosen, prefix, has);
      const better =
        !best ||
        present > best.present ||
        (present === best.present && (absent < best.absent || (absent === best.absent && order < best.order)));
      if (better) best = { family, prefix, layers, chosen, present, absent, order };
      return; // a family's first prefix that the names hold
    }
  });
  if (!best) return null;
  const { family, prefix, layers, chosen } = best;
  const sources = layerSources(family, chosen, prefix, has);
  const { name, label, choices } = family;
  return { family: name, label, choices, prefix, layers, layer: chosen, sources, by: given ? 'config' : 'names' };
}

/** The family of config.json (an object or its text), as loadModel reads it. */
function familyOfConfig(config) {
  const parsed = typeof config === 'string' ? parseConfigText(config) : config;
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
    throw new AttentionError(
      'BAD_OPTION',
      `config must be config.json's object (or its text), got ${describe(config)}`,
    );
  }
  return familyOf(parsed, 'config');
}
