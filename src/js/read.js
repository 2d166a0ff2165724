// Reading the caller's objects: a property once (never one only Object.prototype has), a plain object's own
// properties once each into a record, a URL by its own getter. An exception thrown by the caller's code while it
// is read (a getter, a Proxy trap) becomes an AttentionError that says where.
import { AttentionError, describe, isAttentionError, unknownKeyError } from './errors.js';
import { getPrototypeOf, getterOf, hasOwn } from './intrinsics.js';

const MAX_PROTOTYPES = 16; // how far up a prototype chain a tensor's `data` and `shape` are looked for

/** An option that is a list: undefined is none, anything but an array BAD_OPTION saying what it must be. */
export function readList(value, name, what) {
  if (value === undefined) return [];
  if (!Array.isArray(value)) throw new AttentionError('BAD_OPTION', `${name} must be ${what}, got ${describe(value)}`);
  return value;
}

/**
 * Runs `read`, turning an exception thrown by the caller's own code (a getter, a Proxy trap) into an
 * AttentionError with `code` that says where; AttentionErrors pass through.
 */
export function guarded(code, name, read) {
  try {
    return read();
  } catch (error) {
    if (isAttentionError(error)) throw error;
    throw new AttentionError(code, `reading ${name} ran a getter or Proxy trap of its own that threw (see the cause)`, {
      cause: error,
    });
  }
}

/**
 * Reads `object[key]` once: an own property, or one a prototype below Object.prototype defines (a class's
 * getter); never one that only Object.prototype has, which may have been polluted. Where the property is is
 * asked first (a Proxy's getOwnPropertyDescriptor trap); its value is then read once (its get trap, or a getter).
 */
export function readField(object, key) {
  let owner = object;
  for (let depth = 0; depth < MAX_PROTOTYPES && owner !== null && owner !== Object.prototype; depth++) {
    if (hasOwn(owner, key)) return object[key];
    owner = getPrototypeOf(owner);
  }
  return undefined;
}

/**
 * Reads a plain object (prototype Object.prototype or null): its own enumerable properties, each once, into a
 * new record; inherited ones are ignored. undefined gives an empty record. With `allowed`, a key outside it is
 * UNKNOWN_OPTION (before any value is read), and the record has each allowed key as an own property (undefined
 * where absent); without, the record has no prototype. Either way nothing reads through to Object.prototype.
 * @param {unknown} value
 * @param {string} name  e.g. "options", for messages
 * @param {readonly string[]} [allowed]
 * @param {string} [what]  e.g. "option" or "weight"
 */
export function readRecord(value, name, allowed, what) {
  const record = allowed ? {} : Object.create(null);
  if (allowed) for (const key of allowed) record[key] = undefined;
  if (value === undefined) return record;
  if (value === null || typeof value !== 'object') {
    throw new AttentionError('BAD_OPTION', `${name} must be an object, got ${describe(value)}`);
  }
  return guarded('BAD_OPTION', name, () => {
    const prototype = getPrototypeOf(value);
    if (prototype !== Object.prototype && prototype !== null) {
      throw new AttentionError(
        'BAD_OPTION',
        `${name} must be a plain object such as { … }, got ${describe(value)} (its prototype is not Object.prototype)`,
      );
    }
    const keys = Object.keys(value);
    const unknown = allowed && keys.find((key) => !allowed.includes(key));
    if (unknown !== undefined) throw unknownKeyError(unknown, allowed, what);
    for (const key of keys) record[key] = value[key];
    return record;
  });
}

const urlHref = globalThis.URL && getterOf(URL.prototype, 'href');

/** A string, or a URL's href (read by URL's own getter, which nothing else passes): BAD_OPTION otherwise. */
export function readUrl(value, name) {
  if (typeof value === 'string') return value;
  try {
    return urlHref.call(value);
  } catch {
    throw new AttentionError('BAD_OPTION', `${name} must be a string or a URL, got ${describe(value)}`);
  }
}
