// Reading the arguments of a call. Each is read exactly once (every property, every `length`, every element at
// most one time) into values the caller can no longer change: a new Float32Array or Uint8Array, or a new view of
// the caller's own Float32Array/Float64Array, whose length checkHeld verifies again once every argument is read.
// Every check runs on what was read. The only code of the caller's that runs is its own getters and Proxy traps,
// once per read; nothing here calls toString or valueOf. Nothing here touches WebAssembly memory.
import { AttentionError, describe, formatShape } from './errors.js';
import { hasOwn, typedArrayLength, typedArrayTag, typedArrayView } from './intrinsics.js';
import { MAX_CALL_BYTES } from './limits.js';
import { guarded, readField } from './read.js';
import { elementName, valueError } from './tensor.js';

/**
 * How an argument may be shaped, for checks and messages: its name, its ranks and their layout (e.g. 'x', [2, 3],
 * '[L, d_model] or [B, L, d_model]'), whether it is a mask, and "x.shape" and "x.data".
 * @typedef {{ name: string, ranks: number[], layout: string, mask: boolean, shapeName: string,
 *   dataName: string }} ArgumentSpec
 */

// No argument has more dimensions: deeper nesting (or an array that holds itself) is BAD_RANK at once.
const MAX_RANK = 4;
const MAX_VALUES = MAX_CALL_BYTES / 4; // more floats than one call can hold: TOO_LARGE before anything is copied
const MAX_DIMENSION = 2 ** 31 - 1;

/** Float32Array or Float64Array for those types' names, undefined for any other. */
const floatType = (tag) => (tag === 'Float32Array' ? Float32Array : tag === 'Float64Array' ? Float64Array : undefined);
// The typed arrays a mask reads as boolean, of 0 and 1 only: every integer type ('bool', int64 masks). The one rule.
const BOOLEAN_MASK_TYPES = /^(Uint8Clamped|U?[Ii]nt(8|16|32)|BigU?[Ii]nt64)Array$/;
const product = (shape) => shape.reduce((a, b) => a * b, 1);
const pathOf = (name, index, depth) =>
  name +
  index
    .slice(0, depth)
    .map((i) => `[${i}]`)
    .join('');

/** `where`, given as a string or as a function that builds it (only when a message needs it). */
const placeOf = (where) => (typeof where === 'function' ? where() : where);

/** 'array' for an array (or a Proxy of one), the type's name for a typed array, undefined for anything else. */
function rowKind(value, where) {
  try {
    if (Array.isArray(value)) return 'array';
  } catch {
    throw new AttentionError('NOT_A_TENSOR', `${placeOf(where)} is a revoked Proxy`);
  }
  return typedArrayTag(value);
}

/** A row's length, read once; a Proxy's must be a safe integer. */
function rowLength(row, kind, where) {
  if (kind !== 'array') return typedArrayLength(row);
  const length = row.length;
  if (!Number.isSafeInteger(length) || length < 0) {
    throw new AttentionError('BAD_DIMENSION', `${placeOf(where)} is an array whose length is ${describe(length)}`);
  }
  return length;
}

function checkRank(shape, spec) {
  if (!spec.ranks.includes(shape.length)) {
    throw new AttentionError(
      'BAD_RANK',
      `${spec.name} has shape ${formatShape(shape)} (rank ${shape.length}) but must be ${spec.layout}`,
    );
  }
}

function checkCount(count, shape, name) {
  if (count > MAX_VALUES) {
    const limit = `MAX_CALL_BYTES is ${MAX_CALL_BYTES / 2 ** 20} MiB`;
    throw new AttentionError(
      'TOO_LARGE',
      `${name} has shape ${formatShape(shape)}: ${count} values, more than one call can hold (${limit})`,
    );
  }
}

/**
 * Stores row[from], …, row[length - 1], each read once, into out[offset + from], … by `mode`'s rule: 'float' as
 * float32 (finite, or -Infinity in a mask), 'booleans' as 0/1 from true/false only, 'bytes' (a mask of integer
 * typed arrays) as 0/1 from 0, 1 (0n, 1n), true or false. Throws `fail(i, value)` for the first value that breaks it.
 */
function copyLeaves(row, from, length, out, offset, mode, allowNegativeInfinity, fail) {
  if (mode === 'float') {
    for (let i = from; i < length; i++) {
      const x = row[i];
      if (typeof x === 'number') {
        const f = Math.fround(x);
        if (f - f === 0 || (f === -Infinity && allowNegativeInfinity)) {
          out[offset + i] = f;
          continue;
        }
      }
      throw fail(i, x);
    }
    return;
  }
  const bytes = mode === 'bytes';
  for (let i = from; i < length; i++) {
    const x = row[i];
    const bit =
      x === true || (bytes && (x === 1 || x === 1n)) ? 1 : x === false || (bytes && (x === 0 || x === 0n)) ? 0 : -1;
    if (bit < 0) throw fail(i, x);
    out[offset + i] = bit;
  }
}

/** The error for a leaf `x` at `where` that copyLeaves refused. */
function leafError(x, where, name, mode, allowNegativeInfinity) {
  if (rowKind(x, where) !== undefined) {
    return new AttentionError(
      'RAGGED_ARRAY',
      `${where} is ${describe(x)} but the rows of ${name} hold single values there: ${name} is ragged`,
    );
  }
  if (mode === 'float') return valueError(x, where, allowNegativeInfinity);
  const rule =
    mode === 'booleans'
      ? `${name} starts with a boolean: a boolean mask holds only true/false`
      : 'a boolean mask from an integer typed array (Uint8Array, Int32Array, BigInt64Array, …) holds only 0 and 1';
  return new AttentionError('NOT_A_NUMBER', `${where} is ${describe(x)} but ${rule}`);
}

/**
 * Reads a nested array (arrays, Proxies of arrays, typed arrays as rows) of at most MAX_RANK levels into a
 * new typed array: first along the first elements, for the shape, then every row once, reusing what that first
 * pass read. `mode` is a leaf mode, or a function of the first leaf and the innermost first row's kind.
 * @returns {{ data: Float32Array | Uint8Array, shape: number[], mode: string }}
 */
function readNested(value, spec, mode, allowNegativeInfinity) {
  const { name } = spec;
  const rows = [];
  const kinds = [];
  const shape = [];
  let first = value;
  let kind = rowKind(first, name);
  while (kind !== undefined) {
    const where = name + '[0]'.repeat(shape.length);
    if (shape.length === MAX_RANK) {
      throw new AttentionError(
        'BAD_RANK',
        `${name} is nested deeper than ${MAX_RANK} levels (or holds itself), but must be ${spec.layout}`,
      );
    }
    const length = rowLength(first, kind, where);
    if (length === 0) {
      throw new AttentionError('BAD_DIMENSION', `${name} has an empty dimension: shape ${formatShape([...shape, 0])}`);
    }
    rows.push(first);
    kinds.push(kind);
    shape.push(length);
    first = first[0];
    kind = rowKind(first, `${where}[0]`);
  }
  checkRank(shape, spec);
  const count = product(shape);
  checkCount(count, shape, name);
  const leafMode = typeof mode === 'function' ? mode(first, kinds[kinds.length - 1]) : mode;
  const data = new (leafMode === 'float' ? Float32Array : Uint8Array)(count);
  const last = shape.length - 1;
  const index = shape.map(() => 0); // where the walk is, for messages
  const here = (depth) => () => pathOf(name, index, depth);
  const fail = (i, x) => {
    index[last] = i;
    return leafError(x, pathOf(name, index, last + 1), name, leafMode, allowNegativeInfinity);
  };
  let offset = 0;
  const walk = (row, axis, onFirstPath) => {
    const length = shape[axis];
    if (axis === last) {
      // On the first path, element 0 is the first leaf, read already: it is not read again.
      if (onFirstPath) copyLeaves([first], 0, 1, data, offset, leafMode, allowNegativeInfinity, fail);
      copyLeaves(row, onFirstPath ? 1 : 0, length, data, offset, leafMode, allowNegativeInfinity, fail);
      offset += length;
      return;
    }
    const where = here(axis + 1);
    for (let i = 0; i < length; i++) {
      index[axis] = i;
      if (onFirstPath && i === 0) {
        walk(rows[axis + 1], axis + 1, true);
        continue;
      }
      const child = row[i];
      const kind = rowKind(child, where);
      if (kind === undefined) {
        const expected = `${name} is ragged (expected shape ${formatShape(shape)})`;
        throw new AttentionError(
          'RAGGED_ARRAY',
          `${where()} is ${describe(child)} but should be a row of length ${shape[axis + 1]}: ${expected}`,
        );
      }
      if (leafMode === 'float' && BOOLEAN_MASK_TYPES.test(kind) && spec.mask) {
        const rule = `${name} starts with numbers (an additive mask): a mask is one or the other`;
        throw new AttentionError('NOT_A_NUMBER', `${where()} is ${describe(child)}, a boolean mask, but ${rule}`);
      }
      const childLength = rowLength(child, kind, where);
      if (childLength !== shape[axis + 1]) {
        throw new AttentionError(
          'RAGGED_ARRAY',
          `${where()} has length ${childLength} but ${name}${'[0]'.repeat(axis + 1)} has ${shape[axis + 1]}: ${name} is ragged`,
        );
      }
      walk(child, axis + 1, false);
    }
  };
  walk(value, 0, true);
  return { data, shape, mode: leafMode };
}

const HOLE = Symbol('hole'); // a shape entry that is not there
const formatEntry = (entry) => (entry === HOLE ? '' : typeof entry === 'number' ? `${entry}` : describe(entry));

/**
 * Reads `{ shape }` (or `{ dims }`: `field` names it) once into a new array, each entry an own property read
 * once in a plain indexed loop (a hole is missing, not taken from a prototype), then checks the copy: rank,
 * then each dimension.
 */
function readShape(value, spec, field) {
  const { name } = spec;
  const shapeName = `${name}.${field}`;
  if (rowKind(value, shapeName) !== 'array') {
    throw new AttentionError(
      'NOT_A_TENSOR',
      `${shapeName} must be an array of positive integers, got ${describe(value)}`,
    );
  }
  const length = rowLength(value, 'array', shapeName);
  if (length === 0) throw new AttentionError('BAD_RANK', `${shapeName} is [] but ${name} needs at least one dimension`);
  if (length > MAX_RANK) {
    throw new AttentionError(
      'BAD_RANK',
      `${shapeName} has ${length} dimensions (rank ${length}) but ${name} must be ${spec.layout}`,
    );
  }
  const entries = [];
  for (let i = 0; i < length; i++) entries.push(hasOwn(value, i) ? value[i] : HOLE);
  for (let axis = 0; axis < length; axis++) {
    const size = entries[axis];
    if (Number.isInteger(size) && size >= 1 && size <= MAX_DIMENSION) continue;
    const why =
      size === HOLE
        ? 'is missing (a hole in the array)'
        : typeof size !== 'number'
          ? `is ${describe(size)}`
          : size === 0
            ? 'is empty (0)'
            : size < 0
              ? `is negative (${size})`
              : Number.isNaN(size)
                ? 'is NaN'
                : size > MAX_DIMENSION
                  ? `is ${size}, too large (at most 2^31 - 1)`
                  : `is ${size}, not an integer`;
    const whole = `${shapeName} is ${formatShape(entries.map(formatEntry))}`;
    throw new AttentionError(
      'BAD_DIMENSION',
      `${shapeName}[${axis}] ${why}: ${whole}; every dimension must be a positive integer`,
    );
  }
  checkRank(entries, spec);
  return entries;
}

const kindsOf = (spec) =>
  spec.mask
    ? 'nested arrays of booleans or numbers, or { data, shape }'
    : 'a nested array of numbers or { data, shape }';

/**
 * Reads `{ data, shape }` (a Tensor, or any object with those two properties, read once each), or `{ data, dims }`
 * when there is no `shape` (onnxruntime-web's and transformers.js's Tensor).
 * @returns {{ data: Float32Array | Float64Array | Uint8Array, shape: number[], copied: boolean, mode: string }}
 */
function readTensorObject(value, spec, allowNegativeInfinity) {
  const { name } = spec;
  const data = readField(value, 'data');
  let field = 'shape';
  let shapeValue = readField(value, 'shape');
  if (shapeValue === undefined && data !== undefined) {
    field = 'dims';
    shapeValue = readField(value, 'dims');
  }
  if (data === undefined || shapeValue === undefined) {
    const missing =
      data === undefined && shapeValue === undefined
        ? ''
        : ` (${name}.${data === undefined ? 'data' : 'shape'} is missing)`;
    throw new AttentionError('NOT_A_TENSOR', `${name} must be ${kindsOf(spec)}, got ${describe(value)}${missing}`);
  }
  if (typeof data === 'function') {
    // A TensorFlow.js tensor: its data() is an async method, and its values live in its backend.
    throw new AttentionError(
      'NOT_A_TENSOR',
      `${name} is ${describe(value)} whose data is a method, not values (a TensorFlow.js tensor?): for a tfjs tensor t, pass { data: await t.data(), shape: t.shape }`,
    );
  }
  const shape = readShape(shapeValue, spec, field);
  const count = product(shape);
  const tag = typedArrayTag(data);
  const kind = tag ?? rowKind(data, spec.dataName);
  const Type = floatType(tag);
  const accepted = kind === 'array' || Type !== undefined || (spec.mask && BOOLEAN_MASK_TYPES.test(tag));
  if (!accepted) {
    const types = spec.mask
      ? 'a Float32Array, a Float64Array, a number[], an integer typed array (a boolean mask) or a boolean[]'
      : 'a Float32Array, a Float64Array or a number[]';
    throw new AttentionError('NOT_A_TENSOR', `${name}.data must be ${types}, got ${describe(data)}`);
  }
  const length = rowLength(data, kind, spec.dataName);
  if (length !== count) {
    throw new AttentionError(
      'DATA_LENGTH_MISMATCH',
      `${name}.data has ${length} values but ${name}.${field} ${formatShape(shape)} needs ${count}`,
    );
  }
  if (Type !== undefined) return { data: typedArrayView(data, Type, count), shape, copied: false, mode: 'float' };
  checkCount(count, shape, name);
  // An array's first element decides between a boolean and an additive mask: it is read once, here.
  const head = data[0];
  const mode = BOOLEAN_MASK_TYPES.test(tag) ? 'bytes' : spec.mask && typeof head === 'boolean' ? 'booleans' : 'float';
  const out = new (mode === 'float' ? Float32Array : Uint8Array)(count);
  const at = (i) => (mode === 'float' ? elementName(name, i, shape) : `${name}.data[${i}]`);
  const fail = (i, x) => leafError(x, at(i), name, mode, allowNegativeInfinity);
  copyLeaves([head], 0, 1, out, 0, mode, allowNegativeInfinity, fail);
  copyLeaves(data, 1, count, out, 0, mode, allowNegativeInfinity, fail);
  return { data: out, shape, copied: true, mode };
}

/** Reads a tensor argument in any of its forms; `mode` as for readNested. */
function readAny(value, spec, mode, allowNegativeInfinity) {
  const { name } = spec;
  const tag = typedArrayTag(value);
  const Type = floatType(tag);
  if (Type !== undefined) {
    // A bare Float32Array/Float64Array is a vector: viewed, not copied.
    const shape = [typedArrayLength(value)];
    if (shape[0] === 0) throw new AttentionError('BAD_DIMENSION', `${name} has an empty dimension: shape [0]`);
    checkRank(shape, spec);
    return { data: typedArrayView(value, Type, shape[0]), shape, copied: false, mode: 'float' };
  }
  if (tag !== undefined || rowKind(value, name) === 'array')
    return { ...readNested(value, spec, mode, allowNegativeInfinity), copied: true };
  if (value !== null && typeof value === 'object') return readTensorObject(value, spec, allowNegativeInfinity);
  throw new AttentionError('NOT_A_TENSOR', `${name} must be ${kindsOf(spec)}, got ${describe(value)}`);
}

/**
 * Reads a float tensor argument: nested arrays (of numbers, or of typed arrays as rows), a bare Float32Array or
 * Float64Array (a vector), or `{ data, shape }` with Float32Array, Float64Array or number[] data.
 * @param {unknown} value
 * @param {ArgumentSpec & { allowNegativeInfinity?: boolean }} spec  allowNegativeInfinity: −Infinity is a value
 *   (model.run's patches of scores, whose masked keys hold it)
 * @returns {import('./tensor.js').FloatInput}
 */
export function readFloatTensor(value, spec) {
  const allowNegativeInfinity = spec.allowNegativeInfinity === true;
  return guarded('NOT_A_TENSOR', spec.name, () => {
    const { data, shape, copied } = readAny(value, spec, 'float', allowNegativeInfinity);
    return { data, shape, name: spec.name, allowNegativeInfinity, valuesChecked: copied };
  });
}

/**
 * Reads a mask. Boolean (true = may attend): nested booleans, `{ data: boolean[], shape }`, and any integer typed
 * array of 0/1 (BOOLEAN_MASK_TYPES: a 'bool' Uint8Array, an int64 BigInt64Array, …) — bare, as `{ data, shape }`, or
 * as the rows of nested arrays. Additive: numbers in any other form (a Float32Array of 0/1 included).
 * @param {unknown} value
 * @param {ArgumentSpec} spec
 * @returns {import('./tensor.js').MaskInput}
 */
export function readMask(value, spec) {
  const modeOf = (first, innermost) =>
    typeof first === 'boolean' ? 'booleans' : BOOLEAN_MASK_TYPES.test(innermost) ? 'bytes' : 'float';
  return guarded('NOT_A_TENSOR', spec.name, () => {
    const { data, shape, copied, mode } = readAny(value, spec, modeOf, true);
    if (mode !== 'float') return { kind: 'boolean', data, shape };
    return { kind: 'additive', data, shape, name: spec.name, allowNegativeInfinity: true, valuesChecked: copied };
  });
}

/**
 * Checks, once every argument of a call is read, that each input still holds what was read: a view of the
 * caller's typed array would show a buffer the caller's code detached or shrank since (its length reads 0).
 * @param {Array<{ data: ArrayBufferView, shape: number[], name?: string } | null | undefined>} tensors
 */
export function checkHeld(tensors) {
  for (const tensor of tensors) {
    if (!tensor) continue;
    const expected = product(tensor.shape);
    const length = typedArrayLength(tensor.data);
    if (length !== expected) {
      const why = 'its buffer was detached or resized while the call read its other arguments';
      throw new AttentionError(
        'DATA_LENGTH_MISMATCH',
        `${tensor.name ?? 'mask'}.data held ${expected} values when it was read but holds ${length} now: ${why}`,
      );
    }
  }
}
