// attention-wasm/model: runs the checkpoints people have (the families of families/, SUPPORTED_FAMILIES, from their own
// config.json and model.safetensors files) in WebAssembly, and returns every layer's attention, the hidden states,
// the logits and any head's steps. Browser-safe; the Node entry (index.node.js) adds folder paths.
import { AttentionError, describe } from '../errors.js';
import { guarded, readRecord } from '../read.js';
import { openCheckpoint, resolveModel } from './checkpoint.js';
import { parseConfigText, readSpec } from './spec.js';
import { FAMILIES } from './families/index.js';
import { Model } from './model.js';
import { openFolder, readJson } from './sources.js';
import { loadTokenizer } from './tokenizer.js';
import { loadModelModule } from './wasm.js';
import { simdSupported } from '../loader.js';
import { checkAborted, readSignal } from './signal.js';
import { progressReporter } from './progress.js';
import { Shards } from './shards.js';
import { MAX_WORKERS, autoWorkerCount } from './shard-slices.js';

export { attentionWeightsFrom } from './attention-weights-from.js';
export { attentionTensorsOf } from './attention-sources.js';
export { Model };
export { HUB_URL } from './sources-url.js';
export { modelFolderUrl, parseModelSource } from './parse-source.js';
export { BUILTIN_MODEL } from './builtin.js';
export { SUPPORTED_FAMILIES } from './families/index.js';

/**
 * Loads a model from its folder: config.json, then the checkpoint's headers (model.safetensors or the shards of
 * model.safetensors.index.json); every tensor of the forward is found and its shape checked here, before any
 * weight is read. Weights are read later, one layer at a time, by each run. With a tokenizer.json, run() takes text.
 *
 * | source                                          | where                      |
 * |-------------------------------------------------|----------------------------|
 * | File[] or FileList (a dropped or picked folder) | browsers                   |
 * | Map or object: file name → Blob, bytes, string  | anywhere                   |
 * | a folder URL (string or URL), read by Range      | anywhere with fetch (CORS)  |
 * | `{ hub: 'owner/name', revision?, base? }`        | anywhere with fetch (CORS)  |
 * | a folder path                                   | Node (the `node` condition) |
 *
 * `signal` (an AbortSignal) stops the load (ABORTED); `cache` (openModelCache() of attention-wasm/model/cache)
 * keeps what a web source fetched, for the next load; `onProgress` gets { phase: 'download', file, loaded, total }
 * while a web source's JSON files come in, and each run's { phase, layer, loaded, total }. `residentBytes` (default
 * 1 GiB): when every weight of the forward fits it as float32, the model keeps each in WebAssembly memory from the
 * first run that uses it until dispose(), and later runs read nothing; 0 reads them at every run. `workers` (a count,
 * or 'auto') runs each layer split over that many workers (Web Workers; worker_threads in Node) by heads and by the
 * MLP's hidden units, each keeping its share of every layer's weights from the load until dispose(); run(),
 * generate() and unembed's LM head run there, the other instruments on the calling thread. 'auto' takes one less than
 * the processors (at least 1), or more, up to 8, until each worker's share fits 1 GiB of float32; when none does, no
 * workers (model.workers is 0).
 * @param {unknown} source
 * @param {{ onProgress?: (event: { phase: string, layer?: number, file?: string, loaded: number, total?: number }) => void,
 *   simd?: boolean, signal?: AbortSignal, cache?: { get: Function, set: Function }, residentBytes?: number,
 *   workers?: number | 'auto' }} [options]
 * @returns {Promise<Model>}
 */
export async function loadModel(source, options) {
  const o = readRecord(
    options,
    'loadModel options',
    ['onProgress', 'simd', 'signal', 'cache', 'residentBytes', 'workers'],
    'option',
  );
  const { onProgress, simd, cache, residentBytes } = o;
  const signal = readSignal(o.signal, 'loadModel options');
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw new AttentionError('BAD_OPTION', `onProgress must be a function, got ${describe(onProgress)}`);
  }
  if (simd !== undefined && typeof simd !== 'boolean') {
    throw new AttentionError('BAD_OPTION', `simd must be true or false, got ${describe(simd)}`);
  }
  const isCache = guarded(
    'BAD_OPTION',
    'loadModel options.cache',
    () => cache === undefined || (typeof cache?.get === 'function' && typeof cache?.set === 'function'),
  );
  if (!isCache) {
    throw new AttentionError(
      'BAD_OPTION',
      `cache must be a cache of attention-wasm/model/cache (openModelCache()) or an object with get and set, got ${describe(cache)}`,
    );
  }
  if (
    residentBytes !== undefined &&
    !(typeof residentBytes === 'number' && residentBytes >= 0 && residentBytes <= Infinity)
  ) {
    throw new AttentionError(
      'BAD_OPTION',
      `residentBytes must be a number of bytes ≥ 0, got ${describe(residentBytes)}`,
    );
  }
  const workers = readWorkers(o.workers);
  const step = async (promise) => {
    const value = await promise;
    checkAborted(signal, 'loadModel');
    return value;
  };
  checkAborted(signal, 'loadModel');
  const progress = progressReporter(onProgress); // a handler that throws is BAD_OPTION saying so
  const folder = await step(openFolder(source, { onProgress: progress, signal, cache }));
  const config = await step(readJson(folder, 'config.json', parseConfigText)); // config.json's object
  const spec = readSpec(config); // what this package reads from it (spec.js)
  const checkpoint = await step(openCheckpoint(folder));
  const tensors = resolveModel(checkpoint, spec, FAMILIES[spec.family]);
  const count = workers === 'auto' ? autoWorkerCount(spec, tensors) : workers; // 'auto': 0 when no count fits
  const tokenizer = await step(loadTokenizer(folder));
  const module = await step(loadModelModule({ simd }));
  const shards = count
    ? await step(Shards.start({ spec, tensors, checkpoint }, count, { simd: simd ?? simdSupported(), signal }))
    : null;
  folder.endLoad?.();
  return new Model({
    module,
    checkpoint,
    config,
    spec,
    tensors,
    onProgress: progress,
    tokenizer,
    residentBytes,
    shards,
  });
}

/** loadModel's `workers`: a count from 1 to MAX_WORKERS, or 'auto' (counted by autoWorkerCount); 0 when unset. */
function readWorkers(workers) {
  if (workers === undefined || workers === 'auto') return workers ?? 0;
  if (!Number.isInteger(workers) || workers < 1 || workers > MAX_WORKERS) {
    throw new AttentionError(
      'BAD_OPTION',
      `workers must be an integer from 1 to ${MAX_WORKERS} or 'auto', got ${describe(workers)}`,
    );
  }
  return workers;
}
