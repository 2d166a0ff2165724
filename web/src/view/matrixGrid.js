// A matrix drawn as an ARIA grid with token labels: optional editing, colouring, hover details, keyboard
// navigation (one tab stop, arrow keys move the active cell) and copy buttons.
// Only the cells inside the scrolled window exist in the DOM (at most a few hundred), so a 64×64 matrix
// updates as fast as a small one.
import { cssColor, diverging, prefersLightText, viridis } from '../model/colors.js';
import { EXPORT_FORMATS, exportMatrix, formatValue } from '../model/format.js';
import { shortLabel } from '../model/tokens.js';
import { el } from './dom.js';
import { hideTooltip, showTooltip } from './tooltip.js';

const LEVELS = 256;
const lut = (scale) => Array.from({ length: LEVELS }, (_, k) => {
  const rgb = scale(k / (LEVELS - 1));
  return { bg: cssColor(rgb), light: prefersLightText(rgb) };
});
const VIRIDIS_LUT = lut(viridis);
const DIVERGING_LUT = lut((t) => diverging(2 * t - 1));

/** Cell colouring by value (a precomputed level): weights use viridis on [0, 1]; signed values a diverging scale. */
function colorFor(mode, value, maxAbs) {
  if (!Number.isFinite(value)) return null;
  if (mode === 'weights') return VIRIDIS_LUT[Math.round(Math.min(1, Math.max(0, value)) * (LEVELS - 1))];
  if (mode === 'signed') return DIVERGING_LUT[Math.round(((maxAbs > 0 ? value / maxAbs : 0) + 1) / 2 * (LEVELS - 1))];
  return null;
}

/** Matrices with more cells than this update only when near the screen, or when the browser is idle. */
const LAZY_CELLS = 1024;

const waiting = new Set();
let idleRequest = 0;

function markPending() {
  document.documentElement.dataset.pendingGrids = String(waiting.size);
}

function flushWhenIdle() {
  if (idleRequest || waiting.size === 0) return;
  const request = globalThis.requestIdleCallback ?? ((callback) => setTimeout(() => callback({ timeRemaining: () => 8 }), 30));
  idleRequest = request((deadline) => {
    idleRequest = 0;
    for (const grid of waiting) {
      grid.flush();
      if (deadline.timeRemaining() < 6) break;
    }
    markPending();
    flushWhenIdle();
  }, { timeout: 800 });
}

const visibility = new IntersectionObserver((entries) => {
  for (const entry of entries) {
    const grid = entry.target.matrixGrid;
    grid.visible = entry.isIntersecting;
    if (grid.visible) grid.flush();
  }
  markPending();
}, { rootMargin: '300px 0px' });

const CELL_H = 26;
const OVERSCAN = 2;
let gridCount = 0;
let charWidth = 0;
let labelContext = null;

/** The width of a digit in the grid's monospace font, measured once. */
function digitWidth() {
  if (!charWidth) {
    const probe = el('div', { class: 'grid-probe' }, el('span', { class: 'c', text: '0'.repeat(20) }));
    document.body.append(probe);
    charWidth = probe.firstChild.getBoundingClientRect().width / 20 || 7.5;
    probe.remove();
  }
  return charWidth;
}

const labelWidths = new Map();

/** The widest of the labels in the row-header font, in CSS pixels (no layout involved). */
function labelWidth(labels) {
  const key = labels.join('\u0000');
  if (labelWidths.has(key)) return labelWidths.get(key);
  if (!labelContext) {
    labelContext = document.createElement('canvas').getContext('2d');
    labelContext.font = `600 12px ${getComputedStyle(document.body).fontFamily}`;
  }
  let widest = 0;
  for (const label of labels) widest = Math.max(widest, labelContext.measureText(label).width);
  if (labelWidths.size > 64) labelWidths.clear();
  labelWidths.set(key, Math.ceil(widest));
  return Math.ceil(widest);
}

/**
 * Copies text to the clipboard.
 * @returns {Promise<boolean>} false when the browser refused
 */
async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
    return true;
  } catch {
    return false;
  }
}

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
    this.view = { width: 0, height: 0 };
    this.scroll = { top: 0, left: 0 };
    this.window = { r0: 0, c0: 0, rows: 0, cols: 0 };
    this.pool = { rows: [], heads: [], colHeads: [] };
    this.visible = false;
    this.pending = null;

    this.titleNode = el('span', { class: 'matrix-title', text: options.title });
    this.shapeNode = el('span', { class: 'matrix-shape' });
    this.copyStatus = el('span', { class: 'copy-status', attrs: { 'aria-live': 'polite' } });
    this.copyButtons = Object.entries(EXPORT_FORMATS).map(([format, label]) => el('button', {
      type: 'button',
      class: 'copy-button',
      text: label,
      attrs: { title: `Copy as ${label}` },
      on: { click: () => this.copy(format) },
    }));
    this.noteNode = el('span', { class: 'matrix-note', text: options.note ?? '' });

    this.corner = el('span', { class: 'corner', attrs: { role: 'columnheader' } });
    this.colWindow = el('div', { class: 'gwin-cols' });
    this.colArea = el('div', { class: 'garea-cols' }, this.colWindow);
    this.headWindow = el('div', { class: 'gwin-heads' });
    this.headArea = el('div', { class: 'rhcol', attrs: { 'aria-hidden': 'true' } }, this.headWindow);
    this.cellWindow = el('div', { class: 'gwin' });
    this.cellArea = el('div', { class: 'gcells' }, this.cellWindow);
    this.scroller = el('div', {
      class: 'matrix-scroll grid',
      tabIndex: 0,
      attrs: { role: 'grid' },
    },
    el('div', { class: 'gh', attrs: { role: 'row', 'aria-rowindex': '1' } }, this.corner, this.colArea),
    el('div', { class: 'gbody' }, this.headArea, this.cellArea));
    this.scroller.matrixGrid = this;
    this.errorNode = el('p', { class: 'inline-error', attrs: { role: 'alert' } });
    this.errorNode.hidden = true;
    this.fallback = el('div', { class: 'copy-fallback' });
    this.fallback.hidden = true;
    this.element = el('figure', { class: 'matrix', dataset: { matrix: options.name } },
      el('figcaption', {},
        el('span', { class: 'matrix-heading' }, this.titleNode, ' ', this.shapeNode),
        el('span', { class: 'copy-group' }, el('span', { class: 'copy-label', text: 'copy' }), this.copyButtons, this.copyStatus)),
      this.noteNode,
      this.scroller,
      this.errorNode,
      this.fallback);
    this.#labelButtons();

    visibility.observe(this.scroller);
    new ResizeObserver(([entry]) => {
      const { width, height } = entry.contentRect;
      if (width === this.view.width && height === this.view.height) return;
      this.view = { width, height };
      if (this.rows) this.#renderWindow();
    }).observe(this.scroller);
    this.scroller.addEventListener('scroll', () => {
      this.scroll = { top: this.scroller.scrollTop, left: this.scroller.scrollLeft };
      if (this.editor) this.#commit(false);
      hideTooltip();
      this.#renderWindow();
    }, { passive: true });
    this.scroller.addEventListener('mouseover', (event) => this.#hover(event));
    this.scroller.addEventListener('mouseleave', () => {
      hideTooltip();
      this.options.onHover?.(null);
    });
    this.scroller.addEventListener('click', (event) => this.#click(event));
    this.scroller.addEventListener('dblclick', (event) => {
      const cell = this.#cellOf(event.target);
      if (cell && this.options.editable) this.startEdit(cell.i, cell.j);
    });
    this.scroller.addEventListener('keydown', (event) => this.#key(event));
    this.scroller.addEventListener('focus', () => {
      if (this.editor || !this.rows || !this.scroller.matches(':focus-visible')) return;
      this.#showActive(true);
    });
    this.scroller.addEventListener('blur', () => {
      hideTooltip();
      this.options.onHover?.(null);
    });
  }

  #labelButtons() {
    for (const [k, label] of Object.values(EXPORT_FORMATS).entries()) {
      this.copyButtons[k].setAttribute('aria-label', `Copy ${this.options.title} as ${label}`);
    }
  }

  /** Changes the title (e.g. when the head changes) and optionally the note. */
  setTitle(title, note) {
    if (title !== this.options.title) {
      this.titleNode.textContent = title;
      this.options.title = title;
      this.#labelButtons();
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
   */
  update(view) {
    this.pending = view;
    if (this.visible || view.rows * view.cols <= LAZY_CELLS) {
      this.flush();
    } else {
      waiting.add(this);
      flushWhenIdle();
    }
    markPending();
  }

  /** Draws the values given to the last update(), if not drawn yet. */
  flush() {
    waiting.delete(this);
    const view = this.pending;
    if (!view) return;
    this.pending = null;
    this.#apply(view);
  }

  #apply({ data, rows, cols, rowLabels, colLabels, precision, raw = null, shapeText }) {
    if (this.editor) this.#cancelEdit(false);
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
    this.maxAbs = maxAbs;
    let chars = this.options.render ? 3 : 2;
    if (!this.options.render && min <= max) {
      chars = Math.max(formatValue(min, precision).length, formatValue(max, precision).length, negInf ? 2 : 0);
    }
    for (const text of this.invalid.values()) chars = Math.max(chars, Math.min(text.length, 14));
    chars = Math.max(chars, 4);
    const headerW = Math.min(90, labelWidth(this.colLabels.map((l) => shortLabel(l, 8))));
    this.cellW = Math.ceil(Math.max(chars * digitWidth(), headerW)) + 14;
    this.#sizeHeads();
    this.#renderWindow();
  }

  #sizeHeads() {
    const extra = this.rowWeights ? 52 : 0;
    this.rowHeadW = Math.max(36, Math.min(110, labelWidth(this.rowLabels.map((l) => shortLabel(l))) + 14)) + extra;
    this.scroller.style.setProperty('--cell-w', `${this.cellW}px`);
    this.scroller.style.setProperty('--row-head-w', `${this.rowHeadW}px`);
    this.colArea.style.width = `${this.cols * this.cellW}px`;
    this.cellArea.style.width = `${this.cols * this.cellW}px`;
    this.cellArea.style.height = `${this.rows * CELL_H}px`;
    this.headArea.style.height = `${this.rows * CELL_H}px`;
  }

  /** The rows and columns to draw: those in view plus a margin. */
  #windowFor() {
    const viewW = this.view.width || 960;
    const viewH = this.view.height || 560;
    const { top, left } = this.scroll; // cached from scroll events: reading scrollTop here would force a layout
    const r0 = Math.max(0, Math.floor(top / CELL_H) - OVERSCAN);
    const c0 = Math.max(0, Math.floor(left / this.cellW) - OVERSCAN);
    const rows = Math.min(this.rows - r0, Math.ceil(viewH / CELL_H) + 2 * OVERSCAN + 1);
    const cols = Math.min(this.cols - c0, Math.ceil(Math.max(0, viewW - this.rowHeadW) / this.cellW) + 2 * OVERSCAN + 1);
    return { r0, c0, rows, cols };
  }

  #renderWindow() {
    if (!this.rows) return;
    const win = this.#windowFor();
    this.window = win;
    this.#ensurePool(win.rows, win.cols);
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

  #ensurePool(rows, cols) {
    const { pool } = this;
    const cellNode = () => {
      const node = document.createElement('span');
      node.className = 'c';
      node.setAttribute('role', 'gridcell');
      node.append(document.createTextNode(''));
      return node;
    };
    while (pool.colHeads.length < cols) {
      const node = el('span', { class: 'ch', attrs: { role: 'columnheader' } }, '');
      pool.colHeads.push(node);
      this.colWindow.append(node);
    }
    while (pool.colHeads.length > cols) pool.colHeads.pop().remove();
    while (pool.rows.length < rows) {
      const row = el('div', { class: 'gr', attrs: { role: 'row' } }, el('span', { class: 'sr-only', attrs: { role: 'rowheader' } }, ''));
      pool.rows.push(row);
      this.cellWindow.append(row);
      const head = el('span', { class: 'rh' }, '');
      pool.heads.push(head);
      this.headWindow.append(head);
    }
    while (pool.rows.length > rows) {
      pool.rows.pop().remove();
      pool.heads.pop().remove();
    }
    for (const row of pool.rows) {
      while (row.children.length - 1 < cols) row.append(cellNode());
      while (row.children.length - 1 > cols) row.lastChild.remove();
    }
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
      node.style.backgroundColor = colour ? colour.bg : '';
      node.style.color = colour?.light ? '#fff' : '';
      node.colour = colour;
    }
    if (node.dataset.i !== String(i)) node.dataset.i = String(i);
    if (node.dataset.j !== String(j)) node.dataset.j = String(j);
    node.setAttribute('aria-colindex', String(j + 2));
  }

  /** The DOM node showing cell (i, j), when it is in the drawn window. */
  #nodeAt(i, j) {
    const { r0, c0, rows, cols } = this.window;
    if (i < r0 || i >= r0 + rows || j < c0 || j >= c0 + cols) return null;
    return this.pool.rows[i - r0].children[j - c0 + 1];
  }

  #markActive() {
    const activeId = `${this.id}-active`;
    const old = document.getElementById(activeId);
    const node = this.#nodeAt(this.active.i, this.active.j);
    if (old && old !== node) old.removeAttribute('id');
    if (node) {
      node.id = activeId;
      this.scroller.setAttribute('aria-activedescendant', activeId);
    } else {
      this.scroller.removeAttribute('aria-activedescendant');
    }
  }

  /** Scrolls so that cell (i, j) is in view, and draws the window around it. */
  #reveal(i, j) {
    const s = this.scroller;
    const top = i * CELL_H;
    const viewH = s.clientHeight - CELL_H;
    if (top < s.scrollTop) s.scrollTop = top;
    else if (top + CELL_H > s.scrollTop + viewH) s.scrollTop = top + CELL_H - viewH;
    const left = j * this.cellW;
    const viewW = s.clientWidth - this.rowHeadW;
    if (left < s.scrollLeft) s.scrollLeft = left;
    else if (left + this.cellW > s.scrollLeft + viewW) s.scrollLeft = left + this.cellW - viewW;
    this.scroll = { top: s.scrollTop, left: s.scrollLeft };
    this.#renderWindow();
  }

  #showActive(describe) {
    const { i, j } = this.active;
    this.#reveal(i, j);
    const node = this.#nodeAt(i, j);
    if (describe && node) this.#describe(i, j, node);
    this.options.onHover?.({ i, j });
  }

  #setActive(i, j) {
    this.active = { i: Math.min(this.rows - 1, Math.max(0, i)), j: Math.min(this.cols - 1, Math.max(0, j)) };
    this.#showActive(true);
  }

  #cellOf(target) {
    const node = target instanceof Element ? target.closest('.c') : null;
    if (!node || !this.scroller.contains(node) || node.dataset.i === undefined) return null;
    return { i: Number(node.dataset.i), j: Number(node.dataset.j), node };
  }

  #describe(i, j, anchor) {
    const { describe } = this.options;
    if (!describe) return;
    showTooltip(describe(i, j, this.values[i * this.cols + j]), anchor);
  }

  #hover(event) {
    const cell = this.#cellOf(event.target);
    if (!cell || this.editor) return;
    const box = cell.node.getBoundingClientRect();
    this.#describe(cell.i, cell.j, { x: box.right - 10, y: box.bottom - 12 });
    this.options.onHover?.({ i: cell.i, j: cell.j });
  }

  #click(event) {
    const cell = this.#cellOf(event.target);
    if (!cell || this.editor) return;
    this.active = { i: cell.i, j: cell.j };
    this.#renderWindow();
    if (this.options.onActivate) this.options.onActivate(cell.i, cell.j);
    else if (this.options.editable && event.pointerType === 'touch') this.startEdit(cell.i, cell.j);
  }

  #key(event) {
    if (this.editor || !this.rows || event.target !== this.scroller) return;
    const { i, j } = this.active;
    const page = Math.max(1, Math.floor(this.scroller.clientHeight / CELL_H) - 2);
    const moves = {
      ArrowUp: [i - 1, j], ArrowDown: [i + 1, j], ArrowLeft: [i, j - 1], ArrowRight: [i, j + 1],
      Home: [i, 0], End: [i, this.cols - 1], PageUp: [i - page, j], PageDown: [i + page, j],
    };
    if (moves[event.key] && !event.altKey) {
      event.preventDefault();
      this.#setActive(...moves[event.key]);
      return;
    }
    if (this.options.onActivate && (event.key === 'Enter' || event.key === ' ')) {
      event.preventDefault();
      this.options.onActivate(i, j);
      return;
    }
    if (!this.options.editable) return;
    if (event.key === 'Enter' || event.key === 'F2') {
      event.preventDefault();
      this.startEdit(i, j);
    } else if (event.key.length === 1 && /[-+.\d\u2212]/u.test(event.key) && !event.ctrlKey && !event.metaKey && !event.altKey) {
      event.preventDefault();
      this.startEdit(i, j, event.key);
    }
  }

  /** Opens the cell editor on cell (i, j), optionally replacing its text with `initial`. */
  startEdit(i, j, initial) {
    if (!this.options.editable) return;
    if (this.editor) this.#cancelEdit(false);
    this.active = { i, j };
    this.#reveal(i, j);
    const node = this.#nodeAt(i, j);
    if (!node) return;
    const k = i * this.cols + j;
    const current = this.invalid.get(k) ?? (this.raw ? String(this.raw[i][j]) : String(this.values[k]));
    const input = el('input', {
      class: 'cell-editor',
      type: 'text',
      value: initial ?? current,
      attrs: {
        inputmode: 'decimal',
        spellcheck: 'false',
        autocomplete: 'off',
        'aria-label': `${this.options.title}, row ${this.rowLabels[i]}, column ${this.colLabels[j]}`,
      },
    });
    this.editor = { input, i, j, node };
    hideTooltip();
    node.classList.add('editing');
    node.append(input);
    input.focus({ preventScroll: true });
    if (initial === undefined) input.select();
    input.addEventListener('keydown', (event) => {
      if (event.key === 'Enter') {
        event.preventDefault();
        this.#commit(true);
      } else if (event.key === 'Escape') {
        event.preventDefault();
        this.#cancelEdit(true);
      } else if (event.key === 'Tab') {
        this.#commit(false);
      }
    });
    input.addEventListener('blur', () => {
      if (this.editor?.input === input) this.#commit(false);
    });
  }

  #closeEditor() {
    const { input, node } = this.editor;
    this.editor = null;
    input.remove();
    node.classList.remove('editing');
  }

  #commit(refocus) {
    const { input, i, j } = this.editor;
    const text = input.value;
    this.#closeEditor();
    const k = i * this.cols + j;
    const error = this.options.onEdit?.(i, j, text) ?? null;
    if (error) {
      this.invalid.set(k, text);
      this.#showError(error);
    } else {
      this.invalid.delete(k);
      if (this.invalid.size === 0) this.#showError(null);
    }
    this.#renderWindow();
    if (refocus) this.scroller.focus({ preventScroll: true });
  }

  #cancelEdit(refocus) {
    this.#closeEditor();
    this.#renderWindow();
    if (refocus) this.scroller.focus({ preventScroll: true });
  }

  /** Forgets invalid typed text, e.g. after the matrix was replaced by a paste. */
  clearInvalid() {
    this.invalid.clear();
    this.#showError(null);
    if (this.rows) this.#renderWindow();
  }

  #showError(message) {
    this.errorNode.textContent = message ?? '';
    this.errorNode.hidden = !message;
  }

  /** Marks row i (or none) as highlighted. */
  highlightRow(i) {
    if (this.highlighted === i) return;
    this.highlighted = i;
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
    this.#renderWindow();
  }

  /** The values shown, as rows. */
  rowsShown() {
    return Array.from({ length: this.rows }, (_, i) => Array.from({ length: this.cols }, (_, j) => this.values[i * this.cols + j]));
  }

  /** Copies the matrix as NumPy, JSON or CSV; when the clipboard is refused, shows the text to copy by hand. */
  async copy(format) {
    this.flush();
    const rows = this.raw ?? this.rowsShown();
    const text = exportMatrix(rows, format);
    this.fallback.hidden = true;
    if (await copyText(text)) {
      this.copyStatus.textContent = `${EXPORT_FORMATS[format]} copied`;
      clearTimeout(this.copyTimer);
      this.copyTimer = setTimeout(() => {
        this.copyStatus.textContent = '';
      }, 2500);
      return;
    }
    const area = el('textarea', { class: 'copy-text', readOnly: true, value: text, rows: Math.min(8, rows.length + 1), attrs: { 'aria-label': `${this.options.title} as ${EXPORT_FORMATS[format]}` } });
    const close = el('button', { type: 'button', class: 'small secondary', text: 'Close', on: { click: () => { this.fallback.hidden = true; } } });
    this.fallback.replaceChildren(el('p', { class: 'hint', text: 'The browser did not allow copying: select the text below and copy it.' }), area, close);
    this.fallback.hidden = false;
    area.focus();
    area.select();
  }
}

function setText(node, text) {
  const textNode = node.firstChild;
  if (textNode.nodeValue !== text) textNode.nodeValue = text;
}
