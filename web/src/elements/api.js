// The one place the elements import attention-wasm from: a relative path, so the raw files work from a CDN.
// When the `inline` entry (the WebAssembly inlined, no .wasm fetch) exists, this is the one line to switch.
import { createAttention } from '../../../src/js/index.js';

let shared = null;

/**
 * The one Attention instance every element on the page shares: the module is loaded and compiled once, at the
 * first element that scrolls into view. A failed load is kept, so every element shows the same message.
 * @returns {Promise<import('../../../src/js/index.js').Attention>}
 */
export function sharedAttention() {
  shared ??= createAttention();
  return shared;
}

/** Reads a .npz or .safetensors file through attention-wasm/io, loaded only when such a file is asked for. */
export async function readTensorFile(kind, bytes) {
  const io = await import('../../../src/js/io/index.js');
  return kind === 'npz' ? io.readNpz(bytes) : io.readSafetensors(bytes);
}
