// How the names of src/core/abi.h's lists read in JS: used by scripts/gen-constants.mjs to write
// ./generated/abi.js.

/** kQueryBlock → QUERY_BLOCK */
export const constantName = (name) =>
  name
    .replace(/^k/, '')
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toUpperCase();
/** kTopLeft → topLeft */
export const enumeratorName = (name) => name.replace(/^k(.)/, (_, c) => c.toLowerCase());
/** num_kv_heads → numKvHeads, d_k → dK: the core's snake_case in the JS layer's camelCase */
export const camelName = (name) => name.replace(/_(.)/g, (_, c) => c.toUpperCase());
