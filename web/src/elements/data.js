// Exact numbers for an element: a JSON object (a child <script type="application/json">, or a .json file named by
// `src`), or the tensors of a .npz / .safetensors file, checked and laid over the attributes' state. Pure: no DOM.
import { checkSizes, withSizes } from '../model/state.js';
import { ELEMENT_LIMITS } from './limits.js';
import { sizesOf } from '../model/edits.js';
import { tokenWord } from '../model/tokens.js';

/** The names an exact-numbers object may hold. */
export const DATA_KEYS = ['x', 'wq', 'wk', 'wv', 'wo', 'tokens', 'mask', 'heads'];

const shorten = (text) => (text.length > 40 ? `${text.slice(0, 40)}…` : text);

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

/** A tensor from attention-wasm/io, or nested arrays, as nested arrays of numbers. */
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

function expectShape(matrix, name, rows, cols, why) {
  if (matrix.length !== rows || matrix[0].length !== cols) {
    throw new InputProblem(
      `${name} is [${matrix.length}, ${matrix[0].length}], but ${why} it must be [${rows}, ${cols}]`,
    );
  }
}

function readTokens(value, n) {
  if (!Array.isArray(value) || !value.every((t) => typeof t === 'string' && t.trim() !== '')) {
    throw new InputProblem('tokens should be an array of non-empty strings, one per row of x');
  }
  if (value.length !== n) throw new InputProblem(`tokens has ${value.length} strings, but x has ${n} rows`);
  // A token is one word of the sentence (tokenWord: a tokenizer's space marker dropped, spaces inside shown as "·").
  return value.map((t, i) => tokenWord(t.trim(), `#${i + 1}`)).join(' ');
}

function readMask(value, n) {
  if (!Array.isArray(value) || value.length !== n || !value.every((row) => Array.isArray(row) && row.length === n))
    throw new InputProblem(`mask should be ${n} rows of ${n} booleans (true or 1: may attend)`);
  return value.map((row) => row.map((v) => v === true || v === 1));
}

/**
 * The state with the exact numbers of `data` laid over it: x sets n and d_model, the W's set d_k and d_v (per
 * head: their columns divided by heads). Throws InputProblem naming what to fix.
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
  for (const name of ['x', 'wq', 'wk', 'wv', 'wo'])
    if (data[name] !== undefined) m[name] = readMatrix(data[name], name);
  const sizes = sizesOf(state);
  if (data.heads !== undefined) {
    if (!Number.isInteger(data.heads) || data.heads < 1 || data.heads > ELEMENT_LIMITS.numHeads)
      throw new InputProblem(`heads should be a whole number from 1 to ${ELEMENT_LIMITS.numHeads}`);
    sizes.numHeads = data.heads;
  }
  if (m.x) [sizes.n, sizes.dModel] = [m.x.length, m.x[0].length];
  const H = sizes.numHeads;
  for (const [name, field] of [
    ['wq', 'dK'],
    ['wk', 'dK'],
    ['wv', 'dV'],
  ]) {
    if (!m[name]) continue;
    if (m[name][0].length % H)
      throw new InputProblem(`${name} has ${m[name][0].length} columns, which ${H} heads cannot share equally`);
    sizes[field] = m[name][0].length / H;
  }
  if (sizes.n > ELEMENT_LIMITS.n)
    throw new InputProblem(`x has ${sizes.n} rows: an element shows at most ${ELEMENT_LIMITS.n} tokens`);
  const errors = checkSizes(sizes, ELEMENT_LIMITS);
  if (Object.keys(errors).length) throw new InputProblem(Object.values(errors).join('; '));
  const { n, dModel, dK, dV } = sizes;
  if (m.wq) expectShape(m.wq, 'wq', dModel, H * dK, `with x's ${dModel} columns and ${H} head(s) of d_k = ${dK},`);
  if (m.wk) expectShape(m.wk, 'wk', dModel, H * dK, `to match wq (d_k = ${dK}) and x (d_model = ${dModel}),`);
  if (m.wv) expectShape(m.wv, 'wv', dModel, H * dV, `with x's ${dModel} columns,`);
  if (m.wo) expectShape(m.wo, 'wo', H * dV, dModel, `for ${H} head(s) of d_v = ${dV} and d_model = ${dModel},`);
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

/**
 * Reads a file named by `src`: .json as an exact-numbers object; .npz and .safetensors as tensors named x, wq, wk,
 * wv, wo (and mask).
 * @param {string} url  absolute
 * @param {(url: string) => Promise<Response>} fetcher
 * @param {(kind: 'npz' | 'safetensors', bytes: Uint8Array) => Promise<Record<string, unknown>>} readTensors
 * @param {string} [shown]  the attribute as written, for messages
 */
export async function loadSource(url, fetcher, readTensors, shown = url) {
  const path = url.split(/[?#]/u)[0].toLowerCase();
  const kind = path.endsWith('.npz') ? 'npz' : path.endsWith('.safetensors') ? 'safetensors' : 'json';
  let response;
  try {
    response = await fetcher(url);
  } catch (error) {
    throw new InputProblem(`src="${shorten(shown)}" could not be fetched (${error.message})`);
  }
  if (!response.ok) throw new InputProblem(`src="${shorten(shown)}" could not be fetched: HTTP ${response.status}`);
  if (kind === 'json') return parseJson(await response.text(), `src="${shorten(shown)}"`);
  let tensors;
  try {
    tensors = await readTensors(kind, new Uint8Array(await response.arrayBuffer()));
  } catch (error) {
    throw new InputProblem(`src="${shorten(shown)}" could not be read as .${kind}: ${error.message}`);
  }
  const data = {};
  for (const [name, tensor] of Object.entries(tensors)) {
    const key = name.replace(/\.npy$/u, '');
    if (DATA_KEYS.includes(key))
      data[key] = key === 'mask' ? tensor.toArray().map((r) => r.map((v) => v !== 0)) : tensor;
  }
  if (!data.x) throw new InputProblem(`src="${shorten(shown)}" holds no tensor named x (the embeddings, [n, d_model])`);
  return data;
}
