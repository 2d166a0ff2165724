// An instrument's figure laid out as shapes (elements/instruments/instrumentLayout.js) and written as SVG text
// (elements/pictureDraw.js's svgText): pure, so measured here with a fixed width per character. One rect per number,
// in the colours given; every label (tokens are the reader's text) escaped, never markup.
import { describe, expect, it } from 'vitest';
import { instrumentLayout } from '../../../../web/src/elements/instruments/instrumentLayout.js';
import { escapeXml, svgText } from '../../../../web/src/elements/pictureDraw.js';

const measure = (text, font) => Array.from(text).length * 0.6 * Number(/(\d+)px/u.exec(font)[1]);
const HOSTILE = '</text><script>alert(1)</script>';

const figure = {
  title: `Loss of “${HOSTILE}”`,
  lines: ['a line & more', ''],
  panels: [
    {
      type: 'grid',
      heading: 'Heads',
      rowLabels: ['L0', 'L1'],
      columns: ['H0', 'H1', 'H2'],
      cells: [
        [
          { text: '0.10', fill: 'rgb(1, 2, 3)', light: true },
          { text: '0.20', fill: 'rgb(4, 5, 6)' },
          { text: '…', fill: null },
        ],
        [
          { text: 'a<b', sub: '0.5', fill: 'rgb(7, 8, 9)' },
          { text: '"q"', fill: 'rgb(10, 11, 12)' },
          { text: "it's", fill: 'rgb(13, 14, 15)' },
        ],
      ],
    },
    { type: 'line', heading: 'p', values: [0, 0.5, 1], labels: ['embeddings', `${HOSTILE}`, 'after L1'] },
  ],
  legend: { low: '0', high: '1', what: 'p', stops: ['#000000', '#ffffff'] },
  caption: HOSTILE,
};

describe('instrumentLayout and svgText', () => {
  it('draws one cell per number, in the colours given (not computed: grey), with its text', () => {
    const { shapes, width, height } = instrumentLayout(figure, measure);
    const cells = shapes.filter((s) => s.cell);
    expect(cells.map((c) => c.fill)).toEqual([
      'rgb(1, 2, 3)',
      'rgb(4, 5, 6)',
      '#eaeef2',
      'rgb(7, 8, 9)',
      'rgb(10, 11, 12)',
      'rgb(13, 14, 15)',
    ]);
    // Row by row, left to right, the same size, inside the picture.
    expect(cells[1].x).toBeGreaterThan(cells[0].x);
    expect(cells[3].y).toBeGreaterThan(cells[0].y);
    expect(cells[3].x).toBe(cells[0].x);
    for (const c of cells) expect(c.x + c.w <= width && c.y + c.h <= height).toBe(true);
    const texts = shapes.filter((s) => s.type === 'text').map((s) => s.text);
    expect(texts).toEqual(expect.arrayContaining(['0.10', 'a<b', '0.5', '"q"', 'L0', 'L1', 'H2', 'Heads']));
    // Light text on a dark cell.
    expect(shapes.find((s) => s.text === '0.10').fill).toBe('#ffffff');
    expect(shapes.find((s) => s.text === '0.20').fill).toBe('#111111');
    // The line: one point per value, 1 higher than 0.
    const [polyline] = shapes.filter((s) => s.type === 'polyline');
    expect(polyline.points).toHaveLength(3);
    expect(polyline.points[2][1]).toBeLessThan(polyline.points[0][1]);
    expect(shapes.filter((s) => s.type === 'circle')).toHaveLength(3);
  });

  it('writes SVG text whose cells are class="aw-cell", every label escaped', () => {
    const text = svgText(instrumentLayout(figure, measure));
    expect(text.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(text.match(/<rect [^>]*class="aw-cell"/gu)).toHaveLength(6);
    expect(text).not.toContain('<script');
    expect(text).not.toContain('</text><script');
    expect(text).toContain('&lt;/text&gt;&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(text).toContain('>a&lt;b<');
    expect(text).toContain('>&quot;q&quot;<');
    expect(text).toContain('>a line &amp; more<');
    // Every element is closed: as many openings as closings and self-closed tags.
    const opened = text.match(/<[a-zA-Z][^>]*[^/]>/gu).length;
    expect(text.match(/<\/[a-zA-Z]+>/gu)).toHaveLength(opened);
  });

  it('escapes what XML needs escaped, in text and in attributes', () => {
    expect(escapeXml(`<a href="x" title='y'>&</a>`)).toBe(
      '&lt;a href=&quot;x&quot; title=&apos;y&apos;&gt;&amp;&lt;/a&gt;',
    );
    const text = svgText({
      width: 10,
      height: 10,
      shapes: [{ type: 'rect', x: 0, y: 0, w: 1, h: 1, fill: '"><script>' }],
    });
    expect(text).toContain('fill="&quot;&gt;&lt;script&gt;"');
  });

  it('cuts a long row label to fit, with an ellipsis', () => {
    const long = { ...figure, panels: [{ ...figure.panels[0], rowLabels: ['x'.repeat(200), 'L1'] }] };
    const label = instrumentLayout(long, measure).shapes.find((s) => s.type === 'text' && s.text.startsWith('xx'));
    expect(label.text.endsWith('…')).toBe(true);
    expect(measure(label.text, '400 11px x')).toBeLessThanOrEqual(220);
  });
});
