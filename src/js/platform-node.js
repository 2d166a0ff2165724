// Node's hooks for the package (platform.js): files read with fs, file paths accepted as wasmUrl, and the pool's
// workers as worker_threads running worker-node.js. Imported only by the Node entry and the Node worker.
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import { installPlatform } from './platform.js';

/** A wasmUrl given as a file path (absolute, or relative to the working directory); undefined for a URL. */
function toUrl(location) {
  // "C:\x.wasm" parses as a URL with the scheme "c:": one letter before the colon is a Windows drive.
  if (isAbsolute(location) || !/^[a-z][a-z0-9+.-]+:/i.test(location)) return pathToFileURL(resolve(location));
  return undefined;
}

const here = import.meta.url; // not `new URL(…, import.meta.url)` inline: bundlers would emit a copy

/**
 * One worker_threads worker running `script` (the pool's worker-node.js unless given: the model's workers run
 * model/worker-node.js); its handle's hold/release are ref/unref (flags: the pool counts the calls).
 */
async function spawnWorker(onMessage, onFailure, script = new URL('./worker-node.js', here)) {
  const worker = new Worker(script);
  worker.on('message', onMessage);
  worker.on('messageerror', () => onFailure('sent a message that could not be read'));
  worker.on('error', (error) => onFailure(`failed: ${error?.message ?? String(error)}`));
  worker.on('exit', (code) => onFailure(`exited with code ${code}`));
  return {
    post: (message, transfer) => worker.postMessage(message, transfer),
    hold: () => worker.ref(),
    release: () => worker.unref(),
    terminate: () => worker.terminate().then(() => {}),
  };
}

installPlatform({ readFile: async (url) => new Uint8Array(await readFile(url)), toUrl, spawnWorker });
