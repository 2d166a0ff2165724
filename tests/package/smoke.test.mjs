// The package as users get it: `npm pack`, installed into an empty project, then imported from Node 20 and from
// a static page in Chromium. The bundlers and the other runtimes are tests/bundlers/'s. Run by node --test.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { launchChromium } from '../chromium.mjs';
import { WAIT_MS } from '../timeouts.mjs';
import { serveStatic } from '../serve-static.mjs';

const repo = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const GOLDEN = [1.6604769, 2.6604769, 2.3395231, 3.3395231];
const EXAMPLE = `
import { createAttention } from 'attention-wasm';
const attn = await createAttention();
const s = attn.selfAttention([[1, 0], [0, 1]], { wq: [[1, 0], [0, 1]], wk: [[1, 0], [0, 1]], wv: [[1, 2], [3, 4]] });
const result = { simd: attn.simd, output: Array.from(s.output.data) };
`;

let work;
let app;
let tarball;

const run = (command, args, cwd) =>
  execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });
const assertGolden = (output) =>
  output.forEach((x, i) => assert.ok(Math.abs(x - GOLDEN[i]) < 1e-6, `output[${i}] = ${x}`));

before(() => {
  work = mkdtempSync(join(tmpdir(), 'attention-wasm-package-'));
  const packed = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], repo));
  tarball = packed[0];
  app = join(work, 'app');
  mkdirSync(app);
  writeFileSync(join(app, 'package.json'), JSON.stringify({ name: 'app', private: true, type: 'module' }));
  run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', join(work, tarball.filename)], app);
});

after(() => rmSync(work, { recursive: true, force: true }));

test('the tarball holds the JS, the declarations and both builds, and nothing else', () => {
  const files = tarball.files.map((f) => f.path).sort();
  for (const needed of [
    'package.json',
    'README.md',
    'LICENSE',
    'THIRD_PARTY_NOTICES.txt',
    'CHANGELOG.md',
    'src/js/index.js',
    'src/js/index.d.ts',
    'src/js/loader.js',
    'src/js/io/index.js',
    'src/js/io/index.d.ts',
    'src/js/generated/abi.js',
    'src/js/generated/abi.d.ts',
    'src/js/wasm/attention-simd.js',
    'src/js/wasm/attention-simd.wasm',
    'src/js/wasm/attention-scalar.js',
    'src/js/wasm/attention-scalar.wasm',
    'src/js/model/index.js',
    'src/js/model/index.d.ts',
    'src/js/model/cache.js',
    'src/js/model/cache.d.ts',
    'src/js/wasm/model-simd.wasm',
    'src/js/wasm/model-scalar.wasm',
    'web/public/models/induction/config.json',
    'web/public/models/induction/model.safetensors',
    'web/public/models/induction/tokenizer.json',
  ]) {
    assert.ok(files.includes(needed), `${needed} is missing from the tarball`);
  }
  const unexpected = files.filter(
    (f) =>
      !/^(package\.json|README\.md|LICENSE|THIRD_PARTY_NOTICES\.txt|CHANGELOG\.md|src\/js\/(io\/|generated\/|model\/|model\/families\/)?[^/]+\.(js|d\.ts)|src\/js\/wasm\/(attention|model)-(simd|scalar)\.(js|wasm|wasm\.js)|web\/src\/(elements(\/instruments)?|shared(\/instruments)?|lessons(\/[^/]+)?)\/[^/]+\.(js|d\.ts)|web\/public\/models\/induction\/(config\.json|model\.safetensors|tokenizer(_config)?\.json|README\.md))$/.test(
        f,
      ),
  );
  assert.deepEqual(unexpected, []);
});

test('each .wasm in the tarball carries LICENSE and the third-party notices, and still validates', () => {
  const pkg = join(app, 'node_modules/attention-wasm');
  const notice = `${readFileSync(join(pkg, 'LICENSE'), 'utf8')}\n\n${readFileSync(join(pkg, 'THIRD_PARTY_NOTICES.txt'), 'utf8')}`;
  assert.match(notice, /MIT License[^]*Eigen 3\.4\.0[^]*MPL-2\.0[^]*musl/);
  for (const build of ['attention-simd', 'attention-scalar', 'model-simd', 'model-scalar']) {
    const bytes = readFileSync(join(pkg, `src/js/wasm/${build}.wasm`));
    assert.ok(WebAssembly.validate(bytes));
    const sections = WebAssembly.Module.customSections(new WebAssembly.Module(bytes), 'license');
    assert.equal(sections.length, 1, `${build}.wasm has ${sections.length} license sections`);
    assert.equal(new TextDecoder().decode(sections[0]), notice);
  }
});

test('Node 20 imports it by name and computes the worked example', async () => {
  writeFileSync(join(app, 'node-example.mjs'), `${EXAMPLE}\nconsole.log(JSON.stringify(result));\n`);
  const result = JSON.parse(run('node', ['node-example.mjs'], app));
  for (const [entry, exports] of [
    ['attention-wasm/io', 'openNpz,openSafetensors,readNpy,readNpz,readSafetensors,writeNpz,writeSafetensors'],
    [
      'attention-wasm/model',
      'BUILTIN_MODEL,HUB_URL,Model,SUPPORTED_FAMILIES,attentionTensorsOf,attentionWeightsFrom,loadModel,modelFolderUrl,parseModelSource',
    ],
    ['attention-wasm/model/cache', 'MODEL_CACHE_NAME,clearModelCache,modelCacheBytes,openModelCache'],
  ]) {
    const code = `console.log(Object.keys(await import('${entry}')).join())`;
    assert.equal(run('node', ['--input-type=module', '-e', code], app).trim(), exports);
  }
  assert.equal(result.simd, true);
  assertGolden(result.output);
});

test('in Node, workers do the same, and an idle pool lets the process exit without terminate()', async () => {
  writeFileSync(
    join(app, 'node-workers.mjs'),
    `import { createAttention } from 'attention-wasm';
const attn = await createAttention({ workers: 2 });
const s = await attn.multiHeadAttention([[1, 0], [0, 1]], { wq: [[1, 0], [0, 1]], wk: [[1, 0], [0, 1]], wv: [[1, 2], [3, 4]], numHeads: 1 });
console.log(JSON.stringify(Array.from(s.output.data)));
`,
  );
  const output = JSON.parse(
    execFileSync('node', ['node-workers.mjs'], { cwd: app, encoding: 'utf8', timeout: WAIT_MS }),
  );
  assertGolden(output);
});

/**
 * Serves `root`, opens `file` there in Chromium, waits for its #out to hold JSON, checks that nothing was logged as an
 * error, and gives that JSON and the server's URL.
 */
async function pageResult(root, file) {
  const server = await serveStatic(root);
  const browser = await launchChromium();
  try {
    const page = await browser.newPage();
    const errors = [];
    page.on('pageerror', (e) => errors.push(String(e)));
    page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
    await page.goto(`${server.url}${file}`);
    await page.waitForFunction(() => document.getElementById('out').textContent.startsWith('{'));
    const result = JSON.parse(await page.textContent('#out'));
    assert.deepEqual(errors, []);
    return { result, url: server.url };
  } finally {
    await browser.close();
    await server.close();
  }
}

test('a static page imports it with <script type="module">, no bundler, and computes in Chromium', async () => {
  const pkg = join(app, 'node_modules/attention-wasm');
  writeFileSync(
    join(pkg, 'static-page.html'),
    `<!doctype html><title>static</title><link rel="icon" href="data:,"><pre id="out">…</pre>
<script type="module">${EXAMPLE.replace("'attention-wasm'", "'./src/js/index.js'")}
document.getElementById('out').textContent = JSON.stringify(result);
</script>
`,
  );
  const { result } = await pageResult(pkg, 'static-page.html');
  assert.equal(result.simd, true);
  assertGolden(result.output);
});

test('a static page of the installed files, as a CDN serves them, loads BUILTIN_MODEL from beside them in Chromium', async () => {
  // The project's folder served as it is; @huggingface/tokenizers mapped as the docs say for a page without a bundler.
  writeFileSync(
    join(app, 'builtin-page.html'),
    `<!doctype html><title>builtin</title><link rel="icon" href="data:,"><pre id="out">…</pre>
<script type="importmap">{ "imports": { "@huggingface/tokenizers": "./node_modules/@huggingface/tokenizers/dist/tokenizers.min.mjs" } }</script>
<script type="module">
import { BUILTIN_MODEL, loadModel } from './node_modules/attention-wasm/src/js/model/index.js';
const model = await loadModel(BUILTIN_MODEL);
const r = await model.run('the cat saw a red ball near the old tree . the cat saw a red');
document.getElementById('out').textContent = JSON.stringify({ href: BUILTIN_MODEL.href, next: r.next[0].token });
</script>
`,
  );
  const { result, url } = await pageResult(app, 'builtin-page.html');
  assert.deepEqual(result, { href: `${url}node_modules/attention-wasm/web/public/models/induction/`, next: 'ball' });
});
