// The packed package under each runtime it states in the README: Node 20 (ES modules and CommonJS require),
// Bun and Deno (their npm packages, devDependencies, so nothing is downloaded here). Each runs app/runtime.mjs
// (or .cjs): the worked example, and the same over 2 workers. Run by node's test runner (node --test).
import { before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { goldenOutput } from '../js/worked-example.js';
import { loadModel } from '../../src/js/model/index.node.js';
import { runModel } from './app/model.js';
import { packInto, repo, run } from './pack.mjs';

let app;
// As a user's package.json after `npm install attention-wasm` (Deno reads the dependency from it).
const APP_PACKAGE = { name: 'runtimes-app', private: true, type: 'module', dependencies: { 'attention-wasm': '*' } };

before(() => {
  const { folder } = packInto('runtimes');
  app = folder;
  writeFileSync(join(app, 'package.json'), JSON.stringify(APP_PACKAGE));
  for (const file of ['runtime.mjs', 'runtime.cjs'])
    copyFileSync(join(repo, 'tests/bundlers/app', file), join(app, file));
  copyFileSync(join(repo, 'tests/js/worked-example.js'), join(app, 'worked-example.js'));
  copyFileSync(join(repo, 'tests/bundlers/app/model.js'), join(app, 'model.js'));
  copyFileSync(join(repo, 'tests/js/model/tokenizers.js'), join(app, 'tokenizers.js'));
});

const bin = (name) => join(repo, 'node_modules/.bin', name);
const RUNTIMES = [
  { name: 'Node 20, import', command: process.execPath, args: ['runtime.mjs'] },
  { name: 'Node 20, require', command: process.execPath, args: ['runtime.cjs'] },
  { name: 'Bun', command: bin('bun'), args: ['runtime.mjs'], env: { BUN_RUNTIME_TRANSPILER_CACHE_PATH: '0' } },
  {
    name: 'Deno',
    command: bin('deno'),
    // Deno resolves attention-wasm from ./node_modules since the folder has a package.json; it may read files only.
    args: ['run', '--allow-read', '--no-lock', '--cached-only', 'runtime.mjs'],
    env: { DENO_NO_UPDATE_CHECK: '1', DENO_DIR: 'deno-cache' },
  },
];

for (const runtime of RUNTIMES) {
  test(`${runtime.name} computes the worked example with the packed package, workers included`, async () => {
    const result = JSON.parse(run(runtime.command, runtime.args, app, { env: runtime.env }));
    assert.equal(result.simd, true);
    assert.equal(result.io, 'function');
    result.output.forEach((x, i) => assert.ok(Math.abs(x - goldenOutput[i]) < 1e-6, `output[${i}] = ${x}`));
    assert.deepEqual(result.workerOutput, result.output, 'the workers gave other bits');
    if (result.model) {
      // attention-wasm/model (ES modules only): the tokens and logits of the source tree's run.
      const expected = await runModel(loadModel);
      assert.deepEqual(result.model.tokens, expected.tokens);
      result.model.lastLogits.forEach((x, i) => assert.ok(Math.abs(x - expected.lastLogits[i]) < 1e-6));
      const folder = pathToFileURL(join(app, 'node_modules/attention-wasm/web/public/models/induction/')).href;
      assert.deepEqual(result.builtin, { href: folder, next: 'ball' });
    } else assert.equal(runtime.args[0], 'runtime.cjs');
  });
}
