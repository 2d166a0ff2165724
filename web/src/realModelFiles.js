// Where the "Real model" source's files come from: the shipped model fetched from the page's own folder (with the
// bytes counted and a Cancel), or a dropped / picked folder; and one layer's attention weights read from the
// checkpoint for the step-by-step walk (only that layer's tensors are read).
import { openSafetensors } from '../../src/js/io/index.js';
import { attentionWeightsFrom, modelFolderUrl, parseModelSource } from '../../src/js/model/index.js';
import { clearModelCache, modelCacheBytes, openModelCache } from '../../src/js/model/cache.js';
import { BUILTIN } from './model/realModel.js';
import { isLayerAttention } from './model/modelWalk.js';

/**
 * Fetches the shipped model's files into a Map name → Blob, calling onBytes(loaded, total) as they arrive.
 * @param {AbortSignal} signal
 */
export async function fetchBuiltin(signal, onBytes) {
  const responses = await Promise.all(
    BUILTIN.files.map(async (name) => {
      const url = new URL(`${BUILTIN.base}${name}`, document.baseURI);
      const response = await fetch(url, { signal });
      if (!response.ok) throw new Error(`${url.pathname} answered ${response.status} ${response.statusText}`);
      return [name, response];
    }),
  );
  const total = responses.reduce((sum, [, r]) => sum + Number(r.headers.get('content-length') ?? 0), 0);
  let loaded = 0;
  const files = new Map();
  for (const [name, response] of responses) {
    const reader = response.body.getReader();
    const parts = [];
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      parts.push(value);
      loaded += value.byteLength;
      onBytes(loaded, Math.max(total, loaded));
    }
    files.set(name, new Blob(parts));
  }
  return files;
}

/** A dropped or picked folder as a Map name → File (the last folder's name wins nothing: names must be unique). */
export function filesOf(list) {
  const files = new Map();
  for (const file of list) {
    const name = file.name || file.webkitRelativePath.split('/').pop();
    if (!files.has(name)) files.set(name, file);
  }
  return files;
}

/** The files of a drop: a dropped folder's entries are walked (one level of subfolders), plain files taken as they are. */
export async function droppedFiles(dataTransfer) {
  const entries = [...(dataTransfer?.items ?? [])].map((item) => item.webkitGetAsEntry?.()).filter(Boolean);
  if (!entries.some((entry) => entry.isDirectory)) return [...(dataTransfer?.files ?? [])];
  const files = [];
  const walk = async (entry, depth) => {
    if (entry.isFile) files.push(await new Promise((resolve, reject) => entry.file(resolve, reject)));
    else if (entry.isDirectory && depth < 2) {
      const reader = entry.createReader();
      for (;;) {
        const batch = await new Promise((resolve, reject) => reader.readEntries(resolve, reject));
        if (batch.length === 0) break;
        for (const child of batch) await walk(child, depth + 1);
      }
    }
  };
  for (const entry of entries) await walk(entry, 0);
  return files;
}

/**
 * One layer's attention weights (attentionWeightsFrom's layout) from the folder's safetensors files: every file's
 * header is read, and of the tensors only those of this layer's attention.
 * @param {Map<string, Blob>} files
 */
export async function layerWeights(files, config, layer) {
  const tensors = new Map();
  for (const [name, blob] of files) {
    if (!name.endsWith('.safetensors')) continue;
    const opened = await openSafetensors(blob);
    for (const t of opened.tensors) {
      // Every name is listed (the prefix is found from layer 0's); only this layer's attention is read.
      tensors.set(t.name, isLayerAttention(t.name, layer) ? await opened.read(t.name) : { shape: t.shape, data: null });
    }
  }
  return attentionWeightsFrom(tensors, { layer, config });
}

/** The deployment's Hub (a mirror of its layout) for typed Hub ids: `<meta name="attention-wasm-hub" content="…">`. */
export const HUB_META = 'attention-wasm-hub';

/**
 * A Hub model id or a folder URL typed in the field or named by a link (attention-wasm/model's parseModelSource,
 * relative URLs against the page, Hub ids on the deployment's Hub): { source, name, folder }, `name` for links and
 * `folder` the URL its files are read from; or { problem } for the page to show.
 */
export function typedModel(text) {
  const hub = document.querySelector(`meta[name="${HUB_META}"]`)?.content.trim() || undefined;
  try {
    const source = parseModelSource(String(text ?? ''), { base: document.baseURI, hub });
    const name = typeof source === 'string' ? source : `${source.hub}${source.revision ? `@${source.revision}` : ''}`;
    return { source, name, folder: modelFolderUrl(source) };
  } catch (error) {
    const typed = `“${String(text).slice(0, 80)}” is neither a Hub model id (owner/name, such as openai-community/gpt2) nor a folder URL (https://…/folder/).`;
    return { problem: error.message.startsWith('"') ? typed : `${typed} ${error.message}` };
  }
}

/** The model cache (Cache Storage) for models read by address, or undefined where the browser has none. */
export const openCache = () => openModelCache().catch(() => undefined);

/** Bytes kept in the model cache (0 where there is none). */
export const cacheBytes = () => modelCacheBytes().catch(() => 0);

/** Empties the model cache. */
export const clearCache = () => clearModelCache().catch(() => false);

/** tokenizer.json's object from the files, or from the folder URL. */
export async function tokenizerJson(files, folder) {
  if (files) return JSON.parse(await files.get('tokenizer.json').text());
  const response = await fetch(new URL('tokenizer.json', folder));
  return response.ok ? response.json() : {};
}

/** The safetensors files of a folder URL: model.safetensors, or the shards model.safetensors.index.json names. */
export async function urlShards(folder) {
  const single = await fetch(new URL('model.safetensors', folder), { headers: { Range: 'bytes=0-7' } });
  await single.body?.cancel();
  if (single.ok) return ['model.safetensors'];
  const index = await fetch(new URL('model.safetensors.index.json', folder));
  if (!index.ok) throw new Error(`${folder} has neither model.safetensors nor model.safetensors.index.json`);
  return [...new Set(Object.values((await index.json()).weight_map ?? {}))];
}

/** Bytes [begin, end) of a URL by a Range request (a server that ignores Range sends the whole file: sliced here). */
async function fetchBytes(url, begin, end) {
  const response = await fetch(url, { headers: { Range: `bytes=${begin}-${end - 1}` } });
  if (!response.ok) throw new Error(`${url} answered ${response.status} ${response.statusText}`);
  const bytes = new Uint8Array(await response.arrayBuffer());
  return response.status === 206 ? bytes : bytes.subarray(begin, end);
}

/**
 * One layer's attention weights from a folder URL (a model read by address): each safetensors file's header by
 * Range requests, then only this layer's attention tensors, rewritten as a small safetensors file that
 * attention-wasm/io decodes. `files`: the safetensors file names (model.safetensors, or the index's shards).
 */
export async function urlLayerWeights(folder, files, config, layer) {
  const tensors = new Map();
  for (const file of files) {
    const url = new URL(file, folder).href;
    const length = Number(new DataView((await fetchBytes(url, 0, 8)).slice().buffer).getBigUint64(0, true));
    if (!(length > 0 && length < 100 * 2 ** 20)) throw new Error(`${file}'s header length ${length} is not plausible`);
    const header = JSON.parse(new TextDecoder().decode(await fetchBytes(url, 8, 8 + length)));
    const wanted = {};
    const parts = [];
    let offset = 0;
    for (const [name, entry] of Object.entries(header)) {
      if (name === '__metadata__') continue;
      if (!isLayerAttention(name, layer)) {
        tensors.set(name, { shape: entry.shape, data: null });
        continue;
      }
      const [b, e] = entry.data_offsets;
      parts.push(await fetchBytes(url, 8 + length + b, 8 + length + e));
      wanted[name] = { dtype: entry.dtype, shape: entry.shape, data_offsets: [offset, offset + e - b] };
      offset += e - b;
    }
    let json = JSON.stringify(wanted);
    json += ' '.repeat((8 - (json.length % 8)) % 8);
    const head = new TextEncoder().encode(json);
    const prefix = new Uint8Array(8);
    new DataView(prefix.buffer).setBigUint64(0, BigInt(head.length), true);
    const opened = await openSafetensors(new Blob([prefix, head, ...parts]));
    for (const t of opened.tensors) tensors.set(t.name, await opened.read(t.name));
  }
  return attentionWeightsFrom(tensors, { layer, config });
}
