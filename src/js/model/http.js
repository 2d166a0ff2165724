// HTTP reads of a checkpoint's files: a small file whole (with its size checked before and while it is read), and
// a large one by Range requests, each answer checked (status 206, a Content-Range of the bytes asked, that many
// bytes). A server that ignores Range answers 200 with the whole file: that body is read only when the file is small,
// else the request is aborted at once. Every failure is an AttentionError naming the URL; an abort is ABORTED.
// Ranges and sizes are asked of the server itself, past the browser's HTTP cache (`cache: 'no-store'`): a cache that
// holds the whole file from an earlier plain request (compressed, say, by a server that compresses whole answers)
// may answer a range from those stored bytes, which are not the file's.
import { AttentionError, isAttentionError } from '../errors.js';
import { watchRefusals } from './csp-refusals.js';
import { abortError, checkAborted } from './signal.js';

/** Files up to this size are kept whole when a server ignores Range (config-sized files, tiny checkpoints). */
export const MAX_WHOLE_BYTES = 4 * 2 ** 20;

/** How a range or a size is fetched: never from the browser's HTTP cache, nor written into it. */
const PAST_THE_CACHE = 'no-store';

/**
 * The fetch of `url`: a network or CORS failure and an abort become AttentionErrors that name the URL. `cache` is
 * fetch's cache mode (unset: the default).
 */
async function get(url, { signal, headers, method, cache, fetcher = globalThis.fetch }) {
  checkAborted(signal, `reading ${url}`);
  const controller = new AbortController();
  const stop = () => controller.abort(signal.reason);
  signal?.addEventListener('abort', stop, { once: true });
  const refusals = watchRefusals(); // the page's CSP, which fails a fetch as the network does
  try {
    const response = await fetcher(url, { method, headers, signal: controller.signal, ...(cache ? { cache } : {}) });
    refusals.stop();
    return { response, controller, done: () => signal?.removeEventListener('abort', stop) };
  } catch (cause) {
    signal?.removeEventListener('abort', stop);
    const refused = await refusals.refused(url);
    if (signal?.aborted) throw abortError(signal, `reading ${url}`);
    const what = `${url} could not be fetched (${cause?.name ?? 'Error'}: ${String(cause?.message ?? cause).slice(0, 80)})`;
    const why = refused
      ? `: this page's Content-Security-Policy refused it, so its connect-src must allow ${new URL(url).origin} (and, where that address redirects, the host it redirects to: for the Hub, the host of its files)`
      : ": the server must be reachable, allow this page's origin (CORS: Access-Control-Allow-Origin, and Range in Access-Control-Allow-Headers) and answer Range requests";
    throw new AttentionError(
      'FETCH_FAILED',
      `${what}${why}; or download the files and give them to loadModel as Files`,
      { cause },
    );
  }
}

/**
 * MISSING_FILE for a 404 (the caller may treat it as "absent"), FETCH_FAILED for any other error status. `notFound`,
 * when given, is what a 401, 403, 404 or 410 says instead of the usual hint (a Hub model that is not there).
 */
function statusError(url, response, notFound) {
  if (response.status === 404 || response.status === 410) {
    return new AttentionError('MISSING_FILE', `${url} was not found (HTTP ${response.status})${notFound ?? ''}`);
  }
  const denied = response.status === 401 || response.status === 403;
  const hint = !denied
    ? ''
    : (notFound ??
      ' (a gated or private model needs an access token, which loadModel does not send: download the files instead)');
  return new AttentionError('FETCH_FAILED', `${url} answered HTTP ${response.status} ${response.statusText}${hint}`);
}

/**
 * Reads a response's body, at most `max` bytes (aborting past that); `onChunk(bytes)` after each chunk. With
 * `exact` (a range's length, asked for by the caller: never a size the server states), the bytes are written as
 * they come into one buffer of `max` bytes, not gathered and copied.
 */
async function readBody(url, { response, controller }, { max, signal, onChunk, exact = false }) {
  const chunks = [];
  const into = exact ? new Uint8Array(max) : null;
  let length = 0;
  try {
    const reader = response.body.getReader();
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (length + value.length > max) {
        controller.abort();
        return null;
      }
      if (into) into.set(value, length);
      else chunks.push(value);
      length += value.length;
      onChunk?.(value.length);
    }
  } catch (cause) {
    controller.abort();
    if (signal?.aborted) throw abortError(signal, `reading ${url}`);
    if (isAttentionError(cause)) throw cause; // onChunk's (a progress handler that threw): not the network's
    throw new AttentionError('FETCH_FAILED', `${url}: the download failed (${String(cause?.message ?? cause)})`, {
      cause,
    });
  }
  if (into) return into.subarray(0, length);
  const bytes = new Uint8Array(length);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.length;
  }
  return bytes;
}

/**
 * Whether a range's body is taken as a Blob: in a browser (window or worker), where the browser gathers it off the
 * page's thread (its chunks never pass through JavaScript), when the server declares the length asked for. Its size
 * is checked before its bytes are read into memory. Elsewhere (Node's fetch keeps a Blob in memory, however large)
 * the body is read chunk by chunk and counted.
 */
const byBlob = (response, length) =>
  (typeof window === 'object' || typeof importScripts === 'function') &&
  typeof response.blob === 'function' &&
  declaredLength(response) === length;

/** A response's body as a Blob, { length, blob } (its bytes not read yet); an abort is ABORTED. */
async function blobBody(url, { response }, signal) {
  try {
    const blob = await response.blob();
    return { length: blob.size, blob };
  } catch (cause) {
    if (signal?.aborted) throw abortError(signal, `reading ${url}`);
    throw new AttentionError('FETCH_FAILED', `${url}: the download failed (${String(cause?.message ?? cause)})`, {
      cause,
    });
  }
}

const declaredLength = (response) => {
  const header = response.headers.get('Content-Length');
  return header !== null && /^\d+$/.test(header) ? Number(header) : undefined;
};

/**
 * A file whole, of at most `max` bytes: its Content-Length is checked first and its body counted as it comes.
 * @param {{ max: number, signal?: AbortSignal, onChunk?: (bytes: number) => void, fetcher?: typeof fetch,
 *   notFound?: string }} options  notFound: what an answer of 401, 403, 404 or 410 says (statusError)
 * @returns {Promise<Uint8Array>}
 */
export async function fetchWhole(url, options) {
  const got = await get(url, options);
  try {
    if (!got.response.ok) throw statusError(url, got.response, options.notFound);
    const declared = declaredLength(got.response);
    const tooLarge = () =>
      new AttentionError('BAD_FILE', `${url} has more than the ${options.max} bytes such a file may have`);
    if (declared !== undefined && declared > options.max) {
      got.controller.abort();
      throw tooLarge();
    }
    const bytes = await readBody(url, got, options);
    if (bytes === null) throw tooLarge();
    return bytes;
  } finally {
    got.done();
  }
}

/** What names the version of a file in an answer, when the server states it (and, across origins, exposes it). */
const validators = (response) => ({
  etag: response.headers.get('ETag'),
  modified: response.headers.get('Last-Modified'),
});

/** [begin, end, total] of a Content-Range header `bytes a-b/total` (total null when `*`), or null. */
function contentRange(header) {
  const match = /^bytes (\d+)-(\d+)\/(\d+|\*)$/.exec(header ?? '');
  return match && [Number(match[1]), Number(match[2]) + 1, match[3] === '*' ? null : Number(match[3])];
}

/**
 * Bytes [begin, end) of a file by a Range request. The answer is 206 with those bytes, or, from a server that
 * ignores Range, 200 with the whole file: then `whole` holds it if it has at most MAX_WHOLE_BYTES, else the
 * request is aborted and FETCH_FAILED says that the server must support Range requests.
 * The answer's ETag and Last-Modified (null where the server does not state them) say which version of the file it is.
 * @returns {Promise<{ bytes: Uint8Array, total: number | null, whole: boolean, etag: string | null,
 *   modified: string | null }>}
 */
export async function fetchRange(url, begin, end, options) {
  const got = await get(url, { ...options, headers: { Range: `bytes=${begin}-${end - 1}` }, cache: PAST_THE_CACHE });
  try {
    const { response } = got;
    if (response.status === 200) {
      const declared = declaredLength(response);
      const bytes =
        declared === undefined || declared <= MAX_WHOLE_BYTES
          ? await readBody(url, got, { ...options, max: MAX_WHOLE_BYTES })
          : (got.controller.abort(), null);
      if (bytes === null) {
        throw new AttentionError(
          'FETCH_FAILED',
          `${url} answered a Range request with the whole file (HTTP 200${declared === undefined ? '' : `, ${declared} bytes`}): the server must support Range requests (HTTP 206), so that a checkpoint is read a tensor at a time; or download the files and give them to loadModel as Files`,
        );
      }
      return { bytes, total: bytes.length, whole: true, ...validators(response) };
    }
    if (response.status !== 206) {
      if (response.status === 416) {
        throw new AttentionError('BAD_FILE', `${url}: bytes ${begin} to ${end} are past the end of the file`);
      }
      throw statusError(url, response);
    }
    // A cross-origin answer shows Content-Range only when the server exposes it: without it, the 206 and the
    // number of bytes are checked, and the file's size is asked with HEAD (fileSize).
    const header = response.headers.get('Content-Range');
    const range = header === null ? [begin, end, null] : contentRange(header);
    if (range === null || range[0] !== begin || range[1] !== end) {
      got.controller.abort();
      throw new AttentionError(
        'FETCH_FAILED',
        `${url} answered the Range request for bytes ${begin}-${end - 1} with Content-Range ${JSON.stringify(header)}`,
      );
    }
    const length = end - begin;
    const body = byBlob(response, length)
      ? await blobBody(url, got, options.signal)
      : await readBody(url, got, { ...options, max: length, exact: true });
    if (body === null || body.length !== length) {
      throw new AttentionError(
        'FETCH_FAILED',
        `${url}: the Range request for bytes ${begin}-${end - 1} brought ${body === null ? 'more' : body.length} bytes, not ${length}`,
      );
    }
    const bytes = body instanceof Uint8Array ? body : new Uint8Array(await body.blob.arrayBuffer());
    return { bytes, total: range[2], whole: false, ...validators(response) };
  } finally {
    got.done();
  }
}

/** A file's size from the Content-Length of a HEAD request, or null when the server does not say. */
export async function fileSize(url, options) {
  const got = await get(url, { ...options, method: 'head', cache: PAST_THE_CACHE }); // fetch normalizes the case
  try {
    if (!got.response.ok) throw statusError(url, got.response);
    return declaredLength(got.response) ?? null;
  } finally {
    got.done();
  }
}
