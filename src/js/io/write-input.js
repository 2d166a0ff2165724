// What the writers (writeNpz, writeSafetensors) take: named tensors, read once each into their name, dtype, shape
// and little-endian bytes, and checked before anything is allocated. Values are written as they are: NaN, ±Infinity
// and −0 included (the readers read them back as data).
import { AttentionError, describe, formatShape } from '../errors.js';
import { getterOf, typedArrayLength, typedArrayTag, typedArrayView } from '../intrinsics.js';
import { MAX_CALL_BYTES } from '../limits.js';
import { guarded, readField, readRecord } from '../read.js';
import { LITTLE_ENDIAN_HOST, quote } from './bytes.js';
import { READABLE } from './safetensors.js';

/** The safetensors dtype whose kind (safetensors.js's READABLE) is NumPy's descr without its byte order. */
const dtypeOf = (descr) => Object.keys(READABLE).find((dtype) => READABLE[dtype] === descr.slice(1));
const written = (Type, descr) => ({ Type, descr, dtype: dtypeOf(descr), size: Type.BYTES_PER_ELEMENT });

/** The data types written, by typed array: NumPy's descr and the safetensors dtype. */
export const WRITTEN = {
  Float32Array: written(Float32Array, '<f4'),
  Float64Array: written(Float64Array, '<f8'),
  Int32Array: written(Int32Array, '<i4'),
  BigInt64Array: written(BigInt64Array, '<i8'),
};
const WRITTEN_LIST = 'Float32Array, Float64Array, Int32Array or BigInt64Array';

/** The most values in one tensor: what the readers read back (a float32 tensor of MAX_CALL_BYTES). */
const MAX_VALUES = MAX_CALL_BYTES / 4;
/** The largest file: one Uint8Array (Node 20 allows up to 4 GiB), every zip offset and size below 0xFFFFFFFF. */
export const MAX_FILE_BYTES = 2 ** 32 - 2;
/** NumPy reads at most 32 dimensions (NPY_MAXDIMS before NumPy 2). */
const MAX_RANK = 32;

const mapForEach = Map.prototype.forEach;
const mapSize = getterOf(Map.prototype, 'size');
const isMap = (value) => {
  try {
    mapSize.call(value);
    return true;
  } catch {
    return false;
  }
};

/** [name, tensor] pairs of a plain object, a Map or an array of pairs, read once each. */
function readPairs(arrays, fn) {
  const taken = `${fn} takes named tensors: { name: tensor }, a Map or an array of [name, tensor] pairs`;
  if (arrays === null || typeof arrays !== 'object') {
    throw new AttentionError('BAD_OPTION', `${taken}, got ${describe(arrays)}`);
  }
  return guarded('BAD_OPTION', `${fn}'s tensors`, () => {
    if (isMap(arrays)) {
      const pairs = [];
      mapForEach.call(arrays, (tensor, name) => pairs.push([name, tensor]));
      return pairs;
    }
    if (!Array.isArray(arrays)) return Object.entries(readRecord(arrays, `${fn}'s tensors`));
    const length = arrays.length;
    const pairs = [];
    for (let i = 0; i < length; i++) {
      const pair = arrays[i];
      if (!Array.isArray(pair) || pair.length !== 2) {
        throw new AttentionError('BAD_OPTION', `${taken}: entry ${i} is ${describe(pair)}, not a [name, tensor] pair`);
      }
      pairs.push([pair[0], pair[1]]);
    }
    return pairs;
  });
}

/** A name: a non-empty, well-formed string (a lone surrogate would not survive UTF-8), unique, not `reserved`. */
function checkName(name, index, seen, fn, reserved) {
  if (typeof name !== 'string') {
    throw new AttentionError('BAD_OPTION', `${fn}: tensor ${index}'s name is ${describe(name)}, not a string`);
  }
  if (name === '' || /\p{Surrogate}/u.test(name) || name.includes('\0')) {
    const what = name === '' ? 'empty' : 'not text that UTF-8 can hold (a lone surrogate or a NUL character)';
    throw new AttentionError('BAD_OPTION', `${fn}: tensor ${index}'s name ${quote(name)} is ${what}`);
  }
  if (name === reserved) {
    throw new AttentionError('BAD_OPTION', `${fn}: the name ${quote(name)} is reserved by the format`);
  }
  if (seen.has(name)) {
    throw new AttentionError(
      'BAD_OPTION',
      `${fn}: the name ${quote(name)} is given twice (tensors ${seen.get(name)} and ${index})`,
    );
  }
  seen.set(name, index);
}

/** A shape: an array of 1 to 32 positive safe integers, read once each. */
function readShape(value, where) {
  if (!Array.isArray(value)) {
    throw new AttentionError(
      'NOT_A_TENSOR',
      `${where} has no shape: give { data, shape } (got shape ${describe(value)})`,
    );
  }
  const rank = value.length;
  if (!(rank >= 1 && rank <= MAX_RANK)) {
    const what = rank === 0 ? 'a scalar (shape [])' : `of rank ${rank}`;
    throw new AttentionError('BAD_RANK', `${where} is ${what}; the files hold 1 to ${MAX_RANK} dimensions`);
  }
  const shape = [];
  for (let axis = 0; axis < rank; axis++) {
    const size = value[axis];
    if (!Number.isSafeInteger(size) || size < 1) {
      throw new AttentionError(
        'BAD_DIMENSION',
        `${where}.shape[${axis}] is ${describe(size)}: every dimension must be a positive integer`,
      );
    }
    shape.push(size);
  }
  return shape;
}

/** One tensor: `{ data, shape }` (a Tensor), `{ data, dims }`, or a typed array alone (one dimension). */
function readTensor(value, where) {
  const bare = typedArrayTag(value);
  const data = bare ? value : value !== null && typeof value === 'object' ? readField(value, 'data') : undefined;
  const tag = typedArrayTag(data);
  if (!tag) {
    const got = data === undefined ? describe(value) : `data ${describe(data)}`;
    throw new AttentionError('NOT_A_TENSOR', `${where} is not a tensor { data, shape } (got ${got})`);
  }
  const kind = WRITTEN[tag];
  if (!kind) {
    throw new AttentionError('NOT_A_TENSOR', `${where}.data is ${describe(data)}; the writers take ${WRITTEN_LIST}`);
  }
  const length = typedArrayLength(data);
  const given = bare ? [length] : (readField(value, 'shape') ?? readField(value, 'dims'));
  return { data, tag, kind, length, shape: readShape(given, where) };
}

/**
 * Reads and checks the named tensors of a writer, in order: names, data types and shapes first, each tensor within
 * MAX_CALL_BYTES as float32 (what the readers read back) and the whole file within MAX_FILE_BYTES, then each
 * `data.length` against its shape. `fileBytes(list)` gives the file's size from the list's names, kinds and shapes.
 * @param {unknown} arrays  { name: tensor }, a Map, or [name, tensor] pairs
 * @param {string} fn       the writer's name, for messages
 * @param {{ reserved?: string, fileBytes: (list: object[]) => number }} format
 * @returns {{ list: { name: string, kind: object, shape: number[], count: number, bytes: Uint8Array }[],
 *   total: number }}
 */
export function readNamedTensors(arrays, fn, { reserved, fileBytes }) {
  const seen = new Map();
  const list = readPairs(arrays, fn).map(([name, value], index) => {
    checkName(name, index, seen, fn, reserved);
    const where = `${fn}: tensor ${quote(name)}`;
    const tensor = guarded('NOT_A_TENSOR', `${fn}'s tensor ${quote(name)}`, () => readTensor(value, where));
    const count = tensor.shape.reduce((a, b) => a * b, 1);
    if (count > MAX_VALUES) {
      throw new AttentionError(
        'TOO_LARGE',
        `${where} has shape ${formatShape(tensor.shape)}: ${count} values, more than the readers read back (MAX_CALL_BYTES of float32, ${MAX_VALUES} values)`,
      );
    }
    return { name, where, count, ...tensor };
  });
  const total = fileBytes(list);
  if (total > MAX_FILE_BYTES) {
    throw new AttentionError(
      'TOO_LARGE',
      `${fn}: the file would take ${total} bytes, more than the ${MAX_FILE_BYTES} one file may (under 4 GiB)`,
    );
  }
  return {
    total,
    list: list.map(({ name, where, count, data, kind, length, shape }) => {
      if (length !== count) {
        throw new AttentionError(
          'DATA_LENGTH_MISMATCH',
          `${where}.data has ${length} values but shape ${formatShape(shape)} holds ${count}`,
        );
      }
      return { name, kind, shape, count, bytes: littleEndian(typedArrayView(data, kind.Type, count), kind.size) };
    }),
  };
}

/** The bytes of a typed array in little-endian order: a view of its memory, or a swapped copy on a big-endian host. */
function littleEndian(view, size) {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  if (LITTLE_ENDIAN_HOST) return bytes;
  const swapped = bytes.slice();
  for (let i = 0; i < swapped.length; i += size) swapped.subarray(i, i + size).reverse();
  return swapped;
}

/** A new Uint8Array of `total` bytes, or TOO_LARGE when this engine cannot allocate it. */
export function allocateFile(total, fn) {
  try {
    return new Uint8Array(total);
  } catch (error) {
    throw new AttentionError('TOO_LARGE', `${fn}: the file's ${total} bytes could not be allocated here`, {
      cause: error,
    });
  }
}

/** The writers' options: `metadata` (safetensors only) a plain object of strings. */
export function readWriteOptions(options, fn, allowed) {
  const record = readRecord(options, `${fn}'s options`, allowed, 'option');
  const { metadata } = record;
  if (metadata === undefined) return record;
  const strings = readRecord(metadata, `${fn}'s metadata`);
  for (const [key, value] of Object.entries(strings)) {
    if (typeof value !== 'string' || /\p{Surrogate}/u.test(value) || /\p{Surrogate}/u.test(key)) {
      throw new AttentionError(
        'BAD_OPTION',
        `${fn}: metadata ${quote(key)} is ${describe(value)}; metadata holds strings only (well-formed text)`,
      );
    }
  }
  return { ...record, metadata: strings };
}
