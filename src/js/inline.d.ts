// attention-wasm/inline: the same API as attention-wasm, with both .wasm builds inlined (src/js/inline.js, made by
// scripts/gen-inline.mjs). Its types are the main entry's.
export * from './index.js';
