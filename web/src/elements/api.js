// The one place the elements import attention-wasm from, by relative paths only (the raw files work from a CDN).
// - Served from the page's own origin: the main entry, which fetches the one .wasm this browser needs (a CSP's
//   connect-src 'self' allows that); 142.7 KB gzipped with the elements.
// - Served from another origin (a CDN), where a strict CSP's connect-src may forbid fetching the .wasm: the main
//   entry's JS and only the build this browser runs, as a script module (src/js/wasm-bytes.js) that script-src
//   allows, passed as wasmUrl; 144 KB gzipped with the elements (attention-wasm/inline, with both builds, ~189 KB).
// - The main entry failing to load (a bundler that did not copy the .wasm): that build's script module too; and
//   where that fails as well (no DecompressionStream), the inline entry.
const sameOrigin = typeof location !== 'undefined' && new URL(import.meta.url).origin === location.origin;

async function load() {
  try {
    const api = await import('../../../src/js/index.js');
    if (sameOrigin) {
      try {
        return await api.createAttention();
      } catch {
        // Fall through to the build's script module, which needs no fetch of a .wasm file.
      }
    }
    const { wasmBytes } = await import('../../../src/js/wasm-bytes.js');
    return await api.createAttention({ wasmUrl: await wasmBytes(api.simdSupported() ? 'simd' : 'scalar') });
  } catch {
    const { createAttention } = await import('../../../src/js/inline.js');
    return createAttention();
  }
}

let shared = null;

/**
 * The one Attention instance every element on the page shares: the module is loaded and compiled once, at the
 * first element that scrolls into view. A failed load is kept, so every element shows the same message.
 * @returns {Promise<import('../../../src/js/index.js').Attention>}
 */
export function sharedAttention() {
  shared ??= load();
  return shared;
}

/** attention-wasm/io, loaded only when a .npz or .safetensors file is asked for (by source.js). */
export const loadIo = () => import('../../../src/js/io/index.js');
