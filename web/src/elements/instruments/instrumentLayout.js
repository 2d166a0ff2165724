// An instrument's figure (instrumentPicture.js reads it off the view drawn) laid out as shapes for pictureDraw.js:
// its title and lines of text, then each panel (a grid of coloured cells with its row and column labels, or the
// lens's line), the colour scale and the caption. Pure: text widths come from `measure`, so a test lays it out
// without a browser; labels are kept as text (pictureDraw.js escapes them).
import { wrapText } from '../../shared/format.js';
import { shortLabel } from '../../shared/tokens.js';

const PAD = 16;
const MUTED = '#57606a';
const PENDING = '#eaeef2';
const ACCENT = '#0969da';
const [CELL_TEXT, SUB_TEXT, LABEL] = [11, 9, 11];
const font = (size, weight = 400) => `${weight} ${size}px system-ui, sans-serif`;

/**
 * @typedef {{ text: string, sub?: string, fill: string | null, light?: boolean }} PictureCell  fill null: not
 *   computed (drawn grey)
 * @typedef {{ type: 'grid', heading: string, rowLabels: string[], columns: string[], cells: PictureCell[][] }
 *   | { type: 'line', heading: string, values: number[], labels: string[] }} Panel
 * @typedef {{ title: string, lines: string[], panels: Panel[], caption: string,
 *   legend: { low: string, high: string, what: string, stops: string[] } | null }} InstrumentFigure
 */

/** `label` cut with an ellipsis to fit `room` px. */
function fit(label, size, room, measure) {
  let max = Array.from(label).length;
  while (max > 1 && measure(shortLabel(label, max), font(size)) > room) max--;
  return shortLabel(label, max);
}

/** A grid panel's sizes: its cells', its row labels' and its column labels' (rotated when they do not fit across). */
function gridSize(panel, measure) {
  const texts = panel.cells.flat().map((c) => measure(c.text, font(CELL_TEXT)));
  const sub = panel.cells.flat().some((c) => c.sub);
  const w = Math.round(Math.max(30, Math.min(72, Math.max(0, ...texts) + 10)));
  const h = sub ? 30 : 22;
  const rowLabels = Math.ceil(Math.min(220, Math.max(0, ...panel.rowLabels.map((l) => measure(l, font(LABEL)))))) + 8;
  const widest = Math.max(0, ...panel.columns.map((l) => measure(l, font(LABEL))));
  const rotate = widest > w - 4;
  const columns = rotate ? Math.ceil(Math.min(90, widest)) + 8 : 18;
  return { w, h, rowLabels, columns, rotate, width: rowLabels + w * panel.columns.length };
}

const LINE = { width: 360, height: 140, left: 34, bottom: 34 };

/**
 * The shapes of an instrument's figure, in CSS pixels (rects with `cell` are its grids' cells, one per number).
 * @param {InstrumentFigure} figure
 * @param {(text: string, font: string) => number} measure  a text's width in px
 * @returns {{ width: number, height: number, shapes: object[] }}
 */
export function instrumentLayout(figure, measure) {
  const sizes = figure.panels.map((p) => (p.type === 'grid' ? gridSize(p, measure) : { width: LINE.width }));
  const legendWidth = figure.legend ? 170 + measure(figure.legend.what, font(11)) : 0;
  const width = Math.ceil(Math.max(360, legendWidth, ...sizes.map((s) => s.width)) + 2 * PAD);
  const room = width - 2 * PAD;
  const shapes = [];
  const text = (x, y, value, size, extra = {}) => shapes.push({ type: 'text', x, y, text: value, size, ...extra });
  const wrapped = (value, size, extra, step) => {
    for (const line of wrapText(value, room, (t) => measure(t, font(size, extra.weight)))) {
      text(PAD, y + size / 2 + 2, line, size, extra);
      y += step;
    }
  };
  let y = PAD;
  wrapped(figure.title, 16, { weight: 600 }, 22);
  for (const line of figure.lines) if (line) wrapped(line, 12, { fill: MUTED }, 17);
  figure.panels.forEach((panel, k) => {
    y += 8;
    if (panel.heading) wrapped(panel.heading, 13, { weight: 600 }, 19);
    y = panel.type === 'grid' ? grid(panel, sizes[k], y, text, shapes, measure) : line(panel, y, text, shapes);
  });
  if (figure.legend) {
    const { low, high, what, stops } = figure.legend;
    y += 10;
    shapes.push({ type: 'gradient', x: PAD, y, w: 160, h: 10, stops });
    text(PAD, y + 22, low, 11, { fill: MUTED });
    text(PAD + 160, y + 22, high, 11, { fill: MUTED, anchor: 'end' });
    text(PAD + 170, y + 5, what, 11, { fill: MUTED });
    y += 32;
  }
  if (figure.caption) {
    y += 6;
    wrapped(figure.caption, 13, {}, 18);
  }
  return { width, height: Math.ceil(y + PAD), shapes };
}

/** A grid panel's labels and cells from `top`; returns the y under it. */
function grid(panel, size, top, text, shapes, measure) {
  const { w, h, rowLabels, columns, rotate } = size;
  const left = PAD + rowLabels;
  const y0 = top + columns;
  panel.columns.forEach((label, j) => {
    const x = left + (j + 0.5) * w;
    if (rotate) text(x, y0 - 6, fit(label, LABEL, columns - 8, measure), LABEL, { rotate: true, fill: MUTED });
    else text(x, y0 - 9, label, LABEL, { anchor: 'middle', fill: MUTED });
  });
  panel.rowLabels.forEach((label, i) =>
    text(left - 6, y0 + (i + 0.5) * h, fit(label, LABEL, rowLabels - 8, measure), LABEL, {
      anchor: 'end',
      fill: MUTED,
    }),
  );
  panel.cells.forEach((row, i) =>
    row.forEach((cell, j) => {
      const [x, y] = [left + j * w, y0 + i * h];
      shapes.push({ type: 'rect', x: x + 0.5, y: y + 0.5, w: w - 1, h: h - 1, fill: cell.fill ?? PENDING, cell: true });
      const ink = cell.fill && cell.light ? '#ffffff' : '#111111';
      const middle = cell.sub ? y + h / 2 - 6 : y + h / 2;
      text(x + w / 2, middle, fit(cell.text, CELL_TEXT, w - 6, measure), CELL_TEXT, { anchor: 'middle', fill: ink });
      if (cell.sub) text(x + w / 2, y + h / 2 + 7, cell.sub, SUB_TEXT, { anchor: 'middle', fill: ink });
    }),
  );
  return y0 + panel.cells.length * h;
}

/** The lens's line (each value from 0 to 1, one per label) from `top`, as the view draws it; returns the y under it. */
function line({ values, labels }, top, text, shapes) {
  const { width: w, height: h, left, bottom } = LINE;
  const x = (l) => PAD + left + ((w - left - 12) * l) / Math.max(1, values.length - 1);
  const y = (p) => top + 8 + (h - bottom - 8) * (1 - (Number.isFinite(p) ? p : 0));
  const axis = (p, dash) => ({
    type: 'line',
    line: [PAD + left, y(p), PAD + w - 8, y(p)],
    stroke: MUTED,
    width: 1,
    dash,
  });
  shapes.push(axis(0), axis(1, '3 3'));
  text(PAD + left - 4, y(0), '0', 10, { anchor: 'end', fill: MUTED });
  text(PAD + left - 4, y(1), '1', 10, { anchor: 'end', fill: MUTED });
  shapes.push({ type: 'polyline', points: values.map((p, l) => [x(l), y(p)]), stroke: ACCENT, width: 2 });
  values.forEach((p, l) => shapes.push({ type: 'circle', x: x(l), y: y(p), r: 3.5, fill: ACCENT }));
  labels.forEach((label, l) => {
    const anchor = l === 0 ? undefined : l === labels.length - 1 ? 'end' : 'middle';
    text(x(l), top + h - 14, label, 10, { anchor, fill: MUTED });
  });
  return top + h;
}
