// The safetensors format: an 8-byte little-endian header length N, N bytes of JSON
// ({ name: { dtype, shape, data_offsets: [begin, end] }, __metadata__?: { string: string } }), then the tensors'
// bytes, contiguous and without gaps, offsets relative to the byte after the header. Always little-endian.
import { AttentionError } from '../errors.js';
import { badFile, checkShape, convertData, held, makeTensor, quote, rangeReader, toBytes, u64 } from './bytes.js';

// The reference implementation refuses larger headers.
const MAX_HEADER_BYTES = 100_000_000;
// The dtypes read, as the kinds of bytes.js's convertData (the writers name their dtypes from it too).
export const READABLE = {
  F32: 'f4',
  F16: 'f2',
  BF16: 'bf16',
  F64: 'f8',
  BOOL: 'b1',
  U8: 'u1',
  I8: 'i1',
  I16: 'i2',
  U16: 'u2',
  I32: 'i4',
  U32: 'u4',
  I64: 'i8',
  U64: 'u8',
};
const ELEMENT_BYTES = {
  BOOL: 1,
  U8: 1,
  I8: 1,
  F8_E5M2: 1,
  F8_E4M3: 1,
  F8_E8M0: 1,
  I16: 2,
  U16: 2,
  F16: 2,
  BF16: 2,
  I32: 4,
  U32: 4,
  F32: 4,
  I64: 8,
  U64: 8,
  F64: 8,
  C64: 8,
};

const isPlainObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);
const isCount = (value) => Number.isSafeInteger(value) && value >= 0;
const formatDims = (shape) => `[${shape.join(', ')}]`;

/**
 * BAD_FILE for a file whose header length does not fit and that starts as JSON text does (`{` or `[`, after spaces):
 * a config.json or an index given instead of the weights (as a length, 8 bytes of text are over 2⁶¹). Checked only
 * once the length is wrong, since a real header of 123 bytes starts with the byte of `{`.
 */
function checkNotJson(first8) {
  const text = String.fromCharCode(...first8);
  if (/^\s*[[{]/u.test(text)) {
    throw badFile(
      'safetensors at byte 0',
      `the file starts with ${quote(text)}: it is JSON text (config.json or model.safetensors.index.json?), not a safetensors file, which starts with its header's length in 8 bytes`,
    );
  }
}

/** The header length N from the first 8 bytes, checked against the file's size. */
function headerLength(first8, fileSize) {
  const length = first8.length < 8 ? undefined : u64(first8, 0);
  if (length === undefined || length > MAX_HEADER_BYTES || 8 + length > fileSize) checkNotJson(first8);
  if (length === undefined)
    throw badFile(
      'safetensors at byte 0',
      `the file has ${fileSize} bytes, fewer than the 8 of the header length (truncated?)`,
    );
  if (length > MAX_HEADER_BYTES) {
    throw badFile(
      'safetensors at byte 0',
      `the header length ${length} is over the format's limit of ${MAX_HEADER_BYTES} bytes (not a safetensors file?)`,
    );
  }
  if (8 + length > fileSize) {
    throw badFile(
      'safetensors at byte 0',
      `the header length ${length} runs past the end of the file (${fileSize} bytes; truncated?)`,
    );
  }
  return length;
}

/** One tensor's entry, checked: dtype a string, shape a list of counts, data_offsets [begin, end] that fit. */
function tensorEntry(name, info, where) {
  const at = `${where}, tensor ${quote(name)}`;
  if (!isPlainObject(info)) throw badFile(at, 'its entry is not an object { dtype, shape, data_offsets }');
  const { dtype, shape, data_offsets: offsets } = info;
  if (typeof dtype !== 'string') throw badFile(at, "'dtype' is missing or not a string");
  if (!Array.isArray(shape) || !shape.every(isCount))
    throw badFile(at, "'shape' is missing or not a list of non-negative integers");
  if (!Array.isArray(offsets) || offsets.length !== 2 || !offsets.every(isCount) || offsets[0] > offsets[1]) {
    throw badFile(at, "'data_offsets' is missing or not [begin, end] with 0 ≤ begin ≤ end");
  }
  const size = ELEMENT_BYTES[dtype];
  if (size !== undefined) {
    let bytes = size;
    for (const dim of shape) bytes *= dim;
    if (bytes !== offsets[1] - offsets[0]) {
      throw badFile(
        at,
        `shape ${formatDims(shape)} of ${dtype} needs ${bytes} bytes but data_offsets [${offsets.join(', ')}] span ${offsets[1] - offsets[0]}`,
      );
    }
  }
  return { name, dtype, shape, begin: offsets[0], end: offsets[1] };
}

/**
 * Parses and checks a safetensors header: valid UTF-8 JSON of the format's shape, tensors that tile the data
 * buffer exactly (no gap, no overlap, nothing past its end).
 * @param {Uint8Array} raw          the N header bytes
 * @param {number} bufferLength     bytes after the header
 * @returns {{ tensors: { name: string, dtype: string, shape: number[], begin: number, end: number }[],
 *   metadata: Record<string, string> }}  tensors in the order of their data
 */
export function parseHeader(raw, bufferLength) {
  const where = 'safetensors header at byte 8';
  let header;
  try {
    const text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
    if (!text.startsWith('{'))
      throw badFile(where, `the header starts with ${quote(text.slice(0, 10))}, not '{' (not a safetensors file?)`);
    header = JSON.parse(text);
  } catch (error) {
    if (error instanceof AttentionError) throw error;
    throw badFile(where, `the header is not JSON text (${String(error?.message ?? error).slice(0, 80)})`, error);
  }
  if (!isPlainObject(header)) throw badFile(where, 'the header is not a JSON object');
  let metadata = {};
  const tensors = [];
  for (const [name, info] of Object.entries(header)) {
    if (name !== '__metadata__') {
      tensors.push(tensorEntry(name, info, where));
    } else if (!isPlainObject(info) || !Object.values(info).every((v) => typeof v === 'string')) {
      throw badFile(where, "'__metadata__' is not an object of strings");
    } else {
      metadata = info;
    }
  }
  tensors.sort((a, b) => a.begin - b.begin || a.end - b.end);
  let end = 0;
  for (const [i, tensor] of tensors.entries()) {
    if (tensor.begin !== end) {
      const what = tensor.begin > end ? 'a gap' : 'an overlap';
      const after = i === 0 ? 'the start of the data' : `tensor ${quote(tensors[i - 1].name)}, which ends at ${end}`;
      throw badFile(
        `${where}, tensor ${quote(tensor.name)}`,
        `its data starts at ${tensor.begin}, after ${after}: ${what} (tensors must be contiguous)`,
      );
    }
    end = tensor.end;
  }
  if (end !== bufferLength) {
    const problem =
      end > bufferLength
        ? `end at ${end}, past the ${bufferLength} data bytes the file has (truncated?)`
        : `end at ${end}, but the file has ${bufferLength} data bytes after the header`;
    throw badFile(where, `the tensors' data_offsets ${problem}`);
  }
  return { tensors, metadata };
}

/**
 * Converts one tensor's bytes (exactly end - begin of them, checked right before they are read: a view of the
 * caller's memory may have been detached during an await) to a Tensor of its dtype's kind.
 */
function toTensor(tensor, data, fresh = false) {
  const at = `safetensors tensor ${quote(tensor.name)}`;
  const kind = READABLE[tensor.dtype];
  if (!kind) {
    throw badFile(
      at,
      `dtype ${quote(tensor.dtype, 12)} is not supported; attention-wasm reads F32, F16, BF16, F64, BOOL and the integers I8 … U64 (read the others with the names option or openSafetensors)`,
    );
  }
  const count = checkShape(tensor.shape, at, formatDims(tensor.shape));
  return makeTensor(convertData(held(data, tensor.end - tensor.begin, at), 0, count, kind, false, fresh), tensor.shape);
}

/** The entries named in `names` (all when undefined), failing for a name the file does not hold. */
function select(tensors, names, fn) {
  if (names === undefined) return tensors;
  if (!Array.isArray(names) || !names.every((n) => typeof n === 'string')) {
    throw new AttentionError('BAD_OPTION', `${fn}: names must be an array of strings`);
  }
  return names.map((name) => {
    const tensor = tensors.find((t) => t.name === name);
    if (!tensor) {
      const some = tensors
        .slice(0, 8)
        .map((t) => quote(t.name, 30))
        .join(', ');
      throw badFile(
        'safetensors',
        `there is no tensor ${quote(name)}; the file holds ${tensors.length}: ${some}${tensors.length > 8 ? ', …' : ''}`,
      );
    }
    return tensor;
  });
}

/**
 * Reads every tensor of a safetensors file held in memory (or those named in `options.names`).
 *
 * | file                                | result                                   |
 * |-------------------------------------|------------------------------------------|
 * | dtype F32, F16, BF16 or F64         | Tensor with Float32Array data            |
 * | dtype BOOL                          | Tensor with Uint8Array data of 0 and 1   |
 * | dtype I8, U8, I16, U16, I32, U32, I64, U64 | Int32Array data when every value fits in int32; else BigInt64Array (BigUint64Array for a U64 of 2^63 or more) |
 * | shape [d0, d1, …]                   | shape [d0, d1, …], row-major             |
 * | `__metadata__`                      | skipped (openSafetensors returns it)      |
 *
 * Other dtypes, scalars (shape []), empty tensors and any malformed file raise BAD_FILE.
 * @param {ArrayBuffer | ArrayBufferView} bytes  the whole file
 * @param {{ names?: string[] }} [options]
 * @returns {Record<string, import('../tensor.js').Tensor>}
 */
export function readSafetensors(bytes, options = {}) {
  const b = toBytes(bytes, 'readSafetensors');
  const length = headerLength(b.subarray(0, 8), b.length);
  const { tensors } = parseHeader(b.subarray(8, 8 + length), b.length - 8 - length);
  const data = b.subarray(8 + length);
  const wanted = select(tensors, options?.names, 'readSafetensors');
  return Object.fromEntries(wanted.map((t) => [t.name, toTensor(t, data.subarray(t.begin, t.end))]));
}

/** The entry of rows [begin, end) of a tensor (its first dimension), or the tensor itself without `rows`. */
function rowsOf(tensor, rows) {
  if (rows === undefined) return tensor;
  const [count] = tensor.shape;
  const [begin, end] = Array.isArray(rows) ? rows : [];
  if (!Number.isSafeInteger(begin) || !Number.isSafeInteger(end) || begin < 0 || end <= begin || end > count) {
    throw new AttentionError(
      'BAD_OPTION',
      `read(${quote(tensor.name)}, { rows }): rows must be [begin, end] with 0 ≤ begin < end ≤ ${count} (the tensor is ${formatDims(tensor.shape)})`,
    );
  }
  const rowBytes = (tensor.end - tensor.begin) / count;
  const shape = [end - begin, ...tensor.shape.slice(1)];
  return { ...tensor, shape, begin: tensor.begin + begin * rowBytes, end: tensor.begin + end * rowBytes };
}

/**
 * Opens a safetensors file by reading its header alone: lists its tensors, and reads one on request. A Blob or
 * File is read by slices, so a large model is never copied whole.
 *
 * | returns              | what                                                                  |
 * |----------------------|-----------------------------------------------------------------------|
 * | tensors              | `{ name, dtype, shape }` of every tensor, in the order of their data     |
 * | metadata             | the `__metadata__` strings (an empty object when there are none)        |
 * | read(name)           | Promise of that tensor as readSafetensors reads it                      |
 * | read(name, { rows }) | rows [begin, end) of its first dimension only: only their bytes are read |
 * @param {Blob | ArrayBuffer | ArrayBufferView} source
 * @returns {Promise<{ tensors: { name: string, dtype: string, shape: number[] }[], metadata: Record<string, string>,
 *   read: (name: string, options?: { rows?: [number, number] }) => Promise<import('../tensor.js').Tensor> }>}
 */
export async function openSafetensors(source) {
  return openSafetensorsReader(rangeReader(source, 'openSafetensors'));
}

/**
 * openSafetensors of a range reader ({ size, read(begin, end, where, signal) }: bytes.js's rangeReader, or
 * attention-wasm/model's reader of a URL); `read(name, { rows, signal })` passes the signal on.
 */
export async function openSafetensorsReader(file) {
  // Each range is checked with held() after the await, right before it is read (toTensor checks its own).
  const first = Math.min(8, file.size);
  const length = headerLength(
    held(await file.read(0, first, 'safetensors at byte 0'), first, 'safetensors at byte 0'),
    file.size,
  );
  const start = 8 + length;
  const where = 'safetensors header at byte 8';
  const { tensors, metadata } = parseHeader(held(await file.read(8, start, where), length, where), file.size - start);
  const read = async (name, options) => {
    if (typeof name !== 'string') throw new AttentionError('BAD_OPTION', 'read(name): name must be a string');
    const [whole] = select(tensors, [name], 'read');
    const tensor = rowsOf(whole, options?.rows);
    // Checked before reading: an unsupported dtype or a bad shape throws here, with no bytes read.
    if (!READABLE[tensor.dtype]) return toTensor(tensor, new Uint8Array(0));
    checkShape(tensor.shape, `safetensors tensor ${quote(tensor.name)}`, formatDims(tensor.shape));
    return toTensor(
      tensor,
      await file.read(start + tensor.begin, start + tensor.end, `safetensors tensor ${quote(name)}`, options?.signal),
      file.fresh,
    );
  };
  return {
    tensors: tensors.map(({ name, dtype, shape }) => ({ name, dtype, shape: shape.slice() })),
    metadata: { ...metadata },
    read,
  };
}
