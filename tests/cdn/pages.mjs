// The pages of the second-origin test (cdn.test.mjs): each is a module script run on a page of 127.0.0.1 that
// imports the packed package from 127.0.0.2 (the "CDN"), under a Content-Security-Policy. A page's script sets
// `window.result` to what it found (or { error: { name, code, message } }); its `check` asserts on that.
//
// HOOK for more pages (e.g. the elements of attention-wasm/elements): push an entry onto PAGES, with
//   name   a file name for the page (no spaces);
//   csp    'relaxed' (connect-src allows the CDN, worker-src blob: and the CDN) or 'strict' (the CSP:
//          default-src 'self'; script-src 'self' <cdn> 'wasm-unsafe-eval'; style-src 'self' <cdn>), or
//          'blob-only' (relaxed, but worker-src 'self' blob: without the CDN), or 'same-origin-no-workers' (the
//          package served by the page's own origin, `cdn` is './', and worker-src 'none');
//   body   optional HTML for the page's <body> (no inline script or style: the CSP forbids them);
//   script (cdn) => the module script's source; `cdn` is the package's root URL on the second origin, ending in /;
//   check  (result, assert) => void.
import assert from 'node:assert/strict';

/** A page script that runs `body` (an async function's text, with `lib` in scope) and records the outcome. */
const run = (imports, body) => `${imports}
const describe = (e) => ({ name: e?.name, code: e?.code, message: String(e?.message ?? e) });
(async () => { ${body} })().then((result) => { window.result = result; }, (e) => { window.result = { error: describe(e) }; });
`;

/** The one-thread and workers: 2 results of 12 heads of random input, compared bit for bit in the page. */
const WORKERS_BODY = `
  const random = (n) => Float32Array.from({ length: n }, (_, i) => Math.sin(i * 12.9898) * 0.5);
  const q = { data: random(12 * 64 * 16), shape: [12, 64, 16] };
  const single = await lib.createAttention();
  const parallel = await lib.createAttention({ workers: 2 });
  const a = single.scaledDotProductAttention(q, q, q);
  const b = await parallel.scaledDotProductAttention(q, q, q);
  await parallel.terminate();
  const same = (x, y) => x.length === y.length && x.every((v, i) => Object.is(v, y[i]));
  return { simd: single.simd, parallelSimd: parallel.simd, workers: parallel.workers,
    sameOutput: same(a.output.data, b.output.data), sameWeights: same(a.weights.data, b.weights.data) };`;

/** A page whose createAttention({ workers: 2 }) must reject with WORKERS_UNAVAILABLE, its message matching `advice`. */
function workersRefused(name, csp, advice) {
  return {
    name,
    csp,
    script: (cdn) =>
      run(`import * as lib from '${cdn}src/js/index.js';`, `await lib.createAttention({ workers: 2 }); return {};`),
    check(result) {
      assert.equal(result.error?.code, 'WORKERS_UNAVAILABLE', JSON.stringify(result));
      assert.match(result.error.message, advice);
    },
  };
}

export const PAGES = [
  {
    name: 'main-workers',
    csp: 'relaxed',
    script: (cdn) => run(`import * as lib from '${cdn}src/js/index.js';`, WORKERS_BODY),
    check(result) {
      assert.deepEqual(result, {
        simd: true,
        parallelSimd: true,
        workers: 2,
        sameOutput: true,
        sameWeights: true,
      });
    },
  },
  {
    name: 'inline-workers-relaxed',
    csp: 'relaxed',
    script: (cdn) => run(`import * as lib from '${cdn}src/js/inline.js';`, WORKERS_BODY),
    check(result) {
      assert.equal(result.sameOutput, true, JSON.stringify(result));
      assert.equal(result.workers, 2);
    },
  },
  {
    name: 'strict-main',
    csp: 'strict',
    script: (cdn) => run(`import * as lib from '${cdn}src/js/index.js';`, `await lib.createAttention();`),
    check(result) {
      assert.equal(result.error?.code, 'LOAD_FAILED', JSON.stringify(result));
      assert.match(result.error.message, /connect-src/);
      assert.match(result.error.message, /attention-wasm\/inline/);
    },
  },
  {
    name: 'strict-inline',
    csp: 'strict',
    script: (cdn) =>
      run(
        `import * as lib from '${cdn}src/js/inline.js';`,
        `const attn = await lib.createAttention();
  const s = attn.selfAttention({ data: [1, 0, 0, 1], shape: [2, 2] }, { wq: [[1, 0], [0, 1]], wk: [[1, 0], [0, 1]], wv: [[1, 0], [0, 1]] });
  const refused = await lib.createAttention({ workers: 2 }).then(() => null, (e) => ({ name: e.name, code: e.code, message: e.message }));
  return { simd: attn.simd, output: Array.from(s.output.data), refused };`,
      ),
    check(result) {
      assert.equal(result.simd, true, JSON.stringify(result));
      assert.equal(result.output.length, 4);
      assert.equal(result.refused?.name, 'AttentionError');
      assert.equal(result.refused.code, 'WORKERS_UNAVAILABLE');
      assert.match(result.refused.message, /worker-src blob:/);
    },
  },
  workersRefused('blob-only-workers', 'blob-only', /worker-src blob: http:\/\/127\.0\.0\.2:\d+/),
  workersRefused('same-origin-no-workers', 'same-origin-no-workers', /worker-src http:\/\/127\.0\.0\.1:\d+/),
];
