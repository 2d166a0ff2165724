// The hash's rows of the link table (app/link.js's LINK; the elements ship this half): the example's keys, their
// types, readRows, encodeState and decodeState. A type: { read(text, state) → value, or undefined; why(state) → "is
// not …"; write(value, state) → text; partial?(text, value) → a part was left out }. Pure: no DOM.
import { generatedMatrix, matrixShape, resizeMask } from './matrices.js';
import { parseNumber } from './parse.js';
import { MAX_SEED } from './rng.js';
import { checkSizes, DEFAULT_SOURCE, defaultState, LIMITS, ROPE, SLIDING } from './state.js';
import { tokenize } from './tokens.js';

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

/** A number from `min` to `max`, as parseNumber reads it. */
export const number = (min, max, what) => ({
  read: (text) => {
    const value = parseNumber(text);
    return value !== null && value >= min && value <= max ? value : undefined;
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

/** One of `values` (strings or numbers), as written. */
export const oneOf = (values, what = null) => ({
  read: (text) => values.find((v) => String(v) === text),
  why: () => what ?? `is none of ${values.join(', ')}`,
  write: String,
});

/** Any text of at most `max` characters. */
export const text = (max) => ({
  read: (value) => (value.length <= max ? value : undefined),
  why: () => `is longer than ${max} characters`,
  write: String,
});

function readEveryNumber(value, rows, cols) {
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
    return value[0] === '*' ? readCells(value, generatedMatrix(state, name)) : readEveryNumber(value, rows, cols);
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

/** The hash's version: 3 counts the head from 0; 2 and 1 (older pages) counted it from 1, and 1 drew X by row. */
export const LINK_VERSION = 3;

const older = (ctx) => ctx.version < 3;
const MATRICES = ['x', 'wq', 'wk', 'wv', 'wo'];

/**
 * The hash's keys, in the order they are read and written. A row: `key`; `type`; `field`, the value's name in the
 * state; `when`, written only then (default: always); `skip`, neither read nor written; `set`, what
 * reading does besides filling the field; `after`, run once the key is read (or absent); `read` / `why`, the row's
 * own instead of its type's. The query's rows (app/link.js) add `group`.
 */
export const HASH_LINK = [
  {
    key: 'v',
    type: oneOf(['1', '2', '3'], 'is a version this page does not know; reading the rest anyway'),
    get: () => LINK_VERSION,
    set: (state, version, ctx) => {
      ctx.version = Number(version);
      // Version 1 drew X by row number; its links keep doing so, so they open with the numbers they were made with.
      if (version === '1') state.embed = 'row';
    },
  },
  {
    key: 's',
    field: 'sentence',
    type: text(LIMITS.sentenceChars),
    set: (state) => (state.n = Math.min(Math.max(tokenize(state.sentence).length, 1), LIMITS.n)),
  },
  { key: 'n', field: 'n', type: whole(1, LIMITS.n) },
  { key: 'dm', field: 'dModel', type: whole(1, LIMITS.dModel) },
  { key: 'dk', field: 'dK', type: whole(1, LIMITS.dK) },
  { key: 'dv', field: 'dV', type: whole(1, LIMITS.dV) },
  {
    key: 'h',
    field: 'numHeads',
    type: whole(1, LIMITS.numHeads),
    after: (state, warn) => {
      const errors = Object.values(checkSizes(state));
      if (!errors.length) return;
      warn(`${errors.join('; ')}, so the default sizes are used`);
      Object.assign(state, { dK: 4, dV: 4, numHeads: 1 });
    },
  },
  { key: 'seed', field: 'seed', type: whole(0, MAX_SEED) },
  { key: 'dist', field: 'dist', type: oneOf(['normal', 'uniform'], 'is neither normal nor uniform') },
  { key: 'p', field: 'precision', type: whole(0, LIMITS.precision, 'a number of decimals') },
  { key: 'causal', field: 'causal', type: flag },
  { key: 'scale', field: 'scaling', type: flag },
  {
    key: 't',
    field: 'temperature',
    type: number(LIMITS.temperatureMin, LIMITS.temperatureMax, 'a temperature'),
  },
  { key: 'tie', field: 'shareQK', type: flag },
  { key: 'pos', field: 'positions', type: flag },
  {
    key: 'shuf',
    field: 'shuffle',
    type: whole(1, 1_000_000, 'a shuffle number'),
    when: (s) => s.shuffle !== 1,
  },
  { key: 'design', field: 'design', type: flag, when: (s) => s.design },
  {
    key: 'kvh',
    field: 'kvHeads',
    // Read as any head count: one that does not divide the heads gets the lesson's own message.
    type: whole(1, LIMITS.numHeads, 'a number of kv heads'),
    when: (s) => s.kvHeads !== null,
  },
  {
    key: 'src',
    field: 'source',
    type: text(LIMITS.sentenceChars),
    when: (s) => s.source !== DEFAULT_SOURCE,
  },
  {
    key: 'rth',
    field: 'ropeTheta',
    type: oneOf(ROPE.thetas, `is not one of the lesson's theta values (${ROPE.thetas.join(', ')})`),
    when: (s) => s.ropeTheta !== ROPE.defaults.ropeTheta,
  },
  {
    key: 'rsty',
    field: 'ropeStyle',
    type: oneOf(ROPE.styles, 'is neither half nor interleaved'),
    when: (s) => s.ropeStyle !== ROPE.defaults.ropeStyle,
  },
  {
    key: 'rsh',
    field: 'ropeShift',
    type: whole(0, ROPE.maxShift, 'a shift'),
    when: (s) => s.ropeShift !== ROPE.defaults.ropeShift,
  },
  {
    key: 'win',
    field: 'slidingWindow',
    type: whole(1, SLIDING.maxWindow, 'a sliding window'),
    when: (s) => s.slidingWindow !== SLIDING.defaults.slidingWindow,
  },
  {
    key: 'cap',
    field: 'softcap',
    type: number(SLIDING.minSoftcap, SLIDING.maxSoftcap, 'a softcap'),
    when: (s) => s.softcap !== SLIDING.defaults.softcap,
  },
  {
    key: 'head',
    field: 'head',
    type: whole(0, (s) => s.numHeads - 1, 'a head (counted from 0)'),
    when: (s) => s.numHeads > 1,
    // Versions 1 and 2 counted the head from 1: such a link opens the head it meant, and says how it is written now.
    read: (value, state, ctx) => {
      if (!older(ctx)) return undefined;
      const head = whole(1, state.numHeads).read(value, state);
      if (head === undefined) return undefined;
      ctx.note(
        `This link counts heads from 1 (an older version of the page): it opens head ${head - 1}, now written head=${head - 1}.`,
      );
      return head - 1;
    },
    why: (state, ctx) =>
      older(ctx)
        ? `is not a head from 1 to ${state.numHeads} (this older link counts heads from 1)`
        : `is not a head from 0 to ${state.numHeads - 1} (heads count from 0)`,
  },
  ...MATRICES.map((name) => ({
    key: name,
    field: name,
    type: matrix(name),
    // Numbers read from a local file never go into a link: it opens the random example of the same sizes.
    when: (s) => s[name] !== null && !s.fromFile,
    skip: (s) => name === 'wk' && s.shareQK,
  })),
  {
    key: 'mask',
    field: 'mask',
    type: mask,
    when: (s) => s.mask !== null,
    set: (state) => (state.mask = resizeMask(state.mask, state.n)),
  },
];

const shorten = (value) => (value.length > 40 ? `${value.slice(0, 40)}…` : value);

/**
 * Reads `rows` from `params` (URLSearchParams) into `target`; each key that cannot be read is named in ctx.warn.
 * @param {{ version: number, warn: (w: string) => void, note: (n: string) => void }} ctx
 */
export function readRows(rows, params, target, ctx) {
  for (const entry of rows) {
    const value = params.get(entry.key);
    if (value !== null && !entry.skip?.(target)) {
      const read = entry.read?.(value, target, ctx) ?? entry.type.read(value, target, ctx);
      const whyOf = () => (entry.why ?? entry.type.why)(target, ctx);
      if (read === undefined) ctx.warn(`${entry.key}=${shorten(value)} ${whyOf()}`);
      else {
        if (entry.field) target[entry.field] = read;
        if (entry.type.partial?.(value, read)) ctx.warn(`${entry.key}=${shorten(value)} ${whyOf()}`);
        entry.set?.(target, value, ctx);
      }
    }
    entry.after?.(target, ctx.warn);
  }
}

const encode = (value) => encodeURIComponent(value).replace(/%20/gu, '+').replace(/%2C/gu, ',').replace(/%3B/gu, ';');

/**
 * The state as a URL hash (without "#"). Generated matrices are not written, only the seed; typed or pasted numbers
 * are written exactly (the matrix type), so the link reproduces them.
 * @param {object} state  the page's state (its fields: state-types.d.ts)
 * @returns {string}
 */
export function encodeState(state) {
  return HASH_LINK.filter((e) => !e.skip?.(state) && (e.when?.(state) ?? true))
    .map((e) => `${e.key}=${encode(String(e.get ? e.get(state) : e.type.write(state[e.field], state)))}`)
    .join('&');
}

/**
 * Reads a URL hash written by encodeState (or by an older page). Never throws: each part that cannot be read
 * (unknown, out of range, of the wrong shape) is left at its default and named in `warnings`; `notes` say what was
 * read from an older version's form (a head counted from 1) and how it is written now.
 * @param {string} hash  with or without the leading "#"
 * @returns {{ state: object, warnings: string[], notes: string[] }}
 */
export function decodeState(hash) {
  const state = defaultState();
  const warnings = [];
  const notes = [];
  let value = typeof hash === 'string' ? hash : '';
  if (value.startsWith('#')) value = value.slice(1);
  if (value === '') return { state, warnings, notes };
  if (value.length > LIMITS.hashChars) {
    const why = `the link is longer than ${LIMITS.hashChars.toLocaleString('en')} characters, so the default example is shown`;
    return { state, warnings: [why], notes };
  }
  const params = new URLSearchParams(value);
  for (const key of new Set(params.keys())) {
    if (!HASH_LINK.some((e) => e.key === key)) warnings.push(`“${shorten(key)}” is not a setting of this page`);
  }
  const ctx = { version: LINK_VERSION, warn: (w) => warnings.push(w), note: (n) => notes.push(n) };
  readRows(HASH_LINK, params, state, ctx);
  return { state, warnings, notes };
}
