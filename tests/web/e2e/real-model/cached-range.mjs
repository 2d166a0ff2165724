// Page test (run by run.mjs): the page on a static host as many are (and as `npm start`'s server is): whole answers
// compressed (gzip), Range answered with 206, ETag and Last-Modified, and Cache-Control: no-cache, so the browser
// keeps what it fetched and asks again whether it changed. The shipped model is fetched whole (compressed), then the
// same folder is opened by its URL, read by Range requests: a range must come from the server, not be cut out of
// the compressed bytes the browser's cache holds (which once brought 0 bytes, not 8, and blamed CORS).
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { createServer } from 'node:http';
import { readFile, stat } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { extname, join, normalize, sep } from 'node:path';
import { gzipSync } from 'node:zlib';
import { after, before, describe, test } from 'node:test';
import { loadModel } from '../../../../src/js/model/index.node.js';
import { DIST, openPage, pageCsp } from '../helpers.mjs';
import { INDUCTION, SENTENCE, assertPredictions, openBuiltin, readPredictions, runs, waitForRun } from './helpers.mjs';
import { env } from '../session.mjs';

const TYPES = { '.html': 'text/html', '.js': 'text/javascript', '.css': 'text/css', '.wasm': 'application/wasm' };

/**
 * Serves `root` as a common static host: gzip for a whole answer the client accepts it for (the model's files
 * included: a host that does not know .safetensors compresses it as text), 206 for `Range: bytes=a-b`, validators
 * and no-cache. `log` lists [path, range, status] of every request.
 */
async function compressingHost(root, headers) {
  const log = [];
  const server = createServer(async (request, response) => {
    const path = decodeURIComponent(new URL(request.url, 'http://localhost').pathname);
    let file = normalize(join(root, path));
    const range = request.headers.range ?? null;
    if (!file.startsWith(normalize(root + sep)) && file !== normalize(root)) return response.writeHead(403).end();
    try {
      if ((await stat(file)).isDirectory()) file = join(file, 'index.html');
      const body = await readFile(file);
      const tag = `W/"${createHash('sha1').update(body).digest('hex').slice(0, 16)}"`;
      const common = {
        ...headers,
        'Cache-Control': 'no-cache',
        ETag: tag,
        'Last-Modified': new Date(Date.UTC(2024, 0, 1)).toUTCString(),
        'Content-Type': TYPES[extname(file)] ?? (extname(file) === '.json' ? 'application/json' : 'text/plain'),
        'Accept-Ranges': 'bytes',
      };
      const match = /^bytes=(\d+)-(\d+)$/u.exec(range ?? '');
      if (request.headers['if-none-match'] === tag) {
        // Not changed: the browser answers from what it keeps, a range included (as sirv, say, answers).
        log.push([path, range, 304]);
        return response.writeHead(304, common).end();
      }
      if (match) {
        const [begin, end] = [Number(match[1]), Math.min(Number(match[2]) + 1, body.length)];
        log.push([path, range, 206]);
        return response
          .writeHead(206, {
            ...common,
            'Content-Range': `bytes ${begin}-${end - 1}/${body.length}`,
            'Content-Length': end - begin,
          })
          .end(body.subarray(begin, end));
      }
      log.push([path, range, 200]);
      if (/\bgzip\b/u.test(request.headers['accept-encoding'] ?? '') && body.length > 1024) {
        return response.writeHead(200, { ...common, 'Content-Encoding': 'gzip' }).end(gzipSync(body));
      }
      response.writeHead(200, { ...common, 'Content-Length': body.length }).end(body);
    } catch {
      log.push([path, range, 404]);
      response.writeHead(404, { ...headers, 'Content-Type': 'text/plain' }).end('not found');
    }
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${server.address().port}/`,
    log,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

let host;
before(async () => {
  host = await compressingHost(DIST, {
    'Content-Security-Policy': pageCsp(readFileSync(`${DIST}/index.html`, 'utf8')),
  });
});
after(() => host?.close());

describe('real model: a folder on the page’s own host after the shipped model (compressed, kept by the cache)', () => {
  test('./models/induction/ by URL after the shipped model: read by ranges from the server, the same predictions', async () => {
    const model = await loadModel(INDUCTION);
    const expected = await model.run(SENTENCE, { topK: 10 });
    const session = await openPage({ browser: env.browser, server: host }, {});
    try {
      const { page, problems } = session;
      await openBuiltin(page);
      const whole = host.log.filter(([path, range]) => path.endsWith('/model.safetensors') && range === null);
      assert.ok(whole.length > 0, 'the shipped model’s checkpoint was fetched whole first');
      const before = await runs(page);
      await page.fill('#model-url', './models/induction/');
      await page.press('#model-url', 'Enter');
      await page.waitForFunction(
        (n) => Number(document.body.dataset.modelRuns ?? 0) > n || document.getElementById('model-error').textContent,
        before,
      );
      const error = await page.textContent('#model-error');
      assert.equal(error, '', 'no error');
      assert.match(await page.textContent('#model-about'), /\/models\/induction\/$/u);
      const ranges = host.log.filter(([path, range]) => path.endsWith('/model.safetensors') && range !== null);
      assert.ok(ranges.length > 0 && ranges.every(([, , status]) => status === 206), JSON.stringify(ranges));
      const n = await runs(page);
      await page.fill('#model-text', SENTENCE);
      await waitForRun(page, n);
      assertPredictions(await readPredictions(page), expected.next, 'the shipped folder by URL');
      assert.deepEqual(problems.pageErrors, []);
    } finally {
      await session.context.close();
      model.dispose();
    }
  });
});
