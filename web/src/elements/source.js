// The file an element's src names, loaded with this module only when an element has a src: a .json file as an
// exact-numbers object, or a .npz / .safetensors file through attention-wasm/io (loaded only for those). Of a
// tensor file, every tensor the element uses (x, wq, wk, wv, wo, mask) has its shape checked against the element's
// state and limits before any value is read, and no other tensor is read at all.
import { loadIo } from './api.js';
import { InputProblem, parseJson, shorten, sizesFor } from './data.js';

const USED = ['x', 'wq', 'wk', 'wv', 'wo', 'mask'];

/**
 * Opens a tensor file's bytes by its tensors' headers alone.
 * @param {'npz' | 'safetensors'} kind
 * @param {Uint8Array} bytes
 * @param {string} source  `src="…"`, for messages
 * @returns {Promise<(state: object) => Promise<Record<string, unknown>>>} the exact numbers for an element's
 *   state: the tensors' shapes checked by sizesFor, then their values read (once for every element)
 */
async function openTensorFile(kind, bytes, source) {
  const problem = (error) =>
    error instanceof InputProblem
      ? error
      : new InputProblem(`${source} could not be read as .${kind}: ${error.message}`);
  let file;
  try {
    const io = await loadIo();
    file = kind === 'npz' ? await io.openNpz(bytes) : await io.openSafetensors(bytes);
  } catch (error) {
    throw problem(error);
  }
  const found = new Map();
  for (const { name, shape } of kind === 'npz' ? file.arrays : file.tensors) {
    const key = name.replace(/\.npy$/u, '');
    if (USED.includes(key)) found.set(key, { name, shape });
  }
  if (!found.has('x')) throw new InputProblem(`${source} holds no tensor named x (the embeddings, [n, d_model])`);
  for (const [key, { shape }] of found) {
    if (shape.length !== 2)
      throw new InputProblem(`${key} in ${source} has shape [${shape.join(', ')}], but it should be a matrix`);
  }
  const shapes = Object.fromEntries([...found].map(([key, { shape }]) => [key, shape]));
  const values = new Map();
  // Nested arrays of numbers (int64 data's bigints as numbers); the mask's as booleans, non-zero = may attend.
  const read = (key) =>
    file.read(found.get(key).name).then((tensor) => {
      const rows = tensor.toArray().map((row) => row.map(Number));
      return key === 'mask' ? rows.map((row) => row.map((v) => v !== 0)) : rows;
    });
  return async (state) => {
    sizesFor(state, shapes);
    const data = {};
    for (const key of found.keys()) {
      if (!values.has(key)) values.set(key, read(key));
      data[key] = await values.get(key).catch((error) => Promise.reject(problem(error)));
    }
    return data;
  };
}

/**
 * Reads the file named by `src`: .json as an exact-numbers object; .npz and .safetensors by their tensors' shapes
 * first (openTensorFile).
 * @param {string} url  absolute
 * @param {(url: string) => Promise<Response>} fetcher
 * @param {string} [shown]  the attribute as written, for messages
 * @returns {Promise<(state: object) => object | Promise<object>>} the exact numbers for an element's state
 */
export async function loadSource(url, fetcher, shown = url) {
  const path = url.split(/[?#]/u)[0].toLowerCase();
  const kind = path.endsWith('.npz') ? 'npz' : path.endsWith('.safetensors') ? 'safetensors' : 'json';
  const source = `src="${shorten(shown)}"`;
  let response;
  try {
    response = await fetcher(url);
  } catch (error) {
    throw new InputProblem(`${source} could not be fetched (${error.message})`);
  }
  if (!response.ok) throw new InputProblem(`${source} could not be fetched: HTTP ${response.status}`);
  if (kind !== 'json') return openTensorFile(kind, new Uint8Array(await response.arrayBuffer()), source);
  const data = parseJson(await response.text(), source);
  return () => data;
}
