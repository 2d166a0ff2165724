// The instruments' figures as pictures (`export`, toSVG(), toPNG()): each view's download buttons save an SVG whose
// cells are the view's (one rect each, in the view's colours, with the view's texts) and a PNG; the reader's and
// author's text stays text. The PNGs go to tests/artifacts, to look at.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { ARTIFACTS, add, assertClean, message, open } from './env.mjs';

const SENTENCE = 'the cat saw a red ball near the old tree . the cat saw a red';
const HOSTILE = '</text><script>window.__pwned=1</script><img src=x onerror="window.__pwned=2">';

/** The numbers an element's view shows, read off its DOM: grid cells, parts, scores and tokens' losses. */
const shownCells = (page, id) =>
  page.evaluate((elementId) => {
    const root = document.getElementById(elementId).shadowRoot;
    const read = (css, value) => Array.from(root.querySelectorAll(css), value);
    return {
      grids: read('.inv-grid td.inv-cell', (td) => td.style.background),
      parts: read('.inv-parts td', (td) => td.textContent),
      scores: read('.inv-scores td', (td) => td.textContent),
      loss: read('li.inv-loss-token', (li) => li.querySelector('.inv-loss-value').textContent),
    };
  }, id);

/** The SVG parsed in the page: its cells' fills and texts, its texts, and anything unsafe. */
const readSvg = (page, text) =>
  page.evaluate((svg) => {
    const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
    const root = doc.documentElement;
    const count = (name) => root.getElementsByTagName(name).length;
    return {
      root: root.localName,
      error: count('parsererror'),
      cells: Array.from(root.querySelectorAll('rect.aw-cell'), (r) => r.getAttribute('fill')),
      texts: Array.from(root.getElementsByTagName('text'), (t) => t.textContent),
      lines: count('polyline'),
      unsafe: count('script') + count('foreignObject') + count('img') + count('iframe'),
    };
  }, text);

/** Both buttons clicked: the SVG's text and the PNG's bytes, with the files' names. */
async function downloads(page, id) {
  const save = async (name) => {
    const [file] = await Promise.all([
      page.waitForEvent('download'),
      page.locator(`#${id}`).getByRole('button', { name }).click(),
    ]);
    return { name: file.suggestedFilename(), bytes: readFileSync(await file.path()) };
  };
  return { svg: await save('Download SVG'), png: await save('Download PNG') };
}

const CASES = [
  ['lens', 'attention-heatmap', { sentence: SENTENCE }, (s) => s.grids.length],
  [
    'attribution',
    'attention-explorer',
    { sentence: SENTENCE, target: 'ball', against: 'tree' },
    (s) => s.grids.length + s.parts.length,
  ],
  ['patching', 'attention-explorer', {}, (s) => s.grids.length],
  ['head-scores', 'attention-heatmap', { sentence: SENTENCE }, (s) => s.scores.length],
  ['loss', 'attention-heatmap', { sentence: 'the cat <b>saw</b> a "red" & ball' }, (s) => s.loss.length],
];

for (const [view, tag, attributes, count] of CASES)
  test(`view="${view}" export: the SVG has the view's ${view} cells and texts, the PNG is drawn`, async () => {
    const session = await open();
    const { page } = session;
    try {
      await add(page, 'x', tag, { view, export: '', caption: `Figure 3 ${HOSTILE}`, ...attributes });
      assert.equal(await message(page, 'x'), '');
      const shown = await shownCells(page, 'x');
      const { svg, png } = await downloads(page, 'x');
      assert.equal(svg.name, `${tag}.svg`);
      assert.equal(png.name, `${tag}.png`);
      const text = svg.bytes.toString('utf8');
      assert.equal(text, await page.evaluate(() => document.getElementById('x').toSVG()), 'the button saves toSVG()');
      const read = await readSvg(page, text);
      assert.equal(read.root, 'svg');
      assert.equal(read.error, 0);
      assert.equal(read.cells.length, count(shown), 'one rect per number shown');
      assert.ok(count(shown) > 0);
      if (view === 'lens' || view === 'patching') {
        // The grids' cells in the view's colours, in order (the browser writes them as rgb()).
        const colour = await page.evaluate((fills) => {
          const probe = document.createElement('div');
          document.body.append(probe);
          const out = fills.map((f) => ((probe.style.background = f), probe.style.background));
          probe.remove();
          return out;
        }, read.cells);
        assert.deepEqual(colour, shown.grids);
      }
      if (view === 'head-scores') for (const value of shown.scores) assert.ok(read.texts.includes(value), value);
      if (view === 'loss') {
        const numbers = read.texts.filter((t) => /^\d+\.\d\d$|^–$/u.test(t));
        assert.deepEqual(numbers.slice(0, shown.loss.length), shown.loss, 'the tokens’ losses (then the scale’s end)');
        // The built-in model reads <, b, > and the quotes as <unk>: a token that is markup, drawn as text.
        assert.ok(read.texts.includes('<unk>'), 'the tokens are text');
      }
      assert.equal(read.lines, view === 'lens' ? 1 : 0, 'the lens draws its line');
      const bare = (t) => t.replace(/\s/gu, '');
      assert.ok(bare(read.texts.join('')).includes(bare(`Figure 3 ${HOSTILE}`)), 'the caption, as text');
      assert.equal(read.unsafe, 0);
      assert.deepEqual([...png.bytes.subarray(1, 4)], [0x50, 0x4e, 0x47], 'a PNG file');
      writeFileSync(`${ARTIFACTS}/elements-export-${view}.png`, png.bytes);
      assert.equal(await page.evaluate(() => window.__pwned ?? null), null);
      await assertClean(session);
    } finally {
      await session.context.close();
    }
  });
