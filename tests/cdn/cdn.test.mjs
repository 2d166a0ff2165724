// The second-origin test: the packed package (npm pack) served from 127.0.0.2 with CORS, as a CDN serves it, to
// pages of 127.0.0.1 under a Content-Security-Policy, in Chromium. The pages are in pages.mjs (add to PAGES there).
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../chromium.mjs';
import { serveStatic } from '../serve-static.mjs';
import { PAGES, importMap } from './pages.mjs';

const repo = fileURLToPath(new URL('../../', import.meta.url));
let work, cdn, pages, browser;

before(async () => {
  work = mkdtempSync(join(tmpdir(), 'attention-wasm-cdn-'));
  const out = join(repo, 'build', 'cdn');
  mkdirSync(out, { recursive: true });
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', out], { cwd: repo, encoding: 'utf8' }),
  );
  execFileSync('tar', ['-xzf', join(out, packed.filename), '-C', work]); // into work/package/
  cdn = await serveStatic(join(work, 'package'), {
    host: '127.0.0.2',
    headers: { 'Access-Control-Allow-Origin': '*' },
  });
  const origin = cdn.url.replace(/\/$/, '');
  const strict = `default-src 'self'; script-src 'self' ${origin} 'wasm-unsafe-eval'; style-src 'self' ${origin}`;
  const relaxed = `${strict}; connect-src 'self' ${origin}; worker-src 'self' blob: ${origin}`;
  pages = {};
  // blob: allowed but not the CDN: the blob: worker starts, and its import of the worker script is refused.
  const blobOnly = `${strict}; connect-src 'self' ${origin}; worker-src 'self' blob:`;
  // The package on the page's own origin, and a CSP that allows no worker at all.
  const noWorkers = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; worker-src 'none'";
  // attention-wasm/model from the CDN: its .wasm fetched from there (connect-src), and @huggingface/tokenizers
  // mapped to the CDN by an import map, allowed by its hash (an inline script).
  cpSync(
    join(repo, 'node_modules/@huggingface/tokenizers'),
    join(work, 'package/node_modules/@huggingface/tokenizers'),
    {
      recursive: true,
    },
  );
  const importMapHash = createHash('sha256').update(importMap(cdn.url)).digest('base64');
  const model = `${strict.replace("script-src 'self'", `script-src 'self' 'sha256-${importMapHash}'`)}; connect-src 'self' ${origin}`;
  const policies = { strict, relaxed, 'blob-only': blobOnly, 'same-origin-no-workers': noWorkers, model };
  for (const [csp, policy] of Object.entries(policies)) {
    const root = join(work, csp);
    const sameOrigin = csp.startsWith('same-origin');
    if (sameOrigin) cpSync(join(work, 'package'), root, { recursive: true });
    else mkdirSync(root);
    // The pages' own modules (the model page's tiny checkpoint), served by the page's origin.
    copyFileSync(join(repo, 'tests/bundlers/app/model.js'), join(root, 'model.js'));
    copyFileSync(join(repo, 'tests/js/model/tokenizers.js'), join(root, 'tokenizers.js'));
    for (const page of PAGES.filter((p) => p.csp === csp)) {
      writeFileSync(join(root, `${page.name}.js`), page.script(sameOrigin ? './' : cdn.url));
      writeFileSync(
        join(root, `${page.name}.html`),
        `<!doctype html><meta charset="utf-8"><title>${page.name}</title>\n<body>${typeof page.body === 'function' ? page.body(cdn.url) : (page.body ?? '')}\n<script type="module" src="./${page.name}.js"></script>\n`,
      );
    }
    pages[csp] = await serveStatic(root, { headers: { 'Content-Security-Policy': policy } });
  }
  browser = await launchChromium();
});

after(async () => {
  await browser?.close();
  for (const server of [cdn, ...Object.values(pages ?? {})]) await server?.close();
  if (work) rmSync(work, { recursive: true, force: true });
});

for (const page of PAGES) {
  test(`${page.name} (${page.csp} CSP)`, async () => {
    const tab = await browser.newPage();
    const console = [];
    tab.on('console', (m) => console.push(`${m.type()}: ${m.text()}`));
    tab.on('pageerror', (e) => console.push(`pageerror: ${e.message}`));
    try {
      await tab.goto(`${pages[page.csp].url}${page.name}.html`);
      await tab
        .waitForFunction(() => window.result !== undefined)
        .catch((error) => {
          throw new Error(`${error.message}\n${console.join('\n')}`);
        });
      const result = await tab.evaluate(() => window.result);
      if (process.env.CDN_DEBUG)
        process.stdout.write(
          `${console.join('\n')}\n${cdn.requests.join(' ')}\n${pages[page.csp].requests.join(' ')}\n`,
        );
      page.check(result, assert);
      assert.ok(!console.some((line) => line.startsWith('pageerror')), console.join('\n'));
    } finally {
      await tab.close();
    }
  });
}
