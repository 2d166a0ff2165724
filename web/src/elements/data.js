// Exact numbers for an element: a JSON object (a child <script type="application/json">, or a .json file named by
// `src`), or the tensors of a .npz / .safetensors file (source.js), checked and laid over the attributes' state.
// Pure: no DOM.
import { checkSizes, withSizes } from '../shared/state.js';
import { ELEMENT_LIMITS } from './elementLimits.js';
import { sizesOf } from '../shared/cellEdits.js';
import { tokenWord } from '../shared/tokens.js';

/** The names an exact-numbers object may hold. */
export const DATA_KEYS = ['x', 'wq', 'wk', 'wv', 'wo', 'tokens', 'mask', 'heads'];

export const shorten = (text) => (text.length > 40 ? `${text.slice(0, 40)}…` : text);

/** A polite error: the element shows its message. */
export class InputProblem extends Error {}

/** Reads JSON text, naming where it fails. */
export function parseJson(text, where) {
  try {
    return JSON.parse(text);
  } catch (error) {
    throw new InputProblem(`${where} is not valid JSON (${error.message}); check its brackets and commas`);
  }
}

/** A Tensor (set through the data property), or nested arrays, as nested arrays of numbers. */
const rowsOf = (value) => (value && typeof value.toArray === 'function' ? value.toArray() : value);

function readMatrix(value, name) {
  const rows = rowsOf(value);
  if (!Array.isArray(rows) || rows.length === 0 || !rows.every((row) => Array.isArray(row) && row.length > 0)) {
    throw new InputProblem(`${name} should be a matrix: a non-empty array of non-empty arrays of numbers`);
  }
  const cols = rows[0].length;
  rows.forEach((row, i) => {
    if (row.length !== cols)
      throw new InputProblem(`${name} row ${i} has ${row.length} numbers, but row 0 has ${cols}: rows must be equal`);
    row.forEach((v, j) => {
      if (typeof v !== 'number' || !Number.isFinite(v) || Math.abs(v) > ELEMENT_LIMITS.typed)
        throw new InputProblem(
          `${name}[${i}][${j}] is ${shorten(JSON.stringify(v) ?? String(v))}: use numbers from -1000000 to 1000000`,
        );
    });
  });
  return rows.map((row) => row.slice());
}

function readTokens(value, n) {
  if (!Array.isArray(value) || !value.every((t) => typeof t === 'string' && t.trim() !== '')) {
    throw new InputProblem('tokens should be an array of non-empty strings, one per row of x');
  }
  if (value.length !== n) throw new InputProblem(`tokens has ${value.length} strings, but x has ${n} rows`);
  // A token is one word of the sentence (tokenWord: a tokenizer's space marker dropped, spaces inside shown as "·").
  return value.map((t, i) => tokenWord(t.trim(), `#${i + 1}`)).join(' ');
}

const maskProblem = (n) => new InputProblem(`mask should be ${n} rows of ${n} booleans (true or 1: may attend)`);

function readMask(value, n) {
  if (!Array.isArray(value) || value.length !== n || !value.every((row) => Array.isArray(row) && row.length === n))
    throw maskProblem(n);
  return value.map((row) => row.map((v) => v === true || v === 1));
}

/**
 * The sizes that exact numbers of these shapes give the state, checked against the element's limits: x sets n
 * and d_model, the W's set d_k and d_v (per head: their columns divided by heads). Needs only the shapes, so that a
 * file's are checked before any value is read. Throws InputProblem naming what to fix.
 * @param {object} state  from the attributes
 * @param {Record<string, number[]>} shapes  [rows, columns] of x, wq, wk, wv, wo and mask (those given)
 * @param {unknown} [heads]  the numbers' heads
 */
export function sizesFor(state, shapes, heads) {
  const sizes = sizesOf(state);
  if (heads !== undefined) {
    if (!Number.isInteger(heads) || heads < 1 || heads > ELEMENT_LIMITS.numHeads)
      throw new InputProblem(`heads should be a whole number from 1 to ${ELEMENT_LIMITS.numHeads}`);
    sizes.numHeads = heads;
  }
  if (shapes.x) [sizes.n, sizes.dModel] = shapes.x;
  const H = sizes.numHeads;
  for (const [name, field] of [
    ['wq', 'dK'],
    ['wk', 'dK'],
    ['wv', 'dV'],
  ]) {
    if (!shapes[name]) continue;
    if (shapes[name][1] % H)
      throw new InputProblem(`${name} has ${shapes[name][1]} columns, which ${H} heads cannot share equally`);
    sizes[field] = shapes[name][1] / H;
  }
  if (sizes.n > ELEMENT_LIMITS.n)
    throw new InputProblem(`x has ${sizes.n} rows: an element shows at most ${ELEMENT_LIMITS.n} tokens`);
  const errors = checkSizes(sizes, ELEMENT_LIMITS);
  if (Object.keys(errors).length) throw new InputProblem(Object.values(errors).join('; '));
  const { n, dModel, dK, dV } = sizes;
  const expect = (name, rows, cols, why) => {
    const shape = shapes[name];
    if (shape && (shape[0] !== rows || shape[1] !== cols))
      throw new InputProblem(`${name} is [${shape[0]}, ${shape[1]}], but ${why} it must be [${rows}, ${cols}]`);
  };
  expect('wq', dModel, H * dK, `with x's ${dModel} columns and ${H} head(s) of d_k = ${dK},`);
  expect('wk', dModel, H * dK, `to match wq (d_k = ${dK}) and x (d_model = ${dModel}),`);
  expect('wv', dModel, H * dV, `with x's ${dModel} columns,`);
  expect('wo', H * dV, dModel, `for ${H} head(s) of d_v = ${dV} and d_model = ${dModel},`);
  if (shapes.mask && (shapes.mask[0] !== n || shapes.mask[1] !== n)) throw maskProblem(n);
  return sizes;
}

/**
 * The state with the exact numbers of `data` laid over it (sizesFor says which sizes they set). Throws
 * InputProblem naming what to fix.
 * @param {object} state  from the attributes
 * @param {Record<string, unknown>} data
 */
export function applyData(state, data) {
  if (data === null || typeof data !== 'object' || Array.isArray(data)) {
    throw new InputProblem('the exact numbers should be a JSON object such as {"x": [[…]], "wq": [[…]]}');
  }
  const unknown = Object.keys(data).filter((key) => !DATA_KEYS.includes(key));
  if (unknown.length)
    throw new InputProblem(`unknown key "${shorten(unknown[0])}" in the numbers; the keys are ${DATA_KEYS.join(', ')}`);
  const m = {};
  const shapes = {};
  for (const name of ['x', 'wq', 'wk', 'wv', 'wo']) {
    if (data[name] === undefined) continue;
    m[name] = readMatrix(data[name], name);
    shapes[name] = [m[name].length, m[name][0].length];
  }
  const sizes = sizesFor(state, shapes, data.heads);
  const { n } = sizes;
  let next = withSizes({ ...state, shareQK: false }, sizes);
  if (data.tokens !== undefined) next = { ...next, sentence: readTokens(data.tokens, n) };
  else if (m.x) next = { ...next, sentence: Array.from({ length: n }, (_, i) => `#${i + 1}`).join(' ') };
  for (const name of Object.keys(m)) next[name] = m[name];
  if (data.mask !== undefined) {
    const mask = readMask(data.mask, n);
    next.mask = mask.every((row) => row.every(Boolean)) ? null : mask;
  }
  return next;
}
