// Conversion and validation of tensor arguments, and the Tensor type of every result.
// Nothing here touches WebAssembly memory.
import { AttentionError, formatShape } from './errors.js';

const FLOAT32_MAX = 3.4028234663852886e38;

/**
 * A row-major tensor owned by JS: `data` is a Float32Array of `shape`'s product length.
 * Returned by every API call; also accepted as an input.
 */
export class Tensor {
  /**
   * @param {Float32Array} data
   * @param {number[]} shape
   */
  constructor(data, shape) {
    this.data = data;
    this.shape = shape;
  }

  /**
   * The values as nested arrays of numbers, e.g. number[][] for a matrix.
   * @param {number} [digits] round each value to this many decimals (0 to 20), as tutorials print them
   */
  toArray(digits) {
    const { data, shape } = this;
    if (digits !== undefined && !(Number.isInteger(digits) && digits >= 0 && digits <= 20)) {
      throw new AttentionError('BAD_OPTION', `digits must be an integer from 0 to 20, got ${String(digits)}`);
    }
    const round = digits === undefined ? (x) => x : (x) => Number(x.toFixed(digits)) + 0;
    const build = (axis, offset) => {
      const size = shape[axis];
      if (axis === shape.length - 1) return Array.from(data.subarray(offset, offset + size), round);
      const stride = shape.slice(axis + 1).reduce((a, b) => a * b, 1);
      return Array.from({ length: size }, (_, i) => build(axis + 1, offset + i * stride));
    };
    return build(0, 0);
  }
}

/** @returns {string} e.g. "q[1][2]" */
function nestedPath(name, index, shape) {
  let rest = index;
  const parts = [];
  for (let axis = shape.length - 1; axis >= 0; axis--) {
    parts.unshift(rest % shape[axis]);
    rest = Math.floor(rest / shape[axis]);
  }
  return name + parts.map((p) => `[${p}]`).join('');
}

function describe(value) {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `the string ${JSON.stringify(value.length > 20 ? value.slice(0, 20) + '…' : value)}`;
  if (typeof value === 'object') return `an object (${Object.prototype.toString.call(value).slice(8, -1)})`;
  return `${typeof value} ${String(value)}`;
}

const isRow = (value) => Array.isArray(value) || (ArrayBuffer.isView(value) && !(value instanceof DataView));

/** Shape of a nested array, read along its first elements; rows are checked against it in flatten(). */
function nestedShape(value, name) {
  const shape = [];
  for (let v = value; isRow(v); v = v[0]) {
    if (v.length === 0) {
      throw new AttentionError('BAD_DIMENSION', `${name} has an empty dimension: shape ${formatShape([...shape, 0])}`);
    }
    shape.push(v.length);
  }
  return shape;
}

/** Flattens a nested array of the given shape, checking that every row has that shape. */
function flatten(value, shape, name, leaf) {
  const out = [];
  const walk = (v, axis, path) => {
    if (axis === shape.length) {
      if (isRow(v)) {
        throw new AttentionError('RAGGED_ARRAY', `${path} is an array but rows of ${name} hold single values there: ${name} is ragged (expected shape ${formatShape(shape)})`);
      }
      out.push(leaf(v, path));
      return;
    }
    if (!isRow(v)) {
      throw new AttentionError('RAGGED_ARRAY', `${path} is ${describe(v)} but should be a row of length ${shape[axis]}: ${name} is ragged (expected shape ${formatShape(shape)})`);
    }
    if (v.length !== shape[axis]) {
      throw new AttentionError('RAGGED_ARRAY', `${path} has length ${v.length} but ${name}${'[0]'.repeat(axis)} has ${shape[axis]}: ${name} is ragged`);
    }
    for (let i = 0; i < v.length; i++) walk(v[i], axis + 1, `${path}[${i}]`);
  };
  walk(value, 0, name);
  return out;
}

function checkShape(shape, name) {
  if (!Array.isArray(shape)) {
    throw new AttentionError('NOT_A_TENSOR', `${name}.shape must be an array of positive integers, got ${describe(shape)}`);
  }
  if (shape.length === 0) {
    throw new AttentionError('BAD_RANK', `${name}.shape is [] but ${name} needs at least one dimension`);
  }
  shape.forEach((size, axis) => {
    if (typeof size !== 'number' || !Number.isInteger(size) || size < 1 || size > 2 ** 31 - 1) {
      const why = typeof size !== 'number' ? `is ${describe(size)}`
        : size === 0 ? 'is empty (0)'
        : size < 0 ? 'is negative'
        : !Number.isFinite(size) || size > 2 ** 31 - 1 ? 'is too large'
        : 'is not an integer';
      throw new AttentionError('BAD_DIMENSION', `${name}.shape[${axis}] ${why}: ${name}.shape is ${formatShape(shape.map(String))}; every dimension must be a positive integer`);
    }
  });
  return shape.slice();
}

/** Checks that a float value is a finite number that fits float32 (or -Infinity when allowed). */
function checkFloat(value, where, allowNegativeInfinity) {
  if (typeof value !== 'number') {
    throw new AttentionError('NOT_A_NUMBER', `${where} is ${describe(value)}, not a number`);
  }
  if (Number.isFinite(value) && Math.abs(value) <= FLOAT32_MAX) return value;
  if (value === -Infinity && allowNegativeInfinity) return value;
  const detail = Number.isNaN(value) ? 'NaN' : Number.isFinite(value) ? `${value}, beyond float32 range` : String(value);
  const allowed = allowNegativeInfinity ? ' (a mask may hold -Infinity)' : '';
  throw new AttentionError('NON_FINITE', `${where} is ${detail}: values must be finite numbers${allowed}`);
}

/** True when every value of a Float32Array is finite: x·0 is ±0 for finite x, NaN for ±Infinity and NaN. */
function allFinite(data) {
  let s0 = 0;
  let s1 = 0;
  let s2 = 0;
  let s3 = 0;
  const whole = data.length - (data.length % 4);
  let i = 0;
  for (; i < whole; i += 4) {
    s0 += data[i] * 0;
    s1 += data[i + 1] * 0;
    s2 += data[i + 2] * 0;
    s3 += data[i + 3] * 0;
  }
  for (; i < data.length; i++) s0 += data[i] * 0;
  return s0 + s1 + s2 + s3 === 0;
}

/** @returns {string} e.g. "q.data[6] (q[1][2])" */
const elementName = (name, i, shape) => `${name}.data[${i}] (${nestedPath(name, i, shape)})`;

/** Scans flat numeric data for non-finite values; typed arrays take the fast path. */
function checkFlatFloats(data, name, shape, allowNegativeInfinity) {
  const where = (i) => elementName(name, i, shape);
  if (data instanceof Float32Array) {
    if (allFinite(data)) return;
    for (let i = 0; i < data.length; i++) {
      const x = data[i];
      if (x - x !== 0 && !(x === -Infinity && allowNegativeInfinity)) checkFloat(x, where(i), allowNegativeInfinity);
    }
    return;
  }
  for (let i = 0; i < data.length; i++) {
    const x = data[i];
    if (typeof x !== 'number' || !(Math.abs(x) <= FLOAT32_MAX)) checkFloat(x, where(i), allowNegativeInfinity);
  }
}

/**
 * A validated float tensor: `data` is ready to copy into WebAssembly memory (Float32Array, Float64Array
 * or number[]), `shape` a fresh array. `valuesChecked` is false for Float32Array data, whose values are
 * scanned for NaN and ±inf later: in WebAssembly memory by index.js (SIMD, several times faster than JS), or
 * by checkValues. Everything else is checked here, while it is converted.
 * @typedef {{ data: Float32Array | Float64Array | number[], shape: number[], name: string,
 *   allowNegativeInfinity: boolean, valuesChecked: boolean }} FloatInput
 */

/**
 * Converts a nested array or `{ data, shape }` of numbers into a FloatInput.
 * @param {unknown} value
 * @param {string} name  the argument's name, for messages
 * @returns {FloatInput}
 */
export function toFloatTensor(value, name, { allowNegativeInfinity = false } = {}) {
  if (isRow(value)) {
    const shape = nestedShape(value, name);
    const flat = flatten(value, shape, name, (v, path) => checkFloat(v, path, allowNegativeInfinity));
    return { data: Float32Array.from(flat), shape, name, allowNegativeInfinity, valuesChecked: true };
  }
  if (value !== null && typeof value === 'object' && 'data' in value && 'shape' in value) {
    const { data } = value;
    const shape = checkShape(value.shape, name);
    if (!(data instanceof Float32Array || data instanceof Float64Array || Array.isArray(data))) {
      throw new AttentionError('NOT_A_TENSOR', `${name}.data must be a Float32Array, a Float64Array or a number[], got ${describe(data)}`);
    }
    checkLength(data, shape, name);
    // A Float64Array can hold values beyond float32's range, and a number[] anything at all: checked now.
    const valuesChecked = !(data instanceof Float32Array);
    if (valuesChecked) checkFlatFloats(data, name, shape, allowNegativeInfinity);
    return { data, shape, name, allowNegativeInfinity, valuesChecked };
  }
  throw new AttentionError('NOT_A_TENSOR', `${name} must be a nested array of numbers or { data, shape }, got ${describe(value)}`);
}

/** Scans the values toFloatTensor left unchecked (a no-op for anything else, boolean masks included). */
export function checkValues(tensor) {
  if (tensor.valuesChecked === false) checkFlatFloats(tensor.data, tensor.name, tensor.shape, tensor.allowNegativeInfinity);
}

/** The NON_FINITE error for element `index` of a FloatInput, which another scan found to be NaN or ±inf. */
export function nonFiniteError(tensor, index) {
  const { data, name, shape, allowNegativeInfinity } = tensor;
  try {
    checkFloat(data[index], elementName(name, index, shape), allowNegativeInfinity);
  } catch (error) {
    return error;
  }
  return new AttentionError('INTERNAL', `${name}.data[${index}] was reported non-finite but is ${data[index]}`);
}

function checkLength(data, shape, name) {
  const size = shape.reduce((a, b) => a * b, 1);
  if (data.length !== size) {
    throw new AttentionError('DATA_LENGTH_MISMATCH', `${name}.data has ${data.length} values but ${name}.shape ${formatShape(shape)} needs ${size}`);
  }
}

/**
 * A validated mask: boolean masks (true = may attend) as a Uint8Array of 0/1, additive masks as floats.
 * @typedef {{ kind: 'boolean', data: Uint8Array, shape: number[] } | { kind: 'additive', data: Float32Array | Float64Array | number[], shape: number[] }} MaskInput
 */

/**
 * Converts a mask: nested booleans or `{ data: Uint8Array, shape }` are boolean; numbers are additive.
 * @returns {MaskInput}
 */
export function toMask(value, name = 'mask') {
  if (isRow(value) && !ArrayBuffer.isView(value)) {
    const shape = nestedShape(value, name);
    let first = value;
    while (isRow(first)) first = first[0];
    if (typeof first === 'boolean') {
      const flat = flatten(value, shape, name, (v, path) => {
        if (typeof v !== 'boolean') {
          throw new AttentionError('NOT_A_NUMBER', `${path} is ${describe(v)} but ${name} starts with a boolean: a boolean mask holds only true/false`);
        }
        return v ? 1 : 0;
      });
      return { kind: 'boolean', data: Uint8Array.from(flat), shape };
    }
  }
  if (value !== null && typeof value === 'object' && 'data' in value && 'shape' in value) {
    const { data } = value;
    if (data instanceof Uint8Array || (Array.isArray(data) && typeof data[0] === 'boolean')) {
      const shape = checkShape(value.shape, name);
      checkLength(data, shape, name);
      const bytes = new Uint8Array(data.length);
      for (let i = 0; i < data.length; i++) {
        const x = data[i];
        if (x === true || x === 1) bytes[i] = 1;
        else if (!(x === false || x === 0)) {
          throw new AttentionError('NOT_A_NUMBER', `${name}.data[${i}] is ${describe(x)}: a boolean mask holds only 0/1 (or true/false)`);
        }
      }
      return { kind: 'boolean', data: bytes, shape };
    }
  }
  return { kind: 'additive', ...toFloatTensor(value, name, { allowNegativeInfinity: true }) };
}

/**
 * Checks a tensor's rank.
 * @param {{ shape: number[] }} tensor
 * @param {string} name
 * @param {number[]} ranks  allowed ranks
 * @param {string} layout   e.g. "[L, d_model] or [B, L, d_model]"
 */
export function checkRank(tensor, name, ranks, layout) {
  if (!ranks.includes(tensor.shape.length)) {
    throw new AttentionError('BAD_RANK', `${name} has shape ${formatShape(tensor.shape)} (rank ${tensor.shape.length}) but must be ${layout}`);
  }
}
