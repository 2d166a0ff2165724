// The one static file server of the tests and the bench: 127.0.0.1 (or `host`), an ephemeral port, files under
// `root` only.
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { extname, join, normalize, sep } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.wasm': 'application/wasm',
  '.json': 'application/json',
  '.png': 'image/png',
  '.svg': 'image/svg+xml',
};

/**
 * Serves `root` (a folder's index.html for the folder) until close(). `headers` go on every response (e.g. a
 * Content-Security-Policy); `host` is the address to listen on (e.g. 127.0.0.2, a second origin); `requests`
 * lists the paths asked for, in order.
 * @returns {Promise<{ url: string, requests: string[], close: () => Promise<void> }>}
 */
export async function serveStatic(root, { headers = {}, host = '127.0.0.1' } = {}) {
  const requests = [];
  const base = { 'X-Content-Type-Options': 'nosniff', 'Cache-Control': 'no-store', ...headers };
  const server = createServer(async (request, response) => {
    const path = decodeURIComponent(new URL(request.url, 'http://localhost').pathname);
    requests.push(path);
    let file = normalize(join(root, path));
    if (!file.startsWith(normalize(root + sep)) && file !== normalize(root)) {
      response.writeHead(403, { ...base, 'Content-Type': 'text/plain' }).end('forbidden');
      return;
    }
    try {
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      response.writeHead(200, { ...base, 'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream' });
      response.end(body);
    } catch {
      response.writeHead(404, { ...base, 'Content-Type': 'text/plain' }).end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, host, resolve));
  return {
    url: `http://${host}:${server.address().port}/`,
    requests,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}
