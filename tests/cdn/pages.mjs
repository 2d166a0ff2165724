// The pages of the second-origin test (cdn.test.mjs): each is a module script run on a page of 127.0.0.1 that
// imports the packed package from 127.0.0.2 (the "CDN"), under a Content-Security-Policy. A page's script sets
// `window.result` to what it found (or { error: { name, code, message } }); its `check` asserts on that.
//
// HOOK for more pages (e.g. the elements of attention-wasm/elements): push an entry onto PAGES, with
//   name   a file name for the page (no spaces);
//   csp    'relaxed' (connect-src allows the CDN, worker-src blob: and the CDN) or 'strict' (the CSP:
//          default-src 'self'; script-src 'self' <cdn> 'wasm-unsafe-eval'; style-src 'self' <cdn>), or
//          'blob-only' (relaxed, but worker-src 'self' blob: without the CDN), or 'same-origin-no-workers' (the
//          package served by the page's own origin, `cdn` is './', and worker-src 'none'), or 'model' (strict, plus
//          connect-src for the CDN and the hash of the import map of @huggingface/tokenizers);
//   body   optional HTML for the page's <body>, or (cdn) => that HTML (no inline script or style: the CSP forbids
//          them; the 'model' CSP allows the one import map of importMap(cdn) by its hash);
//   script (cdn) => the module script's source; `cdn` is the package's root URL on the second origin, ending in /;
//   check  (result, assert) => void.
import assert from 'node:assert/strict';
import { runModel } from '../bundlers/app/model.js';
import { loadModel } from '../../src/js/model/index.node.js';

/** The import map of the model page: the package's dependency, at its place on the CDN. */
export const importMap = (cdn) =>
  JSON.stringify({
    imports: { '@huggingface/tokenizers': `${cdn}node_modules/@huggingface/tokenizers/dist/tokenizers.min.mjs` },
  });

/** The tiny GPT-2's run in Node, which the page must match. */
const expectedModel = await runModel(loadModel);

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

/**
 * A post importing attention-wasm/elements from the CDN under the strict CSP: both elements computed, each one's
 * result bit for bit the one-thread result of attention-wasm/inline on the same inputs, the explorer's shown weights
 * those numbers to 4 decimals, no CSP violation, and no .wasm fetched (only the SIMD build's script module).
 */
const ELEMENTS_PAGE = {
  name: 'strict-elements',
  csp: 'strict',
  body: `<main><h1>A post</h1>
<attention-heatmap id="heatmap" sentence="time flies like an arrow" seed="42"></attention-heatmap>
<attention-explorer id="explorer" steps="scores softmax output" sentence="the cat sat on the mat" causal seed="7"></attention-explorer></main>`,
  script: (cdn) =>
    run(
      `const violations = [];
document.addEventListener('securitypolicyviolation', (e) => violations.push(\`\${e.violatedDirective} \${e.blockedURI}\`));
// Imported here, after the listener: static imports would run before it.`,
      `await import('${cdn}web/src/elements/index.js');
  const lib = await import('${cdn}src/js/inline.js');
  const { attentionCall } = await import('${cdn}web/src/shared/inputs.js');
  const ids = ['heatmap', 'explorer'];
  const done = async (id) => {
    while (!['ready', 'error'].includes(document.getElementById(id).status)) await new Promise((r) => setTimeout(r, 50));
  };
  await done('heatmap');
  document.getElementById('explorer').scrollIntoView(); // the explorer computes once it is in view
  await done('explorer');
  const single = await lib.createAttention();
  const same = (x, y) => x.length === y.length && x.every((v, i) => Object.is(v, y[i]));
  const elements = {};
  for (const id of ids) {
    const element = document.getElementById(id);
    const call = attentionCall(element.currentState);
    const want = single.selfAttention(call.x, call.weights, call.options);
    elements[id] = { status: element.status, sameOutput: same(element.result.output.data, want.output.data),
      sameWeights: same(element.result.weights.data, want.weights.data), weights: want.weights.toArray() };
  }
  const shown = Array.from(document.getElementById('explorer').shadowRoot.querySelectorAll('[data-matrix="weights"] tbody tr'),
    (tr) => Array.from(tr.querySelectorAll('td'), (td) => td.textContent.replace('\u2212', '-')));
  const wasm = performance.getEntriesByType('resource').map((e) => e.name).filter((n) => /\\.wasm(\\.js)?$/.test(n));
  return { elements, shown, violations, wasm, simd: single.simd };`,
    ),
  check(result) {
    const text = JSON.stringify(result);
    assert.deepEqual(result.violations, [], text);
    for (const id of ['heatmap', 'explorer']) {
      const { status, sameOutput, sameWeights } = result.elements?.[id] ?? {};
      assert.deepEqual(
        { id, status, sameOutput, sameWeights },
        { id, status: 'ready', sameOutput: true, sameWeights: true },
      );
    }
    const weights = result.elements.explorer.weights[0];
    assert.equal(result.shown.length, weights.length, 'the explorer shows the weights');
    result.shown.forEach((row, i) =>
      row.forEach((text, j) => {
        // Half a unit of the last place shown, plus float32's rounding.
        const tolerance = 0.5 * 10 ** -(text.split('.')[1] ?? '').length + 1e-6;
        assert.ok(
          Math.abs(Number(text) - weights[i][j]) <= tolerance,
          `weights[${i}][${j}]: ${text}, ${weights[i][j]}`,
        );
      }),
    );
    assert.equal(result.simd, true);
    assert.deepEqual(
      result.wasm.map((n) => n.replace(/^.*\//, '')),
      ['attention-simd.wasm.js'],
      "no .wasm fetched: only the SIMD build's script module",
    );
  },
};

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
  ELEMENTS_PAGE,
  {
    // attention-wasm/model and its cache entry from the CDN: a tiny GPT-2 on text, tokenized by
    // @huggingface/tokenizers through the page's import map; the model's .wasm fetched from the CDN (connect-src).
    name: 'model-from-cdn',
    csp: 'model',
    body: (cdn) => `<script type="importmap">${importMap(cdn)}</script>`,
    script: (cdn) =>
      run(
        `import * as lib from '${cdn}src/js/model/index.js';
import { openModelCache } from '${cdn}src/js/model/cache.js';
import { runModel } from './model.js';`,
        `const model = await runModel(lib.loadModel);
  const cache = await openModelCache('cdn-page');
  return { model, cache: cache.name, hub: lib.HUB_URL };`,
      ),
    check(result) {
      assert.equal(result.error, undefined, JSON.stringify(result.error));
      assert.deepEqual(result.model.tokens, expectedModel.tokens);
      assert.deepEqual(result.model.ids, expectedModel.ids);
      result.model.lastLogits.forEach((x, i) => assert.ok(Math.abs(x - expectedModel.lastLogits[i]) < 1e-6));
      assert.equal(result.cache, 'cdn-page');
    },
  },
  {
    // Under the strict CSP (no connect-src for the CDN), the model's .wasm cannot be fetched: LOAD_FAILED names
    // the directive. Without an import map, a folder's tokenizer.json cannot be read: LOAD_FAILED says to add one.
    name: 'strict-model',
    csp: 'strict',
    script: (cdn) =>
      run(
        `import * as lib from '${cdn}src/js/model/index.js';
import { tinyCheckpoint } from './model.js';`,
        `const describe = (e) => ({ name: e?.name, code: e?.code, message: String(e?.message ?? e) });
  const { 'tokenizer.json': tokenizer, ...withoutTokenizer } = tinyCheckpoint();
  const wasm = await lib.loadModel(withoutTokenizer).then(() => null, describe);
  const tokens = await lib.loadModel({ ...withoutTokenizer, 'tokenizer.json': tokenizer }).then(() => null, describe);
  return { wasm, tokens };`,
      ),
    check(result) {
      assert.equal(result.wasm?.code, 'LOAD_FAILED', JSON.stringify(result));
      assert.match(result.wasm.message, /connect-src/);
      assert.doesNotMatch(result.wasm.message, /attention-wasm\/inline/); // the model has no inline build
      assert.equal(result.tokens?.code, 'LOAD_FAILED', JSON.stringify(result));
      assert.match(result.tokens.message, /@huggingface\/tokenizers/);
      assert.match(result.tokens.message, /import map/);
    },
  },
];
