// A matrix drawn as a table with token labels: optional editing, colouring, hover details, keyboard
// navigation (one tab stop, arrow keys inside) and copy buttons.
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
   * @param {() => number[][]} [options.exportRows]  the values to copy (default: the values shown)
   */
  constructor(options) {
    this.options = { color: 'none', ...options };
    this.rows = 0;
    this.cols = 0;
    this.values = new Float32Array(0);
    this.raw = null;
    this.invalid = new Map();
    this.active = { i: 0, j: 0 };
    this.editor = null;

    this.titleNode = el('span', { class: 'matrix-title', text: options.title });
    this.shapeNode = el('span', { class: 'matrix-shape' });
    this.copyStatus = el('span', { class: 'copy-status', attrs: { 'aria-live': 'polite' } });
    const copyButtons = Object.entries(EXPORT_FORMATS).map(([format, label]) => el('button', {
      type: 'button',
      class: 'copy-button',
      text: label,
      attrs: { 'aria-label': `Copy ${options.title} as ${label}`, title: `Copy as ${label}` },
      on: { click: () => this.copy(format) },
    }));
    this.noteNode = el('span', { class: 'matrix-note', text: options.note ?? '' });
    this.table = el('table', { class: 'grid', attrs: { role: 'grid' } });
    this.scroller = el('div', { class: 'matrix-scroll' }, this.table);
    this.errorNode = el('p', { class: 'inline-error', attrs: { role: 'alert' } });
    this.errorNode.hidden = true;
    this.fallback = el('div', { class: 'copy-fallback' });
    this.fallback.hidden = true;
    this.element = el('figure', { class: 'matrix', dataset: { matrix: options.name } },
      el('figcaption', {},
        el('span', { class: 'matrix-heading' }, this.titleNode, ' ', this.shapeNode),
        el('span', { class: 'copy-group' }, el('span', { class: 'copy-label', text: 'copy' }), copyButtons, this.copyStatus)),
      this.noteNode,
      this.scroller,
      this.errorNode,
      this.fallback);

    this.table.addEventListener('mouseover', (event) => this.#hover(event));
    this.table.addEventListener('mouseleave', () => {
      hideTooltip();
      this.options.onHover?.(null);
    });
    this.table.addEventListener('click', (event) => this.#click(event));
    this.table.addEventListener('dblclick', (event) => {
      const cell = this.#cellOf(event.target);
      if (cell && this.options.editable) this.startEdit(cell.i, cell.j);
    });
    this.table.addEventListener('keydown', (event) => this.#key(event));
    this.table.addEventListener('focusin', (event) => {
      const cell = this.#cellOf(event.target);
      if (!cell || this.editor) return;
      this.active = cell;
      this.#describe(cell.i, cell.j, event.target);
      this.options.onHover?.(cell);
    });
    this.table.addEventListener('focusout', (event) => {
      if (!this.table.contains(event.relatedTarget)) {
        hideTooltip();
        this.options.onHover?.(null);
      }
    });
  }

  /** Changes the title (e.g. when the head changes). */
  setTitle(title, note) {
    this.titleNode.textContent = title;
    this.options.title = title;
    if (note !== undefined) this.noteNode.textContent = note;
  }

  /**
   * Shows new values.
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
  update({ data, rows, cols, rowLabels, colLabels, precision, raw = null, shapeText }) {
    if (this.editor) this.#cancelEdit(false);
    const rebuilt = rows !== this.rows || cols !== this.cols;
    if (rebuilt) this.#build(rows, cols);
    this.values = data;
    this.raw = raw;
    this.precision = precision;
    this.rowLabels = rowLabels;
    this.colLabels = colLabels;
    this.shapeNode.textContent = shapeText ?? `[${rows}, ${cols}]`;
    this.table.setAttribute('aria-label', `${this.options.title}, ${rows} by ${cols}`);
    this.#setLabels(this.colHeads, colLabels);
    this.#setLabels(this.rowHeads, rowLabels);

    const { color, render } = this.options;
    let maxAbs = 0;
    if (color === 'signed') for (let k = 0; k < data.length; k++) if (Number.isFinite(data[k])) maxAbs = Math.max(maxAbs, Math.abs(data[k]));
    for (let i = 0; i < rows; i++) {
      for (let j = 0; j < cols; j++) {
        const k = i * cols + j;
        const td = this.cells[k];
        const value = data[k];
        const invalidText = this.invalid.get(k);
        let text;
        let cls = '';
        if (invalidText !== undefined) {
          text = invalidText;
          cls = 'invalid';
        } else if (render) {
          ({ text, cls = '' } = render(i, j, value));
        } else {
          text = formatValue(value, precision);
          if (value === -Infinity) cls = 'neg-inf';
        }
        if (this.texts[k] !== text) {
          td.textContent = text;
          this.texts[k] = text;
        }
        const rgb = cls ? null : colorFor(color, value, maxAbs);
        const bg = rgb ? cssColor(rgb) : '';
        if (this.bgs[k] !== bg) {
          td.style.backgroundColor = bg;
          td.style.color = rgb && prefersLightText(rgb) ? '#fff' : '';
          this.bgs[k] = bg;
        }
        if (this.classes[k] !== cls) {
          td.className = cls;
          this.classes[k] = cls;
        }
      }
    }
    if (rebuilt) this.#setActive(0, 0, false);
  }

  #build(rows, cols) {
    this.rows = rows;
    this.cols = cols;
    this.invalid.clear();
    this.#showError(null);
    this.colHeads = Array.from({ length: cols }, () => el('th', { attrs: { scope: 'col' } }));
    this.rowHeads = Array.from({ length: rows }, () => el('th', { attrs: { scope: 'row' } }));
    this.cells = [];
    this.rowNodes = [];
    const body = el('tbody');
    for (let i = 0; i < rows; i++) {
      const tr = el('tr', {}, this.rowHeads[i]);
      for (let j = 0; j < cols; j++) {
        const td = el('td');
        td.dataset.i = String(i);
        td.dataset.j = String(j);
        this.cells.push(td);
        tr.append(td);
      }
      this.rowNodes.push(tr);
      body.append(tr);
    }
    this.texts = new Array(rows * cols).fill(null);
    this.bgs = new Array(rows * cols).fill('');
    this.classes = new Array(rows * cols).fill('');
    this.table.replaceChildren(el('thead', {}, el('tr', {}, el('th', { class: 'corner' }), this.colHeads)), body);
    this.active = { i: 0, j: 0 };
  }

  #setLabels(heads, labels) {
    heads.forEach((th, index) => {
      const full = String(labels[index] ?? index);
      const text = shortLabel(full);
      if (th.textContent !== text) th.textContent = text;
      if (text !== full) th.title = full;
      else th.removeAttribute('title');
    });
  }

  #cellOf(target) {
    const td = target instanceof Element ? target.closest('td') : null;
    if (!td || !this.table.contains(td) || td.dataset.i === undefined) return null;
    return { i: Number(td.dataset.i), j: Number(td.dataset.j), td };
  }

  #describe(i, j, anchor) {
    const { describe } = this.options;
    if (!describe) return;
    const value = this.values[i * this.cols + j];
    showTooltip(describe(i, j, value), anchor);
  }

  #hover(event) {
    const cell = this.#cellOf(event.target);
    if (!cell) return;
    const box = cell.td.getBoundingClientRect();
    this.#describe(cell.i, cell.j, { x: box.right - 10, y: box.bottom - 12 });
    this.options.onHover?.(cell);
  }

  #click(event) {
    const cell = this.#cellOf(event.target);
    if (!cell || this.editor) return;
    this.#setActive(cell.i, cell.j, true);
    if (this.options.onActivate) this.options.onActivate(cell.i, cell.j);
    else if (this.options.editable && event.detail === 1 && event.pointerType === 'touch') this.startEdit(cell.i, cell.j);
  }

  #setActive(i, j, focus) {
    const old = this.cells[this.active.i * this.cols + this.active.j];
    if (old) old.removeAttribute('tabindex');
    this.active = { i, j };
    const td = this.cells[i * this.cols + j];
    if (!td) return;
    td.tabIndex = 0;
    if (focus) {
      td.focus({ preventScroll: true });
      td.scrollIntoView({ block: 'nearest', inline: 'nearest' });
    }
  }

  #key(event) {
    if (this.editor) return;
    const cell = this.#cellOf(event.target);
    if (!cell) return;
    const { i, j } = cell;
    const moves = {
      ArrowUp: [i - 1, j], ArrowDown: [i + 1, j], ArrowLeft: [i, j - 1], ArrowRight: [i, j + 1],
      Home: [i, 0], End: [i, this.cols - 1], PageUp: [0, j], PageDown: [this.rows - 1, j],
    };
    if (moves[event.key]) {
      event.preventDefault();
      const [ni, nj] = moves[event.key];
      this.#setActive(Math.min(this.rows - 1, Math.max(0, ni)), Math.min(this.cols - 1, Math.max(0, nj)), true);
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
    this.#setActive(i, j, false);
    const k = i * this.cols + j;
    const td = this.cells[k];
    const current = this.invalid.get(k) ?? (this.raw ? String(this.raw[i][j]) : String(this.values[k]));
    const input = el('input', {
      class: 'cell-editor',
      type: 'text',
      value: initial ?? current,
      attrs: {
        inputmode: 'decimal',
        spellcheck: 'false',
        autocomplete: 'off',
        'aria-label': `${this.options.title} row ${this.rowLabels[i]}, column ${this.colLabels[j]}`,
      },
    });
    this.editor = { input, i, j, k };
    hideTooltip();
    td.textContent = '';
    td.append(input);
    input.focus();
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

  #commit(refocus) {
    const { input, i, j, k } = this.editor;
    const text = input.value;
    this.editor = null;
    const td = this.cells[k];
    const error = this.options.onEdit?.(i, j, text) ?? null;
    if (!td.isConnected) return;
    if (error) {
      this.invalid.set(k, text);
      this.texts[k] = text;
      td.textContent = text;
      td.className = 'invalid';
      this.classes[k] = 'invalid';
      this.#showError(error);
    } else {
      this.invalid.delete(k);
      this.texts[k] = null;
      td.textContent = formatValue(this.values[k], this.precision);
      this.texts[k] = td.textContent;
      if (this.invalid.size === 0) this.#showError(null);
    }
    if (refocus) td.focus({ preventScroll: true });
  }

  #cancelEdit(refocus) {
    const { k } = this.editor;
    this.editor = null;
    const td = this.cells[k];
    const text = this.invalid.get(k) ?? formatValue(this.values[k], this.precision);
    td.textContent = text;
    this.texts[k] = text;
    if (refocus) td.focus({ preventScroll: true });
  }

  /** Forgets invalid typed text, e.g. after the matrix was replaced by a paste. */
  clearInvalid() {
    for (const k of this.invalid.keys()) this.texts[k] = null;
    this.invalid.clear();
    this.#showError(null);
  }

  #showError(message) {
    this.errorNode.textContent = message ?? '';
    this.errorNode.hidden = !message;
  }

  /** Marks row i (or none) as highlighted. */
  highlightRow(i) {
    this.rowNodes.forEach((tr, index) => tr.classList.toggle('hl-row', index === i));
  }

  /** Marks column j (or none) as highlighted. */
  highlightCol(j) {
    this.colHeads.forEach((th, index) => th.classList.toggle('hl-col', index === j));
    for (let k = 0; k < this.cells.length; k++) this.cells[k].classList.toggle('hl-col', k % this.cols === j);
  }

  /**
   * Fades each row by a weight in [0, 1] (how much it contributes), showing "×w" beside the row label;
   * null clears.
   */
  emphasizeRows(weights) {
    this.table.classList.toggle('weighted', Boolean(weights));
    this.rowNodes.forEach((tr, i) => {
      if (weights) {
        tr.style.setProperty('--w', String(Math.max(0, Math.min(1, weights[i]))));
        tr.firstChild.dataset.weight = `×${formatValue(weights[i], 2)}`;
      } else {
        tr.style.removeProperty('--w');
        delete tr.firstChild.dataset.weight;
      }
    });
  }

  async copy(format) {
    const rows = this.options.exportRows ? this.options.exportRows()
      : Array.from({ length: this.rows }, (_, i) => Array.from(this.values.subarray?.(i * this.cols, (i + 1) * this.cols) ?? Array.prototype.slice.call(this.values, i * this.cols, (i + 1) * this.cols)));
    const text = exportMatrix(rows, format);
    this.fallback.hidden = true;
    if (await copyText(text)) {
      this.copyStatus.textContent = `${EXPORT_FORMATS[format]} copied`;
      setTimeout(() => {
        this.copyStatus.textContent = '';
      }, 2000);
      return;
    }
    const area = el('textarea', { class: 'copy-text', readOnly: true, value: text, rows: Math.min(8, rows.length + 1), attrs: { 'aria-label': `${this.options.title} as ${EXPORT_FORMATS[format]}` } });
    const close = el('button', { type: 'button', class: 'small', text: 'Close', on: { click: () => { this.fallback.hidden = true; } } });
    this.fallback.replaceChildren(el('p', { class: 'hint', text: 'The browser did not allow copying: select the text below and copy it.' }), area, close);
    this.fallback.hidden = false;
    area.focus();
    area.select();
  }
}
