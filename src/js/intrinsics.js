// Built-in functions captured when the package loads, for reading what callers pass without running any code
// of theirs: a typed array's own `length` or a polluted prototype cannot stand in for these.

const typedArrayPrototype = Object.getPrototypeOf(Uint8Array.prototype);

/** The getter of `object[key]`, or undefined where this engine has none. */
export const getterOf = (object, key) => Object.getOwnPropertyDescriptor(object, key)?.get;

const tagGetter = getterOf(typedArrayPrototype, Symbol.toStringTag);
const lengthGetter = getterOf(typedArrayPrototype, 'length');
const bufferGetter = getterOf(typedArrayPrototype, 'buffer');
const offsetGetter = getterOf(typedArrayPrototype, 'byteOffset');

/** 'Float32Array', 'Uint8Array', … for a typed array; undefined for anything else (a Proxy or a DataView too). */
export const typedArrayTag = (value) => tagGetter.call(value);

/** The number of elements of a typed array (0 once its buffer is detached or shrunk below it). */
export const typedArrayLength = (array) => lengthGetter.call(array);

/**
 * A new `Type` view (Float32Array, …: the array's own type) of the first `length` elements of a typed array's
 * memory: the same values without a copy, and without the own properties or the subclass the array may have.
 */
export const typedArrayView = (array, Type, length) =>
  new Type(bufferGetter.call(array), offsetGetter.call(array), length);

/** SharedArrayBuffer's byteLength getter, a brand check (it throws for anything else); undefined without one. */
export const sharedByteLength = globalThis.SharedArrayBuffer && getterOf(SharedArrayBuffer.prototype, 'byteLength');

export const { hasOwn } = Object;
export const { getPrototypeOf } = Reflect;
