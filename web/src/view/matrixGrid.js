// A matrix drawn as an ARIA grid with token labels: optional editing, colouring, hover details, keyboard
// navigation (one tab stop, arrow keys inside) and copy buttons. Cells are fixed-size boxes with CSS size
// containment, so changing a number re-lays out only its own cell: a 64×64 update stays cheap.
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
    this.cells = [];
    this.rowNodes = [];
    this.colHeads = [];
    this.rowHeads = [];
    this.chars = 0;

    this.titleNode = el('span', { class: 'matrix-title', text: options.title });
    this.shapeNode = el('span', { class: 'matrix-shape' });
    this.copyStatus = el('span', { class: 'copy-status', attrs: { 'aria-live': 'polite' } });
    const copyButtons = Object.entries(EXPORT_FORMATS).map(([format, label]) => el('button', {
      type: 'button',
      class: 'copy-button',
      text: label,
      attrs: { title: `Copy as ${label}` },
      on: { click: () => this.copy(format) },
    }));
    this.copyButtons = copyButtons;
    this.noteNode = el('span', { class: 'matrix-note', text: options.note ?? '' });
    this.grid = el('div', { class: 'grid', attrs: { role: 'grid' } });
    this.scroller = el('div', { class: 'matrix-scroll' }, this.grid);
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
    this.#labelButtons();

    this.grid.addEventListener('mouseover', (event) => this.#hover(event));
    this.grid.addEventListener('mouseleave', () => {
      hideTooltip();
      this.options.onHover?.(null);
    });
    this.grid.addEventListener('click', (event) => this.#click(event));
    this.grid.addEventListener('dblclick', (event) => {
      const cell = this.#cellOf(event.target);
      if (cell && this.options.editable) this.startEdit(cell.i, cell.j);
    });
    this.grid.addEventListener('keydown', (event) => this.#key(event));
    this.grid.addEventListener('focusin', (event) => {
      const cell = this.#cellOf(event.target);
      if (!cell || this.editor) return;
      this.active = { i: cell.i, j: cell.j };
      this.#describe(cell.i, cell.j, event.target);
      this.options.onHover?.(cell);
    });
    this.grid.addEventListener('focusout', (event) => {
      if (!this.grid.contains(event.relatedTarget)) {
        hideTooltip();
        this.options.onHover?.(null);
      }
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
    const shape = shapeText ?? `[${rows}, ${cols}]`;
    if (this.shapeNode.textContent !== shape) this.shapeNode.textContent = shape;
    this.grid.setAttribute('aria-label', `${this.options.title}, ${rows} by ${cols}`);
    this.#setLabels(this.colHeads, colLabels);
    this.#setLabels(this.rowHeads, rowLabels);

    const { color, render } = this.options;
    let maxAbs = 0;
    if (color === 'signed') {
      for (let k = 0; k < data.length; k++) if (Number.isFinite(data[k])) maxAbs = Math.max(maxAbs, Math.abs(data[k]));
    }
    let chars = 4;
    for (let k = 0; k < rows * cols; k++) {
      const cell = this.cells[k];
      const value = data[k];
      const invalidText = this.invalid.get(k);
      let text;
      let cls = 'c';
      if (invalidText !== undefined) {
        text = invalidText;
        cls = 'c invalid';
      } else if (render) {
        const rendered = render(Math.floor(k / cols), k % cols, value);
        text = rendered.text;
        if (rendered.cls) cls = `c ${rendered.cls}`;
      } else {
        text = formatValue(value, precision);
        if (value === -Infinity) cls = 'c neg-inf';
      }
      if (text.length > chars) chars = text.length;
      if (this.texts[k] !== text) {
        cell.firstChild.nodeValue = text;
        this.texts[k] = text;
      }
      const colour = cls === 'c' ? colorFor(color, value, maxAbs) : null;
      if (this.colours[k] !== colour) {
        cell.style.backgroundColor = colour ? colour.bg : '';
        cell.style.color = colour?.light ? '#fff' : '';
        this.colours[k] = colour;
      }
      if (this.classes[k] !== cls) {
        cell.className = cls;
        this.classes[k] = cls;
      }
    }
    if (chars !== this.chars) {
      this.chars = chars;
      this.grid.style.setProperty('--chars', String(Math.min(chars, 14)));
    }
    if (rebuilt) this.#setActive(0, 0, false);
  }

  #build(rows, cols) {
    this.rows = rows;
    this.cols = cols;
    this.invalid.clear();
    this.#showError(null);
    const cellNode = (cls, role) => {
      const node = document.createElement('span');
      node.className = cls;
      node.setAttribute('role', role);
      node.append(document.createTextNode(''));
      return node;
    };
    this.colHeads = Array.from({ length: cols }, () => cellNode('ch', 'columnheader'));
    this.rowHeads = Array.from({ length: rows }, () => cellNode('rh', 'rowheader'));
    this.cells = new Array(rows * cols);
    this.rowNodes = [];
    const fragment = document.createDocumentFragment();
    const head = el('div', { class: 'gr gh', attrs: { role: 'row' } }, el('span', { class: 'corner', attrs: { role: 'columnheader' } }), this.colHeads);
    fragment.append(head);
    for (let i = 0; i < rows; i++) {
      const row = el('div', { class: 'gr', attrs: { role: 'row' } }, this.rowHeads[i]);
      for (let j = 0; j < cols; j++) {
        const cell = cellNode('c', 'gridcell');
        cell.dataset.i = String(i);
        cell.dataset.j = String(j);
        this.cells[i * cols + j] = cell;
        row.append(cell);
      }
      this.rowNodes.push(row);
      fragment.append(row);
    }
    this.texts = new Array(rows * cols).fill(null);
    this.colours = new Array(rows * cols).fill(null);
    this.classes = new Array(rows * cols).fill('c');
    this.grid.replaceChildren(fragment);
    this.grid.setAttribute('aria-rowcount', String(rows + 1));
    this.grid.setAttribute('aria-colcount', String(cols + 1));
    this.active = { i: 0, j: 0 };
  }

  #setLabels(heads, labels) {
    let longest = 3;
    heads.forEach((node, index) => {
      const full = String(labels[index] ?? index);
      const text = shortLabel(full);
      if (text.length > longest) longest = text.length;
      if (node.firstChild.nodeValue !== text) node.firstChild.nodeValue = text;
      if (text !== full) node.title = full;
      else if (node.title) node.removeAttribute('title');
    });
    if (heads === this.rowHeads) this.grid.style.setProperty('--row-head', String(Math.min(longest, 10)));
  }

  #cellOf(target) {
    const cell = target instanceof Element ? target.closest('.c') : null;
    if (!cell || !this.grid.contains(cell)) return null;
    return { i: Number(cell.dataset.i), j: Number(cell.dataset.j), node: cell };
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
    const box = cell.node.getBoundingClientRect();
    this.#describe(cell.i, cell.j, { x: box.right - 10, y: box.bottom - 12 });
    this.options.onHover?.(cell);
  }

  #click(event) {
    const cell = this.#cellOf(event.target);
    if (!cell || this.editor) return;
    this.#setActive(cell.i, cell.j, true);
    if (this.options.onActivate) this.options.onActivate(cell.i, cell.j);
    else if (this.options.editable && event.pointerType === 'touch') this.startEdit(cell.i, cell.j);
  }

  #setActive(i, j, focus) {
    const old = this.cells[this.active.i * this.cols + this.active.j];
    if (old) old.removeAttribute('tabindex');
    this.active = { i, j };
    const cell = this.cells[i * this.cols + j];
    if (!cell) return;
    cell.tabIndex = 0;
    if (focus) {
      cell.focus({ preventScroll: true });
      cell.scrollIntoView({ block: 'nearest', inline: 'nearest' });
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
    const cell = this.cells[k];
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
    cell.classList.add('editing');
    cell.append(input);
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

  #closeEditor() {
    const { input, k } = this.editor;
    this.editor = null;
    input.remove();
    const cell = this.cells[k];
    cell.classList.remove('editing');
    return cell;
  }

  #setCellText(k, text, cls) {
    const cell = this.cells[k];
    cell.firstChild.nodeValue = text;
    this.texts[k] = text;
    cell.className = cls;
    this.classes[k] = cls;
  }

  #commit(refocus) {
    const { input, i, j, k } = this.editor;
    const text = input.value;
    const cell = this.#closeEditor();
    const error = this.options.onEdit?.(i, j, text) ?? null;
    if (!cell.isConnected || this.cells[k] !== cell) return;
    if (error) {
      this.invalid.set(k, text);
      this.#setCellText(k, text, 'c invalid');
      cell.style.backgroundColor = '';
      this.colours[k] = null;
      this.#showError(error);
    } else {
      this.invalid.delete(k);
      if (this.invalid.size === 0) this.#showError(null);
    }
    if (refocus) cell.focus({ preventScroll: true });
  }

  #cancelEdit(refocus) {
    const cell = this.#closeEditor();
    if (refocus) cell.focus({ preventScroll: true });
  }

  /** Forgets invalid typed text, e.g. after the matrix was replaced by a paste. */
  clearInvalid() {
    for (const k of this.invalid.keys()) {
      this.texts[k] = null;
      this.classes[k] = null;
    }
    this.invalid.clear();
    this.#showError(null);
  }

  #showError(message) {
    this.errorNode.textContent = message ?? '';
    this.errorNode.hidden = !message;
  }

  /** Marks row i (or none) as highlighted. */
  highlightRow(i) {
    if (this.highlighted === i) return;
    this.rowNodes[this.highlighted]?.classList.remove('hl-row');
    this.highlighted = i;
    this.rowNodes[i]?.classList.add('hl-row');
  }

  /**
   * Fades each row by its weight in [0, 1] relative to the largest (how much it contributes), and shows
   * "×w" beside the row label; null clears.
   */
  emphasizeRows(weights) {
    this.grid.classList.toggle('weighted', Boolean(weights));
    const max = weights ? Math.max(...weights) || 1 : 1;
    this.rowNodes.forEach((row, i) => {
      if (weights) {
        row.style.setProperty('--w', String(Math.max(0, weights[i] / max)));
        this.rowHeads[i].dataset.weight = `×${formatValue(weights[i], 2)}`;
      } else {
        row.style.removeProperty('--w');
        delete this.rowHeads[i].dataset.weight;
      }
    });
  }

  /** The values shown, as rows. */
  rowsShown() {
    return Array.from({ length: this.rows }, (_, i) => Array.from({ length: this.cols }, (_, j) => this.values[i * this.cols + j]));
  }

  /** Copies the matrix as NumPy, JSON or CSV; when the clipboard is refused, shows the text to copy by hand. */
  async copy(format) {
    const rows = this.options.exportRows ? this.options.exportRows() : this.raw ?? this.rowsShown();
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
