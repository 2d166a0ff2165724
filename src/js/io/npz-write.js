// Writing NumPy .npz files as numpy.savez does: a zip of stored members "<name>.npy", each an .npy file of format
// version 1.0 (its header a Python dict literal padded with spaces to a multiple of 64 bytes, ending in a newline),
// data little-endian and row-major.
import { AttentionError } from '../errors.js';
import { quote } from './bytes.js';
import { allocateFile, readNamedTensors } from './write-input.js';
import { writeZip, zipBytes } from './zip-write.js';

const NPY_ALIGN = 64; // numpy's ARRAY_ALIGN: the data of every array starts at a multiple of 64
const NPY_PREAMBLE = 10; // \x93NUMPY, version 1.0, a 2-byte header length
const MAX_NAME_BYTES = 0xffff; // a zip name's length field
const utf8 = new TextEncoder();

/** The .npy preamble and header of an array of NumPy dtype `descr` and `shape`, padded as numpy pads it. */
function npyHeader(descr, shape) {
  const tuple = `(${shape.join(', ')}${shape.length === 1 ? ',' : ''})`;
  const dict = `{'descr': '${descr}', 'fortran_order': False, 'shape': ${tuple}, }`;
  const padding = NPY_ALIGN - ((NPY_PREAMBLE + dict.length + 1) % NPY_ALIGN);
  const text = `${dict}${' '.repeat(padding)}\n`;
  const bytes = new Uint8Array(NPY_PREAMBLE + text.length);
  bytes.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, text.length & 0xff, text.length >> 8]);
  for (let i = 0; i < text.length; i++) bytes[NPY_PREAMBLE + i] = text.charCodeAt(i);
  return bytes;
}

/** The zip members of the tensors: "<name>.npy" holding the .npy header and the data. */
const members = (list) =>
  list.map(({ name, kind, shape, count, bytes }) => {
    const header = npyHeader(kind.descr, shape);
    const member = utf8.encode(`${name}.npy`);
    if (member.length > MAX_NAME_BYTES) {
      throw new AttentionError(
        'BAD_OPTION',
        `writeNpz: the name ${quote(name)} takes ${member.length} bytes with ".npy"; a zip name holds at most ${MAX_NAME_BYTES}`,
      );
    }
    return {
      name: member,
      size: header.length + count * kind.size,
      fill: (data) => {
        data.set(header);
        if (bytes) data.set(bytes, header.length);
      },
    };
  });

/**
 * Writes named tensors as a NumPy .npz file (numpy.savez's layout: stored, uncompressed), which numpy.load,
 * readNpz and openNpz read back under the same names.
 *
 * | tensor data                | array written          | read back by readNpz      |
 * |----------------------------|------------------------|---------------------------|
 * | Float32Array, shape [d0, …] | '<f4', shape (d0, …)   | Float32Array, the same values |
 * | Float64Array               | '<f8'                  | Float32Array (rounded)    |
 * | Int32Array                 | '<i4'                  | Int32Array                |
 * | BigInt64Array              | '<i8'                  | Int32Array, or BigInt64Array beyond int32 |
 *
 * `arrays` is `{ name: tensor }`, a Map or `[name, tensor]` pairs (kept in that order); a tensor is `{ data, shape }`
 * (a Tensor), `{ data, dims }`, or a typed array alone (one dimension). Values are written as they are, NaN and
 * ±Infinity included. BAD_OPTION: a name that is not a non-empty string, or given twice; NOT_A_TENSOR: data of another
 * type; BAD_RANK / BAD_DIMENSION: a shape of no or over 32 dimensions, or not positive integers;
 * DATA_LENGTH_MISMATCH; TOO_LARGE: a tensor over MAX_CALL_BYTES as float32, or a file of 4 GiB or more.
 * @param {Record<string, object> | Map<string, object> | [string, object][]} arrays
 * @returns {Uint8Array} the file's bytes
 */
export function writeNpz(arrays) {
  const fileBytes = (list) => zipBytes(members(list.map((t) => ({ ...t, bytes: null }))));
  const { list, total } = readNamedTensors(arrays, 'writeNpz', { fileBytes });
  return writeZip(allocateFile(total, 'writeNpz'), members(list));
}
