// A web server of checkpoints for the URL and Hub sources' tests (Vitest's globalSetup, so Node and Chromium tests
// reach the same one; for Chromium it is another origin than the test page: another port). Tests upload a fixture's
// files with PUT /files/<path> and read them back by GET /<mode>/<path>, where <mode> is how the server behaves:
//   range    Range requests answered with 206 and Content-Range; CORS for any origin (as the Hub does)
//   norange  Range ignored: 200 with the whole file (over 4 MiB: 64 KiB of it, then a stall); CORS for any origin
//   nocors   Range answered, but no Access-Control-Allow-Origin: a browser refuses the answer
//   hidden   as range, but no Access-Control-Expose-Headers: a page cannot read Content-Range, only Content-Length
//   slow     as range, but an answer of 1 KiB or more, past the header (from byte 8), sends half its bytes and then
//            stalls until the client goes away (or 60 s): a download under way, for the tests of abort
//   etag     as range, with an ETag and a Last-Modified of the file's upload (exposed to pages), and If-Range honoured
//   lastmod  as etag, but a Last-Modified alone
//   whole    Range requests from byte 0 answered with 206, every other one with 200 and the whole file (a CDN that
//            ignores some ranges)
//   badtotal as range, but a Content-Range past byte 0 states a total 1000 bytes larger than the file
//   gated    every file answered 401, as the Hub answers a gated, private or unknown model without a token
//   html     every path answered 200 with an HTML page, as a server that answers any path with its index.html
// A PUT to a path that has a file replaces it: a file that changes on the server after a model was loaded.
// GET /stats?prefix=<path> gives { requests: [{ path, range, status, bytes }], bytes } of the files under <path>:
// the bytes of files the server sent (in 200 and 206 answers), counted here, not by the code under test.
import { createServer } from 'node:http';

const CORS = {
  'Access-Control-Allow-Origin': '*',
  'Access-Control-Allow-Headers': 'Range, Content-Type',
  'Access-Control-Allow-Methods': 'GET, HEAD, PUT, OPTIONS',
  'Access-Control-Expose-Headers': 'Content-Range, Content-Length, Accept-Ranges, ETag, Last-Modified',
  'Cache-Control': 'no-store',
};
const UNEXPOSED = { ...CORS };
delete UNEXPOSED['Access-Control-Expose-Headers'];
const MODES = ['range', 'norange', 'nocors', 'slow', 'hidden', 'etag', 'lastmod', 'whole', 'badtotal'];
const HTML = Buffer.from(
  '<!doctype html>\n<html><head><title>App</title></head><body><div id="app"></div></body></html>\n',
);

/** @returns {Promise<{ url: string, close: () => Promise<void> }>} */
export async function serveCheckpoints() {
  const files = new Map(); // path → Buffer
  const versions = new Map(); // path → the number of the PUT that last wrote it
  let puts = 0;
  const log = []; // { path, range, status, bytes }
  const server = createServer((request, response) => {
    const url = new URL(request.url, 'http://localhost');
    const [, mode, ...rest] = decodeURIComponent(url.pathname).split('/');
    const path = rest.join('/');
    const cors = mode === 'nocors' ? {} : mode === 'hidden' ? UNEXPOSED : CORS;
    if (request.method === 'OPTIONS') {
      response.writeHead(204, cors).end();
      return;
    }
    if (mode === 'files' && request.method === 'PUT') {
      const chunks = [];
      request.on('data', (chunk) => chunks.push(chunk));
      request.on('end', () => {
        files.set(path, Buffer.concat(chunks));
        versions.set(path, ++puts);
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
    const version = versions.get(path);
    // A file's validators, in the modes that state them: a version number as ETag, and a date a second per version.
    const validators = !file
      ? {}
      : mode === 'etag'
        ? {
            ETag: `"v${version}-${file.length}"`,
            'Last-Modified': new Date(Date.UTC(2024, 0, 1) + version * 1000).toUTCString(),
          }
        : mode === 'lastmod'
          ? { 'Last-Modified': new Date(Date.UTC(2024, 0, 1) + version * 1000).toUTCString() }
          : {};
    const send = (status, headers, body = Buffer.alloc(0)) => {
      log.push({ path, range, status, bytes: body.length });
      response.writeHead(status, { ...cors, ...validators, ...headers, 'Content-Length': body.length }).end(body);
    };
    if (mode === 'gated' && request.method !== 'OPTIONS') {
      send(401, { ...CORS, 'Content-Type': 'text/plain' }, Buffer.from('Invalid username or password.'));
      return;
    }
    if (mode === 'html' && request.method === 'GET') {
      send(200, { ...CORS, 'Content-Type': 'text/html' }, HTML);
      return;
    }
    if (MODES.includes(mode) && request.method === 'HEAD' && file) {
      log.push({ path, range: null, status: 200, bytes: 0, head: true });
      response.writeHead(200, { ...cors, ...validators, 'Content-Length': file.length }).end();
      return;
    }
    if (!MODES.includes(mode) || request.method !== 'GET' || !file) {
      send(404, { 'Content-Type': 'text/plain' }, Buffer.from('not found'));
      return;
    }
    const match = /^bytes=(\d+)-(\d+)$/.exec(range ?? '');
    if (mode === 'norange' && match && file.length > 2 ** 22) {
      // A large file: its first 64 KiB, then a stall until the client goes away (or 60 s), so that a client that
      // reads the body of a 200 it asked a range of is seen waiting (`completed` once it would have had it all).
      const entry = { path, range, status: 200, bytes: 2 ** 16, stalled: true, completed: false };
      log.push(entry);
      response.writeHead(200, { ...cors, 'Content-Length': file.length });
      response.write(file.subarray(0, 2 ** 16));
      const timer = setTimeout(() => {
        Object.assign(entry, { bytes: file.length, completed: true });
        response.end(file.subarray(2 ** 16));
      }, 60_000);
      response.on('close', () => clearTimeout(timer));
      return;
    }
    // If-Range: a range only while the file is as the client knew it (its ETag, or its Last-Modified), else it whole.
    const ifRange = request.headers['if-range'];
    const stale = ifRange !== undefined && ifRange !== validators.ETag && ifRange !== validators['Last-Modified'];
    if (mode === 'norange' || !match || stale || (mode === 'whole' && match[1] !== '0')) {
      send(200, { 'Content-Type': 'application/octet-stream' }, file);
      return;
    }
    const begin = Number(match[1]);
    const end = Math.min(Number(match[2]) + 1, file.length);
    const total = mode === 'badtotal' && begin > 0 ? file.length + 1000 : file.length;
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
      { 'Content-Range': `bytes ${begin}-${end - 1}/${total}`, 'Accept-Ranges': 'bytes' },
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
