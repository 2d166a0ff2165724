// The NumPy .npy format (versions 1.0, 2.0 and 3.0): magic, version, header length, a header that is a Python
// dict literal of 'descr', 'fortran_order' and 'shape', then the data. The header is read by a strict parser
// of the literals numpy writes, never evaluated.
import { badFile, checkShape, fortranToRowMajor, makeTensor, quote, toBytes, toFloat32, u16, u32 } from './bytes.js';

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // \x93NUMPY
const KINDS = {
  b: 'a boolean',
  i: 'an integer',
  u: 'an unsigned integer',
  c: 'a complex',
  S: 'a bytes',
  a: 'a bytes',
  U: 'a unicode string',
  O: 'a Python object',
  V: 'a raw or structured',
  M: 'a datetime64',
  m: 'a timedelta64',
};
const FLOATS = { f2: 'float16', f4: 'float32', f8: 'float64' };

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
    if (key === 'descr' && (p.text[p.at] === '[' || p.text[p.at] === '(')) {
      throw badFile(
        where,
        "'descr' is a structured (record) dtype; attention-wasm reads float16, float32 and float64 arrays",
      );
    }
    found[key] = key === 'descr' ? p.string() : key === 'shape' ? p.tuple() : p.boolean();
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

/** The float type of a descr such as '<f4', or a BAD_FILE error that names what the array holds instead. */
function floatType(descr, where) {
  const match = /^([<>|=]?)([A-Za-z])(\d*)$/.exec(descr);
  const float = match && FLOATS[match[2] + match[3]];
  if (float && match[1] !== '|' && match[1] !== '=') return { kind: match[2] + match[3], bigEndian: match[1] === '>' };
  const what = float
    ? `a float with byte order '${match[1]}', which numpy does not write`
    : match && match[2] === 'f'
      ? `a ${Number(match[3]) * 8}-bit float array`
      : match && KINDS[match[2]]
        ? `${KINDS[match[2]]} array`
        : 'not a dtype numpy writes';
  throw badFile(
    where,
    `'descr' is ${quote(descr, 20)}, ${what}; attention-wasm reads float16, float32 and float64 (<f2, <f4, <f8 or big-endian >f2, >f4, >f8)`,
  );
}

/**
 * Reads the header of an .npy file.
 * @param {Uint8Array} bytes
 * @param {string} name  what the file is called in messages ("npy", "npz member 'q.npy'")
 * @returns {{ kind: string, bigEndian: boolean, fortran: boolean, shape: number[], count: number, dataOffset: number }}
 */
export function parseNpy(bytes, name) {
  if (bytes.length < 10)
    throw badFile(
      `${name} at byte 0`,
      `the file has ${bytes.length} bytes, fewer than the 10 of an .npy preamble (truncated?)`,
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
  if (bytes.length < start) throw badFile(`${name} at byte 8`, 'the header length is cut off (truncated file)');
  const headerLength = major === 1 ? u16(bytes, 8) : u32(bytes, 8);
  if (start + headerLength > bytes.length) {
    throw badFile(
      `${name} at byte 8`,
      `the header length ${headerLength} runs past the end of the file (${bytes.length} bytes; truncated?)`,
    );
  }
  const where = `${name} header at byte ${start}`;
  const raw = bytes.subarray(start, start + headerLength);
  // numpy itself refuses headers over 10000 bytes unless told otherwise.
  if (raw.length > 65536) throw badFile(where, `the header is ${raw.length} bytes long; numpy writes far shorter ones`);
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
  const { kind, bigEndian } = floatType(header.descr, where);
  const shown = `(${header.shape.join(', ')}${header.shape.length === 1 ? ',' : ''})`;
  const count = checkShape(header.shape, where, shown);
  const dataOffset = start + headerLength;
  const needed = count * (kind === 'f2' ? 2 : kind === 'f4' ? 4 : 8);
  if (bytes.length - dataOffset !== needed) {
    const problem = bytes.length - dataOffset < needed ? 'fewer (truncated?)' : 'more than the array holds';
    throw badFile(
      `${name} data at byte ${dataOffset}`,
      `shape ${shown} of ${FLOATS[kind]} needs ${needed} bytes, but the file has ${bytes.length - dataOffset}: ${problem}`,
    );
  }
  return { kind, bigEndian, fortran: header.fortran_order, shape: header.shape, count, dataOffset };
}

/** Reads a whole .npy file already checked by parseNpy into a row-major Tensor. */
export function npyTensor(bytes, name) {
  const { kind, bigEndian, fortran, shape, count, dataOffset } = parseNpy(bytes, name);
  const data = toFloat32(bytes, dataOffset, count, kind, bigEndian);
  return makeTensor(fortran ? fortranToRowMajor(data, shape) : data, shape);
}

/**
 * Reads a NumPy .npy file (numpy.save), format version 1.0, 2.0 or 3.0.
 *
 * | file                                    | result                                  |
 * |-----------------------------------------|-----------------------------------------|
 * | descr <f2, <f4, <f8 (or >f2, >f4, >f8)  | Tensor with Float32Array data           |
 * | shape (d0, d1, …), C or Fortran order   | shape [d0, d1, …], data row-major       |
 *
 * float16 converts exactly, float64 rounds to the nearest float32. Scalars (shape ()), empty arrays and
 * other dtypes raise BAD_FILE, as does any malformed file.
 * @param {ArrayBuffer | ArrayBufferView} bytes  the whole file
 * @returns {import('../tensor.js').Tensor}
 */
export function readNpy(bytes) {
  return npyTensor(toBytes(bytes, 'readNpy'), 'npy');
}
