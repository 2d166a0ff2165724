// A small SVG line chart, built with createElementNS (no markup strings).
import { svg } from '../../shared/dom.js';

const WIDTH = 360;
const HEIGHT = 230;
const PAD = { left: 46, right: 14, top: 14, bottom: 42 };

/**
 * @param {object} spec
 * @param {string} spec.label            for screen readers
 * @param {number[]} spec.xs             positive x values (drawn on a log2 axis)
 * @param {{ name: string, values: number[], cls: string }[]} spec.series
 * @param {string} spec.xLabel
 * @param {string} spec.yLabel
 * @param {'log2' | 'linear'} spec.yScale
 * @param {[number, number]} spec.yRange
 * @param {number[]} spec.yTicks
 * @param {{ x: number, text: string }} [spec.marker]  a vertical line, e.g. the current d_k
 * @param {{ y: number, text: string }} [spec.guide]   a horizontal dashed line
 * @returns {SVGSVGElement}
 */
export function lineChart({ label, xs, series, xLabel, yLabel, yScale, yRange, yTicks, marker, guide }) {
  const plotW = WIDTH - PAD.left - PAD.right;
  const plotH = HEIGHT - PAD.top - PAD.bottom;
  const lx = (x) => Math.log2(x);
  const x0 = lx(xs[0]);
  const x1 = lx(xs[xs.length - 1]);
  const fy = yScale === 'log2' ? (y) => Math.log2(Math.max(y, 1e-9)) : (y) => y;
  const [y0, y1] = yRange.map(fy);
  const px = (x) => PAD.left + ((lx(x) - x0) / (x1 - x0)) * plotW;
  const py = (y) => PAD.top + (1 - (Math.min(Math.max(fy(y), y0), y1) - y0) / (y1 - y0)) * plotH;
  const chart = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, class: 'chart', role: 'img', 'aria-label': label });

  for (const y of yTicks) {
    chart.append(svg('line', { x1: PAD.left, x2: WIDTH - PAD.right, y1: py(y), y2: py(y), class: 'chart-grid' }));
    chart.append(svg('text', { x: PAD.left - 6, y: py(y) + 4, class: 'chart-tick', 'text-anchor': 'end' }, String(y)));
  }
  for (const x of xs) {
    chart.append(
      svg('text', { x: px(x), y: HEIGHT - PAD.bottom + 16, class: 'chart-tick', 'text-anchor': 'middle' }, String(x)),
    );
  }
  chart.append(
    svg('line', {
      x1: PAD.left,
      x2: WIDTH - PAD.right,
      y1: HEIGHT - PAD.bottom,
      y2: HEIGHT - PAD.bottom,
      class: 'chart-axis',
    }),
  );
  chart.append(svg('line', { x1: PAD.left, x2: PAD.left, y1: PAD.top, y2: HEIGHT - PAD.bottom, class: 'chart-axis' }));
  chart.append(
    svg('text', { x: PAD.left + plotW / 2, y: HEIGHT - 6, class: 'chart-label', 'text-anchor': 'middle' }, xLabel),
  );
  chart.append(
    svg(
      'text',
      {
        x: 12,
        y: PAD.top + plotH / 2,
        class: 'chart-label',
        'text-anchor': 'middle',
        transform: `rotate(-90 12 ${PAD.top + plotH / 2})`,
      },
      yLabel,
    ),
  );

  if (guide) {
    chart.append(
      svg('line', { x1: PAD.left, x2: WIDTH - PAD.right, y1: py(guide.y), y2: py(guide.y), class: 'chart-guide' }),
    );
    chart.append(
      svg(
        'text',
        { x: WIDTH - PAD.right - 2, y: py(guide.y) - 4, class: 'chart-note', 'text-anchor': 'end' },
        guide.text,
      ),
    );
  }
  if (marker && marker.x >= xs[0] && marker.x <= xs[xs.length - 1]) {
    chart.append(
      svg('line', { x1: px(marker.x), x2: px(marker.x), y1: PAD.top, y2: HEIGHT - PAD.bottom, class: 'chart-marker' }),
    );
    chart.append(svg('text', { x: px(marker.x) + 4, y: PAD.top + 10, class: 'chart-note' }, marker.text));
  }
  for (const { name, values, cls } of series) {
    const points = xs.map((x, i) => `${px(x).toFixed(1)},${py(values[i]).toFixed(1)}`).join(' ');
    const group = svg('g', { class: `chart-series ${cls}` }, svg('title', {}, name));
    group.append(svg('polyline', { points, fill: 'none' }));
    xs.forEach((x, i) => group.append(svg('circle', { cx: px(x), cy: py(values[i]), r: 3.2 })));
    chart.append(group);
  }
  return chart;
}
