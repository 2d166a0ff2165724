/**
 * attention-wasm/model/cache: an opt-in cache of what a web model source fetched, in the browser's Cache Storage,
 * so that a page's second visit reads the model from the disk and not the network.
 *
 * ```html
 * <script type="module">
 *   import { loadModel } from 'attention-wasm/model';
 *   import { openModelCache, modelCacheBytes, clearModelCache } from 'attention-wasm/model/cache';
 *
 *   const model = await loadModel({ hub: 'openai-community/gpt2' }, { cache: await openModelCache() });
 *   console.log(await modelCacheBytes()); // the bytes kept; clearModelCache() deletes them
 * </script>
 * ```
 * @module attention-wasm/model/cache
 */
import type { ModelCache } from './index.js';

/** The Cache Storage cache used when no name is given: 'attention-wasm-model'. */
export const MODEL_CACHE_NAME: string;

/**
 * Opens (or creates) a cache to pass as loadModel's `cache` option. Entries are keyed by URL and byte range:
 * a model under a branch that changes on the server is read as it was cached until clearModelCache().
 * Throws BAD_OPTION where Cache Storage is missing (Node, or a page that is not a secure context).
 */
export function openModelCache(name?: string): Promise<BrowserModelCache>;

/** A cache in Cache Storage. */
export interface BrowserModelCache extends ModelCache {
  /** Its name in Cache Storage. */
  readonly name: string;
}

/** Bytes of file data the cache holds (0 when there is no such cache). */
export function modelCacheBytes(name?: string): Promise<number>;

/** Deletes the cache; resolves to true when there was one. */
export function clearModelCache(name?: string): Promise<boolean>;
