// What an answer of a web folder (fetched, or kept in a cache) must be to be read: bytes of the length asked for (or
// the whole file, cut at the range), from the same file as the one loaded. The file as loaded is the answer to its
// first range (its size from Content-Range, its ETag and Last-Modified where the server states them); every later
// answer is compared with it, so that a file changed on the server since the load is an error naming it, never
// numbers read at the old offsets. A server that states neither validator nor Content-Range gives nothing to compare:
// a file rewritten there with the same size cannot be told apart.
import { AttentionError } from '../errors.js';

/**
 * @typedef {{ bytes: Uint8Array, total: number | null, whole: boolean, etag?: string | null,
 *   modified?: string | null, own?: boolean }} Answer  a range's answer (http.js's fetchRange, or a cache's value)
 */

/** An ETag without its weak marker: the same file's tag, weak or strong, compares equal. */
const opaque = (etag) => etag.replace(/^W\//u, '');

/** Whether `value` (from a cache of your own, or Cache Storage) is an answer at all: else it is taken as a miss. */
export const isAnswer = (value) =>
  value !== null &&
  typeof value === 'object' &&
  value.bytes instanceof Uint8Array &&
  (value.total === null || value.total === undefined || Number.isSafeInteger(value.total));

/** Whether `value` holds bytes [begin, end) of a file: exactly those bytes, or the whole file (`whole`). */
export function holds(value, begin, end) {
  if (!isAnswer(value)) return false;
  if (value.whole) return value.bytes.length === value.total && (end === undefined || end <= value.total);
  return begin === undefined ? value.bytes.length === value.total : value.bytes.length === end - begin;
}

/**
 * How `value` differs from the file as loaded (`loaded`: { total, etag, modified }), or null when nothing it states
 * differs: its size (Content-Range's total, or a whole answer's length), its ETag, its Last-Modified.
 */
export function differs(value, loaded) {
  const total = value.whole ? value.bytes.length : value.total;
  if (total != null && loaded.total != null && total !== loaded.total) {
    return `it had ${loaded.total} bytes, and an answer now says ${total}${value.whole ? '' : ' in its Content-Range'}`;
  }
  if (value.etag && loaded.etag && opaque(value.etag) !== opaque(loaded.etag)) {
    return `its ETag was ${loaded.etag.slice(0, 80)}, and is now ${value.etag.slice(0, 80)}`;
  }
  if (value.modified && loaded.modified && value.modified !== loaded.modified) {
    return `its Last-Modified was ${loaded.modified.slice(0, 40)}, and is now ${value.modified.slice(0, 40)}`;
  }
  return null;
}

/** FETCH_FAILED: the file at `url` is not the one loaded (`why`, from differs()); `cached`: the load was a cache's. */
export function changedError(url, why, cached) {
  const cache = cached
    ? '; the model’s cache holds the file as it was then: clear it (clearModelCache(), or your cache’s entries of this URL), or pin a commit as the revision'
    : '';
  return new AttentionError(
    'FETCH_FAILED',
    `${url} changed on the server since the model was loaded: load it again (${why})${cache}`,
  );
}

/** Bytes [begin, end) of an answer that holds them: its own bytes, or cut from the whole file. */
export const rangeOf = (value, begin, end) => (value.whole ? value.bytes.slice(begin, end) : value.bytes);
