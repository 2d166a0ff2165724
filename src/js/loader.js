// Starts the Emscripten module in Node, a page, a Web Worker or a bundler, with no configuration, from the
// WebAssembly.Module that loader-source.js compiled (once per page), and checks that it is the build asked for.
import { AttentionError } from './errors.js';
import { ABI_HASH } from './generated/abi.js';
import { compileWasm } from './loader-source.js';

export { compileWasm, readWasmOption } from './loader-source.js';

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

const FACTORIES = {
  simd: () => import('./wasm/attention-simd.js'),
  scalar: () => import('./wasm/attention-scalar.js'),
};

// What each variant's kernels report (kernel_backend in abi.h), and so which build a loaded .wasm file is.
const BACKENDS = { simd: 'wasm-simd128', scalar: 'scalar' };

/**
 * Instantiates one variant of the module from its compiled WebAssembly.Module (compiled once per page: see
 * loader-source.js), and checks that it is that variant and shares this package's call descriptor layout
 * (abi.h): otherwise LOAD_FAILED, which says what the file is.
 * @param {'simd' | 'scalar'} variant
 * @param {ReturnType<typeof readWasmOption>} [wasm]  createAttention's wasmUrl, read by readWasmOption
 * @param {() => Promise<{ default: Function }>} [factory]  the Emscripten glue's import, when not this variant's
 *   own (attention-wasm/model passes its module's)
 */
export async function loadModule(variant, wasm, factory = FACTORIES[variant]) {
  // The glue loads while the module compiles; a failure to load it is handled where it is awaited.
  const glue = factory();
  glue.catch(() => {});
  const { module: compiled, from } = await compileWasm(variant, wasm);
  const messages = [];
  let module;
  try {
    const { default: createModule } = await glue;
    let failed;
    const failure = new Promise((_, reject) => {
      failed = reject;
    });
    module = await Promise.race([
      createModule({
        // Emscripten's hook for a module compiled elsewhere: instantiate it, and hand the instance back.
        instantiateWasm(imports, receive) {
          WebAssembly.instantiate(compiled, imports).then((instance) => receive(instance, compiled), failed);
          return {};
        },
        print: () => {},
        printErr: (message) => messages.push(message),
      }),
      failure,
    ]);
  } catch (cause) {
    const detail = messages.length ? messages.join('; ') : String(cause?.message ?? cause);
    throw new AttentionError('LOAD_FAILED', `could not start the WebAssembly module from ${from}: ${detail}`, {
      cause,
    });
  }
  checkBuild(module, variant, from);
  return module;
}

/** LOAD_FAILED unless the module is `variant` and was built from the abi.h that ./generated/abi.js comes from. */
function checkBuild(module, variant, from) {
  const backend = typeof module._kernelBackend === 'function' ? module._kernelBackend() : 'unknown';
  if (backend !== BACKENDS[variant]) {
    const other = Object.keys(BACKENDS).find((name) => BACKENDS[name] === backend);
    const fix = other ? `; pass simd: ${other === 'simd'} to use it, or point wasmUrl at the ${variant} build` : '';
    throw new AttentionError(
      'LOAD_FAILED',
      `the WebAssembly module from ${from} is the ${other ?? `unknown (${backend})`} build, not the ${variant} build that was asked for${fix}`,
    );
  }
  // The block sizes, enums, error codes and descriptor layout the JS layer uses must be the module's own.
  const agrees = typeof module._abiHash === 'function' && module._abiHash() === ABI_HASH;
  if (!agrees) {
    throw new AttentionError(
      'LOAD_FAILED',
      `the WebAssembly module from ${from} comes from another version of attention-wasm: its constants or call descriptor differ from this package's`,
    );
  }
}
