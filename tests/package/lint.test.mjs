// The package's metadata, as the registry's users' tools read it: publint (package.json against the files that
// `npm pack` ships; its API, to tell errors and warnings from suggestions) and @arethetypeswrong/cli (the declarations TypeScript finds for each entry point under
// node16 ESM and bundler resolution), both clean. attw's "esm-only" profile: the package is ES modules only,
// so TypeScript's node10 resolution (gone in TypeScript 7) and `require` under node16 are out of its scope;
// Node ≥ 20.19 requires it at run time all the same (tests/bundlers/runtimes.test.mjs).
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { publint } from 'publint';

const repo = resolve(fileURLToPath(new URL('../..', import.meta.url)));
const bin = (path) => join(repo, 'node_modules', path);
const run = (args) =>
  execFileSync(process.execPath, args, { cwd: repo, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

let work;
let tarball;

before(() => {
  work = mkdtempSync(join(tmpdir(), 'attention-wasm-lint-'));
  const [packed] = JSON.parse(
    execFileSync('npm', ['pack', '--json', '--pack-destination', work], {
      cwd: repo,
      stdio: ['ignore', 'pipe', 'pipe'],
    }),
  );
  tarball = join(work, packed.filename);
});

after(() => rmSync(work, { recursive: true, force: true }));

test('publint --strict finds no error or warning, and suggests only what the issue asks for', async () => {
  const { messages } = await publint({ pkgDir: repo, strict: true, pack: 'npm' });
  assert.deepEqual(
    messages.filter((m) => m.type !== 'suggestion'),
    [],
  );
  // "pkg.browser … can be refactored to use pkg.exports": exports has it already; the field stays for the CDNs
  // and old tools that read it (issue 11 asks for `browser`, `jsdelivr` and `unpkg`).
  assert.deepEqual(
    messages.map((m) => m.code),
    messages.length ? ['USE_EXPORTS_BROWSER'] : [],
  );
});

test('@arethetypeswrong/cli finds no problem in any entry point', () => {
  const report = JSON.parse(
    run([bin('@arethetypeswrong/cli/dist/index.js'), tarball, '--profile', 'esm-only', '--format', 'json']),
  );
  const entries = Object.keys(report.analysis.entrypoints);
  for (const entry of ['.', './io', './model', './model/cache', './inline'])
    assert.ok(entries.includes(entry), `entry points: ${entries.join(', ')}`);
  const ignored = new Set(['node10', 'node16-cjs']);
  const problems = report.analysis.problems.filter((p) => !ignored.has(p.resolutionKind));
  assert.deepEqual(problems, []);
});

test('package.json names the repository, its home page and its issues, on GitHub', () => {
  // The registry's page links to them, and renders the README's relative links and pictures against the repository.
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'));
  const github = 'https://github.com/attention-wasm/attention-wasm';
  assert.deepEqual(pkg.repository, { type: 'git', url: `git+${github}.git` });
  assert.equal(pkg.homepage, `${github}#readme`);
  assert.deepEqual(pkg.bugs, { url: `${github}/issues` });
});
