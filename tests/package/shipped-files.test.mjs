// scripts/shipped-files.mjs: package.json's files hold exactly the files of web/src that the elements' import graph
// reaches (and the declarations of their entry), and name what is missing or extra, with the module that imports
// it. prepublish.mjs runs the same check. Run by node --test.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { appendFileSync, cpSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { listedBy, shippedFileProblems, shippedWebFiles, withShippedFiles } from '../../scripts/shipped-files.mjs';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
const FIX = 'run node scripts/shipped-files.mjs --write';

test("package.json's files are what the elements import, and what --write makes of the graph", () => {
  assert.deepEqual(shippedFileProblems(repo), []);
  assert.deepEqual(withShippedFiles(repo, pkg).files, pkg.files);
  const shipped = shippedWebFiles(repo, pkg);
  for (const file of ['web/src/elements/index.js', 'web/src/elements/index.d.ts', 'web/src/shared/dom.js'])
    assert.ok(shipped.includes(file), file);
  for (const file of ['web/src/main.js', 'web/src/app/controls.js', 'web/src/lessons/rope/ropeView.js'])
    assert.ok(!shipped.includes(file), file);
  assert.ok(
    shipped.every((f) => /^web\/src\/(elements|shared|lessons)\//.test(f)),
    shipped.join(', '),
  );
});

test('a module the elements import that files omit is named, with its importer', () => {
  const files = pkg.files.filter((f) => f !== 'web/src/lessons/gqa/gqa.js');
  assert.deepEqual(shippedFileProblems(repo, { ...pkg, files }), [
    `web/src/lessons/gqa/gqa.js (imported by web/src/lessons/registry.js) is not in package.json's files: ${FIX}`,
  ]);
});

test("a folder of the package's own modules that files omit is named (src/js/model/families/ once was)", () => {
  const files = pkg.files.filter((f) => f !== 'src/js/model/families/*.js');
  assert.notEqual(files.length, pkg.files.length);
  const problems = shippedFileProblems(repo, { ...pkg, files });
  assert.ok(problems.length > 0);
  assert.match(
    problems[0],
    /^src\/js\/model\/families\/index\.js \(imported by src\/js\/model\/index\.js\) is not in package\.json's files: add it or its folder there$/,
  );
});

test('a glob that ships a module the elements do not import is named', () => {
  const files = [...pkg.files, 'web/src/lessons/rope/*.js'];
  const problems = shippedFileProblems(repo, { ...pkg, files });
  assert.deepEqual(problems, [
    `package.json's files ship web/src/lessons/rope/ropeDialsView.js, which the elements do not import: ${FIX}`,
    `package.json's files ship web/src/lessons/rope/ropeView.js, which the elements do not import: ${FIX}`,
  ]);
});

test('a sideEffects entry that names no file is named', () => {
  const sideEffects = [...pkg.sideEffects, './web/src/model/ropeLink.js'];
  assert.deepEqual(shippedFileProblems(repo, { ...pkg, sideEffects }), [
    "package.json's sideEffects names ./web/src/model/ropeLink.js, which does not exist",
  ]);
});

test('a new import of a page module by a shared one is named until files list it', () => {
  const root = mkdtempSync(join(tmpdir(), 'attention-wasm-shipped-'));
  try {
    for (const path of ['web/src', 'src/js', 'package.json'])
      cpSync(join(repo, path), join(root, path), { recursive: true });
    appendFileSync(join(root, 'web/src/shared/format.js'), "\nimport '../app/latency.js';\n");
    assert.deepEqual(shippedFileProblems(root), [
      `web/src/app/latency.js (imported by web/src/shared/format.js) is not in package.json's files: ${FIX}`,
    ]);
    const written = withShippedFiles(root, pkg);
    assert.ok(written.files.includes('web/src/app/latency.js'));
    assert.deepEqual(shippedFileProblems(root, written), []);
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});

test("the files entries match as npm's do: paths, folders, * and **", () => {
  assert.ok(listedBy('web/src/shared/*.js', 'web/src/shared/dom.js'));
  assert.ok(!listedBy('web/src/shared/*.js', 'web/src/shared/x/dom.js'));
  assert.ok(!listedBy('web/src/shared/*.js', 'web/src/shared/state-types.d.ts'));
  assert.ok(listedBy('web/src/lessons', 'web/src/lessons/rope/ropeView.js'));
  assert.ok(listedBy('web/src/**/*.js', 'web/src/lessons/rope/ropeView.js'));
  assert.ok(listedBy('web/src/**/*.js', 'web/src/main.js'));
  assert.ok(listedBy('./web/src/main.js', 'web/src/main.js'));
  assert.ok(!listedBy('web/src/main.js', 'web/src/main.jsx'));
});
