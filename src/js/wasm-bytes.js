// Each build's .wasm as a script module (src/js/wasm/attention-<build>.wasm.js, written by scripts/gen-inline.mjs),
// for pages that may import scripts from where this package is served but not fetch a .wasm from there (a CDN
// under a CSP whose connect-src is 'self'): the elements' cross-origin path imports the main API and only the
// build it runs, and passes its bytes as wasmUrl. The one list of these modules (gen-inline.mjs checks it).
const MODULES = {
  simd: () => import('./wasm/attention-simd.wasm.js'),
  scalar: () => import('./wasm/attention-scalar.wasm.js'),
};

/**
 * The .wasm bytes of one build, from its script module. The module holds them as a string of one character per
 * byte (U+0000 to U+00FF), which gzips nearly as well as the .wasm itself (base64 would cost a third more).
 * @param {'simd' | 'scalar'} build
 * @returns {Promise<Uint8Array>}
 */
export async function wasmBytes(build) {
  const { default: text } = await MODULES[build]();
  const bytes = new Uint8Array(text.length);
  for (let i = 0; i < text.length; i++) bytes[i] = text.charCodeAt(i);
  return bytes;
}
