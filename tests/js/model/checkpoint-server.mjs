// A web server of checkpoints for the URL and Hub sources' tests (Vitest's globalSetup, so Node and Chromium tests
// reach the same one; for Chromium it is another origin than the test page: another port). Tests upload a fixture's
// files with PUT /files/<path> and read them back by GET /<mode>/<path>, where <mode> is how the server behaves:
//   range    Range requests answered with 206 and Content-Range; CORS for any origin (as the Hub does)
//   norange  Range ignored: 200 with the whole file; CORS for any origin
//   nocors   Range answered, but no Access-Control-Allow-Origin: a browser refuses the answer
//   slow     as range, but an answer of 1 KiB or more, past the header (from byte 8), sends half its bytes and then
//            stalls until the client goes away (or 60 s): a download under way, for the tests of abort
// GET /stats?prefix=<path> gives { requests: [{ path, range, status, bytes }], bytes } of the files under <path>:
// the bytes of files the server sent (in 200 and 206 answers), counted here, not by the code under test.
import { createServer } from 'node:http';

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Range, Content-Type',
  'Access-Control-Allow-Methods': 'GET, HEAD, PUT, OPTIONS',
  'Access-Control-Expose-Headers': 'Content-Range, Content-Length, Accept-Ranges',
};
const MODES = ['range', 'norange', 'nocors', 'slow'];

/** @returns {Promise<{ url: string, close: () => Promise<void> }>} */
export async function serveCheckpoints() {
  const files = new Map(); // path → Buffer
  const log = []; // { path, range, status, bytes }
  const server = createServer((request, response) => {
    const url = new URL(request.url, 'http://localhost');
    const [, mode, ...rest] = decodeURIComponent(url.pathname).split('/');
    const path = rest.join('/');
    const cors = mode === 'nocors' ? {} : CORS;
    if (request.method === 'OPTIONS') {
      response.writeHead(204, cors).end();
      return;
    }
    if (mode === 'files' && request.method === 'PUT') {
      const chunks = [];
      request.on('data', (chunk) => chunks.push(chunk));
      request.on('end', () => {
        files.set(path, Buffer.concat(chunks));
        response.writeHead(201, CORS).end();
      });
      return;
    }
    if (mode === 'stats') {
      const prefix = url.searchParams.get('prefix') ?? '';
      const requests = log.filter((entry) => entry.path.startsWith(prefix));
      const bytes = requests.reduce((sum, entry) => sum + (entry.status < 300 ? entry.bytes : 0), 0);
      response.writeHead(200, { ...CORS, 'Content-Type': 'application/json' }).end(JSON.stringify({ requests, bytes }));
      return;
    }
    const file = files.get(path);
    const range = request.headers.range ?? null;
    const send = (status, headers, body = Buffer.alloc(0)) => {
      log.push({ path, range, status, bytes: body.length });
      response.writeHead(status, { ...cors, ...headers, 'Content-Length': body.length }).end(body);
    };
    if (!MODES.includes(mode) || request.method !== 'GET' || !file) {
      send(404, { 'Content-Type': 'text/plain' }, Buffer.from('not found'));
      return;
    }
    const match = /^bytes=(\d+)-(\d+)$/.exec(range ?? '');
    if (mode === 'norange' || !match) {
      send(200, { 'Content-Type': 'application/octet-stream' }, file);
      return;
    }
    const begin = Number(match[1]);
    const end = Math.min(Number(match[2]) + 1, file.length);
    if (begin >= file.length) {
      send(416, { 'Content-Range': `bytes */${file.length}` });
      return;
    }
    if (mode === 'slow' && begin > 8 && end - begin >= 1024) {
      const body = file.subarray(begin, end);
      const half = body.length >> 1;
      const entry = { path, range, status: 206, bytes: half, stalled: true, completed: false };
      log.push(entry);
      const headers = { 'Content-Range': `bytes ${begin}-${end - 1}/${file.length}`, 'Content-Length': body.length };
      response.writeHead(206, { ...cors, ...headers });
      response.write(body.subarray(0, half));
      const timer = setTimeout(() => {
        Object.assign(entry, { bytes: body.length, completed: true });
        response.end(body.subarray(half));
      }, 60_000);
      response.on('close', () => clearTimeout(timer));
      return;
    }
    send(
      206,
      { 'Content-Range': `bytes ${begin}-${end - 1}/${file.length}`, 'Accept-Ranges': 'bytes' },
      file.subarray(begin, end),
    );
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    close: () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Vitest's globalSetup: one server for the run; tests read its address with inject('checkpointServer'). */
export default async function setup(project) {
  const { url, close } = await serveCheckpoints();
  project.provide('checkpointServer', url);
  return close;
}
