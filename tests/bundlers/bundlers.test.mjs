// Each bundler builds a small app (app/) from the packed tarball with its default configuration, and the app
// runs in Chromium: the worked example through attention-wasm/io and the API, and the same over 2 Web Workers
// where the bundler builds module workers; and a tiny GPT-2 on text through attention-wasm/model (with
// @huggingface/tokenizers), compared with the same run in Node, and attention-wasm/model/cache. What each bundler is given is all in BUNDLERS below: an entry and,
// for Rollup, the config file it needs to use a plugin at all. Run by node's test runner (node --test).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { launchChromium } from '../chromium.mjs';
import { serveStatic } from '../serve-static.mjs';
import { runModel } from './app/model.js';
import { packInto, repo, run } from './pack.mjs';

const APP = join(repo, 'tests/bundlers/app');
const bin = (path) => join(repo, 'node_modules', path);
const page = (script, module = true) =>
  `<!doctype html><meta charset="utf-8"><title>app</title><link rel="icon" href="data:,"><pre id="out">…</pre>
<script ${module ? 'type="module" ' : ''}src="./${script}"></script>\n`;

/**
 * name: the tool; files: the app's files (target ← source in app/); build: the command, run in the app's folder;
 * html: the page a user writes into dist/ when the tool makes none; workers: whether the app runs them there;
 * wasm: whether the tool emits the .wasm as a file (the others use the inline entry).
 */
const BUNDLERS = [
  {
    name: 'vite',
    files: { 'index.html': 'index.html', 'main.js': 'main.js' },
    build: ['node', [bin('vite/bin/vite.js'), 'build', '--logLevel', 'warn']],
    // Rolldown's note that plugins took most of the build's time: a measure of this busy machine, not a finding.
    ignore: /^.*\[PLUGIN_TIMINGS\][^]*?bundlertimings for more details\.\n?/m,
    workers: true,
    wasm: true,
  },
  {
    // What `npx webpack` does without a config file: entry ./src/index.js, output ./dist/main.js, production.
    name: 'webpack',
    files: { 'src/index.js': 'main.js' },
    source: 'src',
    build: [
      'node',
      [
        '--input-type=module',
        '-e',
        `import webpack from 'webpack';
webpack({ mode: 'production' }, (error, stats) => {
  if (error || stats.hasErrors() || stats.hasWarnings()) {
    console.error(error ?? stats.toString('errors-warnings'));
    process.exitCode = 1;
  }
});`,
      ],
    ],
    html: page('main.js', false),
    workers: true,
    wasm: true,
  },
  {
    name: 'rollup',
    files: { 'main.js': 'inline.js' },
    config: {
      'rollup.config.mjs': `import { nodeResolve } from '@rollup/plugin-node-resolve';
export default { input: 'main.js', output: { dir: 'dist' }, plugins: [nodeResolve()] };
`,
    },
    build: ['node', [bin('rollup/dist/bin/rollup'), '-c', '--failAfterWarnings']],
    quiet: false, // it tells what it wrote on stderr; a warning fails the build
    html: page('main.js'),
    workers: false,
    wasm: false,
  },
  {
    name: 'esbuild',
    files: { 'main.js': 'inline.js' },
    build: [
      bin('.bin/esbuild'),
      ['main.js', '--bundle', '--format=esm', '--platform=browser', '--outdir=dist', '--log-level=warning'],
    ],
    html: page('main.js'),
    workers: false,
    wasm: false,
  },
];

let folder;
let browser;
let expectedModel;

before(async () => {
  ({ folder } = packInto('bundlers'));
  const { loadModel } = await import('../../src/js/model/index.node.js');
  expectedModel = await runModel(loadModel);
  browser = await launchChromium();
});

after(() => browser?.close());

/** Writes the app for `bundler` into its own folder, builds it and returns the folder of the output. */
function build(bundler) {
  const app = join(folder, bundler.name);
  const source = join(app, bundler.source ?? '');
  mkdirSync(source, { recursive: true });
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({
      name: `${bundler.name}-app`,
      private: true,
      type: 'module',
      dependencies: { 'attention-wasm': '*' },
    }),
  );
  for (const [target, from] of Object.entries(bundler.files)) copyFileSync(join(APP, from), join(app, target));
  copyFileSync(join(APP, 'run.js'), join(source, 'run.js'));
  copyFileSync(join(repo, 'tests/js/worked-example.js'), join(source, 'worked-example.js'));
  copyFileSync(join(APP, 'model.js'), join(source, 'model.js'));
  copyFileSync(join(repo, 'tests/js/model/tokenizers.js'), join(source, 'tokenizers.js'));
  for (const [name, text] of Object.entries(bundler.config ?? {})) writeFileSync(join(app, name), text);
  // The shipped model, where docs/model.md's recipe puts it: Vite's public/ (copied into dist/), else dist/ itself.
  const shipped = join(folder, 'node_modules/attention-wasm/web/public/models/induction');
  const copyModel = (models) => cpSync(shipped, join(models, 'induction'), { recursive: true });
  if (bundler.name === 'vite') copyModel(join(app, 'public/models'));
  const [command, args] = bundler.build;
  run(command, args, app, {
    quiet: bundler.quiet ?? true,
    ignore: bundler.ignore,
    env: { NO_COLOR: '1', FORCE_COLOR: '0' },
  });
  const dist = join(app, 'dist');
  if (bundler.name !== 'vite') copyModel(join(dist, 'models'));
  if (bundler.html) writeFileSync(join(dist, 'index.html'), bundler.html);
  if (!bundler.wasm) {
    // attention-wasm/model has no inline build: the app serves its .wasm where the bundle's URL points.
    mkdirSync(join(dist, 'wasm'), { recursive: true });
    for (const build of ['model-simd', 'model-scalar'])
      copyFileSync(
        join(folder, `node_modules/attention-wasm/src/js/wasm/${build}.wasm`),
        join(dist, `wasm/${build}.wasm`),
      );
  }
  return dist;
}

/** Every file under `dir`, as paths relative to it. */
const filesUnder = (dir) => readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile());

/** Serves `dist`, opens it in Chromium, and returns what the app wrote, the failures seen and the paths asked for. */
async function open(dist) {
  const server = await serveStatic(dist);
  const tab = await browser.newPage();
  const errors = [];
  let fail;
  const failed = new Promise((_, reject) => (fail = reject));
  const error = (text) => {
    errors.push(text);
    fail(new Error(`the page failed: ${text}`));
  };
  tab.on('console', (m) => m.type() === 'error' && error(m.text()));
  tab.on('pageerror', (e) => error(String(e)));
  tab.on('response', (r) => r.status() >= 400 && error(`${r.status()} ${r.url()}`));
  try {
    await tab.goto(server.url);
    const written = () => document.getElementById('out').textContent.startsWith('{');
    await Promise.race([tab.waitForFunction(written), failed]);
    return { result: JSON.parse(await tab.textContent('#out')), errors, requests: server.requests, url: server.url };
  } finally {
    await tab.close();
    await server.close();
  }
}

/** The files of a build, each path checked: the browser path names no Node built-in, so no bundle may. */
function bundleFiles(dist) {
  const files = filesUnder(dist).map((e) => join(e.parentPath, e.name));
  for (const file of files.filter((f) => f.endsWith('.js'))) {
    assert.doesNotMatch(readFileSync(file, 'utf8'), /["']node:[a-z_/]+["']/, `${file} names a Node built-in`);
  }
  return files;
}

const near = (actual, expected, what) =>
  expected.forEach((x, i) => assert.ok(Math.abs(actual[i] - x) < 1e-6, `${what}[${i}] = ${actual[i]}, not ${x}`));

for (const bundler of BUNDLERS) {
  test(`${bundler.name} builds the app with its default configuration, and it runs in Chromium`, async () => {
    const dist = build(bundler);
    const files = bundleFiles(dist);
    const wasmFiles = files.filter((f) => f.endsWith('.wasm'));
    const emitted = wasmFiles.filter((f) => !f.startsWith(join(dist, 'wasm/model-')));
    if (bundler.wasm) assert.ok(emitted.length >= 2, `no .wasm emitted among ${files.join(', ')}`);
    else assert.deepEqual(emitted, [], 'the inline entry needs no .wasm file');

    const { result, errors, requests, url } = await open(dist);
    assert.equal(result.error, undefined, `the app failed: ${result.error}`);
    assert.equal(result.simd, true);
    assert.deepEqual(result.shape, [2, 2]);
    assert.deepEqual(result.sharedClasses, [true, true, true], 'io and the entry have separate classes');
    near(result.output, result.golden, 'output');
    if (bundler.workers) assert.deepEqual(result.workerOutput, result.output, 'the workers gave other bits');
    assert.equal(
      requests.some((p) => p.endsWith('.wasm') && !p.startsWith('/wasm/model-')),
      bundler.wasm,
    );
    // attention-wasm/model: the same tokens and logits as in Node, the cache entry opened.
    assert.deepEqual(result.model.tokens, expectedModel.tokens);
    assert.deepEqual(result.model.ids, expectedModel.ids);
    assert.equal(result.model.attentions, 1);
    near(result.model.lastLogits, expectedModel.lastLogits, 'model logits');
    if (bundler.workers) {
      // loadModel({ workers: 2 }) in the bundle: its worker emitted and started, the same tokens and logits within
      // float32 rounding
      assert.deepEqual(result.modelOnWorkers.tokens, expectedModel.tokens);
      near(result.modelOnWorkers.lastLogits, expectedModel.lastLogits, 'model logits on workers');
    }
    assert.equal(result.cacheBytes, true);
    // BUILTIN_MODEL in a bundle: the copy the page serves at models/induction/.
    assert.deepEqual(result.builtin, { href: `${url}models/induction/`, next: 'ball' });
    assert.deepEqual(errors, []);
  });
}

// The tools that copy no asset bundle the main entry too, without an error or a warning (its .wasm and workers
// are then the app's to serve): nothing on its browser path needs a plugin.
for (const bundler of BUNDLERS.filter((b) => !b.wasm)) {
  test(`${bundler.name} bundles the main entry too, without an error or a warning`, () => {
    const dist = build({ ...bundler, name: `${bundler.name}-main`, files: { 'main.js': 'main.js' } });
    assert.ok(bundleFiles(dist).some((f) => f.endsWith('.js')));
  });
}
