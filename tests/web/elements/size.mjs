// The size budget of issue 11: the files a post with both elements loads (elements, the page's model, the API, the
// SIMD .wasm), each gzipped as a CDN serves it, at most 150 KB in all.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { gzipSync } from 'node:zlib';
import { ROOT, env, open, ready } from './env.mjs';

const BUDGET = 150 * 1024;

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
  const files = [...new Set(env.server.requests.slice(first))].filter((p) =>
    /^\/(web\/src|src\/js)\/.*\.(js|wasm)$/.test(p),
  );
  assert.ok(
    files.some((p) => p.endsWith('attention-simd.wasm')),
    'the SIMD build was loaded',
  );
  assert.ok(!files.some((p) => p.includes('/io/')), 'attention-wasm/io is loaded only for a .npz or .safetensors src');
  const sizes = files.map((p) => {
    const bytes = readFileSync(`${ROOT}${p.slice(1)}`);
    return { p, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
  });
  const sum = (key, filter = () => true) => sizes.filter(filter).reduce((s, f) => s + f[key], 0);
  const kb = (n) => `${(n / 1024).toFixed(1)} KB`;
  const part = (re) => (f) => re.test(f.p);
  console.log(
    `elements size: ${files.length} files, ${kb(sum('raw'))} raw, ${kb(sum('gzip'))} gzipped ` +
      `(elements ${kb(sum('gzip', part(/elements\//)))}, page model ${kb(sum('gzip', part(/web\/src\/(model|view)\//)))}, ` +
      `API JS ${kb(sum('gzip', part(/^\/src\/js\/.*\.js$/)))}, SIMD .wasm ${kb(sum('gzip', part(/\.wasm$/)))})`,
  );
  assert.ok(sum('gzip') <= BUDGET, `${kb(sum('gzip'))} gzipped, over the ${kb(BUDGET)} budget`);
});
