// What the file readers share: the BAD_FILE error, the inputs they take, the shape checks made before any
// allocation, and the exact conversion of float16, bfloat16, float32 and float64 data to a float32 Tensor.
import { AttentionError } from '../errors.js';
import { MAX_CALL_BYTES } from '../plan.js';
import { Tensor } from '../tensor.js';

/** @returns {AttentionError} a BAD_FILE error: `where` names the file part and offset, `what` the fault. */
export function badFile(where, what, cause) {
  return new AttentionError('BAD_FILE', `${where}: ${what}`, cause === undefined ? undefined : { cause });
}

/** A string from a file, quoted and cut to `max` characters, so that a message never echoes a megabyte. */
export function quote(text, max = 40) {
  return JSON.stringify(text.length > max ? `${text.slice(0, max)}…` : text);
}

/** A short description of a value that never calls user code. */
function describe(value) {
  if (value === null) return 'null';
  if (typeof value === 'string') return `the string ${quote(value, 20)}`;
  if (typeof value === 'object' || typeof value === 'function') {
    return `an object (${Object.prototype.toString.call(value).slice(8, -1)})`;
  }
  return `${typeof value} ${String(value)}`;
}

export const isBlob = (value) => typeof Blob === 'function' && value instanceof Blob;

/**
 * The bytes of an ArrayBuffer (or SharedArrayBuffer) or of any ArrayBuffer view, as a plain Uint8Array that
 * shares its memory (nothing is copied). Plain, because a subclass may not copy on slice(): Node's Buffer
 * returns a view, and a view would read the wrong bytes, or byte-swap the caller's file in place.
 * @param {unknown} input
 * @param {string} fn  the caller's name, for messages
 * @returns {Uint8Array}
 */
export function toBytes(input, fn) {
  if (ArrayBuffer.isView(input)) return new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
  if (input instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && input instanceof SharedArrayBuffer)) {
    return new Uint8Array(input);
  }
  const hint = isBlob(input) ? `; read a Blob or File first: ${fn}(new Uint8Array(await blob.arrayBuffer()))` : '';
  throw new AttentionError(
    'BAD_FILE',
    `${fn} takes the file's bytes (an ArrayBuffer or a Uint8Array), got ${describe(input)}${hint}`,
  );
}

export const u16 = (b, at) => b[at] | (b[at + 1] << 8);
export const u32 = (b, at) => (b[at] | (b[at + 1] << 8) | (b[at + 2] << 16)) + b[at + 3] * 2 ** 24;
/** A little-endian u64 as a number, or Infinity when it is 2^53 or more (no offset in a real file is). */
export function u64(b, at) {
  const high = u32(b, at + 4);
  return high >= 2 ** 21 ? Infinity : high * 2 ** 32 + u32(b, at);
}

/**
 * Checks a shape read from a file before anything is allocated: at least one dimension, every dimension a
 * positive integer, and the float32 result within MAX_CALL_BYTES.
 * @param {number[]} shape  integers ≥ 0 as the file states them
 * @param {string} where    the file part, for messages
 * @param {string} shown    the shape as the file writes it, e.g. "(2, 0)"
 * @returns {number} the number of elements
 */
export function checkShape(shape, where, shown) {
  if (shape.length === 0) {
    throw badFile(where, `the array is a scalar (shape ${shown}); attention-wasm tensors have at least one dimension`);
  }
  let count = 1;
  for (const size of shape) {
    if (size === 0) {
      throw badFile(where, `the array is empty (shape ${shown}); attention-wasm tensors have no empty dimension`);
    }
    count *= size;
  }
  if (count * 4 > MAX_CALL_BYTES) {
    throw badFile(
      where,
      `shape ${shown} holds ${count} values, ${((count * 4) / 2 ** 20).toFixed(0)} MiB as float32, over the limit of ${MAX_CALL_BYTES / 2 ** 20} MiB (MAX_CALL_BYTES)`,
    );
  }
  return count;
}

/** Bytes per element of the float types the readers convert. */
export const FLOAT_SIZES = { f2: 2, bf16: 2, f4: 4, f8: 8 };

const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
let halfTable;

/** float16 bits → float32 value, exactly (subnormals, ±0, ±inf, NaN). */
function halfToFloat(bits) {
  const sign = bits & 0x8000 ? -1 : 1;
  const exponent = (bits >> 10) & 0x1f;
  const mantissa = bits & 0x3ff;
  if (exponent === 0) return sign * mantissa * 2 ** -24;
  if (exponent === 0x1f) return mantissa ? NaN : sign * Infinity;
  return sign * (1024 + mantissa) * 2 ** (exponent - 25);
}

/**
 * Converts `count` floats of `kind` (f2, bf16, f4, f8) starting at `bytes[offset]` into a new Float32Array.
 * float16 and bfloat16 convert exactly; float64 rounds to nearest float32 (beyond its range: ±inf).
 * @param {Uint8Array} bytes
 * @returns {Float32Array}
 */
export function toFloat32(bytes, offset, count, kind, bigEndian) {
  const size = FLOAT_SIZES[kind];
  let source = bytes.subarray(offset, offset + count * size);
  let copied = false; // whether `source` is our own copy, which the result may then share
  if (bigEndian !== !LITTLE_ENDIAN_HOST) {
    source = source.slice();
    copied = true;
    for (let i = 0; i < source.length; i += size) source.subarray(i, i + size).reverse();
  }
  // A typed view needs an offset that is a multiple of its element size; otherwise view a copy.
  const view = (Type) => {
    if (source.byteOffset % size === 0) return new Type(source.buffer, source.byteOffset, count);
    copied = true;
    return new Type(source.slice().buffer, 0, count);
  };
  if (kind === 'f4') {
    const floats = view(Float32Array);
    return copied ? floats : floats.slice();
  }
  if (kind === 'f8') return new Float32Array(view(Float64Array));
  const bits = view(Uint16Array);
  if (kind === 'bf16') {
    const out = new Uint32Array(count);
    for (let i = 0; i < count; i++) out[i] = bits[i] << 16;
    return new Float32Array(out.buffer);
  }
  if (!halfTable) halfTable = Float32Array.from({ length: 65536 }, (_, b) => halfToFloat(b));
  const out = new Float32Array(count);
  for (let i = 0; i < count; i++) out[i] = halfTable[bits[i]];
  return out;
}

/**
 * Reorders column-major (Fortran) data into row-major order.
 * @param {Float32Array} data
 * @param {number[]} shape
 * @returns {Float32Array}
 */
export function fortranToRowMajor(data, shape) {
  const rank = shape.length;
  if (rank < 2) return data;
  const strides = [1];
  for (let axis = 1; axis < rank; axis++) strides.push(strides[axis - 1] * shape[axis - 1]);
  const out = new Float32Array(data.length);
  const index = new Array(rank).fill(0);
  const last = rank - 1;
  let source = 0;
  for (let i = 0; i < out.length; i++) {
    out[i] = data[source];
    // Advance the row-major counter; the last axis moves fastest.
    let axis = last;
    index[axis]++;
    source += strides[axis];
    while (axis > 0 && index[axis] === shape[axis]) {
      source -= strides[axis] * shape[axis];
      index[axis] = 0;
      axis--;
      index[axis]++;
      source += strides[axis];
    }
  }
  return out;
}

/** @returns {Tensor} a float32 Tensor that every API call accepts. */
export const makeTensor = (data, shape) => new Tensor(data, shape.slice());
