// The documentation: every relative link and picture of every page (README.md and docs/*.md, as
// scripts/docs/pages.mjs lists them) points at a file that exists and every #anchor at a heading of its page (GitHub's
// anchors); and the built site (web/dist/docs, made by scripts/build.sh) holds every page, with each link resolving
// there too, and the API reference, whose first page links to the guides. The examples run in examples.test.mjs.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
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

/** The links and pictures of a page of the built site (its path there) that point at nothing on the site. */
function brokenOnSite(here) {
  const html = readFileSync(join(site, here), 'utf8');
  const broken = [];
  for (const [, attr] of html.matchAll(/(?:href|src)="([^"]+)"/g)) {
    if (/^[a-z]+:/i.test(attr)) continue;
    const [path, hash] = attr.replace(/&amp;/g, '&').split('#');
    const target = path ? posix.normalize(posix.join(posix.dirname(here), path)) : here;
    const file = join(site, target);
    if (!existsSync(file)) broken.push(`${attr}: no ${target} on the site`);
    else if (hash && target.endsWith('.html') && !readFileSync(file, 'utf8').includes(`id="${hash}"`)) {
      broken.push(`${attr}: no id="${hash}" in ${target}`);
    }
  }
  return broken;
}

for (const { source } of PAGES) {
  const markdown = read(source);

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
    assert.deepEqual(brokenOnSite(sitePath(source)), []);
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

test('the API reference opens on an overview that links to the guides, and holds examples', () => {
  const links = [...readFileSync(join(site, 'docs/api/index.html'), 'utf8').matchAll(/href="\.\.\/([a-z]+)\.html/g)];
  const guides = new Set(links.map((m) => `docs/${m[1]}.md`));
  for (const source of ['docs/guide.md', 'docs/install.md', 'docs/io.md', 'docs/model.md', 'docs/elements.md'])
    assert.ok(guides.has(source), `the API reference's first page does not link to ${source}`);
  assert.deepEqual(brokenOnSite('docs/api/index.html'), []);
  for (const page of ['functions/attention-wasm_model.loadModel.html', 'classes/attention-wasm_model.Model.html'])
    assert.match(readFileSync(join(site, 'docs/api', page), 'utf8'), /<h4[^>]*>Example/, `${page} has no example`);
  assert.ok(existsSync(join(site, 'docs/api/variables/attention-wasm_model.BUILTIN_MODEL.html')));
});

test("the API reference lists run's plain form first, and describes every result field", () => {
  const text = (page) =>
    readFileSync(join(site, 'docs/api', page), 'utf8')
      .replace(/<[^>]+>/g, ' ')
      .replace(/&[a-z]+;|&#\d+;/g, ' ')
      .replace(/\s+/g, ' ');
  const model = text('classes/attention-wasm_model.Model.html');
  const signatures = [...model.matchAll(/run \( input : [^)]*? options \??: ([A-Za-z]+)/g)].map((m) => m[1]);
  assert.deepEqual(signatures.slice(0, 2), ['DefaultRunOptions', 'RunOptions']);
  assert.ok(model.indexOf('from : RunFrom') > model.indexOf('DefaultRunOptions'));
  // Every field of the result types: its shape and what it is (more than a bare shape such as "[heads, n, n]").
  for (const page of [
    'interfaces/attention-wasm.SdpaResult.html',
    'interfaces/attention-wasm.SelfAttentionResult.html',
    'interfaces/attention-wasm.MultiHeadResult.html',
    'interfaces/attention-wasm_model.RunResult.html',
    'interfaces/attention-wasm_model.HeadCapture.html',
    'interfaces/attention-wasm_elements.ModelResult.html',
  ]) {
    const html = readFileSync(join(site, 'docs/api', page), 'utf8');
    const members = html.split('<section class="tsd-panel tsd-member').slice(1);
    assert.ok(members.length > 3, page);
    for (const member of members) {
      const name = member.match(/<h3[^>]*>([\s\S]*?)<\/h3>/)?.[1].replace(/<[^>]+>/g, '') ?? '?';
      const comment = member.match(/<div class="tsd-comment tsd-typography">([\s\S]*?)<\/div>/)?.[1] ?? '';
      const words =
        comment
          .replace(/<[^>]+>/g, ' ')
          .replace(/\[[^\]]*\]/g, ' ')
          .match(/[a-z]{3,}/gi) ?? [];
      assert.ok(words.length > 0, `${page}: ${name.trim()} is not described (${comment.trim() || 'no comment'})`);
    }
  }
});

test('the pages tell an installed package’s user what the package has', () => {
  const pkg = JSON.parse(read('package.json'));
  const install = read('docs/install.md');
  assert.doesNotMatch(install, /the package has no dependencies/);
  for (const name of Object.keys(pkg.dependencies ?? {})) assert.ok(install.includes(name), `install.md names ${name}`);
  // The model card is shipped: each file it lists is in the package, or said to be in the repository only.
  const card = 'web/public/models/induction/README.md';
  assert.ok(pkg.files.includes(card));
  for (const [, name, what] of read(card).matchAll(/^\| `([^`]+)` \|[^|]*\|(.*)\|$/gm)) {
    const shipped = pkg.files.includes(`web/public/models/induction/${name}`);
    assert.ok(shipped || /in the repository only/.test(what), `${card} lists ${name}, which the package does not ship`);
  }
  assert.doesNotMatch(read('docs/model.md'), /^## Not yet/m);
  assert.doesNotMatch(read('docs/io.md'), /tests\/readme/);
});
