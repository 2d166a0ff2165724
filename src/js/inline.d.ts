// attention-wasm/inline: the same API as attention-wasm, with both .wasm builds inlined (src/js/inline.js, made by
// scripts/gen-inline.mjs). Its types are the main entry's, and so are its classes: AttentionError and Tensor come
// from the package's errors.js and tensor.js, as attention-wasm/io's do.
export * from './index.js';
