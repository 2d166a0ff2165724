// Builds the documentation into the static site next to the page: every page of scripts/docs/pages.mjs rendered
// from Markdown (marked) to web/dist/docs/*.html, its pictures copied, and the API reference generated from the
// package's .d.ts files by TypeDoc into web/dist/docs/api/. Run by scripts/build.sh after the page's Vite build.
//   node scripts/docs/build.mjs [--no-api]   (--no-api skips TypeDoc, for a quick look at the pages)
// A relative link or picture that points at no page or file of the site fails the build, naming it.
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join, posix } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { Marked } from 'marked';
import { API_ENTRIES, PAGES, sitePath, slug } from './pages.mjs';

const repo = fileURLToPath(new URL('../..', import.meta.url));
const site = join(repo, 'web/dist');
const problems = [];

const escapeHtml = (s) => s.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]);
/** A heading's or link's tokens as plain text (what GitHub makes its anchor from). */
const plain = (tokens) => tokens.map((t) => (t.tokens ? plain(t.tokens) : (t.text ?? t.raw))).join('');

/**
 * Where a relative link of `source` points on the site, relative to the page that holds it; files copied to the
 * site are added to `assets`. Links to other sites and to anchors of the same page stay as they are.
 */
function siteHref(href, source, assets) {
  if (/^[a-z]+:/i.test(href) || href.startsWith('#')) return href;
  const [path, hash = ''] = href.split('#');
  const target = posix.normalize(posix.join(posix.dirname(source), path));
  let onSite = sitePath(target);
  if (!onSite && target.startsWith('docs/api/')) onSite = target;
  if (!onSite) {
    problems.push(`${source}: the link ${href} points at ${target}, which is not on the site`);
    return href;
  }
  if (/\.(png|svg|jpe?g)$/.test(target)) assets.add(target);
  const from = posix.dirname(sitePath(source));
  return posix.relative(from, onSite) + (hash ? `#${hash}` : '');
}

function renderPage({ source, title }, assets) {
  const seen = new Map();
  const marked = new Marked({
    gfm: true,
    renderer: {
      heading({ tokens, depth }) {
        return `<h${depth} id="${escapeHtml(slug(plain(tokens), seen))}">${this.parser.parseInline(tokens)}</h${depth}>\n`;
      },
      link({ href, title: linkTitle, tokens }) {
        const t = linkTitle ? ` title="${escapeHtml(linkTitle)}"` : '';
        return `<a href="${escapeHtml(siteHref(href, source, assets))}"${t}>${this.parser.parseInline(tokens)}</a>`;
      },
      image({ href, text }) {
        return `<img src="${escapeHtml(siteHref(href, source, assets))}" alt="${escapeHtml(text)}">`;
      },
    },
  });
  const body = marked.parse(readFileSync(join(repo, source), 'utf8'));
  const here = sitePath(source);
  const nav = [...PAGES, { source: 'docs/api/index.html', title: 'API reference' }]
    .map((page) => {
      const target = sitePath(page.source) ?? page.source;
      const current = page.source === source ? ' aria-current="page"' : '';
      return `<li><a href="${posix.relative(posix.dirname(here), target)}"${current}>${escapeHtml(page.title)}</a></li>`;
    })
    .join('');
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'self'">
<title>${escapeHtml(title)} · attention-wasm</title>
<link rel="stylesheet" href="site.css">
</head>
<body>
<nav aria-label="Documentation"><a class="home" href="../index.html">attention-wasm: the demo page</a><ul>${nav}</ul></nav>
<main>
${body}</main>
</body>
</html>
`;
}

mkdirSync(join(site, 'docs'), { recursive: true });
const assets = new Set();
for (const page of PAGES) writeFileSync(join(site, sitePath(page.source)), renderPage(page, assets));
for (const asset of assets) copyFileSync(join(repo, asset), join(site, asset));
copyFileSync(join(repo, 'scripts/docs/site.css'), join(site, 'docs/site.css'));
if (problems.length) {
  console.error(problems.join('\n'));
  process.exit(1);
}

if (!process.argv.includes('--no-api')) {
  // --treatWarningsAsErrors with validation.notDocumented: an export without a doc comment fails the build.
  execFileSync(
    'npx',
    [
      'typedoc',
      ...API_ENTRIES.flatMap((entry) => ['--entryPoints', entry]),
      '--out',
      join(site, 'docs/api'),
      '--name',
      'attention-wasm API reference',
      // The reference's first page: the entries and links to the guides (../guide.html, …: pages of this site, which
      // TypeDoc cannot see, so its check of relative paths is off; tests/readme/docs.test.mjs checks them on the site).
      '--readme',
      join(repo, 'scripts/docs/api-overview.md'),
      '--validation.invalidPath',
      'false',
      '--disableSources', // no links into a repository: the site is read where no remote may exist (a fresh clone)
      '--validation.notDocumented',
      '--treatWarningsAsErrors',
      '--logLevel',
      'Warn',
    ],
    { cwd: repo, stdio: 'inherit' },
  );
}
console.log(
  `docs: ${PAGES.length} pages${process.argv.includes('--no-api') ? '' : ' and the API reference'} in ${dirname(join(site, 'docs/x'))}`,
);
