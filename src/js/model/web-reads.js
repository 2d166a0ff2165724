// How a web folder (sources-url.js) schedules its reads: at most READS_IN_FLIGHT requests (or cache reads) at a
// time, in the order they were asked for, so that a run can ask for all of its weights at once and get the first
// layer's first; the ranges of a layer that follow each other in the file joined into one request; and its cache
// written behind: what was fetched is kept in memory until the run that needed it is
// over (flush), then written one entry at a time, off the way to the first result.
import { abortError, checkAborted } from './signal.js';

/** Reads of one folder at a time: Chromium opens 6 connections per origin over HTTP/1.1. */
export const READS_IN_FLIGHT = 6;

/**
 * Bytes of fetched answers held for the cache before it is written (GPT-2 small's float32 weights: 495 MB); past
 * that, an answer is written at once, as it comes.
 */
export const MAX_PENDING_BYTES = 512 * 2 ** 20;

/**
 * A queue that runs at most `max` tasks at a time, first come first served: `(task, signal?) => Promise of its
 * result`. A task whose signal aborts while it waits leaves the queue (ABORTED) without waiting for a place: reads
 * stalled ahead of it (another run's, or a load's without a signal) do not hold it.
 */
export function readQueue(max = READS_IN_FLIGHT) {
  let active = 0;
  const waiting = [];
  const next = () => {
    if (active < max && waiting.length) {
      active++;
      waiting.shift()();
    }
  };
  return async (task, signal) => {
    checkAborted(signal, 'a read');
    await new Promise((resolve, reject) => {
      const stop = () => {
        const at = waiting.indexOf(start);
        if (at >= 0) waiting.splice(at, 1);
        reject(abortError(signal, 'a read'));
      };
      const start = () => {
        signal?.removeEventListener('abort', stop);
        resolve();
      };
      signal?.addEventListener('abort', stop, { once: true });
      waiting.push(start);
      next();
    });
    try {
      return await task();
    } finally {
      active--;
      next();
    }
  };
}

/** Resolves once the page is idle (or after a task where there are no idle callbacks). */
const later = () =>
  new Promise((resolve) =>
    typeof requestIdleCallback === 'function'
      ? requestIdleCallback(resolve, { timeout: 1000 })
      : setTimeout(resolve, 0),
  );

/** A range joins the one before it (the next bytes of the file) while the two have at most this many bytes… */
export const MAX_JOINED_BYTES = 8 * 2 ** 20;
/** …or when it has at most this many (a bias or a norm's weight beside its matrix). */
const SMALL_RANGE_BYTES = 64 * 2 ** 10;

/**
 * Range reads of one file, joined: the ranges asked for in one turn (a layer's tensors, read together) that follow
 * each other in the file (with the same signal) are read as one range, and each is given its part of those bytes.
 * @param {(begin: number, end: number, signal?: AbortSignal) => Promise<Uint8Array>} readRange
 * @returns {(begin: number, end: number, signal?: AbortSignal) => Promise<Uint8Array>}
 */
export function joinedReads(readRange) {
  let batch = null;
  const send = (asked) => {
    asked.sort((a, b) => a.begin - b.begin);
    const runs = [];
    for (const range of asked) {
      const run = runs.at(-1);
      const last = run?.at(-1);
      const joins =
        last &&
        range.begin === last.end &&
        range.signal === last.signal &&
        (range.end - run[0].begin <= MAX_JOINED_BYTES || range.end - range.begin <= SMALL_RANGE_BYTES);
      if (joins) run.push(range);
      else runs.push([range]);
    }
    for (const run of runs) {
      const begin = run[0].begin;
      readRange(begin, run.at(-1).end, run[0].signal).then(
        (bytes) => run.forEach((r) => r.resolve(bytes.subarray(r.begin - begin, r.end - begin))),
        (error) => run.forEach((r) => r.reject(error)),
      );
    }
  };
  return (begin, end, signal) =>
    new Promise((resolve, reject) => {
      if (!batch) {
        batch = [];
        queueMicrotask(() => {
          const asked = batch;
          batch = null;
          send(asked);
        });
      }
      batch.push({ begin, end, signal, resolve, reject });
    });
}

const keyText = ({ url, begin, end }) => `${url}\0${begin ?? ''}\0${end ?? ''}`;
const sizeOf = (value) => value.bytes?.length ?? 0;

/**
 * A cache ({ get, set }) written behind: set() keeps the value in memory (get() finds it there) until flush(),
 * which writes what is kept, one entry at a time, and then reports { phase: 'cache', loaded, total } (the bytes
 * written) to `onProgress`. A failed write drops that entry: the model is read from the network next time.
 */
export function writeBehind(cache, onProgress) {
  const pending = new Map(); // keyText → { key, value }
  let bytes = 0;
  let writing = null;
  const write = async () => {
    await later(); // the caller's next steps (drawing a run's results) first
    let written = 0;
    for (const [text, { key, value }] of pending) {
      try {
        await cache.set(key, value);
        written += sizeOf(value);
      } catch {
        // as a full disk: the entry is not kept
      }
      pending.delete(text);
      bytes -= sizeOf(value);
    }
    writing = null;
    try {
      onProgress?.({ phase: 'cache', loaded: written, total: written });
    } catch {
      // the caller's handler: nothing to undo here
    }
  };
  return {
    async get(key) {
      const held = pending.get(keyText(key));
      return held ? held.value : cache.get(key);
    },
    async set(key, value) {
      if (bytes + sizeOf(value) > MAX_PENDING_BYTES) return cache.set(key, value);
      pending.set(keyText(key), { key, value });
      bytes += sizeOf(value);
    },
    /** Writes what is kept (once the writes under way are done, those kept since); resolves when all are written. */
    flush() {
      if (!writing && pending.size) writing = write();
      return writing ?? Promise.resolve();
    },
  };
}
