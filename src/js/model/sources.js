// Where a checkpoint's files come from, as one folder: a list of Files (a dropped folder, <input webkitdirectory>,
// picked files), a record or Map of names to Blobs or bytes, and in Node a folder path (sources-node.js installs
// that reader; this file names no Node built-in). A folder lists its file names and gives each file as a Blob (or
// bytes) that is read by slices, never whole, and small text files (config.json) whole after a size check.
import { AttentionError, describe, unknownKeyError } from '../errors.js';
import { isBlob, rangeReader } from '../io/bytes.js';
import { guarded, readRecord } from '../read.js';
import { webFolder } from './sources-url.js';

// The largest JSON file read whole: config.json and model.safetensors.index.json are a few kB to a few MB.
export const MAX_JSON_BYTES = 64 * 2 ** 20;

let folderFromPath; // (path: string) => Promise<Folder>, in Node only

/** Installs the Node reader of folder paths (sources-node.js). */
export function installFolderReader(reader) {
  folderFromPath = reader;
}

const baseName = (path) => path.split(/[\\/]/).pop();

/**
 * @typedef {object} Folder
 * @property {string} description        for messages: "the 3 files given", "the folder /models/gpt2"
 * @property {string[]} names           the file names (without folders)
 * @property {(name: string) => number} size
 * @property {(name: string) => Promise<Blob | Uint8Array | RangeReader>} file   what is read by slices
 * @property {(name: string, max: number) => Promise<Uint8Array>} [whole]  a web folder's JSON file, size-checked
 * @property {(name: string) => void} [expect]  a web folder takes a shard the index names as there until it is read
 */

/** @typedef {{ size: number, read: (begin: number, end: number, where: string, signal?: AbortSignal) => Promise<Uint8Array> }} RangeReader */

/** A folder's file as a range reader: a Blob by slices, bytes in memory, or a web folder's reader as it is. */
export const readerOf = (file) =>
  isBlob(file) || ArrayBuffer.isView(file) ? rangeReader(file, 'openSafetensors') : file;

/** A folder of in-memory entries: name → Blob or bytes. */
function folderOf(entries, description) {
  const files = new Map();
  for (const [path, value] of entries) {
    const name = baseName(path);
    let file;
    if (isBlob(value)) file = value;
    else if (value instanceof ArrayBuffer) file = new Uint8Array(value);
    else if (ArrayBuffer.isView(value)) file = new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
    else if (typeof value === 'string') file = new TextEncoder().encode(value);
    else {
      throw new AttentionError(
        'BAD_OPTION',
        `the source's entry ${JSON.stringify(path)} is ${describe(value)}: give a Blob, a File, bytes or a string`,
      );
    }
    if (files.has(name)) {
      throw new AttentionError(
        'BAD_OPTION',
        `the source holds two files named ${JSON.stringify(name)}: give one folder's files`,
      );
    }
    files.set(name, file);
  }
  return {
    description,
    names: [...files.keys()],
    size: (name) => (isBlob(files.get(name)) ? files.get(name).size : files.get(name).length),
    file: async (name) => files.get(name),
  };
}

const isFileList = (value) => typeof FileList === 'function' && value instanceof FileList;
const isPlain = (value) =>
  value !== null && typeof value === 'object' && [Object.prototype, null].includes(Object.getPrototypeOf(value));

const SOURCES = `a list of Files, a Map or object of file names ('config.json', 'model.safetensors', …) to Blobs or bytes, a folder URL (http:// or https://), { hub: 'owner/name' }`;

/** BAD_OPTION for a string that is neither a folder URL nor (in Node) a folder path: what to give instead. */
function badString(text) {
  if (text.trim() === '') {
    return new AttentionError('BAD_OPTION', `a model source is an empty string: give ${SOURCES}`);
  }
  const shown = JSON.stringify(text.slice(0, 200));
  if (/^[a-z][\w+.-]*:/iu.test(text)) {
    return new AttentionError('BAD_OPTION', `a model URL must be http(s), got ${shown}: give ${SOURCES}`);
  }
  if (/^[\\/][\\/]/u.test(text)) {
    return new AttentionError(
      'BAD_OPTION',
      `${shown} names a host without a scheme: give its URL in full, https://${text.replace(/^[\\/]+/u, '')}`,
    );
  }
  return new AttentionError(
    'BAD_OPTION',
    `a model source given as text is a folder URL (http:// or https://), and ${shown} is not one: for a folder beside the page, give new URL(${shown}, document.baseURI); for a model on the Hub, { hub: 'owner/name' } (parseModelSource(text) reads either)`,
  );
}

/**
 * What a source is, read once (a caller's getter or Proxy trap that throws is BAD_OPTION, as everywhere):
 * { web } (a URL, a URL's text, or a { hub } record's copy), { path } (Node), or { entries, description }.
 */
function readSource(source) {
  if (typeof URL === 'function' && source instanceof URL) {
    return source.protocol === 'file:' && folderFromPath ? { path: source } : { web: source };
  }
  if (typeof source === 'string') {
    if (/^https?:\/\//iu.test(source)) return { web: source };
    if (folderFromPath && source.trim() !== '') return { path: source };
    throw badString(source);
  }
  if (isFileList(source) || (Array.isArray(source) && source.length > 0 && source.every(isBlob))) {
    const files = [...source];
    const entries = files.map((file) => [file.webkitRelativePath || file.name || '', file]);
    return { entries, description: `the ${files.length} files given` };
  }
  if (source instanceof Map) return { entries: [...source], description: `the ${source.size} files given` };
  if (isPlain(source)) {
    const keys = Object.keys(source);
    if (keys.includes('hub')) {
      const record = readRecord(source, 'a { hub } source', HUB_KEYS, 'key of a { hub } source');
      return { web: Object.fromEntries(Object.entries(record).filter(([, value]) => value !== undefined)) };
    }
    // Files have names with a dot (config.json, model.safetensors): keys without one are a misspelt { hub }.
    if (keys.length && !keys.some((key) => key.includes('.'))) {
      const error = unknownKeyError(keys[0], HUB_KEYS, 'key of a { hub } source');
      throw new AttentionError(
        error.code,
        `${error.message}; a source of files in memory names them ('config.json', 'model.safetensors', …)`,
      );
    }
    const entries = keys.map((key) => [key, source[key]]);
    return { entries, description: `the ${entries.length} files given` };
  }
  throw new AttentionError(
    'BAD_OPTION',
    `a model source must be ${SOURCES}${folderFromPath ? ' or a folder path' : ''}; got ${describe(source)}`,
  );
}

const HUB_KEYS = ['hub', 'revision', 'base'];

/**
 * The folder of a source: File[] or a FileList (named by webkitRelativePath or name), a Map or plain object of
 * name → Blob, File, ArrayBuffer, typed array or string, a folder URL or `{ hub }` (sources-url.js), or in Node a
 * folder path or its file: URL (as a URL or as text). `options` ({ signal, cache, onProgress }) are for web folders.
 * @returns {Promise<Folder>}
 */
export async function openFolder(source, options = {}) {
  const read = guarded('BAD_OPTION', 'the model source', () => readSource(source));
  if (read.web) return webFolder(read.web, { ...options, maxJson: MAX_JSON_BYTES });
  if (read.path) return folderFromPath(read.path);
  return guarded('BAD_OPTION', 'the model source', () => folderOf(read.entries, read.description));
}

/** MISSING_FILE for `name`, listing what the folder has. */
export function missingFile(folder, name, why = '') {
  const some = folder.names.slice(0, 12).join(', ');
  return new AttentionError(
    'MISSING_FILE',
    `${name} is not in ${folder.description}${why}; there are: ${some || 'no files'}${folder.names.length > 12 ? ', …' : ''}`,
  );
}

/** A JSON file of the folder, read whole once its size is checked. */
export async function readJson(folder, name, parse) {
  if (!folder.names.includes(name)) throw missingFile(folder, name);
  const bytes = folder.whole ? await folder.whole(name, MAX_JSON_BYTES) : await wholeFile(folder, name);
  // A web folder's file is named by its URL: a server that answers a wrong path with a page says where.
  const shown = folder.url ? new URL(name, folder.url).href : name;
  let text;
  try {
    text = new TextDecoder('utf-8', { fatal: true }).decode(bytes);
  } catch (cause) {
    throw new AttentionError('BAD_FILE', `${shown} is not UTF-8 text`, { cause });
  }
  try {
    return parse(text, shown);
  } catch (error) {
    if (!/^\s*</u.test(text) || error?.code === undefined) throw error;
    throw new AttentionError(
      error.code,
      `${shown} is an HTML page, not JSON: a wrong URL, or a server that answers every path with its index page (${text.trim().slice(0, 40)}…)`,
      { cause: error },
    );
  }
}

/** A listed folder's file whole, once its size is checked. */
async function wholeFile(folder, name) {
  const size = folder.size(name);
  if (size > MAX_JSON_BYTES) {
    throw new AttentionError(
      'BAD_FILE',
      `${name} has ${size} bytes, more than the ${MAX_JSON_BYTES} a JSON file of a checkpoint may have`,
    );
  }
  const file = await folder.file(name);
  return isBlob(file) ? new Uint8Array(await file.arrayBuffer()) : file;
}
