// attention-wasm/model's own WebAssembly module: the core and the model forward (src/core/model), built apart from
// the main module so that pages that never run a model never download it. The same loader starts it (loader.js),
// from the .wasm next to these files, written as `new URL('…', import.meta.url)` so that bundlers emit it.
import { loadModule } from '../loader.js';
import { simdSupported } from '../loader.js';
import { INLINE_ADVICE } from '../loader-source.js';

/** The Emscripten glue of each build of the model's module. */
export const MODEL_FACTORIES = {
  simd: () => import('../wasm/model-simd.js'),
  scalar: () => import('../wasm/model-scalar.js'),
};

const MODEL_FILES = {
  simd: () => new URL('../wasm/model-simd.wasm', import.meta.url),
  scalar: () => new URL('../wasm/model-scalar.wasm', import.meta.url),
};

/** Where the model's `variant` build is, as loader.js's compileWasm and loadModule take it. */
export const modelWasmFiles = (variant) => ({ [variant]: { location: MODEL_FILES[variant]().href } });

/**
 * Starts the model's module: the SIMD build where the engine has SIMD (or `simd` says so), else the scalar one.
 * @param {{ simd?: boolean }} [options]
 */
export function loadModelModule({ simd = simdSupported() } = {}) {
  const variant = simd ? 'simd' : 'scalar';
  return loadModule(variant, modelWasmFiles(variant), MODEL_FACTORIES[variant]).catch((error) => {
    // The model has no inline build: under a CSP, connect-src must allow the package's origin, or serve it from the page's.
    if (error?.code === 'LOAD_FAILED')
      error.message = error.message.replace(INLINE_ADVICE, ", or serve the package from the page's origin");
    throw error;
  });
}
