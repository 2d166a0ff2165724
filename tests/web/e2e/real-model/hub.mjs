// Page test (run by run.mjs): a Hub model id on a deployment that allows a Hub in its Content-Security-Policy. The
// real Hub cannot be reached here, so a second origin serves the Hub's layout (owner/name/resolve/main/…, Range and
// CORS: tests/js/model/checkpoint-server.mjs), and the page is served as a deployment would change it: its CSP's
// connect-src names that origin, and <meta name="attention-wasm-hub"> points Hub ids at it (docs/page.md). The model
// loads and its predictions are attention-wasm/model's; without connect-src the page says which origin to allow.
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadModel } from '../../../../src/js/model/index.node.js';
import { serveCheckpoints } from '../../../js/model/checkpoint-server.mjs';
import { serveStatic } from '../../../serve-static.mjs';
import { ARTIFACTS, DIST, openPage, pageCsp } from '../helpers.mjs';
import { INDUCTION, SENTENCE, assertPredictions, openBuiltin, readPredictions, runs, waitForRun } from './helpers.mjs';
import { env } from '../session.mjs';

const ID = 'induction-org/induction';
const FILES = ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'];
let hub;

before(async () => {
  hub = await serveCheckpoints();
  for (const name of FILES) {
    const response = await fetch(`${hub.url}files/${ID}/resolve/main/${name}`, {
      method: 'PUT',
      body: readFileSync(`${INDUCTION}/${name}`),
    });
    assert.equal(response.status, 201);
  }
});

const servers = [];
const folders = [];
after(async () => {
  await Promise.all([hub?.close(), ...servers.map((server) => server.close())]);
  for (const folder of folders) rmSync(folder, { recursive: true, force: true });
});

/**
 * The built page as a deployment that uses the Hub at `hubBase` serves it, on its own server (a page of its own
 * origin, as a deployment's is): its <head> names that Hub, and with `allow` the Hub's origin is added to connect-src
 * in the CSP's <meta> and header alike. Returns an env for openPage.
 */
async function deployment(hubBase, allow) {
  const root = mkdtempSync(join(tmpdir(), 'attention-wasm-hub-'));
  folders.push(root);
  for (const name of readdirSync(DIST)) if (name !== 'index.html') symlinkSync(join(DIST, name), join(root, name));
  const html = readFileSync(`${DIST}/index.html`, 'utf8');
  const csp = pageCsp(html);
  // The page's connect-src names the Hub's origins; a deployment on a mirror adds the mirror's.
  const policy = allow ? csp.replace(/connect-src [^;]*/u, (list) => `${list} ${new URL(hubBase).origin}`) : csp;
  writeFileSync(
    join(root, 'index.html'),
    html.replace(csp, policy).replace('</head>', `<meta name="attention-wasm-hub" content="${hubBase}">\n</head>`),
  );
  const server = await serveStatic(root, { headers: { 'Content-Security-Policy': policy } });
  servers.push(server);
  return { browser: env.browser, server };
}

/** Opens the section, types the Hub id and presses Enter; returns the count of runs before. */
async function typeHubId(page) {
  await openBuiltin(page);
  const before = await runs(page);
  await page.fill('#model-url', ID);
  await page.press('#model-url', 'Enter');
  return before;
}

describe('real model: a Hub id on a deployment that allows the Hub', () => {
  test('connect-src names the Hub (a second origin with its layout, Range, CORS): the model loads, its predictions are run’s', async () => {
    const model = await loadModel(INDUCTION);
    const expected = await model.run(SENTENCE, { topK: 10 });
    const hubBase = `${hub.url}range`;
    const session = await openPage(await deployment(hubBase, true), {});
    try {
      const { page, problems } = session;
      const before = await typeHubId(page);
      const folder = `${hubBase}/${ID}/resolve/main/`;
      await page.waitForFunction((f) => document.getElementById('model-about').textContent.endsWith(f), folder, {
        timeout: 60000,
      });
      await waitForRun(page, before).catch(async (error) => {
        const said = await page.evaluate(() =>
          ['model-error', 'model-status'].map((id) => document.getElementById(id)?.textContent),
        );
        throw new Error(`no run of the Hub's model: ${said.join(' / ')}`, { cause: error });
      });
      const n = await runs(page);
      await page.fill('#model-text', SENTENCE);
      await waitForRun(page, n);
      assertPredictions(await readPredictions(page), expected.next, 'from the Hub’s layout');
      assert.equal(await page.textContent('#model-error'), '');
      const csp = await page.evaluate(() => window.__cspViolations);
      assert.deepEqual(csp, [], 'nothing blocked');
      assert.deepEqual(problems.pageErrors, []);
      const other = problems.foreignRequests.filter((u) => !u.startsWith(`${hubBase}/${ID}/resolve/main/`));
      assert.deepEqual(other, [], 'the page reads the Hub’s folder and nothing else of another origin');
      assert.ok(problems.foreignRequests.some((u) => u.endsWith('/model.safetensors')));
      assert.equal(new URL(await page.evaluate(() => location.href)).searchParams.get('model'), ID, 'the link');
      await page.locator('#step-model').screenshot({ path: `${ARTIFACTS}/real-model-hub.png` });
    } finally {
      await session.context.close();
    }
  });

  test('without connect-src: a plain FETCH_FAILED naming the origin to allow; the shipped model stays', async () => {
    const hubBase = `${hub.url}range`;
    const session = await openPage(await deployment(hubBase, false), {});
    try {
      const { page, problems } = session;
      await typeHubId(page);
      await page.waitForFunction(() => document.getElementById('model-error').textContent.length > 0, null, {
        timeout: 60000,
      });
      const message = await page.textContent('#model-error');
      assert.match(message, /FETCH_FAILED/u);
      assert.ok(
        message.includes(`its host adds ${new URL(hub.url).origin}`),
        `the message names the origin: ${message}`,
      );
      assert.match(message, /download the files and drop them here/u);
      assert.equal(await page.locator('.model-head canvas').count(), 8, 'the shipped model stays');
      const csp = await page.evaluate(() => window.__cspViolations);
      assert.ok(csp.length > 0 && csp.every((v) => v.startsWith(`connect-src blocked ${hubBase}/`)), csp.join('; '));
      assert.deepEqual(problems.pageErrors, []);
    } finally {
      await session.context.close();
    }
  });
});
