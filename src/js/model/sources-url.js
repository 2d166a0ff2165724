// A checkpoint's folder on a web server: a folder URL, or a model id on the Hub (or a mirror of its layout). A URL
// cannot list its files, so the known names are probed: config.json; model.safetensors, else
// model.safetensors.index.json and the shards it names; tokenizer.json and tokenizer_config.json when there. JSON
// files are read whole after a size check; a safetensors file by Range requests (http.js), its header first, then one
// tensor (or rows of one) at a time. An optional cache (cache.js, or any object with get/set) keeps each answer.
import { AttentionError, describe, unknownKeyError } from '../errors.js';
import { checkFileName } from './file-names.js';
import { fetchRange, fetchWhole, fileSize } from './http.js';
import { changedError, differs, holds, rangeOf } from './web-answers.js';
import { joinedReads, readQueue, writeBehind } from './web-reads.js';

/** The Hub's public address: a `{ hub }` source reads `${HUB_URL}/${id}/resolve/${revision}/${file}`. */
export const HUB_URL = 'https://huggingface.co';

const SINGLE = 'model.safetensors';
const INDEX = 'model.safetensors.index.json';
const OPTIONAL = ['tokenizer.json', 'tokenizer_config.json'];
const MODEL_ID = /^[\w.-]+(\/[\w.-]+)?$/;

/** For a message about a string source shaped like 'owner/name': how to give it as a Hub id; else ''. */
export const hubHint = (source) =>
  typeof source === 'string' && /^[\w.-]+\/[\w.-]+$/.test(source)
    ? ` (for the Hub's model, give { hub: ${JSON.stringify(source)} })`
    : '';

/**
 * An http(s) URL of `text` (a string or URL), or BAD_OPTION naming `what` and the text: never a raw TypeError. A
 * space or control character in the host is refused here, as the URL standard does (not every browser does).
 */
export function httpUrl(text, what) {
  let url;
  try {
    if (typeof text === 'string' && /^[a-z]+:\/*[^/?#]*\s/iu.test(text.trim())) throw new Error('a space in the host');
    url = new URL(text instanceof URL ? text.href : text);
  } catch {
    throw new AttentionError('BAD_OPTION', `${what} ${JSON.stringify(String(text).slice(0, 200))} is not a valid URL`);
  }
  if (!/^https?:$/.test(url.protocol)) {
    throw new AttentionError(
      'BAD_OPTION',
      `${what} must be an http(s) URL, got ${JSON.stringify(url.href.slice(0, 200))}`,
    );
  }
  return url;
}

/** A branch, tag or commit, as one segment of the URL under resolve/: never `.` or `..`, which would climb out. */
export function checkRevision(revision) {
  if (typeof revision !== 'string' || revision === '') {
    throw new AttentionError('BAD_OPTION', `revision must be a branch, tag or commit, got ${describe(revision)}`);
  }
  if (revision.split('/').some((part) => part === '' || part === '.' || part === '..')) {
    throw new AttentionError(
      'BAD_OPTION',
      `revision ${JSON.stringify(revision.slice(0, 130))} is not a branch, tag or commit: it has an empty, '.' or '..' part, which would leave the model's resolve/ folder`,
    );
  }
  return revision;
}

/** The folder URL of a `{ hub, revision, base }` source. */
function hubFolder({ hub, revision = 'main', base = HUB_URL, ...rest }) {
  const unknown = Object.keys(rest);
  if (unknown.length) {
    const [first] = unknown;
    throw unknownKeyError(first, ['hub', 'revision', 'base'], 'key of a { hub } source');
  }
  if (typeof hub !== 'string' || !MODEL_ID.test(hub) || hub.split('/').some((part) => /^\.+$/.test(part))) {
    throw new AttentionError(
      'BAD_OPTION',
      `hub must be a model id such as 'openai-community/gpt2', got ${describe(hub)}`,
    );
  }
  checkRevision(revision);
  if (typeof base !== 'string' && !(base instanceof URL)) {
    throw new AttentionError('BAD_OPTION', `base must be an http(s) URL, got ${describe(base)}`);
  }
  const root = httpUrl(base, 'base').href;
  return `${root.replace(/\/+$/, '')}/${hub}/resolve/${encodeURIComponent(revision)}/`;
}

/** The folder URL of a web source, ending in '/'. */
export function folderUrl(source) {
  if (!(source instanceof URL) && typeof source !== 'string') return hubFolder(source);
  const url = httpUrl(source, 'a model URL');
  url.search = url.hash = '';
  if (!url.pathname.endsWith('/')) url.pathname += '/';
  return url.href;
}

/** The URL of file `name` in the folder `base`: a plain name (file-names.js), so that it stays in the folder. */
export function fileUrl(base, name) {
  checkFileName(name, `the file name asked of ${base}`);
  const url = new URL(encodeURIComponent(name), base).href;
  if (url !== base + encodeURIComponent(name)) {
    throw new AttentionError('BAD_FILE', `${JSON.stringify(name)} does not stay in the folder ${base}`);
  }
  return url;
}

const absent = (error) => error?.code === 'MISSING_FILE';

/** For a `{ hub }` source, what a 401, 403 or 404 of its config.json says: the Hub's answer to an unknown model. */
const hubNotFound = ({ hub, revision = 'main' }) =>
  `: not found, or gated/private: check '${hub}'${revision === 'main' ? '' : ` and its revision '${revision}'`} (a gated or private model needs an access token, which loadModel does not send: download its files and give them to loadModel instead)`;

/**
 * The folder (sources.js's Folder) of a URL or `{ hub }` source, its files probed.
 * @param {unknown} source
 * @param {{ maxJson: number, signal?: AbortSignal, cache?: { get: Function, set: Function }, onProgress?: Function,
 *   fetcher?: typeof fetch }} options
 */
export async function webFolder(source, { maxJson, signal, cache: given, onProgress, fetcher }) {
  const base = folderUrl(source);
  const cache = given && writeBehind(given, onProgress); // written once a run is over (flush)
  const queue = readQueue(); // at most READS_IN_FLIGHT at a time, in order
  const urlOf = (name) => fileUrl(base, name);
  const emit = (file, loaded, total) => onProgress?.({ phase: 'download', file, loaded, total });

  /** The cache's answer to `key`, or undefined: a cache that fails, or answers something else, is a miss. */
  const lookUp = async (key) => {
    try {
      return await cache.get(key);
    } catch {
      return undefined; // fetched again, and written again
    }
  };
  /** Keeps `value` in the cache; a cache that fails to keep it loses nothing but the next load's time. */
  const keep = async (key, value) => {
    try {
      await cache.set(key, value);
    } catch {
      // as a full disk: not kept
    }
  };

  /**
   * An answer from the cache when `usable(hit)`, or fetched and then kept there; a 404 is kept as { missing: true }.
   * Resolves to { value, fetched }: fetched is false for the cache's answers.
   */
  const cached = (key, load, usable, runSignal) => queue(() => cachedNow(key, load, usable), runSignal ?? signal);
  async function cachedNow(key, load, usable) {
    const hit = cache && (await lookUp(key));
    if (hit?.missing === true) throw new AttentionError('MISSING_FILE', `${key.url} was not found (HTTP 404, cached)`);
    if (hit && usable(hit)) return { value: hit, fetched: false };
    let value;
    try {
      value = await load();
    } catch (error) {
      if (cache && absent(error)) await keep(key, { missing: true });
      throw error;
    }
    if (cache) await keep(key, value);
    return { value, fetched: true };
  }

  const whole = async (name, max, notFound) =>
    (
      await cached(
        { url: urlOf(name) },
        async () => {
          let loaded = 0;
          const bytes = await fetchWhole(urlOf(name), {
            max,
            signal,
            fetcher,
            notFound,
            onChunk: (n) => emit(name, (loaded += n), undefined),
          });
          emit(name, bytes.length, bytes.length);
          return { bytes, total: bytes.length, whole: true };
        },
        (hit) => holds(hit) && hit.bytes.length <= max,
      )
    ).value;

  // A safetensors file by Range: its first 8 bytes give its size (Content-Range) and the header's length; that first
  // answer is the file as loaded, which every later answer is checked against (web-answers.js).
  const heads = new Map(); // name → Promise<{ value: Answer, fetched: boolean }>
  const headOf = (name) => {
    if (!heads.has(name)) {
      const load = () => fetchRange(urlOf(name), 0, 8, { signal, fetcher });
      heads.set(
        name,
        cached({ url: urlOf(name), begin: 0, end: 8 }, load, (hit) => holds(hit, 0, 8)),
      );
    }
    return heads.get(name);
  };

  // A range's bytes, checked against the file as loaded: a cache's answer from another version is fetched again; a
  // fetched one from another version is FETCH_FAILED. Fetched bytes are the reader's own (`fresh`), as are Cache
  // Storage's (`own`); another answer from a cache is copied, as it may be shared (held for the cache's write, or a
  // cache of your own).
  const range = async (name, begin, end, runSignal, loaded) => {
    const { value, fetched } = await cached(
      { url: urlOf(name), begin, end },
      () => fetchRange(urlOf(name), begin, end, { signal: runSignal ?? signal, fetcher }),
      (hit) => holds(hit, begin, end) && differs(hit, loaded) === null,
      runSignal,
    );
    const why =
      differs(value, loaded) ?? (holds(value, begin, end) ? null : `bytes ${begin} to ${end} are past its end`);
    if (why) throw changedError(urlOf(name), why, loaded.cached);
    const bytes = rangeOf(value, begin, end);
    return fetched || value.own || value.whole ? bytes : bytes.slice();
  };

  // Where Content-Range is not exposed (CORS), a file's size from HEAD, kept in the cache as a range of no bytes.
  const sizeOf = async (name) =>
    (
      await cached(
        { url: urlOf(name), begin: 0, end: 0 },
        async () => ({
          bytes: new Uint8Array(0),
          total: await fileSize(urlOf(name), { signal, fetcher }),
          whole: false,
        }),
        (hit) => holds(hit, 0, 0),
      )
    ).value.total;

  const jsons = new Map(); // name → Promise<bytes>: each JSON file read at most once

  const names = ['config.json'];
  const hubSource = typeof source === 'object' && !(source instanceof URL);
  const config = await whole('config.json', maxJson, hubSource ? hubNotFound(source) : undefined).catch((error) => {
    throw absent(error) && !hubSource
      ? new AttentionError('MISSING_FILE', `config.json is not at ${base}: ${error.message}`)
      : error;
  });
  jsons.set('config.json', config.bytes);
  // The weights' first bytes and tokenizer.json are asked for together; a 404 of either says it is not there.
  const [single, tokenizer] = await Promise.allSettled([headOf(SINGLE), whole(OPTIONAL[0], maxJson)]);
  for (const { status, reason } of [single, tokenizer]) if (status === 'rejected' && !absent(reason)) throw reason;
  if (single.status === 'fulfilled') {
    names.push(SINGLE);
  } else {
    heads.delete(SINGLE);
    names.push(INDEX);
  }
  if (tokenizer.status === 'fulfilled') {
    jsons.set(OPTIONAL[0], tokenizer.value.bytes);
    names.push(OPTIONAL[0]);
    try {
      jsons.set(OPTIONAL[1], (await whole(OPTIONAL[1], maxJson)).bytes);
      names.push(OPTIONAL[1]);
    } catch (error) {
      if (!absent(error)) throw error;
    }
  }

  return {
    /** Called once the load is over: later reads (runs) follow their own signals, not the load's. */
    endLoad() {
      signal = undefined;
    },
    /** Writes what the cache was given (after a run: off the way to its results). */
    flush: () => cache?.flush(),
    description: `the folder ${base}`,
    url: base,
    names,
    size: () => undefined,
    /** A JSON file whole, of at most `max` bytes (an index that is not there: MISSING_FILE naming both files). */
    async whole(name, max) {
      if (jsons.has(name)) return jsons.get(name);
      const { bytes } = await whole(name, max).catch((error) => {
        if (name === INDEX && absent(error)) {
          throw new AttentionError('MISSING_FILE', `neither ${SINGLE} nor ${INDEX} is at ${base}: ${error.message}`);
        }
        throw error;
      });
      jsons.set(name, bytes);
      return bytes;
    },
    /** A shard named by the index: a folder URL cannot list it, so it is taken as there until it is read. */
    expect(name) {
      if (!names.includes(name)) names.push(name);
    },
    /** A safetensors file as a range reader: { size, read(begin, end, where, signal) }. */
    async file(name) {
      const { value: head, fetched } = await headOf(name);
      const size = head.total ?? (await sizeOf(name));
      if (size === null) {
        throw new AttentionError(
          'FETCH_FAILED',
          `${urlOf(name)} states its size neither in Content-Range nor in a HEAD request's Content-Length: the server must state it`,
        );
      }
      // The file as loaded: what every later answer is checked against.
      const loaded = { total: size, etag: head.etag ?? null, modified: head.modified ?? null, cached: !fetched };
      const joined = joinedReads((begin, end, runSignal) => range(name, begin, end, runSignal, loaded));
      return {
        size,
        fresh: true, // each read's bytes are its own (openSafetensorsReader then need not copy them)
        async read(begin, end, where, runSignal) {
          if (head.whole) return head.bytes.slice(begin, end); // a server that ignores Range: the file, read whole
          if (begin === 0 && end <= 8) return head.bytes.slice(0, end);
          return joined(begin, end, runSignal);
        },
      };
    },
  };
}
