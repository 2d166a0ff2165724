// The size budget of issue 11: the files a post with both elements loads (elements, the page's model, the API, the
// SIMD build), each gzipped as a CDN serves it, at most 150 KB in all: from the page's own origin (the .wasm
// fetched) and from another origin under the strict CSP (the SIMD build as a script module, no .wasm fetch).
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ROOT, env, open, ready, serveFromCdn } from './env.mjs';

const BUDGET = 150 * 1024;
const kb = (n) => `${(n / 1024).toFixed(1)} KB`;

/** Each requested file of the package, gzipped; printed by part; over the budget fails. */
function measure(label, requests, simdFile) {
  const files = [...new Set(requests)].filter((p) => /^\/(web\/src|src\/js)\/.*\.(js|wasm)$/.test(p));
  const sizes = files.map((p) => {
    const bytes = readFileSync(`${ROOT}${p.slice(1)}`);
    return { p, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
  const sum = (key, filter = () => true) => sizes.filter(filter).reduce((s, f) => s + f[key], 0);
  const part = (re) => (f) => re.test(f.p);
  const wasm = part(/\.wasm(\.js)?$/);
  console.log(
    `elements size, ${label}: ${files.length} files, ${kb(sum('raw'))} raw, ${kb(sum('gzip'))} gzipped ` +
      `(elements ${kb(sum('gzip', part(/elements\//)))}, shared and lessons ${kb(sum('gzip', part(/web\/src\/(shared|lessons)\//)))}, ` +
      `API JS ${kb(sum('gzip', (f) => /^\/src\/js\/.*\.js$/.test(f.p) && !wasm(f)))}, SIMD build ${kb(sum('gzip', wasm))})`,
  );
  assert.ok(sum('gzip') <= BUDGET, `${label}: ${kb(sum('gzip'))} gzipped, over the ${kb(BUDGET)} budget`);
  assert.ok(
    files.some((p) => p.endsWith(simdFile)),
    `the SIMD build was loaded (${simdFile})`,
  );
  assert.ok(
    !files.some((p) => /scalar\.wasm|\/inline\.js$/.test(p)),
    `neither the scalar build nor inline.js: ${files}`,
  );
  assert.ok(!files.some((p) => p.includes('/io/')), 'attention-wasm/io is loaded only for a .npz or .safetensors src');
  // the link table and the counting rules load only for a `state` or `head` attribute, or permalink()
  assert.ok(
    !files.some((p) => /\/shared\/(link|counting)\.js$/.test(p)),
    `neither shared/link.js nor shared/counting.js: ${files.filter((p) => p.includes('/shared/'))}`,
  );
}

test('elements + API + SIMD .wasm, as loaded by a post with both elements, are at most 150 KB gzipped', async () => {
  const first = env.server.requests.length;
  const session = await open('post.html');
  try {
    await ready(session.page, 'heatmap');
    await session.page.evaluate(() => document.getElementById('explorer').scrollIntoView());
    await ready(session.page, 'explorer');
  } finally {
    await session.context.close();
  }
  measure("from the page's origin", env.server.requests.slice(first), 'attention-simd.wasm');
});

test('from another origin under the strict CSP (a CDN), both elements load at most 150 KB gzipped', async () => {
  const { cdn, cdnPage, close } = await serveFromCdn();
  const context = await env.browser.newContext();
  try {
    const page = await context.newPage();
    await page.goto(cdnPage);
    await ready(page, 'c');
    await page.evaluate(() => document.getElementById('e').scrollIntoView());
    await ready(page, 'e');
  } finally {
    await context.close();
    await close();
  }
  assert.ok(!cdn.requests.some((p) => p.endsWith('.wasm')), 'no .wasm was fetched');
  measure('from another origin', cdn.requests, 'attention-simd.wasm.js');
});
