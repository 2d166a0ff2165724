// Loads the Emscripten module in Node, a page, a Web Worker or a bundler, with no configuration.
// The .wasm URL is written as `new URL('./wasm/…', import.meta.url)` so that bundlers (Vite) emit it as an asset.
import { AttentionError } from './errors.js';

// The smallest module using a SIMD128 instruction: WebAssembly.validate says whether SIMD is there.
const SIMD_PROBE = new Uint8Array([
  0, 97, 115, 109, 1, 0, 0, 0, 1, 5, 1, 96, 0, 1, 123, 3, 2, 1, 0, 10, 10, 1, 8, 0, 65, 0, 253, 15, 253, 98, 11,
]);

/** True where this engine runs WebAssembly SIMD128. */
export function simdSupported() {
  try {
    return WebAssembly.validate(SIMD_PROBE);
  } catch {
    return false;
  }
}

const VARIANTS = {
  simd: {
    factory: () => import('./wasm/attention-simd.js'),
    url: () => new URL('./wasm/attention-simd.wasm', import.meta.url),
  },
  scalar: {
    factory: () => import('./wasm/attention-scalar.js'),
    url: () => new URL('./wasm/attention-scalar.wasm', import.meta.url),
  },
};

async function readBytes(url) {
  if (url.protocol === 'file:') {
    const { readFile } = await import(/* @vite-ignore */ 'node:fs/promises');
    return readFile(url);
  }
  const response = await fetch(url);
  if (!response.ok) throw new Error(`HTTP ${response.status} ${response.statusText}`.trim());
  return new Uint8Array(await response.arrayBuffer());
}

/**
 * Instantiates one variant of the module.
 * @param {'simd' | 'scalar'} variant
 * @param {string | URL | undefined} wasmUrl  where to fetch the .wasm instead of next to this file
 */
export async function loadModule(variant, wasmUrl) {
  const url = wasmUrl === undefined ? VARIANTS[variant].url() : new URL(String(wasmUrl), globalThis.location?.href);
  let wasmBinary;
  try {
    wasmBinary = await readBytes(url);
  } catch (cause) {
    throw new AttentionError('LOAD_FAILED', `could not load the WebAssembly module from ${url.href}: ${cause?.message ?? cause}`, { cause });
  }
  const messages = [];
  try {
    const { default: createModule } = await VARIANTS[variant].factory();
    return await createModule({
      wasmBinary,
      print: () => {},
      printErr: (message) => messages.push(message),
    });
  } catch (cause) {
    const detail = messages.length ? messages.join('; ') : String(cause?.message ?? cause);
    throw new AttentionError('LOAD_FAILED', `could not start the WebAssembly module from ${url.href}: ${detail}`, { cause });
  }
}
