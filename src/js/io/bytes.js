// What the file readers share: the BAD_FILE error, the inputs they take and how their bytes are read, the shape
// checks made before any allocation, and the exact conversion of each dtype's data to a Tensor (float16, bfloat16,
// float32 and float64 to float32; booleans to 0/1 bytes; integers to Int32Array or BigInt64Array).
import { AttentionError, isAttentionError } from '../errors.js';
import { MAX_CALL_BYTES } from '../limits.js';
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

const DETACHED =
  "its ArrayBuffer is detached (transferred by postMessage or structuredClone, or resized): pass the file's bytes before transferring them, or a copy";

/**
 * The bytes of an ArrayBuffer (or SharedArrayBuffer) or of any ArrayBuffer view, as a plain Uint8Array that
 * shares its memory (nothing is copied). Plain, because a subclass may not copy on slice(): Node's Buffer
 * returns a view, and a view would read the wrong bytes, or byte-swap the caller's file in place.
 * @param {unknown} input
 * @param {string} fn  the caller's name, for messages
 * @returns {Uint8Array}
 */
export function toBytes(input, fn) {
  const isBuffer =
    input instanceof ArrayBuffer || (typeof SharedArrayBuffer === 'function' && input instanceof SharedArrayBuffer);
  if (ArrayBuffer.isView(input) || isBuffer) {
    try {
      return isBuffer ? new Uint8Array(input) : new Uint8Array(input.buffer, input.byteOffset, input.byteLength);
    } catch (error) {
      // A detached buffer (or a view of one) cannot be viewed: the engine throws a TypeError.
      throw badFile(fn, `the file's bytes cannot be read: ${DETACHED}`, error);
    }
  }
  const hint = isBlob(input) ? `; read a Blob or File first: ${fn}(new Uint8Array(await blob.arrayBuffer()))` : '';
  throw new AttentionError(
    'BAD_FILE',
    `${fn} takes the file's bytes (an ArrayBuffer or a Uint8Array), got ${describe(input)}${hint}`,
  );
}

/**
 * Checks, right before `data` is used, that it still holds the `length` bytes it was read with: a view of the
 * caller's memory reads 0 bytes once the caller detached (transferred) its buffer during an await.
 * @param {Uint8Array} data
 * @param {number} length
 * @param {string} where
 * @returns {Uint8Array} data
 */
export function held(data, length, where) {
  if (data.length !== length) throw badFile(where, `${length} bytes of the file can no longer be read: ${DETACHED}`);
  return data;
}

/**
 * Reads byte ranges of a Blob or File (by Blob.slice, never more than asked) or of bytes in memory. A Blob that
 * cannot be read (a File changed or deleted on disk after it was picked) or memory detached since, raises BAD_FILE.
 * @param {Blob | ArrayBuffer | ArrayBufferView} source
 * @param {string} fn  the caller's name, for messages
 * @returns {{ size: number, read: (begin: number, end: number, where: string) => Promise<Uint8Array> }}
 */
export function rangeReader(source, fn) {
  if (!isBlob(source)) {
    const bytes = toBytes(source, fn);
    const size = bytes.length;
    return { size, fresh: false, read: async (begin, end, where) => held(bytes, size, where).subarray(begin, end) };
  }
  const { size } = source;
  const read = async (begin, end, where) => {
    let data;
    try {
      data = new Uint8Array(await source.slice(begin, end).arrayBuffer());
    } catch (error) {
      // A reader's own error (a file changed on disk since it was opened) says what happened: kept, with where.
      if (isAttentionError(error)) throw new AttentionError(error.code, `${where}: ${error.message}`, { cause: error });
      const what = `${error?.name ?? 'Error'}: ${String(error?.message ?? error).slice(0, 80)}`;
      const hint =
        typeof File === 'function' && source instanceof File
          ? '; was the file changed on disk after it was picked?'
          : '';
      throw badFile(where, `bytes ${begin} to ${end} could not be read (${what})${hint}`, error);
    }
    if (data.length !== end - begin)
      throw badFile(where, `bytes ${begin} to ${end} are past the end of the file (it changed?)`);
    return data;
  };
  return { size, fresh: true, read }; // each read is a new buffer of its own: views of it alias nobody's memory
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

/** Bytes per element of each kind the readers convert: floats, booleans (b1) and integers (i/u and bytes). */
export const ELEMENT_SIZES = {
  f2: 2,
  bf16: 2,
  f4: 4,
  f8: 8,
  b1: 1,
  i1: 1,
  u1: 1,
  i2: 2,
  u2: 2,
  i4: 4,
  u4: 4,
  i8: 8,
  u8: 8,
};
const INTEGER_TYPES = {
  i1: Int8Array,
  u1: Uint8Array,
  i2: Int16Array,
  u2: Uint16Array,
  i4: Int32Array,
  u4: Uint32Array,
  i8: BigInt64Array,
  u8: BigUint64Array,
};

export const LITTLE_ENDIAN_HOST = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
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
 * `count` elements of `size` bytes at `bytes[offset]` as a `Type` view in the host's byte order: of the file's
 * memory when its order and alignment allow, else of a copy (`copied`), which the result may then share.
 */
function hostView(bytes, offset, count, size, bigEndian, Type) {
  let source = bytes.subarray(offset, offset + count * size);
  let copied = false;
  if (size > 1 && bigEndian !== !LITTLE_ENDIAN_HOST) {
    source = source.slice();
    copied = true;
    for (let i = 0; i < source.length; i += size) source.subarray(i, i + size).reverse();
  }
  // A typed view needs an offset that is a multiple of its element size; otherwise view a copy.
  if (source.byteOffset % size !== 0) {
    source = source.slice();
    copied = true;
  }
  return { view: new Type(source.buffer, source.byteOffset, count), copied };
}

/** Whether every value of an integer view lies in [low, high] (numbers or bigints, as the view holds). */
function within(view, low, high) {
  for (let i = 0; i < view.length; i++) if (view[i] < low || view[i] > high) return false;
  return true;
}

/**
 * Integers as the smallest of Int32Array, BigInt64Array and BigUint64Array that holds every value exactly:
 * Int32Array when all lie in [-2^31, 2^31 - 1], else BigInt64Array, else (a uint64 of 2^63 or more) BigUint64Array.
 */
function toIntegers({ view, copied }) {
  if (view instanceof Int32Array) return copied ? view : view.slice();
  if (!(view instanceof BigInt64Array || view instanceof BigUint64Array)) {
    if (!(view instanceof Uint32Array) || within(view, 0, 0x7fffffff)) return new Int32Array(view);
    return BigInt64Array.from(view, BigInt);
  }
  if (within(view, -(2n ** 31n), 2n ** 31n - 1n)) return Int32Array.from(view, Number);
  if (view instanceof BigUint64Array && !within(view, 0n, 2n ** 63n - 1n)) return copied ? view : view.slice();
  // int64, or uint64 below 2^63 (the same bits as int64).
  const own = copied ? view : view.slice();
  return new BigInt64Array(own.buffer, own.byteOffset, own.length);
}

/**
 * Converts `count` elements of `kind` starting at `bytes[offset]` into a new typed array of the result's kind:
 * floats (f2, bf16, f4, f8) into a Float32Array, float16 and bfloat16 exactly, float64 rounded to nearest
 * (beyond float32's range: ±inf); booleans (b1) into a Uint8Array of 0 and 1 (any non-zero byte is true);
 * integers (i1 … u8) as toIntegers says. With `fresh` (bytes that nobody else holds, e.g. just read from a Blob),
 * float32 data that needs no byte swap nor realignment is returned as a view of them instead of a copy.
 * @param {Uint8Array} bytes
 * @returns {Float32Array | Uint8Array | Int32Array | BigInt64Array | BigUint64Array}
 */
export function convertData(bytes, offset, count, kind, bigEndian, fresh = false) {
  const size = ELEMENT_SIZES[kind];
  if (kind === 'b1') {
    const out = new Uint8Array(count);
    for (let i = 0; i < count; i++) out[i] = bytes[offset + i] === 0 ? 0 : 1;
    return out;
  }
  if (INTEGER_TYPES[kind]) return toIntegers(hostView(bytes, offset, count, size, bigEndian, INTEGER_TYPES[kind]));
  if (kind === 'f4') {
    const { view, copied } = hostView(bytes, offset, count, size, bigEndian, Float32Array);
    return copied || fresh ? view : view.slice();
  }
  if (kind === 'f8') return new Float32Array(hostView(bytes, offset, count, size, bigEndian, Float64Array).view);
  const bits = hostView(bytes, offset, count, size, bigEndian, Uint16Array).view;
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
 * Reorders column-major (Fortran) data into row-major order, in a new array of the same type.
 * @template {Float32Array | Uint8Array | Int32Array | BigInt64Array | BigUint64Array} T
 * @param {T} data
 * @param {number[]} shape
 * @returns {T}
 */
export function fortranToRowMajor(data, shape) {
  const rank = shape.length;
  if (rank < 2) return data;
  const strides = [1];
  for (let axis = 1; axis < rank; axis++) strides.push(strides[axis - 1] * shape[axis - 1]);
  const out = new data.constructor(data.length);
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

/** @returns {Tensor} a Tensor of `data` (a float32 one is accepted by every API call, an integer one as a mask). */
export const makeTensor = (data, shape) => new Tensor(data, shape.slice());
