// Reading numbers typed into a cell and matrices pasted as NumPy/PyTorch print-outs, JSON, CSV, TSV or
// whitespace-separated text.

/** A pasted matrix that cannot be read; `line` and `column` (1-based) point at the problem when known. */
export class MatrixParseError extends Error {
  constructor(message, { line, column } = {}) {
    super(line === undefined ? message : `line ${line}${column === undefined ? '' : `, column ${column}`}: ${message}`);
    this.name = 'MatrixParseError';
    this.line = line;
    this.column = column;
  }
}

/** The most characters a paste may have. */
export const MAX_PASTE_CHARS = 1_000_000;

const NUMBER = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:e[+-]?\d+)?$/i;
const NON_FINITE = /^[+-]?(?:inf|infinity|nan)$/i;

const normalizeMinus = (text) => text.replace(/[\u2212\u2012\u2013]/gu, '-');

/**
 * Reads one number: "1", "-0.5", ".5", "1e-3", "2.", with a Unicode minus allowed.
 * @returns {number | null} the number, or null when the text is not a finite number
 */
export function parseNumber(text) {
  const t = normalizeMinus(String(text).trim());
  if (!NUMBER.test(t)) return null;
  const value = Number(t);
  return Number.isFinite(value) ? value : null;
}

function describeToken(text) {
  const shown = text.length > 20 ? `${text.slice(0, 20)}…` : text;
  return `“${shown}”`;
}

function readValue(text, where) {
  const value = parseNumber(text);
  if (value !== null) return value;
  const t = normalizeMinus(text.trim());
  if (NON_FINITE.test(t))
    throw new MatrixParseError(`${describeToken(text)} is not finite: values must be finite numbers`, where);
  if (NUMBER.test(t)) throw new MatrixParseError(`${describeToken(text)} is too large`, where);
  if (t === '...' || t === '…') {
    throw new MatrixParseError(
      'the print-out is shortened with “...”: print the whole array, e.g. with np.set_printoptions(threshold=np.inf)',
      where,
    );
  }
  throw new MatrixParseError(`${describeToken(text)} is not a number`, where);
}

function position(text, index) {
  const before = text.slice(0, index);
  const line = before.split('\n').length;
  return { line, column: index - before.lastIndexOf('\n') };
}

/** Removes `array(`, `np.array(`, `tensor(` … `, dtype=float32)` around a bracketed print-out. */
function unwrap(text) {
  const call = /^[A-Za-z_][\w.]*\s*\(/u.exec(text);
  if (!call) return text;
  const first = text.indexOf('[', call[0].length - 1);
  const last = text.lastIndexOf(']');
  if (first < 0 || last < first) throw new MatrixParseError(`expected a bracketed matrix inside ${call[0].trim()}…)`);
  return ' '.repeat(call[0].length) + text.slice(call[0].length, last + 1);
}

function parseBracketed(text) {
  const stack = [];
  let root = null;
  const re = /\s+|,|\[|\]|[^\s,[\]]+/gu;
  let match;
  let closedTop = false;
  while ((match = re.exec(text)) !== null) {
    const token = match[0];
    if (/^\s+$/u.test(token) || token === ',') continue;
    const where = position(text, match.index);
    if (closedTop) throw new MatrixParseError(`unexpected ${describeToken(token)} after the closing bracket`, where);
    if (token === '[') {
      const list = [];
      if (stack.length) stack[stack.length - 1].push(list);
      else root = list;
      stack.push(list);
    } else if (token === ']') {
      if (!stack.length) throw new MatrixParseError('a “]” closes nothing', where);
      stack.pop();
      if (!stack.length) closedTop = true;
    } else {
      if (!stack.length) throw new MatrixParseError(`${describeToken(token)} is outside the brackets`, where);
      stack[stack.length - 1].push({ value: readValue(token, where), where });
    }
  }
  if (stack.length)
    throw new MatrixParseError(`${stack.length} bracket${stack.length > 1 ? 's are' : ' is'} not closed`);
  return root;
}

function toMatrix(root) {
  const isList = Array.isArray;
  if (root.length === 0) throw new MatrixParseError('the matrix is empty');
  if (root.every((item) => !isList(item))) return [root.map((item) => item.value)];
  if (!root.every(isList)) throw new MatrixParseError('the matrix mixes numbers and rows at its top level');
  const rows = root.map((row, i) => {
    if (row.some(isList)) {
      throw new MatrixParseError(
        `row ${i + 1} holds brackets inside it: paste a 2-D matrix (rows of numbers), not a 3-D array`,
      );
    }
    return row.map((item) => item.value);
  });
  checkRectangular(rows, (i) => `row ${i + 1}`);
  return rows;
}

function checkRectangular(rows, name) {
  rows.forEach((row, i) => {
    if (row.length === 0) throw new MatrixParseError(`${name(i)} is empty`);
    if (row.length !== rows[0].length) {
      throw new MatrixParseError(
        `${name(i)} has ${row.length} value${row.length === 1 ? '' : 's'} but ${name(0)} has ${rows[0].length}: every row needs the same number of values`,
      );
    }
  });
}

function parseDelimited(text) {
  const lines = text.split(/\r\n|\r|\n/u);
  const numbered = lines
    .map((line, index) => ({ line, number: index + 1 }))
    .filter(({ line }) => line.trim() !== '' && !line.trim().startsWith('#'));
  const sample = numbered.map(({ line }) => line).join('\n');
  const splitter = sample.includes('\t') ? /\t/u : sample.includes(',') ? /,/u : sample.includes(';') ? /;/u : /\s+/u;
  const rows = numbered.map(({ line, number }) => {
    const fields = line
      .trim()
      .split(splitter)
      .map((field) => field.trim());
    if (fields.length > 1 && fields[fields.length - 1] === '') fields.pop();
    return fields.map((field, j) => readValue(field, { line: number, column: j + 1 }));
  });
  const lineNumbers = numbered.map(({ number }) => number);
  checkRectangular(rows, (i) => `line ${lineNumbers[i]}`);
  return rows;
}

/**
 * Reads a pasted matrix.
 * Accepts NumPy print-outs (`[[0.1 0.2]\n [0.3 0.4]]`, `array([[1., 2.]], dtype=float32)`), PyTorch's
 * `tensor([[…]])`, JSON (`[[1, 2], [3, 4]]`), and CSV, TSV, semicolon- or whitespace-separated lines.
 * A single row (`[1, 2, 3]` or one line) becomes a 1×m matrix.
 * @param {string} text
 * @returns {number[][]} a rectangular matrix of finite numbers
 * @throws {MatrixParseError} naming the line and column of the problem
 */
export function parseMatrix(text) {
  if (typeof text !== 'string') throw new MatrixParseError('expected text');
  if (text.length > MAX_PASTE_CHARS)
    throw new MatrixParseError(`the text is longer than ${MAX_PASTE_CHARS.toLocaleString('en')} characters`);
  const trimmed = text.trim();
  if (trimmed === '') throw new MatrixParseError('there is nothing to read: paste some numbers');
  const body = unwrap(trimmed);
  if (body.trimStart().startsWith('[')) return toMatrix(parseBracketed(body));
  if (body.includes('[') || body.includes(']')) {
    const index = body.search(/[[\]]/u);
    throw new MatrixParseError(
      'a bracket appears in the middle of the text: a bracketed matrix must start with “[”',
      position(body, index),
    );
  }
  return parseDelimited(body);
}
