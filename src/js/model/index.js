// attention-wasm/model: runs the checkpoints people have (GPT-2, BERT and LLaMA-family models from their own
// config.json and model.safetensors files) in WebAssembly, and returns every layer's attention, the hidden states,
// the logits and any head's steps. Browser-safe; the Node entry (index.node.js) adds folder paths.
import { AttentionError, describe } from '../errors.js';
import { readRecord } from '../read.js';
import { openCheckpoint, resolveModel } from './checkpoint.js';
import { parseConfigText, readConfig } from './config.js';
import { FAMILIES } from './families.js';
import { Model } from './model.js';
import { openFolder, readJson } from './sources.js';
import { loadTokenizer } from './tokenizer.js';
import { loadModelModule } from './wasm.js';

export { attentionWeightsFrom } from './weights.js';
export { Model };

/**
 * Loads a model from its folder: config.json, then the checkpoint's headers (model.safetensors or the shards of
 * model.safetensors.index.json); every tensor of the forward is found and its shape checked here, before any
 * weight is read. Weights are read later, one layer at a time, by each run. With a tokenizer.json, run() takes text.
 *
 * | source                                          | where                      |
 * |-------------------------------------------------|----------------------------|
 * | File[] or FileList (a dropped or picked folder) | browsers                   |
 * | Map or object: file name → Blob, bytes, string  | anywhere                   |
 * | a folder path                                   | Node (the `node` condition) |
 * @param {unknown} source
 * @param {{ onProgress?: (event: { phase: string, layer?: number, loaded: number }) => void, simd?: boolean }} [options]
 * @returns {Promise<Model>}
 */
export async function loadModel(source, options) {
  const { onProgress, simd } = readRecord(options, 'loadModel options', ['onProgress', 'simd'], 'option');
  if (onProgress !== undefined && typeof onProgress !== 'function') {
    throw new AttentionError('BAD_OPTION', `onProgress must be a function, got ${describe(onProgress)}`);
  }
  if (simd !== undefined && typeof simd !== 'boolean') {
    throw new AttentionError('BAD_OPTION', `simd must be true or false, got ${describe(simd)}`);
  }
  const folder = await openFolder(source, { onProgress });
  const json = await readJson(folder, 'config.json', parseConfigText);
  const config = readConfig(json);
  const checkpoint = await openCheckpoint(folder);
  const tensors = resolveModel(checkpoint, config, FAMILIES[config.family]);
  const tokenizer = await loadTokenizer(folder);
  const module = await loadModelModule({ simd });
  return new Model({ module, checkpoint, config, json, tensors, onProgress, tokenizer });
}
