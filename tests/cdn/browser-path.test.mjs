// The browser path names no Node built-in: from each browser entry of package.json's `exports` (the `default`
// condition: `.`, `./io`, `./inline`, `./elements`, `./model`, `./model/cache` when present), every file reached by an import, a dynamic
// import with a literal specifier, or a worker's `new URL('./x.js', import.meta.url)`, is read; any `node:`
// specifier, Node built-in name, bare specifier or `#import` fails, since browsers, CDNs and bundlers cannot
// follow them. PACKAGE_ROOT points the walk at another checkout (to see it fail on an older tree).
import assert from 'node:assert/strict';
import { readFileSync, existsSync } from 'node:fs';
import { builtinModules } from 'node:module';
import { test } from 'node:test';

const root = new URL(process.env.PACKAGE_ROOT ? `file://${process.env.PACKAGE_ROOT}/` : '../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8'));

/** The file a browser gets for an export: its `default` (or `browser`) condition, nested conditions followed. */
function browserTarget(entry) {
  if (typeof entry === 'string') return entry;
  for (const condition of ['browser', 'import', 'default']) {
    if (entry?.[condition] !== undefined) return browserTarget(entry[condition]);
  }
  return undefined;
}

const IMPORTS = [
  /(?:^|[;}])\s*import\s*(?:[\w*{}\s,$]+\s+from\s*)?['"]([^'"]+)['"]/gm, // import … from 'x', import 'x'
  /(?:^|[;}])\s*export\s*(?:\*(?:\s+as\s+\w+)?|\{[^}]*\})\s*from\s*['"]([^'"]+)['"]/gm, // export … from 'x'
  /\bimport\s*\(\s*(?:\/\*[^*]*\*\/\s*)?['"]([^'"]+)['"]\s*\)/g, // import('x')
  /new\s+URL\(\s*['"]([^'"]+\.m?js)['"]\s*,\s*import\.meta\.url\s*\)/g, // a worker's script
];
const BUILTINS = new Set(builtinModules.flatMap((name) => [name, name.split('/')[0]]));

/** Every problem of the files reached from `entry`, as "file: what"; `allowed`: the bare specifiers it may import. */
function walk(entry, allowed = new Set()) {
  const seen = new Set();
  const problems = [];
  const queue = [new URL(entry, root)];
  while (queue.length) {
    const file = queue.pop();
    if (seen.has(file.href)) continue;
    seen.add(file.href);
    const where = file.href.slice(root.href.length);
    if (!existsSync(file)) {
      problems.push(`${where}: does not exist`);
      continue;
    }
    const text = readFileSync(file, 'utf8');
    const code = text.replace(/^\s*\/\/.*$/gm, ''); // comments may talk about Node
    for (const match of code.matchAll(/['"`]node:[\w/]+/g)) problems.push(`${where}: names ${match[0].slice(1)}`);
    for (const pattern of IMPORTS) {
      for (const [, specifier] of code.matchAll(pattern)) {
        if (specifier.startsWith('./') || specifier.startsWith('../')) {
          queue.push(new URL(specifier, file));
        } else if (allowed.has(specifier)) {
          continue;
        } else if (BUILTINS.has(specifier.replace(/^node:/, '').split('/')[0])) {
          problems.push(`${where}: imports the Node built-in ${specifier}`);
        } else {
          problems.push(`${where}: imports ${specifier}, which is not a relative path (bare or #import)`);
        }
      }
    }
  }
  return { problems, files: seen.size };
}

const entries = ['.', './io', './inline', './elements', './model', './model/cache'].filter(
  (name) => pkg.exports[name] !== undefined,
);
// attention-wasm/model alone may import the package's dependencies (@huggingface/tokenizers): a bundler resolves
// them, and a page that imports the package from a CDN maps them with an import map (cdn/pages.mjs).
const ALLOWED = { './model': new Set(Object.keys(pkg.dependencies ?? {})) };

for (const name of entries) {
  test(`the browser entry ${name} reaches no Node built-in, bare specifier or #import`, () => {
    const target = browserTarget(pkg.exports[name]);
    assert.ok(target, `exports["${name}"] has no browser (default) target`);
    const { problems, files } = walk(target, ALLOWED[name]);
    assert.deepEqual(problems, [], `from ${target} (${files} files)`);
    assert.ok(files >= 1);
  });
}

test('the Node entry is the `node` condition of ".", and the browser entry stays src/js/index.js', () => {
  assert.equal(pkg.exports['.'].default, './src/js/index.js');
  assert.match(pkg.exports['.'].node ?? '', /node/);
});
