// A matrix too large to read as numbers, drawn as a canvas heatmap: one ImageData pixel per cell, scaled up in
// one drawImage; a readout of the hovered or active cell (value, row and column labels, and the lines of the
// `describe` hook) in a polite live region; arrow keys move the active cell; a click, Enter or Space picks the
// block of at most ZOOM × ZOOM cells around it, whose numbers the owner (MatrixGrid) shows. No ids: the view
// may live in a shadow root.
import { diverging, signedColor, viridis, weightColor } from '../shared/colors.js';
import { formatValue } from '../shared/format.js';
import { CPU_CANVAS, el } from '../shared/dom.js';
import { CellReader } from './cellReader.js';
import { watchSize } from './renderScheduler.js';

/** Matrices with more rows or columns than this are drawn as heatmaps; a zoomed block has at most this many. */
export const ZOOM = 16;

/** The tallest a heatmap is drawn, in CSS pixels: cells get shorter than wide beyond it. */
const MAX_HEIGHT = 480;
/** The widest cell, in CSS pixels. */
const MAX_CELL = 18;

const LEVELS = 256;
// A pixel as one 32-bit word of ImageData's RGBA bytes, in this machine's byte order.
const LITTLE_ENDIAN = new Uint8Array(new Uint32Array([1]).buffer)[0] === 1;
const word = ([r, g, b]) =>
  LITTLE_ENDIAN ? (255 << 24) | (b << 16) | (g << 8) | r : (r << 24) | (g << 16) | (b << 8) | 255;
const pixelTable = (scale) => Uint32Array.from({ length: LEVELS }, (_, k) => word(scale(k / (LEVELS - 1))));
// The same 256 levels as colors.js's tables, as ImageData pixels.
const VIRIDIS_PIXELS = pixelTable(viridis);
const DIVERGING_PIXELS = pixelTable((t) => diverging(2 * t - 1));
const BLOCKED_PIXEL = word([217, 217, 217]);

/** Cell colouring by value: weights use viridis on [0, 1]; signed values a diverging scale. */
export function colorFor(mode, value, maxAbs) {
  if (!Number.isFinite(value)) return null;
  if (mode === 'weights') return weightColor(value);
  if (mode === 'signed') return signedColor(value, maxAbs);
  return null;
}

/** The colour level (0–255) of a value: weights on [0, 1], signed values against the largest magnitude. */
export function colorLevel(mode, value, maxAbs) {
  if (mode === 'weights') return Math.round(Math.min(1, Math.max(0, value)) * (LEVELS - 1));
  const t = maxAbs > 0 ? value / maxAbs : 0;
  return Math.round(((Math.min(1, Math.max(-1, t)) + 1) / 2) * (LEVELS - 1));
}

/** The block of at most ZOOM × ZOOM cells holding cell (i, j): its first row and column and its size. */
export function blockAround(i, j, rows, cols) {
  const r0 = Math.floor(i / ZOOM) * ZOOM;
  const c0 = Math.floor(j / ZOOM) * ZOOM;
  return { r0, c0, rows: Math.min(ZOOM, rows - r0), cols: Math.min(ZOOM, cols - c0) };
}

let hatchPattern = null;
function hatch(ctx) {
  if (!hatchPattern) {
    const tile = document.createElement('canvas');
    tile.width = 8;
    tile.height = 8;
    const t = tile.getContext('2d', CPU_CANVAS);
    t.fillStyle = '#d9d9d9';
    t.fillRect(0, 0, 8, 8);
    t.strokeStyle = '#9a9a9a';
    t.beginPath();
    for (const d of [-8, 0, 8]) {
      t.moveTo(d, 8);
      t.lineTo(d + 8, 0);
    }
    t.stroke();
    hatchPattern = ctx.createPattern(tile, 'repeat');
  }
  return hatchPattern;
}

/**
 * Paints one pixel per cell of a [rows, cols] matrix into `image` (a canvas, resized to cols × rows). Cells that
 * are not finite or that blocked(i, j) names are grey.
 * @returns {number[][]} the runs of blocked cells, [row, first column, end column), for drawPainted's hatching
 */
export function paintCells(image, { data, rows, cols, maxAbs = 0, blocked }, mode) {
  if (image.width !== cols || image.height !== rows) {
    image.width = cols;
    image.height = rows;
  }
  const table = mode === 'weights' ? VIRIDIS_PIXELS : DIVERGING_PIXELS;
  const pixels = new ImageData(cols, rows);
  const px = new Uint32Array(pixels.data.buffer); // a word per cell: GPT-2's four W's are 2.4 million cells
  const runs = [];
  // The colour level as colorLevel gives it, without a call per cell; v − v is 0 for finite numbers only.
  const weights = mode === 'weights';
  const inverse = maxAbs > 0 ? 1 / maxAbs : 0;
  const top = LEVELS - 1;
  for (let i = 0; i < rows; i++) {
    let runStart = -1;
    for (let j = 0, k = i * cols; j < cols; j++, k++) {
      const v = data[k];
      if (v - v !== 0 || (blocked !== undefined && blocked(i, j))) {
        if (runStart < 0) runStart = j;
        px[k] = BLOCKED_PIXEL;
        continue;
      }
      if (runStart >= 0) runs.push([i, runStart, j]);
      runStart = -1;
      const t = weights
        ? v < 0
          ? 0
          : v > 1
            ? 1
            : v
        : ((v * inverse < -1 ? -1 : v * inverse > 1 ? 1 : v * inverse) + 1) / 2;
      px[k] = table[Math.round(t * top)];
    }
    if (runStart >= 0) runs.push([i, runStart, cols]);
  }
  image.getContext('2d', CPU_CANVAS).putImageData(pixels, 0, 0);
  return runs;
}

/** Draws a painted cell image scaled into a box, and hatches the blocked runs when cells are large enough. */
export function drawPainted(ctx, image, runs, x0, y0, width, height) {
  ctx.imageSmoothingEnabled = false;
  ctx.drawImage(image, x0, y0, width, height);
  const sx = width / image.width;
  const sy = height / image.height;
  if (!runs.length || sx < 3 || sy < 3) return;
  ctx.fillStyle = hatch(ctx);
  for (const [i, j0, j1] of runs) ctx.fillRect(x0 + j0 * sx, y0 + i * sy, (j1 - j0) * sx, sy);
}

export class CanvasMatrix {
  /**
   * @param {object} options
   * @param {() => string} options.title       read at each readout
   * @param {'none' | 'signed' | 'weights'} options.color
   * @param {(i: number, j: number, value: number) => string[]} [options.describe]  the readout's extra lines (the
   *   lessons' term-by-term texts plug in here)
   * @param {(i: number, j: number) => boolean} [options.masked]  cells hatched grey
   * @param {(cell: { i: number, j: number } | null) => void} [options.onHover]
   * @param {(block: { r0: number, c0: number, rows: number, cols: number }) => void} options.onZoom
   */
  constructor(options) {
    this.options = options;
    this.view = null;
    this.highlightedRow = null;
    this.block = null;
    this.width = 0;
    this.image = document.createElement('canvas');
    this.canvas = el('canvas', { class: 'cm-canvas' });
    this.reader = new CellReader(this.canvas, {
      size: () => this.view,
      cellAt: (event) => this.#cellAt(event),
      lines: (i, j) => this.readoutLines(i, j),
      onCell: (cell) => this.options.onHover?.(cell),
      onShow: () => this.draw(),
      page: ZOOM,
    });
    this.readout = this.reader.readout;
    this.hint = el('p', {
      class: 'cm-hint',
      text: 'Too many cells to show as numbers: hover or use the arrow keys to read a cell; click or press Enter to see the numbers of its block.',
    });
    this.element = el('div', { class: 'cm' }, this.hint, this.canvas, this.readout);
    this.canvas.addEventListener('click', (event) => this.#click(event));
    this.canvas.addEventListener('keydown', (event) => this.#key(event));
    this.sizeWatch = watchSize(this.element, ({ width }) => {
      if (width === this.width) return;
      this.width = width;
      this.#layout();
      this.draw();
    });
  }

  /**
   * Draws new values.
   * @param {{ data: ArrayLike<number>, rows: number, cols: number, rowLabels: string[], colLabels: string[],
   *   precision: number, maxAbs: number }} view
   */
  update(view) {
    const resized = !this.view || view.rows !== this.view.rows || view.cols !== this.view.cols;
    this.view = view;
    if (resized) {
      this.image.width = view.cols;
      this.image.height = view.rows;
      this.#layout();
    }
    this.canvas.setAttribute(
      'aria-label',
      `${this.options.title()}, ${view.rows} by ${view.cols}, drawn as colours. Arrow keys read the cells; Enter shows the numbers of a block.`,
    );
    this.#paintImage();
    this.draw();
    this.reader.refresh();
  }

  /** Sizes the canvas to its box: square cells up to MAX_CELL, shorter rows when the matrix is tall. */
  #layout() {
    if (!this.view || this.width === 0) return;
    const { rows, cols } = this.view;
    let cellW = Math.min(MAX_CELL, this.width / cols);
    const cellH = Math.min(cellW, MAX_HEIGHT / rows);
    // Square cells unless the matrix is much taller than wide (a [768, 64] weight block keeps its width).
    if (rows <= 2 * cols) cellW = cellH;
    this.cssW = cellW * cols;
    this.cssH = cellH * rows;
    const ratio = window.devicePixelRatio || 1;
    this.canvas.width = Math.round(this.cssW * ratio);
    this.canvas.height = Math.max(1, Math.round(this.cssH * ratio));
    this.canvas.style.width = `${this.cssW}px`;
    this.canvas.style.height = `${this.cssH}px`;
  }

  /** One pixel per cell into the offscreen image. */
  #paintImage() {
    const { data, rows, cols, maxAbs } = this.view;
    this.blockedRuns = paintCells(
      this.image,
      { data, rows, cols, maxAbs, blocked: this.options.masked },
      this.options.color,
    );
  }

  /** Composes the heatmap: the image, hatching of blocked cells, the highlighted row, the block and the active cell. */
  draw() {
    if (!this.view || this.width === 0) return;
    const ctx = this.canvas.getContext('2d', CPU_CANVAS);
    const { rows, cols } = this.view;
    const sx = this.canvas.width / cols;
    const sy = this.canvas.height / rows;
    drawPainted(ctx, this.image, this.blockedRuns, 0, 0, this.canvas.width, this.canvas.height);
    const line = Math.max(1.5, (window.devicePixelRatio || 1) * 1.5);
    ctx.lineWidth = line;
    if (this.highlightedRow !== null && this.highlightedRow < rows) {
      ctx.strokeStyle = '#ff2d95';
      ctx.strokeRect(line / 2, this.highlightedRow * sy, this.canvas.width - line, Math.max(sy, line));
    }
    if (this.block) {
      // White under dark dashes: visible on the darkest and the lightest colours.
      const b = this.block;
      const box = [b.c0 * sx + line / 2, b.r0 * sy + line / 2, b.cols * sx - line, b.rows * sy - line];
      ctx.strokeStyle = '#ffffff';
      ctx.strokeRect(...box);
      ctx.strokeStyle = '#1b1f24';
      ctx.setLineDash([5, 4]);
      ctx.strokeRect(...box);
      ctx.setLineDash([]);
    }
    if (this.reader.shown) {
      ctx.strokeStyle = '#ff2d95';
      const { i, j } = this.reader.shown;
      ctx.strokeRect(j * sx, i * sy, Math.max(sx, line * 2), Math.max(sy, line * 2));
    }
  }

  /** Outlines row i (or none). */
  highlightRow(i) {
    if (this.highlightedRow === i) return;
    this.highlightedRow = i;
    this.draw();
  }

  /** Outlines the zoomed block (or none). */
  setBlock(block) {
    this.block = block;
    this.draw();
  }

  /** The readout's lines for cell (i, j): the matrix, the row and column as labelled on screen, its value, then the
   * describe hook's lines. */
  readoutLines(i, j) {
    const { data, cols, rowLabels, colLabels, precision } = this.view;
    const value = data[i * cols + j];
    const head = `${this.options.title()} · row ${rowLabels[i] ?? i} · column ${colLabels[j] ?? j}: ${formatValue(value, precision)}`;
    return [head, ...(this.options.describe?.(i, j, value) ?? [])];
  }

  #cellAt(event) {
    const box = this.canvas.getBoundingClientRect();
    const { rows, cols } = this.view;
    const j = Math.floor(((event.clientX - box.left) / box.width) * cols);
    const i = Math.floor(((event.clientY - box.top) / box.height) * rows);
    return i >= 0 && j >= 0 && i < rows && j < cols ? { i, j } : null;
  }

  /** A click picks the block of the cell clicked. */
  #click(event) {
    const cell = this.view && this.#cellAt(event);
    if (!cell) return;
    this.reader.active = cell;
    this.reader.show(cell);
    this.#zoom();
  }

  #zoom() {
    const { rows, cols } = this.view;
    this.setBlock(blockAround(this.reader.active.i, this.reader.active.j, rows, cols));
    this.options.onZoom(this.block);
  }

  /** Enter or Space shows the numbers of the active cell's block, Escape hides them (the arrows are the reader's). */
  #key(event) {
    if (!this.view || event.altKey || event.ctrlKey || event.metaKey) return;
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      this.#zoom();
    } else if (event.key === 'Escape' && this.block) {
      event.preventDefault();
      this.setBlock(null);
      this.options.onZoom(null);
    }
  }
}
