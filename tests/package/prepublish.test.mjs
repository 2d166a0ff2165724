// scripts/prepublish.mjs (npm's prepublishOnly) on copies of the repository's build: it passes as built, and
// names the problem when a build is missing, older than a source, without the license notice, the other
// variant, compiled from another abi.h, or not the one inside src/js/inline.js. Run by node's test runner (node --test).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { render, parseAbi } from '../../scripts/gen-constants.mjs';
import { releaseProblems } from '../../scripts/prepublish.mjs';
import { withCustomSection } from '../../scripts/wasm-notice.mjs';

const repo = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const COPIED = ['src', 'web/src', 'scripts', 'CMakeLists.txt', 'LICENSE', 'THIRD_PARTY_NOTICES.txt', 'package.json'];
const wasm = (variant, ext = 'wasm') => `src/js/wasm/attention-${variant}.${ext}`;

/** A copy of the repository's sources and build (times kept), changed by `change(root)`; its problems. */
async function problemsAfter(change) {
  const root = mkdtempSync(join(tmpdir(), 'attention-wasm-prepublish-'));
  try {
    for (const path of COPIED)
      cpSync(join(repo, path), join(root, path), { recursive: true, preserveTimestamps: true });
    change(root);
    return await releaseProblems(root);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
}

/** Sets the modification time of `path` (in root) to a minute from now: newer than everything built. */
const touch = (root, path) => utimesSync(join(root, path), new Date(), new Date(Date.now() + 60_000));

test('the repository as built passes', async () => {
  assert.deepEqual(await problemsAfter(() => {}), []);
});

test('a missing build is named', async () => {
  const problems = await problemsAfter((root) => rmSync(join(root, wasm('scalar'))));
  assert.deepEqual(problems, [`${wasm('scalar')} is missing: run npm run build`]);
});

test('a source newer than the build is named', async () => {
  const problems = await problemsAfter((root) => touch(root, 'src/core/attention.cc'));
  assert.equal(problems.length, 8); // the .js and .wasm of both variants of the main module and of the model's
  for (const problem of problems) assert.match(problem, /is older than src\/core\/attention\.cc: run npm run build$/);
});

test('an inline entry made from other builds is named', async () => {
  const problems = await problemsAfter((root) => {
    const path = join(root, 'src/js/inline.js');
    writeFileSync(path, readFileSync(path, 'utf8').replace(/AGFzbQ[A-Za-z0-9+/]{64}/, 'AGFzbQ'));
  });
  assert.equal(problems.length, 1);
  assert.match(problems[0], /^src\/js\/inline\.js does not hold src\/js\/wasm\/attention-(simd|scalar)\.wasm as built/);
});

test('an inline entry older than the JS it is made from is named', async () => {
  const problems = await problemsAfter((root) => touch(root, 'src/js/pool.js'));
  assert.deepEqual(problems, ['src/js/inline.js is older than src/js/pool.js: run npm run build']);
});

test('a .wasm without the current license notice is named', async () => {
  const problems = await problemsAfter((root) => {
    const path = join(root, wasm('simd'));
    writeFileSync(path, withCustomSection(readFileSync(path), 'an old notice'));
    touch(root, 'src/js/inline.js'); // newer, but still holding the .wasm with the current notice
  });
  assert.deepEqual(problems, [
    `${wasm('simd')} lacks the current license notice: run npm run build`,
    `src/js/inline.js does not hold ${wasm('simd')} as built: run npm run build`,
  ]);
});

test('the other variant in place of a build is named', async () => {
  const problems = await problemsAfter((root) => {
    cpSync(join(root, wasm('scalar')), join(root, wasm('simd')));
    touch(root, wasm('simd'));
    touch(root, 'src/js/inline.js');
  });
  assert.equal(problems.length, 1);
  assert.match(problems[0], /^the simd build does not load: .*is the scalar build, not the simd build/);
});

test('a build compiled from another abi.h is named, even when it is newer than abi.h', async () => {
  const problems = await problemsAfter((root) => {
    // abi.h and its generated files change together (as gen-constants.mjs writes them); the builds do not.
    const header = join(root, 'src/core/abi.h');
    const changed = readFileSync(header, 'utf8').replace('X(kKeyPanel, 8)', 'X(kKeyPanel, 4)');
    assert.notEqual(changed, readFileSync(header, 'utf8'));
    writeFileSync(header, changed);
    utimesSync(header, new Date(), new Date(0));
    const { js, dts } = render(parseAbi(changed));
    writeFileSync(join(root, 'src/js/generated/abi.js'), js);
    writeFileSync(join(root, 'src/js/generated/abi.d.ts'), dts);
    touch(root, 'src/js/inline.js');
  });
  assert.equal(problems.length, 2);
  for (const problem of problems)
    assert.match(problem, /does not load: .*comes from another version of attention-wasm/);
});

test("a file of web/src that package.json's files list but the elements do not import is named", async () => {
  const problems = await problemsAfter((root) => {
    const path = join(root, 'package.json');
    const pkg = JSON.parse(readFileSync(path, 'utf8'));
    writeFileSync(path, JSON.stringify({ ...pkg, files: [...pkg.files, 'web/src/app/latency.js'] }));
  });
  assert.deepEqual(problems, [
    "package.json's files ship web/src/app/latency.js, which the elements do not import: run node scripts/shipped-files.mjs --write",
  ]);
});
