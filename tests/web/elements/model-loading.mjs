// The elements on a real model, how they load it: elements naming one model share one load, with a progress bar; a
// post without `model` loads none of the model's code; and from a CDN laid out as /npm/name@version/ (the packed
// package on a second origin, under a CSP), `builtin` and @huggingface/tokenizers come from there.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { serveStatic } from '../../serve-static.mjs';
import { ARTIFACTS, ROOT, assertClean, env, open, ready } from './env.mjs';

const SENTENCE = 'the cat saw a red ball near the old tree . the cat saw a red';

test('elements naming one model share one load, with a progress bar while it loads', async () => {
  let release;
  const held = new Promise((resolve) => (release = resolve));
  const route = (page) =>
    page.route(/induction\/model\.safetensors$/, async (r) => {
      await held;
      await r.continue();
    });
  const first = env.server.requests.length;
  const session = await open('blank.html', { route });
  const { page } = session;
  try {
    await page.evaluate((sentence) => {
      for (const [id, layer] of [
        ['one', '1'],
        ['two', '2'],
      ]) {
        const e = document.createElement('attention-heatmap');
        Object.assign(e, { id });
        e.setAttribute('model', 'builtin');
        e.setAttribute('layer', layer);
        e.setAttribute('sentence', sentence);
        document.getElementById('main').prepend(e);
      }
    }, SENTENCE);
    await page.waitForFunction(() => document.getElementById('one').status === 'loading');
    const loading = await page.evaluate(() => {
      const e = document.getElementById('one');
      const bar = e.shadowRoot.querySelector('[part="progress"]');
      return {
        visible: Boolean(bar?.getClientRects().length),
        text: e.shadowRoot.querySelector('.pending').textContent,
      };
    });
    assert.equal(loading.visible, true);
    // Before any file, or per file as each arrives (the checkpoint's header is held back here).
    assert.match(loading.text, /^Loading the built-in induction model(…|: [\w.]+\.json, [\d.]+ kB( of [\d.]+ kB)?)$/);
    await page.locator('#one').screenshot({ path: `${ARTIFACTS}/elements-model-loading.png` });
    release();
    await ready(page, 'one');
    await ready(page, 'two');
    assert.deepEqual(await page.evaluate(() => ['one', 'two'].map((id) => document.getElementById(id).status)), [
      'ready',
      'ready',
    ]);
    const configs = env.server.requests.slice(first).filter((p) => p.endsWith('/induction/config.json'));
    assert.equal(configs.length, 1, 'one load for both elements');
    await assertClean(session);
  } finally {
    release();
    await session.context.close();
  }
});

test('a post without `model` loads none of the model code, its module or @huggingface/tokenizers', async () => {
  const first = env.server.requests.length;
  const session = await open('post.html');
  try {
    await session.page.waitForFunction(() => document.getElementById('heatmap')?.status === 'ready');
  } finally {
    await session.context.close();
  }
  const requests = env.server.requests.slice(first);
  assert.deepEqual(
    requests.filter((p) => /\/src\/js\/model\/|model-(simd|scalar)|huggingface|modelFigure|sharedModel/.test(p)),
    [],
  );
});

test('from a CDN laid out as /npm/name@version/ (the package as packed), model="builtin" loads its files and tokenizer there', async () => {
  const work = mkdtempSync(join(tmpdir(), 'elements-model-cdn-'));
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'));
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', work], { cwd: ROOT, encoding: 'utf8' }),
  );
  const folder = join(work, 'npm', `attention-wasm@${pkg.version}`);
  mkdirSync(folder, { recursive: true });
  execFileSync('tar', ['-xzf', join(work, packed.filename), '-C', folder, '--strip-components=1']);
  const tokenizers = `@huggingface/tokenizers@${pkg.dependencies['@huggingface/tokenizers']}`;
  cpSync(join(ROOT, 'node_modules/@huggingface/tokenizers'), join(work, 'npm', tokenizers), { recursive: true });
  const cdn = await serveStatic(work, { host: '127.0.0.2', headers: { 'Access-Control-Allow-Origin': '*' } });
  const origin = cdn.url.slice(0, -1);
  const csp = `default-src 'self'; script-src 'self' ${origin} 'wasm-unsafe-eval'; style-src 'self' ${origin}; connect-src 'self' ${origin}`;
  const site = await serveStatic(ROOT, { headers: { 'Content-Security-Policy': csp } });
  const context = await env.browser.newContext();
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    const base = `${origin}/npm/attention-wasm@${pkg.version}`;
    await page.goto(`${site.url}tests/web/elements/fixtures/model-cdn.html?cdn=${encodeURIComponent(base)}`);
    await ready(page, 'm');
    const got = await page.evaluate(async (folder) => {
      const e = document.getElementById('m');
      const model = await window.lib.loadModel(folder);
      const out = await model.run('the cat saw a red ball near the old tree . the cat saw a red');
      return {
        status: e.status,
        message: e.shadowRoot.querySelector('[part="message"]').textContent,
        same: Array.from(e.result.weights.data).every((v, k) => Object.is(v, out.attentions[1].data[k])),
        next: e.result.next.map((x) => x.token),
        violations: window.violations,
      };
    }, `${base}/web/public/models/induction/`);
    assert.equal(got.status, 'ready', got.message);
    assert.equal(got.same, true);
    assert.equal(got.next[0].trim(), 'ball');
    assert.deepEqual([...got.violations, ...errors], []);
    assert.ok(cdn.requests.includes(`/npm/${tokenizers}/dist/tokenizers.min.mjs`), 'the tokenizer came from the CDN');
    assert.ok(
      cdn.requests.includes(`/npm/attention-wasm@${pkg.version}/web/public/models/induction/model.safetensors`),
    );
  } finally {
    await context.close();
    await site.close();
    await cdn.close();
    rmSync(work, { recursive: true, force: true });
  }
});

test('a Hub model id reads <Hub>/<id>/resolve/main/<file> (the Hub answered here by the shipped files)', async () => {
  const csp =
    "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; connect-src 'self' https://huggingface.co";
  const site = await serveStatic(ROOT, { headers: { 'Content-Security-Policy': csp } });
  const context = await env.browser.newContext();
  const asked = [];
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.route('https://huggingface.co/**', (route) => {
      const url = new URL(route.request().url());
      asked.push(url.pathname);
      const match = /^\/someone\/induction\/resolve\/main\/([\w.]+)$/.exec(url.pathname);
      const headers = {
        'Access-Control-Allow-Origin': '*',
        'Access-Control-Expose-Headers': 'Content-Range, Content-Length',
      };
      if (!match) return route.fulfill({ status: 404, headers, body: 'not found' });
      try {
        return route.fulfill({
          status: 200,
          headers,
          body: readFileSync(join(ROOT, 'web/public/models/induction', match[1])),
        });
      } catch {
        return route.fulfill({ status: 404, headers, body: 'not found' });
      }
    });
    await page.goto(`${site.url}tests/web/elements/fixtures/blank.html`);
    await page.evaluate((sentence) => {
      const e = document.createElement('attention-heatmap');
      e.id = 'hub';
      for (const [k, v] of Object.entries({ model: 'someone/induction', layer: '1', next: '', sentence }))
        e.setAttribute(k, v);
      document.getElementById('main').prepend(e);
    }, SENTENCE);
    await ready(page, 'hub');
    const got = await page.evaluate(() => {
      const e = document.getElementById('hub');
      return {
        status: e.status,
        message: e.shadowRoot.querySelector('[part="message"]').textContent,
        next: e.result?.next[0].token,
      };
    });
    assert.equal(got.status, 'ready', got.message);
    assert.equal(got.next.trim(), 'ball');
    assert.ok(asked.includes('/someone/induction/resolve/main/config.json'), asked.join(' '));
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await site.close();
  }
});

test('a folder URL by Range: an element of layer 1 reads no weight of layer 2, the next one only those; a server without CORS is a message', async () => {
  const { serveCheckpoints } = await import('../../js/model/checkpoint-server.mjs');
  const server = await serveCheckpoints();
  const folder = join(ROOT, 'web/public/models/induction');
  for (const name of ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'])
    await fetch(`${server.url}files/induction/${name}`, { method: 'PUT', body: readFileSync(join(folder, name)) });
  const size = readFileSync(join(folder, 'model.safetensors')).length;
  const origin = server.url.slice(0, -1);
  const csp = `default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; connect-src 'self' ${origin}`;
  const site = await serveStatic(ROOT, { headers: { 'Content-Security-Policy': csp } });
  const context = await env.browser.newContext();
  const bytes = async () => (await (await fetch(`${server.url}stats?prefix=induction/model.safetensors`)).json()).bytes;
  try {
    const page = await context.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(e.message));
    await page.goto(`${site.url}tests/web/elements/fixtures/blank.html`);
    const add = async (id, attributes) => {
      await page.evaluate(
        ([elementId, attrs]) => {
          const e = document.createElement('attention-heatmap');
          e.id = elementId;
          for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
          document.getElementById('main').prepend(e);
        },
        [id, attributes],
      );
      await ready(page, id);
      return page.evaluate((elementId) => {
        const e = document.getElementById(elementId);
        return { status: e.status, message: e.shadowRoot.querySelector('[part="message"]').textContent };
      }, id);
    };
    const model = `${server.url}range/induction/`;
    // The model keeps what it reads (resident weights): layer 1's element reads the embedding tables and layer 1,
    // nothing of layer 2 or the final norm; the next element reads only those (the tied LM head is the kept wte).
    const file = readFileSync(join(folder, 'model.safetensors'));
    const header = JSON.parse(file.subarray(8, 8 + Number(file.readBigUInt64LE(0))).toString());
    const tensorBytes = (test) =>
      Object.entries(header)
        .filter(([name]) => test.test(name))
        .reduce((sum, [, t]) => sum + t.data_offsets[1] - t.data_offsets[0], 0);
    const rest = tensorBytes(/\.h\.1\.|ln_f/u);
    assert.equal((await add('first', { model, layer: '0', sentence: SENTENCE })).status, 'ready');
    const first = await bytes();
    assert.ok(first <= size - rest, `layer 1 alone read ${first} of the checkpoint's ${size} bytes`);
    assert.equal((await add('all', { model, layer: '1', next: '', sentence: SENTENCE })).status, 'ready');
    const all = (await bytes()) - first;
    assert.equal(all, rest, `with next, layer 2 and the final norm: ${all} bytes, against ${rest}`);
    console.log(`checkpoint ${size} bytes: layer 1 read ${first}, layers 1-2 with next ${all}`);

    const refused = await add('nocors', { model: `${server.url}nocors/induction/`, sentence: SENTENCE });
    assert.equal(refused.status, 'error');
    assert.match(refused.message, /could not be loaded[^]*nocors\/induction/);
    assert.deepEqual(errors, []);
  } finally {
    await context.close();
    await site.close();
    await server.close();
  }
});
