// Every example of the documentation as a newcomer runs it: the packed tarball installed into empty projects made by
// `npm init -y` (CommonJS, as npm makes it) and the same with `"type": "module"`, as the README says. Each ```js
// example of every page (scripts/docs/pages.mjs), of the API reference's first page and of the declarations'
// @example blocks (the reference's examples) runs there as printed, in its own file: an example that `require`s
// in the CommonJS project, the others in the ES module one; the README's quick start also as `example.mjs` in the
// CommonJS project. Each line it prints equals the example's `// prints:` comment, in order. Nothing in an
// example may read the repository's files: the projects are outside it. Run by node --test.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { API_ENTRIES, PAGES } from '../../scripts/docs/pages.mjs';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const read = (path) => readFileSync(join(repo, path), 'utf8');
const API_OVERVIEW = 'scripts/docs/api-overview.md';

/** The ```js blocks of a Markdown text. */
const markdownExamples = (markdown) => [...markdown.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);

/** The ```js blocks of a declaration file's doc comments (` * ` taken off each line). */
const declarationExamples = (source) =>
  [...source.matchAll(/^\s*\* ```js\n([\s\S]*?)^\s*\* ```$/gm)].map((m) =>
    m[1].replace(/^\s*\*(?: |$)/gm, '').replace(/\n?$/, '\n'),
  );

/** Every example: where it is (for the test's name) and its code. */
const EXAMPLES = [
  ...[...PAGES.map((p) => p.source), API_OVERVIEW].flatMap((source) =>
    markdownExamples(read(source)).map((code, i) => ({ where: `${source} example ${i + 1}`, source, code })),
  ),
  ...API_ENTRIES.flatMap((source) =>
    declarationExamples(read(source)).map((code, i) => ({ where: `${source} @example ${i + 1}`, source, code })),
  ),
];

/** A CommonJS example: it requires the package and imports nothing. */
const isCommonJs = (code) => /\brequire\(/.test(code) && !/^import\b/m.test(code);
const expectedLines = (code) => [...code.matchAll(/\/\/ prints: (.*)$/gm)].map((m) => m[1].trim());

let work;
const projects = {}; // 'module' | 'commonjs' → folder

const run = (command, args, cwd) =>
  execFileSync(command, args, { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] });

before(() => {
  work = realpathSync(mkdtempSync(join(tmpdir(), 'attention-wasm-examples-')));
  const [packed] = JSON.parse(run('npm', ['pack', '--json', '--pack-destination', work], repo));
  for (const type of ['commonjs', 'module']) {
    const folder = join(work, type);
    mkdirSync(folder);
    run('npm', ['init', '-y'], folder);
    if (type === 'module') run('npm', ['pkg', 'set', 'type=module'], folder);
    run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=error', join(work, packed.filename)], folder);
    projects[type] = folder;
  }
});

after(() => rmSync(work, { recursive: true, force: true }));

/** Runs `code` as `file` in a project and returns the lines it printed, trimmed. */
function printed(type, file, code) {
  writeFileSync(join(projects[type], file), code);
  try {
    return run('node', [file], projects[type])
      .trimEnd()
      .split('\n')
      .map((l) => l.trim());
  } catch (error) {
    assert.fail(`node ${file} in the ${type} project failed:\n${error.stderr || error.message}`);
  }
}

test('a project `npm init -y` makes is CommonJS, and the README says what to do there', () => {
  assert.equal(
    JSON.parse(readFileSync(join(projects.commonjs, 'package.json'), 'utf8')).type ?? 'commonjs',
    'commonjs',
  );
  const readme = read('README.md');
  assert.match(readme, /\.mjs`/);
  assert.match(readme, /"type": "module"/);
  const forms = markdownExamples(readme).map(isCommonJs);
  assert.ok(forms.includes(true) && forms.includes(false), 'the README shows the require form beside the import');
});

test('the documentation has examples everywhere it should', () => {
  const count = (source) => EXAMPLES.filter((e) => e.source === source).length;
  for (const source of ['README.md', 'docs/guide.md', 'docs/model.md', API_OVERVIEW, ...API_ENTRIES.slice(0, 3)])
    assert.ok(count(source) > 0, `${source} has no example`);
});

for (const { where, code } of EXAMPLES) {
  const expected = expectedLines(code);
  const type = isCommonJs(code) ? 'commonjs' : 'module';
  test(`${where} prints what it says, in an empty ${type} project (${expected.length} lines)`, () => {
    assert.ok(expected.length > 0, 'an example with nothing to check');
    assert.doesNotMatch(code, /\bdocs\/examples\b|\btests\//, 'an example reads a file of the repository');
    assert.deepEqual(printed(type, 'example.js', code), expected);
  });
}

// An example that needs the network (a model from the Hub) is a ```js hub block: nothing in the tests downloads, so it is
// not run; it must parse, import only the package's entries, and import names they export.
const HUB_EXAMPLES = PAGES.map((p) => p.source).flatMap((source) =>
  [...read(source).matchAll(/```js hub\n([\s\S]*?)```/g)].map((m, i) => ({
    where: `${source} hub example ${i + 1}`,
    code: m[1],
  })),
);

test('the documentation has a hub example (GPT-2 small, the indirect-object walk of docs/model.md)', () => {
  assert.ok(HUB_EXAMPLES.some((e) => e.where.startsWith('docs/model.md') && /openai-community\/gpt2/.test(e.code)));
});

for (const { where, code } of HUB_EXAMPLES) {
  test(`${where} parses and imports only what the installed package exports`, () => {
    const file = join(projects.module, 'hub-example.js');
    writeFileSync(file, code);
    run('node', ['--check', file], projects.module);
    const imports = [...code.matchAll(/^import \{([^}]*)\} from '([^']+)';$/gm)];
    assert.ok(imports.length > 0, 'it imports the package');
    for (const [, names, from] of imports) {
      assert.match(from, /^attention-wasm(\/|$)/, `${from}: only the package`);
      const check = `const m = await import(${JSON.stringify(from)});
for (const name of ${JSON.stringify(names.split(',').map((n) => n.trim()))}) if (!(name in m)) throw new Error(name);`;
      printed('module', 'hub-imports.js', check);
    }
  });
}

test('the README quick start runs as example.mjs in the CommonJS project, as the README says', () => {
  const [quickStart] = markdownExamples(read('README.md'));
  assert.deepEqual(printed('commonjs', 'example.mjs', quickStart), expectedLines(quickStart));
});

test('BUILTIN_MODEL is the installed folder, and loads in Node by import and by require', () => {
  const folder = (type) =>
    pathToFileURL(join(projects[type], 'node_modules/attention-wasm/web/public/models/induction/')).href;
  const text = 'the cat saw a red ball near the old tree . the cat saw a red';
  const esm = `import { BUILTIN_MODEL, loadModel } from 'attention-wasm/model';
const model = await loadModel(BUILTIN_MODEL);
const r = await model.run(${JSON.stringify(text)});
console.log(BUILTIN_MODEL instanceof URL, BUILTIN_MODEL.href);
console.log(model.family, r.next[0].token);
`;
  assert.deepEqual(printed('module', 'builtin.js', esm), [`true ${folder('module')}`, 'gpt2 ball']);
  const cjs = `const { BUILTIN_MODEL, loadModel } = require('attention-wasm/model');
loadModel(BUILTIN_MODEL).then(async (model) => {
  console.log(BUILTIN_MODEL.href);
  console.log((await model.run(${JSON.stringify(text)})).next[0].token);
});
`;
  assert.deepEqual(printed('commonjs', 'builtin.js', cjs), [folder('commonjs'), 'ball']);
});
