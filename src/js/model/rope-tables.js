// The cos and sin tables of a model's RoPE (spec.rope) for the positions a call rotates: rope.js's ropeTables of the
// inverse frequencies a layer takes (spec.js's layerInvFreq: a sliding layer's own base, Gemma 3's; LongRoPE's long
// factors, Phi-3's longrope, chosen as transformers' dynamic_rope_update chooses them, by the sequence's length: past
// rope.long.after, original_max_position_embeddings), with cos and sin scaled by rope.scale (LongRoPE's attention
// factor).
import { ropeTables } from '../rope.js';
import { layerInvFreq } from './spec.js';

/**
 * Each layer's tables, made once per set of inverse frequencies: `(l) => { cos, sin }`, each [positions.length,
 * rope.dim / 2]; null for a model without RoPE.
 * @param {object} spec  the normalized description (spec.js)
 * @param {number[]} positions
 * @param {number} [length]  the sequence's tokens (default: the largest position + 1)
 */
export function ropeTablesOf(spec, positions, length = positions.reduce((a, b) => Math.max(a, b), -1) + 1) {
  if (!spec.rope) return null;
  const made = new Map();
  const scale = spec.rope.scale ?? 1;
  return (l) => {
    const invFreq = layerInvFreq(spec, l, length);
    if (!made.has(invFreq)) {
      const tables = ropeTables(invFreq, positions);
      if (scale !== 1) {
        for (const table of [tables.cos, tables.sin]) for (let i = 0; i < table.length; i++) table[i] *= scale;
      }
      made.set(invFreq, tables);
    }
    return made.get(invFreq);
  };
}

/**
 * Whether a decode step must start over from the first token: its cache was rotated with LongRoPE's short factors
 * (`past` tokens, at most rope.long.after) and the sequence now passes rope.long.after, so every key takes the long
 * ones (as Phi3ForCausalLM.prepare_inputs_for_generation drops its cache there).
 */
export const ropeStartsOver = (rope, past, length) =>
  Boolean(rope?.long) && past > 0 && past <= rope.long.after && length > rope.long.after;
