// The built page (web/dist) at /, and a checkpoint's folder at /bench-model/, served on one origin (the page's CSP
// reads its own only), with Range: for the page benches that open a checkpoint by address.
import { createReadStream, statSync } from 'node:fs';
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm' };

/** The built page at /, the checkpoint at /bench-model/: one origin (the page's CSP reads its own only), with Range. */
export async function serve(dist, model, csp) {
  const server = createServer((request, response) => {
    const path = decodeURIComponent(new URL(request.url, 'http://localhost').pathname);
    const [root, rest] = path.startsWith('/bench-model/') ? [model, path.slice(12)] : [dist, path];
    let file = normalize(join(root, rest));
    const headers = { 'Content-Security-Policy': csp, 'Cache-Control': 'no-store', 'Accept-Ranges': 'bytes' };
    try {
      if (!file.startsWith(normalize(root + sep))) throw new Error('outside');
      if (statSync(file).isDirectory()) file = join(file, 'index.html');
      const size = statSync(file).size;
      headers['Content-Type'] = TYPES[extname(file)] ?? 'application/octet-stream';
      const match = /^bytes=(\d+)-(\d*)$/.exec(request.headers.range ?? '');
      const start = match ? Number(match[1]) : 0;
      const end = match && match[2] ? Math.min(Number(match[2]), size - 1) : size - 1;
      if (match) headers['Content-Range'] = `bytes ${start}-${end}/${size}`;
      response.writeHead(match ? 206 : 200, { ...headers, 'Content-Length': end - start + 1 });
      if (request.method === 'HEAD') response.end();
      else createReadStream(file, { start, end }).pipe(response);
    } catch {
      response.writeHead(404, { 'Content-Type': 'text/plain' }).end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((r) => server.close(r)) };
}
