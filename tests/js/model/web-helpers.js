// The tests' side of checkpoint-server.mjs: upload a fixture's files, read what the server sent.
import { expect, inject } from 'vitest';

/** The server's address, ending in '/'. */
export const server = inject('checkpointServer');
let folders = 0;

/** Uploads `files` under a new folder; returns its path on the server (no leading slash, ending in '/'). */
export async function upload(files, path = `m${folders++}-${Math.random().toString(36).slice(2)}/`) {
  for (const [name, content] of Object.entries(files)) {
    const body = typeof content === 'string' ? new TextEncoder().encode(content) : content;
    const response = await fetch(`${server}files/${path}${name}`, { method: 'PUT', body });
    expect(response.status).toBe(201);
  }
  return path;
}

/** What the server sent for files under `path`: { requests: [{ path, range, status, bytes, stalled? }], bytes }. */
export async function sent(path) {
  return (await fetch(`${server}stats?prefix=${encodeURIComponent(path)}`)).json();
}

/** onProgress that resolves `written` at the cache's { phase: 'cache' } event (written behind a run, after it). */
export function cacheEvents() {
  let resolve;
  const written = new Promise((r) => (resolve = r));
  return { written, onProgress: (event) => event.phase === 'cache' && resolve(event) };
}
