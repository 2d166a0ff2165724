import { getterOf, sharedByteLength, typedArrayLength, typedArrayTag } from './intrinsics.js';

// Every AttentionError made, so that one is recognised without running any code of a value (a Proxy's trap).
const created = new WeakSet();

/**
 * The one error type of the public API. `code` is stable across versions; `message` names the argument
 * and the shapes involved.
 *
 * Every code, with what raises it, is listed once in src/core/abi.h (ERROR_CODES in ./generated/abi.js, the
 * AttentionErrorCode type, and the guide's table (docs/guide.md) are generated from or checked against it).
 */
export class AttentionError extends Error {
  /**
   * @param {string} code
   * @param {string} message
   * @param {{ cause?: unknown }} [options]
   */
  constructor(code, message, options) {
    super(message, options);
    this.name = 'AttentionError';
    this.code = code;
    created.add(this);
  }
}

/** True for an AttentionError (and for nothing that merely looks like one). */
export const isAttentionError = (value) => created.has(value);

/** Formats a shape as `[2, 3]`. */
export function formatShape(shape) {
  return `[${shape.join(', ')}]`;
}

// Describing a value runs none of its own code (no toString, valueOf, Symbol.toStringTag, getter or Proxy trap).
const symbolDescription = getterOf(Symbol.prototype, 'description');
// Brand checks: each of these throws for any object but its own kind (a Proxy included).
const BRANDS = [
  ['a Map', getterOf(Map.prototype, 'size')],
  ['a Set', getterOf(Set.prototype, 'size')],
  ['a Date', Date.prototype.getTime],
  ['an ArrayBuffer', getterOf(ArrayBuffer.prototype, 'byteLength')],
  ['a SharedArrayBuffer', sharedByteLength],
  ['a DataView', getterOf(DataView.prototype, 'byteLength')],
].filter(([, check]) => check);

const MAX_TEXT = 40;

/** `text`, cut to MAX_TEXT characters with an ellipsis. */
const truncate = (text) => (text.length > MAX_TEXT ? `${text.slice(0, MAX_TEXT)}…` : text);

function describeObject(value) {
  try {
    if (Array.isArray(value)) return 'an array';
  } catch {
    return 'a revoked Proxy';
  }
  const tag = typedArrayTag(value);
  if (tag) return `${tag.startsWith('I') ? 'an' : 'a'} ${tag} of ${typedArrayLength(value)} values`;
  for (const [name, check] of BRANDS) {
    try {
      check.call(value);
      return name;
    } catch {
      // not this kind
    }
  }
  return 'an object';
}

/**
 * A short description of any value for messages, e.g. `the string "abc"`, `the bigint 10n`, `an array`.
 * Never throws and runs no code of the value's own: Proxies, getters, toString and valueOf are never touched.
 */
export function describe(value) {
  try {
    switch (typeof value) {
      case 'undefined':
        return 'undefined';
      case 'boolean':
        return value ? 'true' : 'false';
      case 'number':
        return `the number ${Object.is(value, -0) ? '-0' : value}`;
      case 'bigint':
        return `the bigint ${truncate(`${value}`)}n`;
      case 'string':
        return `the string ${JSON.stringify(truncate(value))}`;
      case 'symbol': {
        const description = symbolDescription.call(value);
        return description === undefined ? 'a symbol' : `the symbol ${JSON.stringify(truncate(description))}`;
      }
      case 'function':
        return 'a function';
      default:
        return value === null ? 'null' : describeObject(value);
    }
  } catch {
    return 'a value that cannot be described';
  }
}

/** Levenshtein distance, for "did you mean" suggestions. */
function editDistance(a, b) {
  let previous = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = previous[j - 1] + (a[i - 1].toLowerCase() === b[j - 1].toLowerCase() ? 0 : 1);
      current.push(Math.min(previous[j] + 1, current[j - 1] + 1, substitution));
    }
    previous = current;
  }
  return previous[b.length];
}

// Past this length a key is no typo of a valid name, and comparing it to each would only take time.
const MAX_SUGGESTED_KEY = 64;

/**
 * The UNKNOWN_OPTION error for `key`, naming the nearest allowed key when `key` is short enough to be a typo.
 * @param {string} key
 * @param {readonly string[]} allowed
 * @param {string} what  e.g. "option" or "weight"
 */
export function unknownKeyError(key, allowed, what) {
  const nearest =
    key.length > MAX_SUGGESTED_KEY
      ? undefined
      : [...allowed].sort((a, b) => editDistance(key, a) - editDistance(key, b))[0];
  const suggestion = nearest === undefined ? '.' : `; did you mean '${nearest}'?`;
  return new AttentionError(
    'UNKNOWN_OPTION',
    `unknown ${what} '${truncate(key)}'${suggestion} Valid ${what}s: ${allowed.join(', ')}`,
  );
}
