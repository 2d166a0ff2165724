// The NumPy .npy format (versions 1.0, 2.0 and 3.0): magic, version, header length, a header that is a Python
// dict literal of 'descr', 'fortran_order' and 'shape', then the data. The header is read by a strict parser
// of the literals numpy writes, never evaluated.
import {
  ELEMENT_SIZES,
  badFile,
  checkShape,
  convertData,
  fortranToRowMajor,
  makeTensor,
  quote,
  toBytes,
  u16,
  u32,
} from './bytes.js';

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY
const KINDS = {
  c: 'a complex',
  S: 'a bytes',
  a: 'a bytes',
  U: 'a unicode string',
  O: 'a Python object',
  V: 'a raw or structured',
  M: 'a datetime64',
  m: 'a timedelta64',
};
// The dtypes read, by numpy's kind and size (e.g. 'f4' of '<f4'), with their names for messages.
const READ = {
  f2: 'float16',
  f4: 'float32',
  f8: 'float64',
  b1: 'bool',
  i1: 'int8',
  u1: 'uint8',
  i2: 'int16',
  u2: 'uint16',
  i4: 'int32',
  u4: 'uint32',
  i8: 'int64',
  u8: 'uint64',
};
const READ_LIST = 'float16/32/64 (<f2, <f4, <f8), bool (|b1) and integers (|i1, |u1, <i2 … <u8), little- or big-endian';

/** A cursor over the header text that parses the Python literal subset numpy writes. */
class Literal {
  constructor(text, where) {
    this.text = text;
    this.at = 0;
    this.where = where;
  }

  fail(what) {
    return badFile(
      this.where,
      `${what} at character ${this.at} of the header ${quote(this.text.slice(0, 80).trimEnd(), 80)}; it must be a dict literal like {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }`,
    );
  }

  space() {
    while (this.at < this.text.length && ' \t\r\n'.includes(this.text[this.at])) this.at++;
  }

  /** Skips spaces; consumes `char` and returns true when it is next. */
  take(char) {
    this.space();
    if (this.text[this.at] !== char) return false;
    this.at++;
    return true;
  }

  expect(char) {
    if (!this.take(char)) throw this.fail(`expected '${char}'`);
  }

  string() {
    this.space();
    const q = this.text[this.at];
    if (q !== "'" && q !== '"') throw this.fail('expected a quoted string');
    const end = this.text.indexOf(q, this.at + 1);
    if (end < 0) throw this.fail('unterminated string');
    const value = this.text.slice(this.at + 1, end);
    if (value.includes('\\') || value.includes('\n')) throw this.fail('a string with an escape or a line break');
    this.at = end + 1;
    return value;
  }

  /** A non-negative integer (Python 2 wrote a trailing L, which numpy still reads). */
  integer() {
    this.space();
    const match = /^[0-9]+L?/.exec(this.text.slice(this.at, this.at + 24));
    if (!match) throw this.fail('expected a non-negative integer');
    const digits = match[0].replace('L', '');
    if (digits.length > 15) throw this.fail(`dimension ${digits} is too large`);
    this.at += match[0].length;
    return Number(digits);
  }

  boolean() {
    this.space();
    for (const [word, value] of [
      ['True', true],
      ['False', false],
    ]) {
      if (this.text.startsWith(word, this.at) && !/[A-Za-z0-9_]/.test(this.text[this.at + word.length] ?? '')) {
        this.at += word.length;
        return value;
      }
    }
    throw this.fail('expected True or False');
  }

  /** A structured dtype's list or tuple literal, as its raw text: brackets matched, quoted strings skipped. */
  structured() {
    const from = this.at;
    let depth = 0;
    do {
      const char = this.text[this.at];
      if (char === "'" || char === '"') this.string();
      else if (this.at++ >= this.text.length) throw this.fail('an unterminated structured dtype');
      else if (char === '[' || char === '(') depth++;
      else if (char === ']' || char === ')') depth--;
    } while (depth > 0);
    return this.text.slice(from, this.at);
  }

  /** A tuple of integers: (), (3,), (2, 3) or (2, 3,). */
  tuple() {
    this.expect('(');
    const items = [];
    while (!this.take(')')) {
      items.push(this.integer());
      if (this.take(')')) {
        if (items.length === 1) throw this.fail('a one-element shape needs a trailing comma, as in (3,)');
        break;
      }
      this.expect(',');
    }
    return items;
  }
}

/** Parses the header dict: its three keys in any order, trailing commas, then only padding. */
function parseHeader(text, where) {
  const p = new Literal(text, where);
  const found = {};
  p.expect('{');
  while (!p.take('}')) {
    const key = p.string();
    if (!['descr', 'fortran_order', 'shape'].includes(key)) throw p.fail(`unknown key ${quote(key, 20)}`);
    if (key in found) throw p.fail(`key '${key}' appears twice`);
    p.expect(':');
    p.space();
    const structured = key === 'descr' && (p.text[p.at] === '[' || p.text[p.at] === '(');
    found[key] = structured ? p.structured() : key === 'descr' ? p.string() : key === 'shape' ? p.tuple() : p.boolean();
    if (p.take('}')) break;
    p.expect(',');
  }
  p.space();
  if (p.at !== text.length) throw p.fail('unexpected text after the dict');
  for (const key of ['descr', 'fortran_order', 'shape']) {
    if (!(key in found)) throw p.fail(`the key '${key}' is missing`);
  }
  return found;
}

/**
 * The kind of a descr such as '<f4' or '|b1', or a BAD_FILE error that names what the array holds instead. Byte
 * order: '<' or '>' (numpy writes one of them for every multi-byte type), '|' only for one-byte types.
 */
function dtypeOf(descr, where) {
  if (descr[0] === '[' || descr[0] === '(') {
    throw badFile(where, `'descr' is a structured (record) dtype; attention-wasm reads ${READ_LIST}`);
  }
  const match = /^([<>|=]?)([A-Za-z])(\d*)$/.exec(descr);
  const kind = match && READ[match[2] + match[3]] ? match[2] + match[3] : undefined;
  const order = match?.[1];
  if (kind && (ELEMENT_SIZES[kind] === 1 ? order !== '=' : order === '<' || order === '>')) {
    return { kind, bigEndian: order === '>' };
  }
  const what = kind
    ? `${READ[kind]} with byte order '${order}', which numpy does not write`
    : match && match[2] === 'f'
      ? `a ${Number(match[3]) * 8}-bit float array`
      : match && KINDS[match[2]]
        ? `${KINDS[match[2]]} array`
        : 'not a dtype numpy writes';
  throw badFile(where, `'descr' is ${quote(descr, 20)}, ${what}; attention-wasm reads ${READ_LIST}`);
}

/** The most bytes an .npy header that parseNpy accepts takes, its preamble included. */
export const NPY_HEADER_BYTES = 12 + 65536;

/**
 * Reads the preamble and the header dict of an .npy file, checking neither dtype nor shape (npyLayout does).
 * @param {Uint8Array} bytes  the file, or its first min(total, NPY_HEADER_BYTES) bytes
 * @param {string} name  what the file is called in messages ("npy", "npz member 'q.npy'")
 * @param {number} [total]  the file's length
 * @returns {{ descr: string, fortran: boolean, shape: number[], dataOffset: number, where: string }}
 */
export function npyHeader(bytes, name, total = bytes.length) {
  if (total < 10)
    throw badFile(
      `${name} at byte 0`,
      `the file has ${total} bytes, fewer than the 10 of an .npy preamble (truncated?)`,
    );
  if (MAGIC.some((b, i) => bytes[i] !== b)) {
    throw badFile(`${name} at byte 0`, 'bad magic: an .npy file starts with \\x93NUMPY');
  }
  const major = bytes[6];
  const minor = bytes[7];
  if (!(major >= 1 && major <= 3 && minor === 0)) {
    throw badFile(`${name} at byte 6`, `format version ${major}.${minor} is not one of 1.0, 2.0 and 3.0`);
  }
  const lengthBytes = major === 1 ? 2 : 4;
  const start = 8 + lengthBytes;
  if (total < start) throw badFile(`${name} at byte 8`, 'the header length is cut off (truncated file)');
  const headerLength = major === 1 ? u16(bytes, 8) : u32(bytes, 8);
  if (start + headerLength > total) {
    throw badFile(
      `${name} at byte 8`,
      `the header length ${headerLength} runs past the end of the file (${total} bytes; truncated?)`,
    );
  }
  const where = `${name} header at byte ${start}`;
  // numpy itself refuses headers over 10000 bytes unless told otherwise.
  if (headerLength > 65536)
    throw badFile(where, `the header is ${headerLength} bytes long; numpy writes far shorter ones`);
  const raw = bytes.subarray(start, start + headerLength);
  let text;
  if (major === 3) {
    try {
      text = new TextDecoder('utf-8', { fatal: true }).decode(raw);
    } catch (error) {
      throw badFile(where, 'the header is not valid UTF-8', error);
    }
  } else {
    text = '';
    for (const b of raw) text += String.fromCharCode(b); // latin1
  }
  const header = parseHeader(text, where);
  return {
    descr: header.descr,
    fortran: header.fortran_order,
    shape: header.shape,
    dataOffset: start + headerLength,
    where,
  };
}

/**
 * Checks what an .npy header describes: a dtype attention-wasm reads, a shape checkShape accepts, and exactly
 * the data that shape needs in a file of `total` bytes.
 * @returns {{ kind: string, bigEndian: boolean, count: number }}
 */
function npyLayout({ descr, shape, dataOffset, where }, name, total) {
  const { kind, bigEndian } = dtypeOf(descr, where);
  const shown = `(${shape.join(', ')}${shape.length === 1 ? ',' : ''})`;
  const count = checkShape(shape, where, shown);
  const needed = count * ELEMENT_SIZES[kind];
  if (total - dataOffset !== needed) {
    const problem = total - dataOffset < needed ? 'fewer (truncated?)' : 'more than the array holds';
    throw badFile(
      `${name} data at byte ${dataOffset}`,
      `shape ${shown} of ${READ[kind]} needs ${needed} bytes, but the file has ${total - dataOffset}: ${problem}`,
    );
  }
  return { kind, bigEndian, count };
}

/** Reads a whole .npy file into a row-major Tensor of its dtype's kind, or raises BAD_FILE. */
export function npyTensor(bytes, name) {
  const header = npyHeader(bytes, name);
  const { kind, bigEndian, count } = npyLayout(header, name, bytes.length);
  const data = convertData(bytes, header.dataOffset, count, kind, bigEndian);
  return makeTensor(header.fortran ? fortranToRowMajor(data, header.shape) : data, header.shape);
}

/**
 * Reads a NumPy .npy file (numpy.save), format version 1.0, 2.0 or 3.0.
 *
 * | file                                       | result                                              |
 * |--------------------------------------------|-----------------------------------------------------|
 * | descr <f2, <f4, <f8 (or >f2, >f4, >f8)     | Tensor with Float32Array data                       |
 * | descr |b1 (bool)                           | Tensor with Uint8Array data of 0 and 1              |
 * | descr |i1, |u1, <i2, <u2, <i4, <u4, <i8, <u8 (or >) | Int32Array data when every value fits in int32; else BigInt64Array (BigUint64Array for a uint64 of 2^63 or more) |
 * | shape (d0, d1, …), C or Fortran order      | shape [d0, d1, …], data row-major                   |
 *
 * float16 converts exactly, float64 rounds to the nearest float32, integers keep their exact values. A bool or
 * integer Tensor is a boolean mask to the API (0 blocks, 1 may attend). Scalars (shape ()), empty arrays and other
 * dtypes raise BAD_FILE, as does any malformed file.
 * @param {ArrayBuffer | ArrayBufferView} bytes  the whole file
 * @returns {import('../tensor.js').Tensor}
 */
export function readNpy(bytes) {
  return npyTensor(toBytes(bytes, 'readNpy'), 'npy');
}
