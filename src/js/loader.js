// Loads the Emscripten module in Node, a page, a Web Worker or a bundler, with no configuration.
// The .wasm URL is written as `new URL('./wasm/…', import.meta.url)` so that bundlers (Vite) emit it as an asset.
import { AttentionError } from './errors.js';
import * as abi from './generated/abi.js';
import { camelName, constantName, enumeratorName, renamed } from './abi-names.js';

const { CALL_KINDS, CAUSAL, DESCRIPTOR_SLOTS, DESCRIPTOR_SLOT_COUNT, MASK_KINDS } = abi;

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

/** Where the .wasm of `variant` is: next to this file, or `wasmUrl` resolved against the page. LOAD_FAILED if none. */
function wasmLocation(variant, wasmUrl) {
  if (wasmUrl === undefined) return VARIANTS[variant].url();
  const base = globalThis.location?.href;
  try {
    return new URL(String(wasmUrl), base);
  } catch (cause) {
    const why =
      base === undefined
        ? "it is not an absolute URL, and there is no page location to resolve it against (in Node, pass an absolute file: or http: URL, e.g. new URL('./x.wasm', import.meta.url))"
        : `it is not a URL, even relative to ${base}`;
    throw new AttentionError('LOAD_FAILED', `wasmUrl ${JSON.stringify(String(wasmUrl))} cannot be used: ${why}`, {
      cause,
    });
  }
}

// What each variant's kernels report (kernel_backend in abi.h), and so which build a loaded .wasm file is.
const BACKENDS = { simd: 'wasm-simd128', scalar: 'scalar' };

/**
 * Instantiates one variant of the module, and checks that the .wasm file is that variant and shares this
 * package's call descriptor layout (abi.h): otherwise LOAD_FAILED, which says what the file is.
 * @param {'simd' | 'scalar'} variant
 * @param {string | URL | undefined} wasmUrl  where to fetch the .wasm instead of next to this file
 */
export async function loadModule(variant, wasmUrl) {
  const url = wasmLocation(variant, wasmUrl);
  let wasmBinary;
  try {
    wasmBinary = await readBytes(url);
  } catch (cause) {
    throw new AttentionError(
      'LOAD_FAILED',
      `could not load the WebAssembly module from ${url.href}: ${cause?.message ?? cause}`,
      { cause },
    );
  }
  const messages = [];
  let module;
  try {
    const { default: createModule } = await VARIANTS[variant].factory();
    module = await createModule({
      wasmBinary,
      print: () => {},
      printErr: (message) => messages.push(message),
    });
  } catch (cause) {
    const detail = messages.length ? messages.join('; ') : String(cause?.message ?? cause);
    throw new AttentionError('LOAD_FAILED', `could not start the WebAssembly module from ${url.href}: ${detail}`, {
      cause,
    });
  }
  checkBuild(module, variant, url);
  return module;
}

/** LOAD_FAILED unless the module is `variant` and was built from the abi.h that ./generated/abi.js comes from. */
function checkBuild(module, variant, url) {
  const backend = typeof module._kernelBackend === 'function' ? module._kernelBackend() : 'unknown';
  if (backend !== BACKENDS[variant]) {
    const other = Object.keys(BACKENDS).find((name) => BACKENDS[name] === backend);
    const fix = other ? `; pass simd: ${other === 'simd'} to use it, or point wasmUrl at the ${variant} build` : '';
    throw new AttentionError(
      'LOAD_FAILED',
      `the WebAssembly module at ${url.href} is the ${other ?? `unknown (${backend})`} build, not the ${variant} build that was asked for${fix}`,
    );
  }
  // The block sizes and the descriptor layout the JS layer uses must be the module's own.
  const report = module._abi();
  const same = (a, b) => JSON.stringify(a) === JSON.stringify(b);
  const constants = renamed(report.constants, constantName);
  const agrees =
    same(renamed(report.slots, camelName), DESCRIPTOR_SLOTS) &&
    report.slotCount === DESCRIPTOR_SLOT_COUNT &&
    same(renamed(report.causal, enumeratorName), CAUSAL) &&
    same(renamed(report.maskKinds, enumeratorName), MASK_KINDS) &&
    same(renamed(report.callKinds, enumeratorName), CALL_KINDS) &&
    Object.keys(constants).every((name) => abi[name] === constants[name]);
  if (!agrees) {
    throw new AttentionError(
      'LOAD_FAILED',
      `the WebAssembly module at ${url.href} comes from another version of attention-wasm: its constants or call descriptor differ from this package's`,
    );
  }
}
