// Writing safetensors files as the reference writer does: an 8-byte little-endian header length N, N bytes of JSON
// (`__metadata__` first when given, then each tensor's { dtype, shape, data_offsets } in the order given) padded
// with spaces to a multiple of 8, then the tensors' bytes back to back, little-endian.
import { AttentionError } from '../errors.js';
import { allocateFile, readNamedTensors, readWriteOptions } from './write-input.js';

const MAX_HEADER_BYTES = 100_000_000; // the format's limit, which the readers hold to
const HEADER_ALIGN = 8;
const utf8 = new TextEncoder();

/** The header's bytes, padded: tensors laid out in order from offset 0. */
function header(list, metadata) {
  const object = Object.create(null); // a tensor named "__proto__" is a key like any other
  if (metadata) object.__metadata__ = metadata;
  let at = 0;
  for (const { name, kind, shape, count } of list) {
    const end = at + count * kind.size;
    object[name] = { dtype: kind.dtype, shape, data_offsets: [at, end] };
    at = end;
  }
  const json = utf8.encode(JSON.stringify(object));
  const padded = Math.ceil(json.length / HEADER_ALIGN) * HEADER_ALIGN;
  if (padded > MAX_HEADER_BYTES) {
    throw new AttentionError(
      'TOO_LARGE',
      `writeSafetensors: the header takes ${padded} bytes, over the format's limit of ${MAX_HEADER_BYTES}`,
    );
  }
  const bytes = new Uint8Array(padded).fill(0x20);
  bytes.set(json);
  return { bytes, dataBytes: at };
}

/**
 * Writes named tensors as a safetensors file, which readSafetensors, openSafetensors, the `safetensors` library
 * (PyTorch, NumPy) and any reader of the format read back under the same names.
 *
 * | tensor data                 | dtype written | read back by readSafetensors |
 * |-----------------------------|---------------|------------------------------|
 * | Float32Array, shape [d0, …]  | F32, [d0, …]  | Float32Array, the same values |
 * | Float64Array                | F64           | Float32Array (rounded)       |
 * | Int32Array                  | I32           | Int32Array                   |
 * | BigInt64Array               | I64           | Int32Array, or BigInt64Array beyond int32 |
 *
 * `tensors` as writeNpz takes them; `options.metadata` is the `__metadata__` object of strings
 * (`{ format: 'pt' }` as PyTorch's files have it). Values are written as they are, NaN and ±Infinity included.
 * Errors as writeNpz's; also BAD_OPTION for the name `__metadata__` or metadata that is not strings, and TOO_LARGE
 * for a header over the format's 100,000,000 bytes.
 * @param {Record<string, object> | Map<string, object> | [string, object][]} tensors
 * @param {{ metadata?: Record<string, string> }} [options]
 * @returns {Uint8Array} the file's bytes
 */
export function writeSafetensors(tensors, options) {
  const { metadata } = readWriteOptions(options, 'writeSafetensors', ['metadata']);
  let head;
  const fileBytes = (list) => {
    head = header(list, metadata);
    return 8 + head.bytes.length + head.dataBytes;
  };
  const { list, total } = readNamedTensors(tensors, 'writeSafetensors', { reserved: '__metadata__', fileBytes });
  const out = allocateFile(total, 'writeSafetensors');
  new DataView(out.buffer).setBigUint64(0, BigInt(head.bytes.length), true);
  out.set(head.bytes, 8);
  let at = 8 + head.bytes.length;
  for (const { bytes } of list) {
    out.set(bytes, at);
    at += bytes.length;
  }
  return out;
}
