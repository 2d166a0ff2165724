// attention-wasm: the package's entry. createAttention loads the module and returns an Attention (attention.js),
// or a ParallelAttention over workers (parallel.js); everything else here is re-exported.
import { AttentionError, describe } from './errors.js';
import { Tensor } from './tensor.js';
import { loadModule, readWasmOption, simdSupported } from './loader.js';
import { MAX_CALL_BYTES } from './plan.js';
import { readRecord } from './read.js';
import { Attention } from './attention.js';

export { Attention, AttentionError, MAX_CALL_BYTES, Tensor, simdSupported };

const CREATE_OPTIONS = ['simd', 'wasmUrl', 'workers'];
const MAX_WORKERS = 64;

/**
 * Loads the module and returns an Attention instance (a ParallelAttention with `workers`).
 * @param {{ simd?: boolean, wasmUrl?: import('./index.d.ts').WasmSource | { simd?: import('./index.d.ts').WasmSource, scalar?: import('./index.d.ts').WasmSource }, workers?: number }} [options]
 *   simd: force the SIMD (true) or scalar (false) build; by default SIMD where the engine supports it.
 *   wasmUrl: the .wasm to run instead of the one next to this file: a URL (in Node, also a file path), its bytes
 *   or a compiled WebAssembly.Module, or { simd, scalar } of those. Each is compiled once per page.
 *   workers: spread each call over this many workers (Web Workers, or worker_threads in Node).
 */
export async function createAttention(options) {
  const o = readRecord(options, 'createAttention options', CREATE_OPTIONS, 'option');
  if (o.simd !== undefined && typeof o.simd !== 'boolean') {
    throw new AttentionError('BAD_OPTION', `simd must be true or false, got ${describe(o.simd)}`);
  }
  const supported = simdSupported();
  if (o.simd === true && !supported) {
    throw new AttentionError(
      'SIMD_UNSUPPORTED',
      'simd: true was asked for, but this engine has no WebAssembly SIMD; leave simd unset to fall back to the scalar build',
    );
  }
  const simd = o.simd ?? supported;
  const wasm = readWasmOption(o.wasmUrl);
  if (o.workers !== undefined) {
    if (!Number.isInteger(o.workers) || o.workers < 1 || o.workers > MAX_WORKERS) {
      throw new AttentionError(
        'BAD_OPTION',
        `workers must be an integer from 1 to ${MAX_WORKERS}, got ${describe(o.workers)}`,
      );
    }
    const { createParallelAttention } = await import('./parallel.js');
    return createParallelAttention(o.workers, simd, wasm);
  }
  const module = await loadModule(simd ? 'simd' : 'scalar', wasm);
  return new Attention(module);
}
