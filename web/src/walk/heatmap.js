// Attention weights drawn on a canvas with viridis, a legend, and a labelled PNG export.
import { cssColor, viridis, weightColor } from '../shared/colors.js';
import { formatValue, wrapText } from '../shared/format.js';
import { shortLabel } from '../shared/tokens.js';
import { drawPainted, paintCells } from './canvasMatrix.js';
import { CellReader } from './cellReader.js';
import { CPU_CANVAS, el } from '../shared/dom.js';
import { drawn, isPrinting, scheduleDraw, watchSize, watchVisibility } from './renderScheduler.js';
import { hideTooltip, showTooltip } from './tooltip.js';

const FONT = 'system-ui, -apple-system, "Segoe UI", Roboto, sans-serif';

function hatch(ctx, x, y, w, h) {
  ctx.fillStyle = '#d9d9d9';
  ctx.fillRect(x, y, w, h);
  ctx.save();
  ctx.beginPath();
  ctx.rect(x, y, w, h);
  ctx.clip();
  ctx.strokeStyle = '#9a9a9a';
  ctx.lineWidth = Math.max(1, w / 12);
  const step = Math.max(4, w / 3);
  ctx.beginPath();
  for (let d = -h; d < w; d += step) {
    ctx.moveTo(x + d, y + h);
    ctx.lineTo(x + d + h, y);
  }
  ctx.stroke();
  ctx.restore();
}

/** Draws the cells of a [rows, cols] weights matrix into a box; blocked(i, j) cells are hatched grey. */
function drawCells(ctx, { data, rows, cols, blocked }, x0, y0, width, height, { values = false, precision = 2 } = {}) {
  const cw = width / cols;
  const ch = height / rows;
  for (let i = 0; i < rows; i++) {
    for (let j = 0; j < cols; j++) {
      const x = x0 + j * cw;
      const y = y0 + i * ch;
      if (blocked?.(i, j)) {
        hatch(ctx, Math.floor(x), Math.floor(y), Math.ceil(cw), Math.ceil(ch));
        continue;
      }
      const colour = weightColor(data[i * cols + j]);
      ctx.fillStyle = colour.css;
      ctx.fillRect(Math.floor(x), Math.floor(y), Math.ceil(x + cw) - Math.floor(x), Math.ceil(y + ch) - Math.floor(y));
      if (values) {
        ctx.fillStyle = colour.light ? '#fff' : '#111';
        ctx.fillText(formatValue(data[i * cols + j], precision), x + cw / 2, y + ch / 2);
      }
    }
  }
}

export class Heatmap {
  /**
   * @param {{ label: string, labels?: boolean, onHover?: (cell: { i: number, j: number } | null) => void,
   *   describe?: (i: number, j: number, value: number) => string[], readout?: HTMLElement }} options
   *   labels: draw the view's token labels when they fit; describe: a cell's tooltip and readout lines; readout: a
   *   live region shared with other heatmaps (else `readout` is made here, for the owner to place)
   */
  constructor(options) {
    this.options = options;
    this.view = null;
    this.highlight = null;
    this.canvas = el('canvas', { class: 'heatmap-canvas', attrs: { 'aria-label': options.label } });
    this.element = this.canvas;
    // Arrow keys and the pointer read the cells, as on a large matrix's heatmap (cellReader.js).
    this.reader = new CellReader(
      this.canvas,
      {
        size: () => this.view,
        cellAt: (event) => this.#cellAt(event),
        lines: (i, j) => options.describe?.(i, j, this.view.data[i * this.view.cols + j]) ?? [],
        onCell: (cell) => options.onHover?.(cell),
        onShow: () => this.draw(),
      },
      options.readout,
    );
    this.readout = this.reader.readout;
    this.canvas.addEventListener('mousemove', (event) => this.#hover(event));
    this.canvas.addEventListener('mouseleave', hideTooltip);
    this.canvas.addEventListener('blur', () => this.draw());
    this.width = 0;
    this.sizeWatch = watchSize(this.canvas, ({ width }) => {
      this.width = width;
      this.draw();
    });
    // Painted at once when near the screen, else when it comes near or the browser is idle (renderScheduler.js).
    this.visible = false;
    this.painted = null;
    watchVisibility(this);
  }

  /**
   * @param {{ data: ArrayLike<number>, rows: number, cols: number, blocked?: (i: number, j: number) => boolean,
   *   rowLabels?: string[], colLabels?: string[] }} view
   */
  update(view) {
    this.view = view;
    this.canvas.setAttribute(
      'aria-label',
      `${this.options.label}, ${view.rows} by ${view.cols}. Arrow keys read the cells.`,
    );
    this.reader.refresh();
    scheduleDraw(this, view.rows * view.cols);
  }

  /** Paints the last update's cells, if not painted yet. */
  flush() {
    drawn(this);
    if (this.painted === this.view) return;
    this.painted = this.view;
    this.image ??= document.createElement('canvas');
    this.runs = paintCells(this.image, this.view, 'weights');
    this.draw();
  }

  /** Outlines row i (a query) or cell (i, j); null clears. */
  setHighlight(highlight) {
    this.highlight = highlight;
    this.draw();
  }

  /**
   * Where the cells go on the canvas (device pixels): room for token labels when they fit, as wide as the widest
   * label needs, from a fifth of the heatmap to a third of it.
   */
  #layout(size, ratio) {
    const { rows, cols, rowLabels, colLabels } = this.view;
    const css = size / ratio;
    const n = Math.max(rows, cols);
    if (!(this.options.labels && rowLabels && colLabels && css / n >= 9)) {
      return { x0: 0, y0: 0, cell: Math.min(size / cols, size / rows), font: 0 };
    }
    const font = Math.max(9, Math.min(12, ((css * 0.8) / n) * 0.55));
    const widest = this.#widest(font);
    const margin = Math.round(Math.min(64, css / 3, Math.max(css / 5, widest + 8)) * ratio);
    const cell = Math.min((size - margin) / cols, (size - margin) / rows);
    return { x0: margin, y0: margin, cell, font: font * ratio };
  }

  /** The widest token label in CSS pixels at this font size (measured once per view and size). */
  #widest(font) {
    const key = `${font}`;
    if (this.measured?.view === this.view && this.measured.key === key) return this.measured.width;
    const ctx = this.canvas.getContext('2d', CPU_CANVAS);
    ctx.font = `${font}px ${FONT}`;
    const width = Math.max(...[...this.view.rowLabels, ...this.view.colLabels].map((l) => ctx.measureText(l).width));
    this.measured = { view: this.view, key, width };
    return width;
  }

  draw() {
    // Made for a print (a lesson drawn in `beforeprint`), it cannot wait for its first size report.
    if (this.width === 0 && isPrinting()) this.width = this.canvas.clientWidth;
    if (!this.view || this.width === 0 || this.painted !== this.view) return;
    const ratio = window.devicePixelRatio || 1;
    const size = Math.round(this.width * ratio);
    if (this.canvas.width !== size || this.canvas.height !== size) {
      this.canvas.width = size;
      this.canvas.height = size;
    }
    const ctx = this.canvas.getContext('2d', CPU_CANVAS);
    ctx.clearRect(0, 0, size, size);
    const { x0, y0, cell, font } = this.#layout(size, ratio);
    const { rows, cols } = this.view;
    drawPainted(ctx, this.image, this.runs, x0, y0, cell * cols, cell * rows);
    if (font) {
      ctx.font = `${font}px ${FONT}`;
      ctx.fillStyle = '#1b1f24';
      ctx.textBaseline = 'middle';
      ctx.textAlign = 'right';
      const room = x0 - 4 * ratio;
      this.view.rowLabels.forEach((label, i) =>
        ctx.fillText(fit(ctx, label, room), x0 - 4 * ratio, y0 + (i + 0.5) * cell),
      );
      ctx.textAlign = 'left';
      this.view.colLabels.forEach((label, j) => {
        ctx.save();
        ctx.translate(x0 + (j + 0.5) * cell, y0 - 4 * ratio);
        ctx.rotate(-Math.PI / 2);
        ctx.fillText(fit(ctx, label, room), 0, 0);
        ctx.restore();
      });
    }
    // The cell read by the keyboard while the heatmap has the focus, else what the steps point at.
    const h = (document.activeElement === this.canvas && this.reader.shown) || this.highlight;
    if (h && h.i < rows && (h.j === undefined || h.j === null || h.j < cols)) {
      ctx.lineWidth = Math.max(2, ratio * 2);
      ctx.strokeStyle = '#ff2d95';
      if (h.j === undefined || h.j === null) ctx.strokeRect(x0 + 1, y0 + h.i * cell + 1, cell * cols - 2, cell - 2);
      else ctx.strokeRect(x0 + h.j * cell + 1, y0 + h.i * cell + 1, cell - 2, cell - 2);
    }
  }

  /** The cell under the pointer, or null. */
  #cellAt(event) {
    if (!this.view || this.width === 0) return null;
    const ratio = window.devicePixelRatio || 1;
    const { x0, y0, cell } = this.#layout(Math.round(this.width * ratio), ratio);
    const box = this.canvas.getBoundingClientRect();
    const scale = (this.width * ratio) / box.width;
    const j = Math.floor(((event.clientX - box.left) * scale - x0) / cell);
    const i = Math.floor(((event.clientY - box.top) * scale - y0) / cell);
    return i < 0 || j < 0 || i >= this.view.rows || j >= this.view.cols ? null : { i, j };
  }

  /** The pointed cell's tooltip (the reader writes its readout); off the cells, none. */
  #hover(event) {
    const cell = this.#cellAt(event);
    if (!cell) {
      hideTooltip();
      this.options.onHover?.(null);
      return;
    }
    const { i, j } = cell;
    if (this.options.describe)
      showTooltip(this.options.describe(i, j, this.view.data[i * this.view.cols + j]), {
        x: event.clientX,
        y: event.clientY,
      });
  }
}

/** The label, cut with an ellipsis to fit `room` pixels. */
function fit(ctx, label, room) {
  if (ctx.measureText(label).width <= room) return label;
  const chars = Array.from(label);
  while (chars.length > 1 && ctx.measureText(`${chars.join('')}…`).width > room) chars.pop();
  return `${chars.join('')}…`;
}

/** A horizontal colour bar for weights from 0 to 1. */
export function weightsLegend(caption = 'attention weight') {
  const bar = el('canvas', { class: 'legend-bar', width: 256, height: 12, attrs: { 'aria-hidden': 'true' } });
  const ctx = bar.getContext('2d', CPU_CANVAS);
  for (let x = 0; x < 256; x++) {
    ctx.fillStyle = weightColor(x / 255).css;
    ctx.fillRect(x, 0, 1, 12);
  }
  const swatch = el('span', { class: 'legend-blocked', attrs: { 'aria-hidden': 'true' } });
  return el(
    'div',
    {
      class: 'legend',
      attrs: {
        role: 'img',
        'aria-label': `Colour scale: ${caption} from 0 (dark purple) to 1 (yellow); grey stripes are masked`,
      },
    },
    el('div', { class: 'legend-caption', text: caption }),
    bar,
    el(
      'div',
      { class: 'legend-ticks' },
      el('span', { text: '0' }),
      el('span', { text: '0.5' }),
      el('span', { text: '1' }),
    ),
    el('div', { class: 'legend-masked' }, swatch, 'masked (not allowed)'),
  );
}

/**
 * A labelled picture of a weights matrix: title, token labels on both axes, values in the cells when they
 * fit, and a legend.
 * @param {{ data: ArrayLike<number>, rows: number, cols: number, blocked?: (i: number, j: number) => boolean,
 *   rowLabels: string[], colLabels: string[], title: string, precision: number }} view
 * @returns {HTMLCanvasElement}
 */
export function heatmapPicture(view) {
  const cell = Math.max(12, Math.min(64, Math.floor(640 / Math.max(view.rows, view.cols))));
  const labelWidth = 96;
  const left = 16 + labelWidth;
  // At least wide enough for the subtitle; the title wraps onto as many lines as it needs, never cut.
  const width = Math.max(left + cell * view.cols + 24, 420);
  const canvas = document.createElement('canvas');
  const ctx = canvas.getContext('2d', CPU_CANVAS);
  const titleFont = `600 18px ${FONT}`;
  ctx.font = titleFont;
  const titleLines = wrapText(view.title, width - 32, (text) => ctx.measureText(text).width);
  const header = 24 * titleLines.length;
  const top = 40 + header + labelWidth;
  canvas.width = width;
  canvas.height = top + cell * view.rows + 70;
  ctx.fillStyle = '#fff';
  ctx.fillRect(0, 0, width, canvas.height);
  ctx.fillStyle = '#111';
  ctx.font = titleFont;
  ctx.textBaseline = 'top';
  titleLines.forEach((line, k) => ctx.fillText(line, 16, 16 + 24 * k));
  ctx.font = `13px ${FONT}`;
  ctx.fillStyle = '#444';
  ctx.fillText('rows: queries · columns: keys · each row sums to 1', 16, 16 + header);

  ctx.font = `${Math.min(14, cell * 0.6)}px ${FONT}`;
  ctx.fillStyle = '#111';
  ctx.textAlign = 'right';
  ctx.textBaseline = 'middle';
  // Labels cut to fit their 96 px margin, measured in the label font.
  const fit = (label) => {
    let max = 12;
    while (max > 2 && ctx.measureText(shortLabel(label, max)).width > labelWidth - 10) max--;
    return shortLabel(label, max);
  };
  view.rowLabels.forEach((label, i) => ctx.fillText(fit(label), left - 6, top + (i + 0.5) * cell));
  view.colLabels.forEach((label, j) => {
    ctx.save();
    ctx.translate(left + (j + 0.5) * cell, top - 6);
    ctx.rotate(-Math.PI / 2);
    ctx.textAlign = 'left';
    ctx.fillText(fit(label), 0, 0);
    ctx.restore();
  });

  const showValues = cell >= 40;
  ctx.textAlign = 'center';
  ctx.font = `${Math.round(cell * 0.28)}px ${FONT}`;
  drawCells(ctx, view, left, top, cell * view.cols, cell * view.rows, {
    values: showValues,
    precision: Math.min(view.precision, 2),
  });

  const legendY = top + cell * view.rows + 20;
  const legendWidth = Math.min(240, width - left - 24);
  for (let x = 0; x < legendWidth; x++) {
    ctx.fillStyle = cssColor(viridis(x / (legendWidth - 1)));
    ctx.fillRect(left + x, legendY, 1, 12);
  }
  ctx.fillStyle = '#111';
  ctx.font = `12px ${FONT}`;
  ctx.textBaseline = 'top';
  ctx.textAlign = 'left';
  ctx.fillText('0', left, legendY + 16);
  ctx.textAlign = 'right';
  ctx.fillText('1', left + legendWidth, legendY + 16);
  ctx.textAlign = 'center';
  ctx.fillText('attention weight', left + legendWidth / 2, legendY + 16);
  return canvas;
}

/** Saves a canvas as a PNG file through a download link. */
export function downloadCanvas(canvas, fileName) {
  canvas.toBlob((blob) => {
    if (!blob) return;
    const url = URL.createObjectURL(blob);
    const link = el('a', { href: url, download: fileName });
    document.body.append(link);
    link.click();
    link.remove();
    setTimeout(() => URL.revokeObjectURL(url), 1000);
  }, 'image/png');
}
