// The `out` option: results written into the caller's own Float32Arrays instead of new ones, so that a caller
// who calls again and again (a page that recomputes on every edit) allocates nothing per call. Read in two
// steps, as every argument is: the record first (the caller's getters run there, before the inputs are read),
// then, once every argument is read, the arrays themselves through the built-in getters only, each checked:
// a Float32Array over an ArrayBuffer, of exactly its result's length, sharing no memory with another result or with
// an input; and their lengths again before the first result is written (checkOutHeld).
import { AttentionError, describe, formatShape, unknownKeyError } from './errors.js';
import { sharedByteLength, typedArrayLength, typedArrayTag, typedArrayView } from './intrinsics.js';
import { readRecord } from './read.js';

const product = (shape) => shape.reduce((a, b) => a * b, 1);

/** The record of options.out ({} when absent): its own properties, read once; nothing about them checked yet. */
export const readOutRecord = (out) => (out === undefined || out === null ? {} : readRecord(out, 'options.out'));

/** [start, end) bytes of a typed array's memory, and its buffer. */
function extent(view) {
  return { buffer: view.buffer, start: view.byteOffset, end: view.byteOffset + view.byteLength };
}

/** Whether a buffer is a SharedArrayBuffer. */
function isShared(buffer) {
  try {
    return sharedByteLength.call(buffer) >= 0;
  } catch {
    return false;
  }
}

const overlaps = (a, b) => a.buffer === b.buffer && a.start < b.end && b.start < a.end;

/** [name, extent] of each resolved `out` array, for checkApart (a prepared call reads them once). */
export const outExtents = (out) => Object.keys(out ?? {}).map((name) => [name, extent(out[name].view)]);

/** BAD_OPTION when an input's memory overlaps one of the resolved `out` arrays (a prepared call's inputs). */
export function checkApart(out, inputs, extents = outExtents(out)) {
  if (!out) return;
  for (const input of inputs) {
    const here = extent(input.data);
    const key = extents.find(([, there]) => overlaps(here, there))?.[0];
    if (key !== undefined) {
      throw new AttentionError(
        'BAD_OPTION',
        `options.out.${key} shares memory with ${input.name}: each result needs an array of its own, apart from the inputs`,
      );
    }
  }
}

/** SHAPE_MISMATCH when an out array was detached or shrunk since it was resolved: run before any result is written. */
export function checkOutHeld(out) {
  for (const [key, { view, length }] of Object.entries(out ?? {})) {
    const now = typedArrayLength(view);
    if (now !== length) {
      throw new AttentionError(
        'SHAPE_MISMATCH',
        `options.out.${key} held ${length} floats but holds ${now} now: its buffer was detached or resized; nothing was written`,
      );
    }
  }
}

/**
 * The caller's arrays for the plan's results: { [result]: { array, view, length } }, `view` a plain Float32Array
 * over the same memory (what the results are written through), or null when there is no `out`.
 * @param {Record<string, unknown>} record   readOutRecord's
 * @param {Record<string, number[]>} outputs the plan's result shapes
 * @param {object[]} inputs  the plan's input tensors (null for absent ones) and mask
 */
export function resolveOut(record, outputs, inputs) {
  const keys = Object.keys(record);
  if (!keys.length) return null;
  const names = Object.keys(outputs);
  const resolved = {};
  const taken = [];
  for (const input of inputs) {
    if (input && ArrayBuffer.isView(input.data)) taken.push({ name: input.name ?? 'mask', ...extent(input.data) });
  }
  for (const key of keys) {
    if (!names.includes(key)) {
      if (record[key] === undefined) continue;
      throw unknownKeyError(key, names, 'result'); // "unknown result 'x' … Valid results: output, weights"
    }
    const array = record[key];
    if (array === undefined) continue;
    if (typedArrayTag(array) !== 'Float32Array') {
      throw new AttentionError('BAD_OPTION', `options.out.${key} must be a Float32Array, got ${describe(array)}`);
    }
    const length = product(outputs[key]);
    if (typedArrayLength(array) !== length) {
      throw new AttentionError(
        'SHAPE_MISMATCH',
        `options.out.${key} holds ${typedArrayLength(array)} floats, but ${key} is ${formatShape(outputs[key])}: it needs ${length}`,
      );
    }
    const view = typedArrayView(array, Float32Array, length);
    if (isShared(view.buffer)) {
      // Two SharedArrayBuffers may be one memory (one posted between threads), which nothing can tell apart.
      throw new AttentionError(
        'BAD_OPTION',
        `options.out.${key} is over a SharedArrayBuffer: out arrays need ArrayBuffer memory (two SharedArrayBuffers may be one memory); copy results to shared memory after the call`,
      );
    }
    const here = { name: `options.out.${key}`, ...extent(view) };
    const clash = taken.find((other) => overlaps(here, other));
    if (clash) {
      throw new AttentionError(
        'BAD_OPTION',
        `options.out.${key} shares memory with ${clash.name}: each result needs an array of its own, apart from the inputs`,
      );
    }
    taken.push(here);
    resolved[key] = { array, view, length };
  }
  return Object.keys(resolved).length ? resolved : null;
}
