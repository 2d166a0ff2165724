// The kinds of value the page's link holds (the types of link.js's table): how each is read from a link's text, why
// a text cannot be read (the words of its warning), and how it is written. A type is
// { read(text, state) → the value, or undefined when the text cannot be read; why(state) → "is not …"; write(value,
// state) → text; partial?(text, value) → whether a part of the text was left out (then the reader warns too) };
// `state` is what the link has given so far (a bound may depend on it: the head on the heads).
// Pure: no DOM.
import { generatedMatrix, matrixShape } from './matrices.js';
import { parseNumber } from './parse.js';
import { LIMITS } from './state.js';

const at = (bound, state) => (typeof bound === 'function' ? bound(state) : bound);

/** A whole number from `min` to `max` (either may be a function of the state), written in digits only. */
export const whole = (min, max, what = 'a whole number') => ({
  read: (text, state) => {
    if (!/^\d{1,10}$/u.test(text)) return undefined;
    const value = Number(text);
    return value >= at(min, state) && value <= at(max, state) ? value : undefined;
  },
  why: (state) => `is not ${what} from ${at(min, state)} to ${at(max, state)}`,
  write: String,
});

/** A number from `min` (above it, with `above`) to `max`, as parseNumber reads it; `integer`: a whole one. */
export const number = (min, max, what = 'a number', { above = false, integer = false } = {}) => ({
  read: (text) => {
    const value = parseNumber(text);
    if (value === null || (integer && !Number.isInteger(value))) return undefined;
    return (above ? value > min : value >= min) && value <= max ? value : undefined;
  },
  why: () => `is not ${what} from ${min} to ${max}`,
  write: String,
});

/** 0 or 1, read as false or true. */
export const flag = {
  read: (text) => (text === '0' || text === '1' ? text === '1' : undefined),
  why: () => 'is neither 0 nor 1',
  write: (value) => (value ? '1' : '0'),
};

/** Present or not: `?embed`, `?nowarm` (whatever follows "=" is ignored). */
export const present = { read: () => true, why: () => '', write: () => '' };

/** One of `values` (strings or numbers), as written. */
export const oneOf = (values, what = null) => ({
  read: (text) => values.find((v) => String(v) === text),
  why: () => what ?? `is none of ${values.join(', ')}`,
  write: String,
});

/** Any text of at most `max` characters; `cut`: a longer one is read cut to `max` (and the warning says so). */
export const text = (max, { cut = false } = {}) => ({
  read: (value) => (value.length <= max ? value : cut ? value.slice(0, max) : undefined),
  why: () => `is longer than ${max} characters${cut ? `: its first ${max} are read` : ''}`,
  write: String,
  partial: (value, read) => read.length < value.length,
});

/** Heads as layer.head pairs, comma-separated ("1.0,1.2"), counted as written; a pair that is not one is left out. */
export const pairs = {
  read: (value) => {
    const out = [];
    for (const pair of value.split(',')) {
      const m = /^(\d{1,4})\.(\d{1,4})$/u.exec(pair.trim());
      if (m) out.push([Number(m[1]), Number(m[2])]);
    }
    return out;
  },
  why: () => 'holds parts that are not layer.head pairs such as 1.0,1.2: they are left out',
  write: (list) => list.map(([l, h]) => `${l}.${h}`).join(','),
  partial: (value, read) => read.length < value.split(',').length,
};

/** The walk's grids a reader may edit, by the engine's step names (the same as the page's matrix names). */
export const EDITABLE_STEPS = Object.freeze(['x', 'wq', 'wk', 'wv', 'wo']);

/** The most edits a link holds. */
export const MAX_EDITS = 64;

/** The shortest decimal that reads back as float32 `value` (0.1, not 0.10000000149011612). */
function shortFloat32(value) {
  for (let digits = 1; digits < 9; digits++) {
    const shown = String(Number(value.toPrecision(digits)));
    if (Math.fround(Number(shown)) === value) return shown;
  }
  return String(value);
}

const EDIT = new RegExp(`^(\\d{1,4})\\.(${EDITABLE_STEPS.join('|')})\\.(\\d{1,6})\\.(\\d{1,6})_(\\S{1,32})$`, 'u');

/**
 * The real model's edits ({ layer, step, row, col, value }) as "0.x.3.5_0.25*1.wq.2.10_-1": layer.step.row.col_value,
 * joined by "*", none of which a query string escapes. Reading keeps the parts it can read (the model checks their
 * ranges when it runs); `why` is said when one was left out.
 */
export const edits = {
  read: (value) => {
    const out = [];
    for (const part of value.split('*')) {
      const m = EDIT.exec(part);
      const v = m && parseNumber(m[5]);
      if (v === null || out.length >= MAX_EDITS) continue;
      out.push({ layer: Number(m[1]), step: m[2], row: Number(m[3]), col: Number(m[4]), value: Math.fround(v) });
    }
    return out;
  },
  why: () =>
    `holds parts that are not layer.step.row.col_value (step one of ${EDITABLE_STEPS.join(', ')}), or more than ${MAX_EDITS}: they are left out`,
  write: (list) => list.map((e) => `${e.layer}.${e.step}.${e.row}.${e.col}_${shortFloat32(e.value)}`).join('*'),
  partial: (value, read) => read.length < value.split('*').length,
};

function readRows(value, rows, cols) {
  const lines = value.split(';');
  if (lines.length !== rows) return undefined;
  const matrix = [];
  for (const line of lines) {
    const fields = line.split(',');
    if (fields.length !== cols) return undefined;
    const row = [];
    for (const field of fields) {
      const v = parseNumber(field);
      if (v === null || Math.abs(v) > LIMITS.typed) return undefined;
      row.push(v);
    }
    matrix.push(row);
  }
  return matrix;
}

function readCells(value, seeded) {
  const matrix = seeded.map((row) => row.slice());
  for (const cell of value === '*' ? [] : value.slice(1).split(';')) {
    const [i, j, v, extra] = cell.split(',');
    const number = parseNumber(v ?? '');
    if (!/^\d+$/u.test(i) || !/^\d+$/u.test(j) || matrix[i]?.[j] === undefined || extra !== undefined) return undefined;
    if (number === null || Math.abs(number) > LIMITS.typed) return undefined;
    matrix[i][j] = number;
  }
  return matrix;
}

/**
 * A typed matrix of the state (X or a W): every number ("1,2;3,4"), or "*" and the cells unlike the seed's
 * ("*i,j,value;…") when under a quarter of them are (an edit of GPT-2's X: a few bytes, not 900 000 characters).
 */
export const matrix = (name) => ({
  read: (value, state) => {
    const [rows, cols] = matrixShape(state, name);
    return value[0] === '*' ? readCells(value, generatedMatrix(state, name)) : readRows(value, rows, cols);
  },
  why: (state) => {
    const [rows, cols] = matrixShape(state, name);
    return `is not a ${rows}×${cols} matrix of numbers from -1000000 to 1000000, so the seed's numbers are used`;
  },
  write: (rows, state) => {
    const seeded = generatedMatrix(state, name);
    const few = (rows.length * rows[0].length) / 4;
    const cells = [];
    rows.forEach((row, i) =>
      row.forEach((v, j) => v !== seeded[i][j] && cells.length < few && cells.push(`${i},${j},${v}`)),
    );
    return cells.length < few ? `*${cells.join(';')}` : rows.join(';');
  },
});

/** The mask: n rows of n zeros and ones ("10;11"), 1 = may attend. */
export const mask = {
  read: (value, state) => {
    const lines = value.split(';');
    const n = state.n;
    if (lines.length !== n || !lines.every((line) => line.length === n && /^[01]+$/u.test(line))) return undefined;
    return lines.map((line) => Array.from(line, (c) => c === '1'));
  },
  why: (state) => `is not ${state.n} rows of ${state.n} zeros and ones`,
  write: (rows) => rows.map((row) => row.map((b) => (b ? '1' : '0')).join('')).join(';'),
};
