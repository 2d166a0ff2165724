// The `rope` option (RoPE on q and k), checked, and the core's tables: cos and sin of position · inv_freq, in
// float64 rounded once to float32 (attention-wasm/model makes its tables here too).
import { AttentionError, describe } from './errors.js';
import { guarded, readRecord } from './read.js';
import { ROPE_STYLES } from './generated/abi.js';

const ROPE_KEYS = ['theta', 'rotaryDims', 'dim', 'positions', 'style', 'invFreq', 'attentionFactor'];
const STYLES = ['half', 'interleaved'];
const bad = (message) => new AttentionError('BAD_OPTION', message);

/** inv_freq_i = 1 / theta^(2i / dim), i < dim / 2. */
export function inverseFrequencies(theta, dim) {
  return Float64Array.from({ length: dim / 2 }, (_, i) => 1 / theta ** ((2 * i) / dim));
}

/** { cos, sin } [positions.length, invFreq.length] of position · inv_freq (the core's Rope). */
export function ropeTables(invFreq, positions) {
  const half = invFreq.length;
  const cos = new Float32Array(positions.length * half);
  const sin = new Float32Array(positions.length * half);
  positions.forEach((p, row) => {
    for (let i = 0; i < half; i++) {
      cos[row * half + i] = Math.cos(p * invFreq[i]);
      sin[row * half + i] = Math.sin(p * invFreq[i]);
    }
  });
  return { cos, sin };
}

/** An array (or typed array) option, each value read once and checked by `ok` (`rule` says what it holds). */
function readList(value, name, ok, rule) {
  return guarded('BAD_OPTION', name, () => {
    if (!Array.isArray(value) && !(ArrayBuffer.isView(value) && !(value instanceof DataView))) {
      throw bad(`${name} must be an array of ${rule}, got ${describe(value)}`);
    }
    const length = value.length;
    if (!Number.isSafeInteger(length)) throw bad(`${name} has a length of ${describe(length)}`);
    const list = [];
    for (let i = 0; i < length; i++) {
      const x = value[i];
      if (!ok(x)) throw bad(`${name}[${i}] is ${describe(x)}: ${name} holds ${rule}`);
      list.push(x);
    }
    return list;
  });
}

/**
 * options.rope, checked but for what depends on the shapes (ropePlan): null, or { theta, dim (rotaryDims), positions,
 * style, invFreq, attentionFactor }.
 */
export function readRope(value) {
  if (value === undefined || value === null) return null;
  const o = readRecord(value, 'options.rope', ROPE_KEYS, 'option');
  const { theta = 10000, positions, style = 'half' } = o;
  // rotaryDims (partial rotary: the first rotaryDims columns of each head turn); dim is its older name
  if (o.rotaryDims !== undefined && o.dim !== undefined && o.rotaryDims !== o.dim) {
    const show = (v) => (typeof v === 'number' ? v : describe(v));
    throw bad(`rope.rotaryDims (${show(o.rotaryDims)}) and rope.dim (${show(o.dim)}) differ: give one of them`);
  }
  const dim = o.rotaryDims ?? o.dim;
  if (typeof theta !== 'number' || !(theta > 0) || theta === Infinity) {
    throw bad(`rope.theta must be a finite number above 0, got ${describe(theta)}`);
  }
  if (dim !== undefined && !(Number.isInteger(dim) && dim >= 2 && dim % 2 === 0)) {
    throw bad(`rope.rotaryDims must be an even integer from 2, got ${describe(dim)}`);
  }
  if (!STYLES.includes(style)) throw bad(`rope.style must be 'half' or 'interleaved', got ${describe(style)}`);
  const invFreq =
    o.invFreq === undefined
      ? undefined
      : readList(o.invFreq, 'rope.invFreq', (f) => typeof f === 'number' && f > 0 && f < Infinity, 'numbers above 0');
  if (invFreq && dim !== undefined && dim !== 2 * invFreq.length) {
    throw bad(`rope.invFreq has ${invFreq.length} frequencies, but rope.rotaryDims ${dim} rotates ${dim / 2} pairs`);
  }
  // LongRoPE's attention factor (Phi-3's long-context models): cos and sin multiplied by it
  const { attentionFactor = 1 } = o;
  if (typeof attentionFactor !== 'number' || !(attentionFactor > 0) || attentionFactor === Infinity) {
    throw bad(`rope.attentionFactor must be a finite number above 0, got ${describe(attentionFactor)}`);
  }
  const isPosition = (p) => Number.isSafeInteger(p) && p >= 0;
  return {
    theta,
    dim: dim ?? (invFreq && 2 * invFreq.length),
    positions:
      positions === undefined ? undefined : readList(positions, 'rope.positions', isPosition, 'integers from 0'),
    style,
    invFreq,
    attentionFactor,
  };
}

/**
 * The rope's part of a plan: the core's dims, and its tables as inputs. Queries take the last L_q keys' positions.
 * @returns {{ dims: { ropeStyle?: number, ropeDim?: number }, inputs: object }}
 */
export function ropePlan(rope, lenQ, lenK, dK) {
  if (!rope) return { dims: {}, inputs: {} };
  const dim = rope.dim ?? dK - (dK % 2);
  if (dim > dK || dim < 2) throw bad(`rope.rotaryDims (${dim}) must be at most d_k (${dK}), the columns of q and k`);
  if (lenQ > lenK) {
    throw bad(`a rope needs L_q ≤ L_k (queries take the positions of the last L_q keys), got L_q ${lenQ}, L_k ${lenK}`);
  }
  const positions = rope.positions ?? Array.from({ length: lenK }, (_, i) => i);
  if (positions.length !== lenK) {
    throw bad(`rope.positions has ${positions.length} entries but there are ${lenK} keys (L_k): one position per key`);
  }
  const { cos, sin } = ropeTables(rope.invFreq ?? inverseFrequencies(rope.theta, dim), positions);
  const factor = rope.attentionFactor ?? 1;
  if (factor !== 1) for (const table of [cos, sin]) for (let i = 0; i < table.length; i++) table[i] *= factor;
  const table = (data, name) => ({
    data,
    shape: [lenK, dim / 2],
    name,
    allowNegativeInfinity: false,
    valuesChecked: true,
  });
  return {
    dims: { ropeStyle: ROPE_STYLES[rope.style], ropeDim: dim },
    inputs: { ropeCos: table(cos, 'rope.cos'), ropeSin: table(sin, 'rope.sin') },
  };
}
