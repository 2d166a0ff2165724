// The cos and sin tables of a model's RoPE (spec.rope) for the positions a call rotates: rope.js's ropeTables of its
// inverse frequencies, with LongRoPE's two sets (Phi-3's longrope, spec.js) chosen as transformers'
// dynamic_rope_update chooses them, by the sequence's length (its largest position + 1): the long factors past
// rope.long.after (original_max_position_embeddings), and cos and sin scaled by rope.scale (its attention factor).
import { ropeTables } from '../rope.js';

/**
 * @param {{ invFreq: Float64Array, long?: { invFreq: Float64Array, after: number }, scale?: number }} rope  spec.rope
 * @param {number[]} positions
 * @param {number} [length]  the sequence's tokens (default: the largest position + 1)
 * @returns {{ cos: Float32Array, sin: Float32Array }}  [positions.length, invFreq.length] each
 */
export function modelRopeTables(rope, positions, length = positions.reduce((a, b) => Math.max(a, b), -1) + 1) {
  const invFreq = rope.long && length > rope.long.after ? rope.long.invFreq : rope.invFreq;
  const tables = ropeTables(invFreq, positions);
  const scale = rope.scale ?? 1;
  if (scale !== 1) {
    for (const table of [tables.cos, tables.sin]) for (let i = 0; i < table.length; i++) table[i] *= scale;
  }
  return tables;
}

/**
 * Whether a decode step must start over from the first token: its cache was rotated with LongRoPE's short factors
 * (`past` tokens, at most rope.long.after) and the sequence now passes rope.long.after, so every key takes the long
 * ones (as Phi3ForCausalLM.prepare_inputs_for_generation drops its cache there).
 */
export const ropeStartsOver = (rope, past, length) =>
  Boolean(rope?.long) && past > 0 && past <= rope.long.after && length > rope.long.after;
