// What the package needs from its host beyond the web platform, in one place: the browser path uses the web's own
// (fetch, Web Workers); the Node entry (index.node.js) installs Node's here (platform-node.js) before any load.
// This file names no Node built-in, so that every browser bundle can follow it.

/**
 * The host's hooks; each is undefined on the web.
 * - readFile(url: URL) → Promise<Uint8Array>: reads a file: URL.
 * - toUrl(location: string) → URL | undefined: a wasmUrl that is not a URL (a file path in Node), else undefined.
 * - spawnWorker(onMessage, onFailure, script?) → Promise<handle>: starts one worker of the pool (pool.js documents
 *   handle), running `script` (a URL; the attention API's worker unless given).
 * - spawnModelWorker(onMessage, onFailure) → Promise<handle>: the same for a worker of loadModel({ workers }).
 * - cores() → number: the logical processors this process may use (loadModel's workers: 'auto').
 */
export const platform = {
  readFile: undefined,
  toUrl: undefined,
  spawnWorker: undefined,
  spawnModelWorker: undefined,
  cores: undefined,
};

/** Installs a host's hooks (see `platform`). */
export function installPlatform(hooks) {
  Object.assign(platform, hooks);
}
