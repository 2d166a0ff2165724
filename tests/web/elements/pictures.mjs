// The figure as a picture: the `export` buttons download an SVG or a PNG, and toSVG() / toPNG() give them to a
// script. The SVG is built from the numbers (one rect per cell, in the figure's colours), and no text of the author's
// or reader's becomes markup in it.
import assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import { test } from 'node:test';
import { ARTIFACTS, add, assertClean, env, message, open, shadowTexts } from './env.mjs';

const HOSTILE = '</text><script>window.__pwned=1</script><foreignObject><img src=x onerror="window.__pwned=2">';

/** The SVG text parsed in the page: what it holds, by element name, and its texts. */
const readSvg = (page, text) =>
  page.evaluate((svg) => {
    const doc = new DOMParser().parseFromString(svg, 'image/svg+xml');
    const root = doc.documentElement;
    const count = (name) => root.getElementsByTagName(name).length;
    return {
      root: root.localName,
      error: count('parsererror'),
      rects: Array.from(root.querySelectorAll(':scope > rect'), (r) => r.getAttribute('fill')),
      lines: count('line'),
      texts: Array.from(root.getElementsByTagName('text'), (t) => t.textContent),
      unsafe: count('script') + count('foreignObject') + count('img') + count('iframe'),
      handlers: Array.from(root.querySelectorAll('*')).filter((n) => n.getAttributeNames().some((a) => /^on/i.test(a)))
        .length,
    };
  }, text);

test('export: Download SVG / PNG buttons; toSVG() draws the cells from the numbers, with labels, highlight and caption', async () => {
  const session = await open();
  const { page } = session;
  try {
    await add(page, 'x', 'attention-heatmap', {
      sentence: 'the cat sat',
      causal: '',
      highlight: 'sat → cat',
      caption: `Figure 2 ${HOSTILE}`,
      export: '',
    });
    const buttons = await shadowTexts(page, 'x', '[part="export"] button');
    assert.deepEqual(buttons, ['Download SVG', 'Download PNG']);
    const svg = await page.evaluate(() => document.getElementById('x').toSVG());
    writeFileSync(`${ARTIFACTS}/elements-export.svg`, svg);
    const read = await readSvg(page, svg);
    const weights = await page.evaluate(() => document.getElementById('x').result.weights.toArray()[0]);
    const colours = await page.evaluate(
      (rows) =>
        import('/web/src/shared/colors.js').then(({ weightColor }) =>
          rows.flat().map((v, k) => (k % 3 > Math.floor(k / 3) ? 'url(#aw-hatch)' : weightColor(v).css)),
        ),
      weights,
    );
    assert.equal(read.root, 'svg');
    assert.equal(read.error, 0);
    // The background, the 9 cells in order (the 3 masked ones hatched), the colour bar.
    assert.deepEqual(read.rects.slice(1, 10), colours);
    assert.equal(read.lines, 4, 'one cell outlined');
    const bare = (text) => text.replace(/\s/gu, '');
    assert.ok(bare(read.texts.join('')).includes(bare(`Figure 2 ${HOSTILE}`)), 'the caption, as text (wrapped)');
    for (const label of ['the', 'cat', 'sat']) assert.equal(read.texts.filter((t) => t === label).length, 2, label);
    assert.equal(read.unsafe, 0);
    assert.equal(read.handlers, 0);
    assert.ok(!svg.includes('<script') && !svg.includes('<img'), 'the caption is escaped');

    // The buttons download the files.
    const [svgFile] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('#x').getByRole('button', { name: 'Download SVG' }).click(),
    ]);
    assert.equal(svgFile.suggestedFilename(), 'attention-heatmap.svg');
    assert.equal(readFileSync(await svgFile.path(), 'utf8'), svg);
    const [pngFile] = await Promise.all([
      page.waitForEvent('download'),
      page.locator('#x').getByRole('button', { name: 'Download PNG' }).click(),
    ]);
    assert.equal(pngFile.suggestedFilename(), 'attention-heatmap.png');
    const png = readFileSync(await pngFile.path());
    assert.deepEqual([...png.subarray(1, 4)], [0x50, 0x4e, 0x47], 'a PNG file');
    assert.equal(await page.evaluate(() => window.__pwned ?? null), null);
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('export: toPNG(scale) draws the same figure on a canvas; the explorer exports its weights heatmap', async () => {
  const session = await open();
  const { page } = session;
  try {
    await add(page, 'p', 'attention-explorer', { sentence: 'a b c d', heads: '2', head: '1', steps: 'scores' });
    const made = await page.evaluate(async () => {
      const e = document.getElementById('p');
      const svg = await e.toSVG();
      const size = (scale) =>
        e.toPNG(scale).then(async (blob) => {
          const image = await createImageBitmap(blob);
          return { type: blob.type, width: image.width, height: image.height };
        });
      return { svg, one: await size(1), two: await size(2) };
    });
    const svgSize = /width="(\d+)" height="(\d+)"/.exec(made.svg).slice(1).map(Number);
    assert.deepEqual(made.one, { type: 'image/png', width: svgSize[0], height: svgSize[1] });
    assert.deepEqual(made.two, { type: 'image/png', width: 2 * svgSize[0], height: 2 * svgSize[1] });
    const read = await readSvg(page, made.svg);
    assert.ok(read.texts.includes('Attention weights, head 1 of 2'), read.texts.join(' | '));
    assert.equal(read.rects.length, 1 + 16 + 1);
    const png = await page.evaluate(async () => {
      const blob = await document.getElementById('p').toPNG(1);
      return Array.from(new Uint8Array(await blob.arrayBuffer()));
    });
    writeFileSync(`${ARTIFACTS}/elements-export.png`, Buffer.from(png));
    await assertClean(session);
  } finally {
    await session.context.close();
  }
});

test('export: a bad value is named; a picture asked for before the figure is ready is refused, not thrown', async () => {
  const session = await open();
  const { page } = session;
  try {
    await add(page, 'b', 'attention-heatmap', { sentence: 'a b', export: 'gif svg' });
    assert.match(await message(page, 'b'), /export: "gif" is not one of svg, png/);
    assert.deepEqual(await shadowTexts(page, 'b', '[part="export"] button'), ['Download SVG']);
    await add(page, 'off', 'attention-heatmap', { sentence: 'a b', export: 'false' });
    assert.equal(
      await page.evaluate(() => document.getElementById('off').shadowRoot.querySelector('[part="export"]').hidden),
      true,
    );
    // The element far below the fold has not computed: its methods reject with a sentence.
    const early = await page.evaluate(() =>
      document
        .getElementById('far')
        .toSVG()
        .then(
          () => 'made',
          (error) => error.message,
        ),
    );
    assert.equal(early, '<attention-heatmap> has no figure yet (its status is pending)');
    await assertClean(session);
  } finally {
    await session.context.close();
  }
  assert.ok(env.server.requests.some((path) => path.endsWith('/elements/figure.js')));
});
