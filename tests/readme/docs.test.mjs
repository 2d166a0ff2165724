// The documentation: every ```js example of every page (README.md and docs/*.md, as scripts/docs/pages.mjs lists
// them) runs as printed, importing the package by its name, and each line it prints equals the example's
// `// prints:` comment, in order; every relative link and picture points at a file that exists and every #anchor
// at a heading of its page (GitHub's anchors); and the built site (web/dist/docs, made by scripts/build.sh) holds
// every page, with each link resolving there too, and the API reference.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join, posix } from 'node:path';
import { fileURLToPath } from 'node:url';
import { PAGES, sitePath, slug } from '../../scripts/docs/pages.mjs';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const read = (path) => readFileSync(join(repo, path), 'utf8');
const site = join(repo, 'web/dist');

test('every Markdown page of docs/ is in the site’s list, and the README is short', () => {
  const listed = new Set(PAGES.map((p) => p.source));
  const onDisk = readdirSync(join(repo, 'docs')).filter((f) => f.endsWith('.md'));
  assert.deepEqual(
    onDisk.filter((f) => !listed.has(`docs/${f}`)),
    [],
  );
  const lines = read('README.md').split('\n').length;
  assert.ok(lines <= 250, `README.md has ${lines} lines; the front door keeps to 250`);
});

test('no page describes a past state', () => {
  const past = /\b(no longer|used to|before this change|now (?:is|are|has|have|gives)|was added|were added)\b/i;
  for (const { source } of PAGES.filter((p) => p.source !== 'CHANGELOG.md')) {
    const hits = read(source)
      .split('\n')
      .map((line, i) => [i + 1, line])
      .filter(([, line]) => past.test(line));
    assert.deepEqual(
      hits.map(([n, line]) => `${source}:${n}: ${line.trim()}`),
      [],
    );
  }
});

/** Headings of a Markdown text, as GitHub makes their anchors (code spans, links and emphasis as plain text). */
function anchors(markdown) {
  const seen = new Map();
  const out = new Set();
  const text = markdown.replace(/```[\s\S]*?```/g, '');
  for (const [, heading] of text.matchAll(/^#{1,6} +(.+?) *#*$/gm)) {
    const plainText = heading
      .replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1')
      .replace(/`([^`]*)`/g, '$1')
      .replace(/[*_]{1,2}([^*_]+)[*_]{1,2}/g, '$1');
    out.add(slug(plainText, seen));
  }
  return out;
}

/** The relative links and pictures of a Markdown text (not inside code), as written. */
function links(markdown) {
  const text = markdown.replace(/```[\s\S]*?```/g, '').replace(/`[^`\n]*`/g, '');
  return [...text.matchAll(/!?\[[^\]]*\]\(([^)\s]+)(?: "[^"]*")?\)/g)]
    .map((m) => m[1])
    .filter((href) => !/^[a-z]+:/i.test(href));
}

for (const { source } of PAGES) {
  const markdown = read(source);
  const examples = [...markdown.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);

  examples.forEach((code, n) => {
    const expected = [...code.matchAll(/\/\/ prints: (.*)$/gm)].map((m) => m[1].trim());
    test(`${source} example ${n + 1} prints what it says (${expected.length} lines)`, () => {
      assert.ok(expected.length > 0, 'an example with nothing to check');
      // Inside the repo, so that `import … from 'attention-wasm'` resolves to this package by its own name.
      const dir = mkdtempSync(join(repo, 'build', 'readme-'));
      try {
        const file = join(dir, 'example.mjs');
        writeFileSync(file, code);
        const printed = execFileSync('node', [file], { encoding: 'utf8' })
          .trimEnd()
          .split('\n')
          .map((l) => l.trim());
        assert.deepEqual(printed, expected);
      } finally {
        rmSync(dir, { recursive: true, force: true });
      }
    });
  });

  test(`${source}: every relative link and picture resolves, anchors included`, () => {
    const broken = [];
    for (const href of links(markdown)) {
      const [path, hash] = href.split('#');
      const target = path ? posix.normalize(posix.join(posix.dirname(source), path)) : source;
      if (target.startsWith('docs/api/')) continue; // generated: checked on the built site below
      if (!existsSync(join(repo, target))) broken.push(`${href}: no file ${target}`);
      else if (hash && target.endsWith('.md') && !anchors(read(target)).has(hash)) {
        broken.push(`${href}: no heading #${hash} in ${target}`);
      }
    }
    assert.deepEqual(broken, []);
  });

  test(`${source} on the built site: the page exists and its links resolve there`, () => {
    const page = join(site, sitePath(source));
    assert.ok(existsSync(page), `${page} is missing: run bash scripts/build.sh`);
    const html = readFileSync(page, 'utf8');
    const broken = [];
    for (const [, attr] of html.matchAll(/(?:href|src)="([^"]+)"/g)) {
      if (/^[a-z]+:/i.test(attr)) continue;
      const [path, hash] = attr.replace(/&amp;/g, '&').split('#');
      const target = path ? posix.normalize(posix.join(posix.dirname(sitePath(source)), path)) : sitePath(source);
      const file = join(site, target);
      if (!existsSync(file)) broken.push(`${attr}: no ${target} on the site`);
      else if (hash && target.endsWith('.html') && !readFileSync(file, 'utf8').includes(`id="${hash}"`)) {
        broken.push(`${attr}: no id="${hash}" in ${target}`);
      }
    }
    assert.deepEqual(broken, []);
  });
}

test('the site has the API reference, the page links to the docs, and the docs link back', () => {
  const api = readFileSync(join(site, 'docs/api/index.html'), 'utf8');
  const pages = readdirSync(join(site, 'docs/api'), { recursive: true }).map(String);
  for (const name of ['createAttention', 'readSafetensors', 'AttentionError', 'loadModel']) {
    assert.ok(
      pages.some((page) => page.endsWith(`.${name}.html`)),
      `${name} has no page in the API reference`,
    );
  }
  assert.match(api, /attention-wasm/);
  assert.match(readFileSync(join(site, 'index.html'), 'utf8'), /href="\.\/docs\/(index\.html)?"/);
  assert.match(readFileSync(join(site, 'docs/index.html'), 'utf8'), /href="\.\.\/index\.html"/);
});
