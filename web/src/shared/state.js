// The page's whole state, its limits, and its encoding in the URL hash (a permalink).
import { INPUT_NAMES, generatedMatrix, matrixShape, resizeMask, resizeOverride } from './matrices.js';
import { parseNumber } from './parse.js';
import { MAX_SEED } from './rng.js';
import { tokenize } from './tokens.js';

/**
 * What the page accepts. Heads sit side by side in the weight matrices, so numHeads·dK and numHeads·dV
 * are limited too.
 */
export const LIMITS = Object.freeze({
  n: 256,
  dModel: 1024,
  dK: 128,
  dV: 128,
  numHeads: 16,
  headsWidth: 1024,
  precision: 7,
  temperatureMin: 0.05,
  temperatureMax: 5,
  sentenceChars: 2000,
  hashChars: 200_000,
  // The largest magnitude a number may have, typed, pasted or read from a link.
  typed: 1e6,
});

/** The names of the sizes, as the page writes them. */
export const SIZE_NAMES = { n: 'n', dModel: 'd_model', dK: 'd_k', dV: 'd_v', numHeads: 'heads' };

/** @typedef {object} State  the page's whole state; its fields are typed and documented in state-types.d.ts */

/** The cross-attention lesson's second sentence, until one is typed: the default sentence in French. */
export const DEFAULT_SOURCE = 'le temps vole comme une flèche';

// Page-only parts of the state and its link (ropeLink.js), added by their modules: the elements never load them.
const stateParts = [];

/** Adds a part: { defaults, fields (its link keys), pairs(state) → [key, value][], read(get, bad, state) }. */
export function addStatePart(part) {
  stateParts.push(part);
}

/** The default example: "time flies like an arrow". @returns {State} */
export function defaultState() {
  return {
    sentence: 'time flies like an arrow',
    n: 5,
    dModel: 8,
    dK: 4,
    dV: 4,
    numHeads: 1,
    seed: 42,
    dist: 'normal',
    precision: 3,
    causal: false,
    scaling: true,
    temperature: 1,
    shareQK: false,
    head: 0,
    x: null,
    wq: null,
    wk: null,
    wv: null,
    wo: null,
    mask: null,
    embed: 'token',
    positions: false,
    shuffle: 1,
    design: false,
    kvHeads: null,
    source: DEFAULT_SOURCE,
    ...Object.assign({}, ...stateParts.map((part) => part.defaults)),
  };
}

/**
 * Checks sizes against the limits (the page's, or the smaller ones of the embeddable elements).
 * @param {{ n: number, dModel: number, dK: number, dV: number, numHeads: number }} sizes
 * @returns {Record<string, string>} a message per size that is out of range (empty when all are fine)
 */
export function checkSizes(sizes, limits = LIMITS) {
  const errors = {};
  for (const key of Object.keys(SIZE_NAMES)) {
    const value = sizes[key];
    const max = limits[key];
    if (typeof value !== 'number' || !Number.isInteger(value) || value < 1 || value > max) {
      errors[key] = `${SIZE_NAMES[key]} must be a whole number from 1 to ${max}`;
    }
  }
  if (!errors.numHeads) {
    for (const key of ['dK', 'dV']) {
      if (!errors[key] && sizes.numHeads * sizes[key] > limits.headsWidth) {
        errors[key] =
          `heads × ${SIZE_NAMES[key]} is ${sizes.numHeads * sizes[key]}, over ${limits.headsWidth}: lower ${SIZE_NAMES[key]} or the heads`;
      }
    }
  }
  return errors;
}

/**
 * The state with new sizes, carrying over typed numbers (overrides and mask) that still fit.
 * Sizes must have passed checkSizes.
 * @returns {State}
 */
export function withSizes(state, sizes) {
  const next = { ...state, ...sizes };
  next.head = Math.min(state.head, next.numHeads - 1);
  for (const name of INPUT_NAMES) next[name] = resizeOverride(state[name], state, next, name);
  if (next.shareQK) next.wk = null;
  next.mask = resizeMask(state.mask, next.n);
  return next;
}

const FIELDS = [
  'v',
  's',
  'n',
  'dm',
  'dk',
  'dv',
  'h',
  'seed',
  'dist',
  'p',
  'causal',
  'scale',
  't',
  'tie',
  'head',
  'x',
  'wq',
  'wk',
  'wv',
  'wo',
  'mask',
  'pos',
  'shuf',
  'design',
  'kvh',
  'src',
];

const encode = (text) => encodeURIComponent(text).replace(/%20/gu, '+').replace(/%2C/gu, ',').replace(/%3B/gu, ';');

// A typed matrix in a link: "*" and the cells unlike the seed's ("*i,j,value;…") when under a quarter are, else
// every number (an edit of GPT-2's X: a few bytes, not 900 000 characters).
function encodeMatrix(state, name) {
  const rows = state[name];
  const seeded = generatedMatrix(state, name);
  const few = (rows.length * rows[0].length) / 4;
  const cells = [];
  rows.forEach((row, i) =>
    row.forEach((v, j) => v !== seeded[i][j] && cells.length < few && cells.push(`${i},${j},${v}`)),
  );
  return cells.length < few ? `*${cells.join(';')}` : rows.join(';');
}

/**
 * The state as a URL hash (without "#"). Generated matrices are not written, only the seed; typed or pasted
 * numbers are written exactly (encodeMatrix), so the link reproduces them.
 * @param {State} state
 * @returns {string}
 */
export function encodeState(state) {
  const pairs = [
    ['v', '2'],
    ['s', state.sentence],
    ['n', state.n],
    ['dm', state.dModel],
    ['dk', state.dK],
    ['dv', state.dV],
    ['h', state.numHeads],
    ['seed', state.seed],
    ['dist', state.dist],
    ['p', state.precision],
    ['causal', state.causal ? 1 : 0],
    ['scale', state.scaling ? 1 : 0],
    ['t', state.temperature],
    ['tie', state.shareQK ? 1 : 0],
    ['pos', state.positions ? 1 : 0],
  ];
  if (state.shuffle !== 1) pairs.push(['shuf', state.shuffle]);
  if (state.design) pairs.push(['design', 1]);
  if (state.kvHeads !== null) pairs.push(['kvh', state.kvHeads]);
  if (state.source !== DEFAULT_SOURCE) pairs.push(['src', state.source]);
  for (const part of stateParts) pairs.push(...part.pairs(state));
  if (state.numHeads > 1) pairs.push(['head', state.head + 1]);
  for (const name of INPUT_NAMES) {
    // Numbers read from a local file never go into a link: it opens the random example of the same sizes.
    if (state.fromFile) break;
    if (state[name] && !(name === 'wk' && state.shareQK)) pairs.push([name, encodeMatrix(state, name)]);
  }
  if (state.mask) pairs.push(['mask', state.mask.map((row) => row.map((b) => (b ? '1' : '0')).join('')).join(';')]);
  return pairs.map(([key, value]) => `${key}=${encode(String(value))}`).join('&');
}

function readInteger(text, min, max) {
  if (!/^\d{1,10}$/u.test(text)) return null;
  const value = Number(text);
  return value >= min && value <= max ? value : null;
}

function readMatrix(text, rows, cols, seeded) {
  if (text[0] === '*') {
    const matrix = seeded().map((row) => row.slice());
    for (const cell of text === '*' ? [] : text.slice(1).split(';')) {
      const [i, j, v, extra] = cell.split(',');
      const value = parseNumber(v ?? '');
      if (!/^\d+$/u.test(i) || !/^\d+$/u.test(j) || matrix[i]?.[j] === undefined || extra !== undefined) return null;
      if (value === null || Math.abs(value) > LIMITS.typed) return null;
      matrix[i][j] = value;
    }
    return matrix;
  }
  const lines = text.split(';');
  if (lines.length !== rows) return null;
  const matrix = [];
  for (const line of lines) {
    const fields = line.split(',');
    if (fields.length !== cols) return null;
    const row = [];
    for (const field of fields) {
      const value = parseNumber(field);
      if (value === null || Math.abs(value) > LIMITS.typed) return null;
      row.push(value);
    }
    matrix.push(row);
  }
  return matrix;
}

function readMask(text, n) {
  const lines = text.split(';');
  if (lines.length !== n || !lines.every((line) => line.length === n && /^[01]+$/u.test(line))) return null;
  return lines.map((line) => Array.from(line, (c) => c === '1'));
}

const shorten = (text) => (text.length > 40 ? `${text.slice(0, 40)}…` : text);

/**
 * Reads a URL hash written by encodeState. Never throws: each part that cannot be read (unknown, out of range,
 * of the wrong shape) is left at its default and named in `warnings`.
 * @param {string} hash  with or without the leading "#"
 * @returns {{ state: State, warnings: string[] }}
 */
export function decodeState(hash) {
  const state = defaultState();
  const warnings = [];
  let text = typeof hash === 'string' ? hash : '';
  if (text.startsWith('#')) text = text.slice(1);
  if (text === '') return { state, warnings };
  if (text.length > LIMITS.hashChars) {
    return {
      state,
      warnings: [
        `the link is longer than ${LIMITS.hashChars.toLocaleString('en')} characters, so the default example is shown`,
      ],
    };
  }
  const params = new URLSearchParams(text);
  const get = (key) => params.get(key);
  const bad = (key, why) => warnings.push(`${key}=${shorten(String(get(key)))} ${why}`);
  for (const key of new Set(params.keys())) {
    if (!FIELDS.includes(key) && !stateParts.some((part) => part.fields.includes(key)))
      warnings.push(`“${shorten(key)}” is not a setting of this page`);
  }
  if (get('v') !== null && get('v') !== '1' && get('v') !== '2')
    bad('v', 'is a version this page does not know; reading the rest anyway');
  // Version 1 drew X by row number; its links keep doing so, so they open with the numbers they were made with.
  if (get('v') === '1') state.embed = 'row';

  if (get('s') !== null) {
    const sentence = get('s');
    if (sentence.length > LIMITS.sentenceChars) bad('s', `is longer than ${LIMITS.sentenceChars} characters`);
    else state.sentence = sentence;
  }
  if (get('src') !== null) {
    if (get('src').length > LIMITS.sentenceChars) bad('src', `is longer than ${LIMITS.sentenceChars} characters`);
    else state.source = get('src');
  }
  const tokenCount = tokenize(state.sentence).length;
  const sizes = {
    n: Math.min(Math.max(tokenCount, 1), LIMITS.n),
    dModel: state.dModel,
    dK: state.dK,
    dV: state.dV,
    numHeads: state.numHeads,
  };
  const sizeKeys = { n: 'n', dm: 'dModel', dk: 'dK', dv: 'dV', h: 'numHeads' };
  for (const [key, field] of Object.entries(sizeKeys)) {
    if (get(key) === null) continue;
    const value = readInteger(get(key), 1, LIMITS[field]);
    if (value === null) bad(key, `is not a whole number from 1 to ${LIMITS[field]}`);
    else sizes[field] = value;
  }
  if (Object.keys(checkSizes(sizes)).length) {
    warnings.push(Object.values(checkSizes(sizes)).join('; ') + ', so the default sizes are used');
    Object.assign(sizes, { dK: 4, dV: 4, numHeads: 1 });
  }
  Object.assign(state, sizes);

  if (get('seed') !== null) {
    const seed = readInteger(get('seed'), 0, MAX_SEED);
    if (seed === null) bad('seed', `is not a whole number from 0 to ${MAX_SEED}`);
    else state.seed = seed;
  }
  if (get('dist') !== null) {
    if (get('dist') === 'normal' || get('dist') === 'uniform') state.dist = get('dist');
    else bad('dist', 'is neither normal nor uniform');
  }
  if (get('p') !== null) {
    const precision = readInteger(get('p'), 0, LIMITS.precision);
    if (precision === null) bad('p', `is not a number of decimals from 0 to ${LIMITS.precision}`);
    else state.precision = precision;
  }
  for (const [key, field] of [
    ['causal', 'causal'],
    ['scale', 'scaling'],
    ['tie', 'shareQK'],
    ['pos', 'positions'],
    ['design', 'design'],
  ]) {
    if (get(key) === null) continue;
    if (get(key) === '0' || get(key) === '1') state[field] = get(key) === '1';
    else bad(key, 'is neither 0 nor 1');
  }
  if (get('t') !== null) {
    const t = parseNumber(get('t'));
    if (t === null || t < LIMITS.temperatureMin || t > LIMITS.temperatureMax) {
      bad('t', `is not a temperature from ${LIMITS.temperatureMin} to ${LIMITS.temperatureMax}`);
    } else state.temperature = t;
  }
  if (get('shuf') !== null) {
    const shuffle = readInteger(get('shuf'), 1, 1_000_000);
    if (shuffle === null) bad('shuf', 'is not a shuffle number from 1 to 1000000');
    else state.shuffle = shuffle;
  }
  if (get('kvh') !== null) {
    // Read as any head count: one that does not divide the heads gets the lesson's own message.
    const kvHeads = readInteger(get('kvh'), 1, LIMITS.numHeads);
    if (kvHeads === null) bad('kvh', `is not a number of kv heads from 1 to ${LIMITS.numHeads}`);
    else state.kvHeads = kvHeads;
  }
  for (const part of stateParts) part.read(get, bad, state);
  if (get('head') !== null) {
    const head = readInteger(get('head'), 1, state.numHeads);
    if (head === null) bad('head', `is not a head from 1 to ${state.numHeads}`);
    else state.head = head - 1;
  }
  for (const name of INPUT_NAMES) {
    if (get(name) === null || (name === 'wk' && state.shareQK)) continue;
    const [rows, cols] = matrixShape(state, name);
    const matrix = readMatrix(get(name), rows, cols, () => generatedMatrix(state, name));
    if (matrix === null)
      bad(name, `is not a ${rows}×${cols} matrix of numbers from -1000000 to 1000000, so the seed's numbers are used`);
    else state[name] = matrix;
  }
  if (get('mask') !== null) {
    const mask = readMask(get('mask'), state.n);
    if (mask === null) bad('mask', `is not ${state.n} rows of ${state.n} zeros and ones`);
    else state.mask = resizeMask(mask, state.n);
  }
  return { state, warnings };
}
