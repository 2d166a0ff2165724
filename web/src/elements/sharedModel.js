// The real models of the elements' page, loaded with attention-wasm/model only when an element has `model`: one
// load per source, shared by every element that names it (each element listening to its progress), and its runs
// one after another. `builtin` is the model shipped in the package, at attention-wasm/model's BUILTIN_MODEL. The elements load the
// raw files (from a CDN, say), where the package name @huggingface/tokenizers means nothing: that module is then
// loaded from where a CDN or node_modules keeps it, relative to this file.
import { BUILTIN_MODEL, loadModel } from '../../../src/js/model/index.js';
import { installTokenizersFallback } from '../../../src/js/model/tokenizer.js';
import { BUILTIN } from './modelSettings.js';

/** The version of @huggingface/tokenizers that package.json depends on (a test checks it). */
export const TOKENIZERS_VERSION = '0.2.0';
const [TOKENIZERS, TOKENIZERS_FILE] = ['@huggingface/tokenizers', 'dist/tokenizers.min.mjs'];

/** The URL of the built-in model's folder: BUILTIN_MODEL's (in the package; in a bundle, the page's models/induction/). */
export const builtinUrl = () => BUILTIN_MODEL.href;

/**
 * Where @huggingface/tokenizers may be beside these files: on a CDN that serves packages as /name@version/… (jsDelivr,
 * unpkg), at the pinned version; else in node_modules, inside this package's own or beside it.
 * @param {string} moduleUrl  this file's URL
 */
export function tokenizerUrls(moduleUrl) {
  if (/\/attention-wasm@[^/]+\/web\/src\/elements\/[^/]+$/u.test(new URL(moduleUrl).pathname))
    return [new URL(`../../../../${TOKENIZERS}@${TOKENIZERS_VERSION}/${TOKENIZERS_FILE}`, moduleUrl).href];
  return [`../../../node_modules/${TOKENIZERS}/`, `../../../../${TOKENIZERS}/`].map(
    (folder) => new URL(`${folder}${TOKENIZERS_FILE}`, moduleUrl).href,
  );
}

installTokenizersFallback(async (error) => {
  for (const url of tokenizerUrls(import.meta.url)) {
    try {
      return await import(/* webpackIgnore: true */ /* @vite-ignore */ url);
    } catch {
      // Not there: the next place.
    }
  }
  throw error;
});

const models = new Map(); // key → { model: Promise<Model>, listeners: Set, queue: Promise }
const provided = new Map(); // key → a source loadModel takes (provideModel)

/**
 * @internal Makes `model="name"` load `source` (anything loadModel takes: a Map of files, say).
 */
export function provideModel(name, source) {
  provided.set(name, source);
}

/**
 * The shared model of `settings` (modelSettings.js: key, source), loading it at the first call; `onProgress` hears
 * its load's and runs' progress until `forget()` is called.
 * @returns {{ model: Promise<import('../../../src/js/model/index.js').Model>, run: Function, call: Function,
 *   forget: () => void }}
 */
export function sharedModel({ key, source }, onProgress) {
  let entry = models.get(key);
  if (!entry) {
    const listeners = new Set();
    const from = provided.get(key) ?? (key === BUILTIN ? builtinUrl() : source);
    entry = { listeners, queue: Promise.resolve() };
    entry.model = loadModel(from, { onProgress: (event) => listeners.forEach((listen) => listen(event)) });
    models.set(key, entry);
  }
  const shared = entry;
  shared.listeners.add(onProgress);
  return {
    model: shared.model,
    /** model.run, after the runs asked for before it. */
    run(input, options) {
      return this.call((model) => model.run(input, options));
    },
    /** Any call on the model (an instrument's), after the ones asked for before it. */
    call(use) {
      const result = shared.queue.then(async () => use(await shared.model));
      shared.queue = result.catch(() => {});
      return result;
    },
    forget: () => shared.listeners.delete(onProgress),
  };
}
