// attention-wasm/model/cache: an opt-in cache of what a web source fetched (its JSON files and each byte range of
// its safetensors files), in the browser's Cache Storage, so that a page's second visit reads the model from the
// disk and not the network: loadModel(url, { cache: await openModelCache() }). Its own entry, so that a page that
// never caches imports none of it. Entries are keyed by URL and range: a model under a branch name that changes on
// the server is read from the cache as it was until clearModelCache(); a commit hash as the revision never changes.
import { AttentionError, describe } from '../errors.js';

/** The Cache Storage cache used when no name is given. */
export const MODEL_CACHE_NAME = 'attention-wasm-model';

function storage() {
  if (typeof caches === 'undefined') {
    throw new AttentionError(
      'BAD_OPTION',
      'Cache Storage is not available here: it needs a page or worker of a secure context (https or localhost)',
    );
  }
  return caches;
}

function checkName(name) {
  if (typeof name !== 'string' || name === '') {
    throw new AttentionError('BAD_OPTION', `a cache name must be a non-empty string, got ${describe(name)}`);
  }
  return name;
}

/** The request a cache entry is kept under: the file's URL, with the byte range in a query parameter. */
function requestOf({ url, begin, end }) {
  const key = new URL(url);
  key.searchParams.set('attention-wasm-bytes', begin === undefined ? 'whole' : `${begin}-${end}`);
  return new Request(key.href);
}

/**
 * Opens (or creates) the cache `name`: pass it as loadModel's `cache` option.
 * @param {string} [name]
 * @returns {Promise<{ name: string, get: Function, set: Function }>}
 */
export async function openModelCache(name = MODEL_CACHE_NAME) {
  const cache = await storage().open(checkName(name));
  // The entries there now, asked for once: a key not among them (nor written since) is a miss without a look-up,
  // which Cache Storage makes slow when a first load asks for hundreds of ranges.
  const known = new Set((await cache.keys()).map((request) => request.url));
  return {
    name,
    /** @returns {Promise<{ bytes: Uint8Array, total: number | null, whole: boolean, etag: string | null, modified: string | null } | { missing: true } | undefined>} */
    async get(key) {
      const request = requestOf(key);
      if (!known.has(request.url)) return undefined;
      try {
        const response = await cache.match(request);
        if (!response) return undefined;
        const { headers } = response;
        if (headers.get('X-Missing') === '1') return { missing: true };
        const total = headers.get('X-Total');
        const bytes = new Uint8Array(await response.arrayBuffer());
        // An entry cut short (or whose body cannot be read) is a miss: fetched again, and written again.
        if (String(bytes.length) !== headers.get('X-Bytes')) return undefined;
        return {
          bytes,
          total: total === '' || total === null ? null : Number(total),
          whole: headers.get('X-Whole') === '1',
          etag: headers.get('X-ETag') || null,
          modified: headers.get('X-Last-Modified') || null,
          own: true, // bytes of this answer alone: a reader may keep them without a copy
        };
      } catch {
        return undefined;
      }
    },
    async set(key, value) {
      const headers = value.missing
        ? { 'X-Missing': '1', 'X-Bytes': '0' }
        : {
            'X-Total': String(value.total ?? ''),
            'X-Whole': value.whole ? '1' : '0',
            'X-Bytes': String(value.bytes.length),
            // Which version of the file the bytes are of (web-answers.js compares them with the file as loaded).
            ...(value.etag ? { 'X-ETag': value.etag } : {}),
            ...(value.modified ? { 'X-Last-Modified': value.modified } : {}),
          };
      const body = value.missing ? null : value.bytes;
      try {
        const request = requestOf(key);
        await cache.put(request, new Response(body, { headers }));
        known.add(request.url);
      } catch {
        // A full disk (QuotaExceededError) leaves the cache as it was: the model is read from the network.
      }
    },
  };
}

/** Bytes of file data the cache `name` holds (its entries' bodies). */
export async function modelCacheBytes(name = MODEL_CACHE_NAME) {
  checkName(name);
  if (!(await storage().has(name))) return 0;
  const cache = await storage().open(name);
  let bytes = 0;
  for (const request of await cache.keys()) {
    const response = await cache.match(request);
    bytes += Number(response?.headers.get('X-Bytes') ?? 0);
  }
  return bytes;
}

/** Deletes the cache `name`; true when there was one. */
export function clearModelCache(name = MODEL_CACHE_NAME) {
  return storage().delete(checkName(name));
}
