// A matrix drawn as an ARIA grid with token labels, coloured cells and one active cell (one tab stop).
// A grid has at most ZOOM (16) rows and columns, a few hundred cells, all of them in the DOM; larger matrices are
// drawn as heatmaps (largeMatrix.js). Editing, copying, pointer and keys live in files of their own.
import { formatValue } from '../shared/format.js';
import { shortLabel } from '../shared/tokens.js';
import { cancelEditor, commitEditor } from './cellEditor.js';
import { resizePool, setText } from './cellPool.js';
import { colorFor } from './canvasMatrix.js';
import { CopyMenu } from './copyMenu.js';
import { el } from '../shared/dom.js';
import { listenToPointerAndKeys } from './gridInput.js';
import { drawn, sameView, scheduleDraw, watchVisibility } from './renderScheduler.js';
import { digitWidth, labelWidth } from './textMeasure.js';
import { hideTooltip } from './tooltip.js';
import { showLarge } from './largeMatrix.js';

const CELL_H = 26;
let gridCount = 0;

export class MatrixGrid {
  /**
   * @param {object} options
   * @param {string} options.name        a stable id, also `data-matrix` on the element
   * @param {string} options.title       e.g. "Q"
   * @param {string} [options.note]      a short line under the title
   * @param {'none' | 'signed' | 'weights'} [options.color]
   * @param {boolean} [options.editable] cells can be typed into
   * @param {(i: number, j: number, text: string) => string | null} [options.onEdit]  returns an error or null
   * @param {(i: number, j: number) => void} [options.onActivate]  click, Enter or Space on a cell
   * @param {(cell: { i: number, j: number } | null) => void} [options.onHover]
   * @param {(i: number, j: number, value: number) => string[]} [options.describe]  tooltip lines
   * @param {(i: number, j: number, value: number) => { text: string, cls?: string }} [options.render]
   * @param {(i: number, j: number) => boolean} [options.masked]  cells drawn hatched (weights that a mask set to 0)
   */
  constructor(options) {
    this.options = { color: 'none', ...options };
    this.id = `grid${++gridCount}`;
    this.rows = 0;
    this.cols = 0;
    this.values = new Float32Array(0);
    this.raw = null;
    this.rowLabels = [];
    this.colLabels = [];
    this.invalid = new Map();
    this.active = { i: 0, j: 0 };
    this.editor = null;
    this.highlighted = null;
    this.rowWeights = null;
    this.maxAbs = 0;
    this.cellW = 60;
    this.rowHeadW = 48;
    this.window = { r0: 0, c0: 0, rows: 0, cols: 0 };
    this.pool = { rows: [], heads: [], colHeads: [] };
    this.visible = false;
    this.pending = null;
    this.offset = { i: 0, j: 0 };
    this.large = null;

    this.titleNode = el('span', { class: 'matrix-title', text: options.title });
    this.shapeNode = el('span', { class: 'matrix-shape' });
    this.copyMenu = new CopyMenu(() => {
      this.flush();
      return { title: this.options.title, rows: this.raw ?? this.rowsShown() };
    });
    this.noteNode = el('span', { class: 'matrix-note', text: options.note ?? '' });

    this.corner = el('span', { class: 'corner', attrs: { role: 'columnheader' } });
    this.colWindow = el('div', { class: 'gwin-cols' });
    this.colArea = el('div', { class: 'garea-cols' }, this.colWindow);
    this.headWindow = el('div', { class: 'gwin-heads' });
    this.headArea = el('div', { class: 'rhcol', attrs: { 'aria-hidden': 'true' } }, this.headWindow);
    this.cellWindow = el('div', { class: 'gwin' });
    this.cellArea = el('div', { class: 'gcells' }, this.cellWindow);
    const header = el('div', { class: 'gh', attrs: { role: 'row', 'aria-rowindex': '1' } }, this.corner, this.colArea);
    const body = el('div', { class: 'gbody' }, this.headArea, this.cellArea);
    this.scroller = el('div', { class: 'matrix-scroll grid', tabIndex: 0, attrs: { role: 'grid' } }, header, body);
    this.errorNode = el('p', { class: 'inline-error', attrs: { role: 'alert' } });
    this.errorNode.hidden = true;
    const heading = el('span', { class: 'matrix-heading' }, this.titleNode, ' ', this.shapeNode);
    const caption = el('figcaption', {}, heading, this.copyMenu.element);
    const parts = [caption, this.noteNode, this.scroller, this.errorNode, this.copyMenu.fallback];
    this.element = el('figure', { class: 'matrix', dataset: { matrix: options.name } }, ...parts);
    this.copyMenu.setTitle(options.title);

    watchVisibility(this);
    this.scroller.addEventListener('scroll', () => this.#scrolled(), { passive: true });
    listenToPointerAndKeys(this);
  }

  /** A scroll commits an open edit and hides the tooltip. */
  #scrolled() {
    if (this.editor) commitEditor(this, false);
    hideTooltip();
  }

  /** Changes the title (e.g. when the head changes) and optionally the note. */
  setTitle(title, note) {
    if (title !== this.options.title) {
      this.titleNode.textContent = title;
      this.options.title = title;
      this.copyMenu.setTitle(title);
    }
    if (note !== undefined && this.noteNode.textContent !== note) this.noteNode.textContent = note;
  }

  /**
   * Shows new values. Large matrices far from the screen are drawn later (when visible, or when idle).
   * @param {object} view
   * @param {ArrayLike<number>} view.data        [rows, cols] row-major
   * @param {number} view.rows
   * @param {number} view.cols
   * @param {string[]} view.rowLabels
   * @param {string[]} view.colLabels
   * @param {number} view.precision
   * @param {number[][]} [view.raw]          the exact numbers behind an editable matrix
   * @param {string} [view.shapeText]        e.g. "[5, 4]"
   * @param {number} [view.colorScale]       the magnitude of the strongest colour, when not the largest value
   */
  update(view) {
    if (sameView(view, this.pending ?? this.shownView)) return;
    this.pending = view;
    scheduleDraw(this, view.rows * view.cols);
  }

  /** Draws the values given to the last update(), if not drawn yet. */
  flush() {
    drawn(this);
    const view = this.pending;
    if (!view) return;
    this.pending = null;
    this.#apply(view);
  }

  #apply(view) {
    const { data, rows, cols, rowLabels, colLabels, precision, raw = null, shapeText, colorScale = 0 } = view;
    this.shownView = view;
    if (this.editor) cancelEditor(this, false);
    if (rows !== this.rows || cols !== this.cols) {
      this.invalid.clear();
      this.#showError(null);
      this.active = { i: 0, j: 0 };
      this.highlighted = null;
      this.rowWeights = null;
    }
    this.rows = rows;
    this.cols = cols;
    this.values = data;
    this.raw = raw;
    this.precision = precision;
    this.rowLabels = rowLabels.map(String);
    this.colLabels = colLabels.map(String);
    const shape = shapeText ?? `[${rows}, ${cols}]`;
    if (this.shapeNode.textContent !== shape) this.shapeNode.textContent = shape;
    this.scroller.setAttribute('aria-label', `${this.options.title}, ${rows} by ${cols}`);
    this.scroller.setAttribute('aria-rowcount', String(rows + 1));
    this.scroller.setAttribute('aria-colcount', String(cols + 1));

    let min = Infinity;
    let max = -Infinity;
    let maxAbs = 0;
    let negInf = false;
    for (let k = 0; k < rows * cols; k++) {
      const v = data[k];
      if (v === -Infinity) negInf = true;
      else if (Number.isFinite(v)) {
        if (v < min) min = v;
        if (v > max) max = v;
        if (Math.abs(v) > maxAbs) maxAbs = Math.abs(v);
      }
    }
    this.maxAbs = Math.max(maxAbs, colorScale);
    if (showLarge(this)) return;
    let chars = this.options.render ? 3 : 2;
    if (!this.options.render && min <= max) {
      chars = Math.max(formatValue(min, precision).length, formatValue(max, precision).length, negInf ? 2 : 0);
    }
    for (const text of this.invalid.values()) chars = Math.max(chars, Math.min(text.length, 14));
    chars = Math.max(chars, 4);
    const headerW = Math.min(90, labelWidth(this.colLabels.map((l) => shortLabel(l, 8))));
    this.cellW = Math.ceil(Math.max(chars * digitWidth(), headerW)) + 14;
    this.#sizeHeads();
    this.renderWindow();
  }

  #sizeHeads() {
    const extra = this.rowWeights ? 52 : 0;
    this.rowHeadW = Math.max(36, Math.min(110, labelWidth(this.rowLabels.map((l) => shortLabel(l))) + 14)) + extra;
    this.scroller.style.setProperty('--cell-w', `${this.cellW}px`);
    this.scroller.style.setProperty('--row-head-w', `${this.rowHeadW}px`);
    this.scroller.style.setProperty('--natural-w', String(this.rowHeadW + this.cols * this.cellW + 2)); // print.css
    this.colArea.style.width = `${this.cols * this.cellW}px`;
    this.cellArea.style.width = `${this.cols * this.cellW}px`;
    this.cellArea.style.height = `${this.rows * CELL_H}px`;
    this.headArea.style.height = `${this.rows * CELL_H}px`;
  }

  /**
   * The rows and columns to draw: all of them. A grid has at most ZOOM rows and columns (larger matrices are drawn as
   * heatmaps), a few hundred cells: a printed page, a narrow screen or a scrolled box then never misses one.
   */
  #windowFor() {
    return { r0: 0, c0: 0, rows: this.rows, cols: this.cols };
  }

  /** Draws the cells from the current values. */
  renderWindow() {
    if (!this.rows || this.scroller.hidden) return;
    const win = this.#windowFor();
    this.window = win;
    resizePool(this, win.rows, win.cols);
    this.cellWindow.style.top = `${win.r0 * CELL_H}px`;
    this.cellWindow.style.left = `${win.c0 * this.cellW}px`;
    this.headWindow.style.top = `${win.r0 * CELL_H}px`;
    this.colWindow.style.left = `${win.c0 * this.cellW}px`;
    for (let b = 0; b < win.cols; b++) {
      const j = win.c0 + b;
      const node = this.pool.colHeads[b];
      const full = this.colLabels[j] ?? String(j);
      setText(node, shortLabel(full, 8));
      node.setAttribute('aria-colindex', String(j + 2));
      if (node.title !== full) node.title = full;
    }
    for (let a = 0; a < win.rows; a++) {
      const i = win.r0 + a;
      const row = this.pool.rows[a];
      const head = this.pool.heads[a];
      const label = this.rowLabels[i] ?? String(i);
      setText(head, shortLabel(label));
      if (head.title !== label) head.title = label;
      setText(row.firstChild, label);
      row.setAttribute('aria-rowindex', String(i + 2));
      const lit = i === this.highlighted;
      row.classList.toggle('hl-row', lit);
      head.classList.toggle('hl-row', lit);
      if (this.rowWeights) {
        const w = this.rowWeights[i];
        row.style.setProperty('--w', String(Math.max(0, w / (this.rowWeightMax || 1))));
        head.dataset.weight = `×${formatValue(w, 2)}`;
      } else if (head.dataset.weight !== undefined) {
        row.style.removeProperty('--w');
        delete head.dataset.weight;
      }
      for (let b = 0; b < win.cols; b++) this.#bind(row.children[b + 1], i, win.c0 + b);
    }
    this.scroller.classList.toggle('weighted', Boolean(this.rowWeights));
    this.#markActive();
  }

  #bind(node, i, j) {
    const k = i * this.cols + j;
    const value = this.values[k];
    const invalidText = this.invalid.get(k);
    let text;
    let cls = 'c';
    if (invalidText !== undefined) {
      text = invalidText;
      cls = 'c invalid';
    } else if (this.options.render) {
      const rendered = this.options.render(i, j, value);
      text = rendered.text;
      if (rendered.cls) cls = `c ${rendered.cls}`;
    } else {
      text = formatValue(value, this.precision);
      if (value === -Infinity) cls = 'c neg-inf';
      else if (this.options.masked?.(i, j)) cls = 'c masked';
    }
    if (i === this.active.i && j === this.active.j) cls += ' active';
    setText(node, text);
    if (node.className !== cls) node.className = cls;
    const colour = cls === 'c' || cls === 'c active' ? colorFor(this.options.color, value, this.maxAbs) : null;
    if (node.colour !== colour) {
      node.style.backgroundColor = colour ? colour.css : '';
      node.style.color = colour?.light ? '#fff' : '';
      node.colour = colour;
    }
    // A zoomed block's cells carry the whole matrix's row and column (gridInput takes the offset back off).
    const di = String(i + this.offset.i);
    const dj = String(j + this.offset.j);
    if (node.dataset.i !== di) node.dataset.i = di;
    if (node.dataset.j !== dj) node.dataset.j = dj;
    node.setAttribute('aria-colindex', String(j + 2));
  }

  /** The DOM node showing cell (i, j), when it is in the drawn window. */
  nodeAt(i, j) {
    const { r0, c0, rows, cols } = this.window;
    if (i < r0 || i >= r0 + rows || j < c0 || j >= c0 + cols) return null;
    return this.pool.rows[i - r0].children[j - c0 + 1];
  }

  #markActive() {
    const activeId = `${this.id}-active`;
    const old = document.getElementById(activeId);
    const node = this.nodeAt(this.active.i, this.active.j);
    if (old && old !== node) old.removeAttribute('id');
    if (node) {
      node.id = activeId;
      this.scroller.setAttribute('aria-activedescendant', activeId);
    } else {
      this.scroller.removeAttribute('aria-activedescendant');
    }
  }

  /** How many rows PageUp and PageDown move. */
  pageRows() {
    return Math.max(1, Math.floor(this.scroller.clientHeight / CELL_H) - 2);
  }

  /** Scrolls so that cell (i, j) is in view, and marks it active. */
  reveal(i, j) {
    const s = this.scroller;
    const top = i * CELL_H;
    const viewH = s.clientHeight - CELL_H;
    if (top < s.scrollTop) s.scrollTop = top;
    else if (top + CELL_H > s.scrollTop + viewH) s.scrollTop = top + CELL_H - viewH;
    const left = j * this.cellW;
    const viewW = s.clientWidth - this.rowHeadW;
    if (left < s.scrollLeft) s.scrollLeft = left;
    else if (left + this.cellW > s.scrollLeft + viewW) s.scrollLeft = left + this.cellW - viewW;
    this.renderWindow();
  }

  /** Forgets invalid typed text, e.g. after the matrix was replaced by a paste. */
  clearInvalid() {
    // Nothing to forget, nothing to draw: a new seed clears every grid, most of them away from the screen.
    if (this.invalid.size === 0 && this.errorNode.hidden) return;
    this.invalid.clear();
    this.#showError(null);
    if (this.rows) this.renderWindow();
  }

  /** Keeps refused text in cell k with its message (error), or clears it (error null). */
  setCellError(k, text, error) {
    if (error) {
      this.invalid.set(k, text);
      this.#showError(error);
    } else {
      this.invalid.delete(k);
      if (this.invalid.size === 0) this.#showError(null);
    }
  }

  #showError(message) {
    this.errorNode.textContent = message ?? '';
    this.errorNode.hidden = !message;
  }

  /** Marks row i (or none) as highlighted. */
  highlightRow(i) {
    if (this.highlighted === i) return;
    this.highlighted = i;
    if (this.scroller.hidden) return this.large?.canvas.highlightRow(i);
    const { r0 } = this.window;
    this.pool.rows.forEach((row, a) => {
      row.classList.toggle('hl-row', r0 + a === i);
      this.pool.heads[a].classList.toggle('hl-row', r0 + a === i);
    });
  }

  /**
   * Fades each row by its weight relative to the largest (how much it contributes), and shows "×w" beside
   * the row label; null clears.
   */
  emphasizeRows(weights) {
    if (!weights && !this.rowWeights) return;
    this.rowWeights = weights ? Array.from(weights) : null;
    this.rowWeightMax = weights ? Math.max(...weights) : 1;
    if (!this.rows) return;
    this.#sizeHeads();
    this.renderWindow();
  }

  /** The values shown, as rows. */
  rowsShown() {
    return Array.from({ length: this.rows }, (_, i) =>
      Array.from({ length: this.cols }, (_, j) => this.values[i * this.cols + j]),
    );
  }
}
