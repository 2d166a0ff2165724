// Each build's .wasm as a script module (src/js/wasm/attention-<build>.wasm.js, written by scripts/gen-inline.mjs),
// for pages that may import scripts from where this package is served but not fetch a .wasm from there (a CDN
// under a CSP whose connect-src is 'self'): the elements' cross-origin path imports the main API and only the
// build it runs, and passes its bytes as wasmUrl. The one list of these modules (gen-inline.mjs checks it).
const MODULES = {
  simd: () => import('./wasm/attention-simd.wasm.js'),
  scalar: () => import('./wasm/attention-scalar.wasm.js'),
};

/**
 * The .wasm bytes of one build, from its script module. The module holds them deflated (raw DEFLATE) and in
 * base64, which a CDN's gzip brings back to about the .wasm's own gzipped size (plain base64 would cost a third
 * more); DecompressionStream inflates them. Rejects where DecompressionStream('deflate-raw') is missing.
 * @param {'simd' | 'scalar'} build
 * @returns {Promise<Uint8Array>}
 */
export async function wasmBytes(build) {
  const { default: text } = await MODULES[build]();
  const chars = atob(text);
  const deflated = new Uint8Array(chars.length);
  for (let i = 0; i < chars.length; i++) deflated[i] = chars.charCodeAt(i);
  const inflated = new Blob([deflated]).stream().pipeThrough(new DecompressionStream('deflate-raw'));
  return new Uint8Array(await new Response(inflated).arrayBuffer());
}
