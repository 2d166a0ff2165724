// Where each build's .wasm is by default: next to this package's files, written as `new URL('./…', import.meta.url)`
// so that bundlers emit it as an asset. scripts/gen-inline.mjs swaps this module for one holding the bytes.
export const WASM_FILES = {
  simd: () => new URL('./wasm/attention-simd.wasm', import.meta.url),
  scalar: () => new URL('./wasm/attention-scalar.wasm', import.meta.url),
};
