// The documentation's pages, in the order the site's navigation lists them, and the rules that map a Markdown
// source to its place on the static site (web/dist/docs/). One list: scripts/docs/build.mjs renders it, and
// tests/readme/docs.test.mjs runs its examples and checks its links.

/** Each page: its Markdown source (repository-relative) and its title in the navigation. */
export const PAGES = [
  { source: 'README.md', title: 'Overview' },
  { source: 'docs/guide.md', title: 'Guide' },
  { source: 'docs/install.md', title: 'Install and load' },
  { source: 'docs/io.md', title: 'Reading files' },
  { source: 'docs/model.md', title: 'Real models' },
  { source: 'docs/pytorch.md', title: 'Beside PyTorch' },
  { source: 'docs/elements.md', title: 'Elements for tutorials' },
  { source: 'docs/page.md', title: 'The demo page' },
  { source: 'docs/benchmarks.md', title: 'Benchmarks' },
  { source: 'docs/reliability.md', title: 'Reliability' },
  { source: 'docs/contributing.md', title: 'Contributing' },
  { source: 'CHANGELOG.md', title: 'Changes' },
];

/** The entry points whose .d.ts files TypeDoc turns into the API reference (docs/api/ on the site). */
export const API_ENTRIES = [
  'src/js/index.d.ts',
  'src/js/io/index.d.ts',
  'src/js/model/index.d.ts',
  'src/js/model/cache.d.ts',
  'web/src/elements/index.d.ts',
];

/** Where the site puts a repository file: README.md → docs/index.html, CHANGELOG.md → docs/changelog.html, docs/x.md → docs/x.html, docs/x.png → docs/x.png. */
export function sitePath(source) {
  if (source === 'README.md') return 'docs/index.html';
  if (source === 'CHANGELOG.md') return 'docs/changelog.html';
  if (source.startsWith('docs/')) return source.replace(/\.md$/, '.html');
  return null;
}

/**
 * GitHub's anchor for a heading: its text in lower case, without punctuation (letters, digits, `_`, `-` and
 * spaces stay), each space a `-`; the second heading of the same text gets `-1`, the third `-2`.
 * @param {string} text the heading as plain text (no Markdown)
 * @param {Map<string, number>} seen the anchors already given in this page
 */
export function slug(text, seen) {
  const base = text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\p{M}\s_-]/gu, '')
    .replace(/ /g, '-');
  const count = seen.get(base) ?? 0;
  seen.set(base, count + 1);
  return count ? `${base}-${count}` : base;
}
