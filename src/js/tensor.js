// The Tensor type of every result, and the rule for input values: a number that rounds to a finite float32
// (additive masks may also hold -Infinity). Nothing here touches WebAssembly memory.
import { AttentionError, describe } from './errors.js';

/**
 * A row-major tensor owned by JS: `data` is a Float32Array (from io also bool or integer data) of `shape`'s product
 * length. Returned by every API call; also accepted as an input.
 */
export class Tensor {
  /**
   * @param {Float32Array | Uint8Array | Int32Array | BigInt64Array | BigUint64Array} data
   * @param {number[]} shape
   */
  constructor(data, shape) {
    this.data = data;
    this.shape = shape;
  }

  /**
   * The values as nested arrays of numbers (of bigints for BigInt64Array data), e.g. number[][] for a matrix.
   * @param {number} [digits] round each value to this many decimals (0 to 20), as tutorials print them
   */
  toArray(digits) {
    const { data, shape } = this;
    if (digits !== undefined && !(Number.isInteger(digits) && digits >= 0 && digits <= 20)) {
      throw new AttentionError('BAD_OPTION', `digits must be an integer from 0 to 20, got ${describe(digits)}`);
    }
    const round = digits === undefined || typeof data[0] === 'bigint' ? (x) => x : (x) => Number(x.toFixed(digits)) + 0;
    const build = (axis, offset) => {
      const size = shape[axis];
      if (axis === shape.length - 1) return Array.from(data.subarray(offset, offset + size), round);
      const stride = shape.slice(axis + 1).reduce((a, b) => a * b, 1);
      return Array.from({ length: size }, (_, i) => build(axis + 1, offset + i * stride));
    };
    return build(0, 0);
  }

  /**
   * What JSON.stringify writes: `{ shape, data: number[] }` (a Float32Array alone would give {"0":…}). Parsed
   * back, it is a valid input again. BigInt64Array data gives decimal strings.
   */
  toJSON() {
    const { data } = this;
    return { shape: [...this.shape], data: Array.from(data, typeof data[0] === 'bigint' ? String : undefined) };
  }
}

/**
 * A validated float tensor, read once from what the caller passed (convert.js). `data` is a Float32Array or a
 * Float64Array that the caller can no longer change: a copy, or a new view of the caller's typed array (whose
 * length convert.js checks again once every argument is read). `shape` is a fresh array of positive integers.
 * `valuesChecked` is false for typed-array data, whose values are scanned for NaN and ±inf after they are copied
 * into WebAssembly memory (a Float64Array rounded to float32 by that copy), or by checkValues.
 * @typedef {{ data: Float32Array | Float64Array, shape: number[], name: string,
 *   allowNegativeInfinity: boolean, valuesChecked: boolean }} FloatInput
 */

/**
 * A validated mask: boolean masks (true = may attend) as a new Uint8Array of 0/1, additive masks as floats.
 * @typedef {{ kind: 'boolean', data: Uint8Array, shape: number[] } | ({ kind: 'additive' } & FloatInput)} MaskInput
 */

/** @returns {string} e.g. "q[1][2]" for flat index 6 of shape [2, 4] */
function nestedPath(name, index, shape) {
  let rest = index;
  const parts = [];
  for (let axis = shape.length - 1; axis >= 0; axis--) {
    parts.unshift(rest % shape[axis]);
    rest = Math.floor(rest / shape[axis]);
  }
  return name + parts.map((p) => `[${p}]`).join('');
}

/** @returns {string} e.g. "q.data[6] (q[1][2])" */
export const elementName = (name, i, shape) => `${name}.data[${i}] (${nestedPath(name, i, shape)})`;

/**
 * The error for a value that is not a number rounding to a finite float32 (nor -Infinity where allowed).
 * @param {unknown} value  the value as it was read
 * @param {string} where   e.g. "q[0][1]"
 */
export function valueError(value, where, allowNegativeInfinity) {
  if (typeof value !== 'number') {
    return new AttentionError('NOT_A_NUMBER', `${where} is ${describe(value)}, not a number`);
  }
  const detail = Number.isNaN(value)
    ? 'NaN'
    : Number.isFinite(value)
      ? `${value}, beyond float32 range (it rounds to ${Math.fround(value)})`
      : `${value}`;
  const allowed = allowNegativeInfinity ? ' (a mask may hold -Infinity)' : '';
  return new AttentionError('NON_FINITE', `${where} is ${detail}: values must be finite numbers${allowed}`);
}

/** The NON_FINITE error for element `index` of a FloatInput, which a scan found not to round to a finite float32. */
export function nonFiniteError(tensor, index) {
  const { data, name, shape, allowNegativeInfinity } = tensor;
  const value = data[index]; // a typed array's element: no code of the caller's runs
  const rounded = Math.fround(value);
  if (rounded - rounded === 0 || (rounded === -Infinity && allowNegativeInfinity)) {
    return new AttentionError('INTERNAL', `${name}.data[${index}] was reported non-finite but is ${value}`);
  }
  return valueError(value, elementName(name, index, shape), allowNegativeInfinity);
}
