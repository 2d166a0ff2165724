// Where the "Real model" source's files come from: the shipped model fetched from the page's own folder (with the
// bytes counted and a Cancel), or a dropped / picked folder. (A head's weights in the walk come from the model
// itself: model.attentionWeights, session.js.)
import { modelFolderUrl, parseModelSource } from '../../../src/js/model/index.js';
import { clearModelCache, modelCacheBytes, openModelCache } from '../../../src/js/model/cache.js';
import { BUILTIN } from './realModel.js';

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

/** The optional files a folder URL is asked for (attention-wasm/model reads them when they are there). */
const OPTIONAL = ['tokenizer.json', 'tokenizer_config.json'];

/**
 * Watches a load from now on: what the page's Content-Security-Policy refuses to fetch (connect-src), and the files
 * downloaded (its progress events, passed through `saw`). `refused()` stops listening and says whether anything was
 * refused (after a task, so that a refusal of the last request is counted: its event comes as a task of its own);
 * `absent()` names the optional files not downloaded when the folder was fetched (its config.json was), which the
 * browser's console lists as 404s.
 */
export function watchLoad() {
  let refused = false;
  const fetched = new Set();
  const listen = (event) => {
    if (/^(connect|default)-src/u.test(event.effectiveDirective ?? event.violatedDirective ?? '')) refused = true;
  };
  document.addEventListener('securitypolicyviolation', listen);
  return {
    saw(event) {
      if (event?.phase === 'download' && event.file) fetched.add(event.file);
      return event;
    },
    refused: async () => {
      await new Promise((resolve) => setTimeout(resolve));
      document.removeEventListener('securitypolicyviolation', listen);
      return refused;
    },
    // tokenizer_config.json is asked for only when tokenizer.json is there.
    absent: () => {
      if (!fetched.has('config.json')) return [];
      return fetched.has(OPTIONAL[0]) ? OPTIONAL.slice(1).filter((name) => !fetched.has(name)) : OPTIONAL.slice(0, 1);
    },
  };
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
