// A compact matrix for the elements: a <table> with token labels, cells coloured by class, one tab stop, arrows to
// move, and (when editable) Enter or a double click to type a number. Text only ever goes in as text.
import { formatValue } from '../shared/format.js';
import { el } from '../shared/dom.js';
import { gridKeys, scrollBox } from './gridKeys.js';
import { signedClass, weightClass } from './styles.js';

let tables = 0;

export class MatrixTable {
  /**
   * @param {{ name: string, title: string, note?: string, color?: 'signed' | 'weights' | 'none',
   *   editable?: boolean, onEdit?: (i: number, j: number, text: string) => string | null,
   *   onActivate?: (i: number, j: number) => void, onActive?: (cell: { i: number, j: number } | null) => void,
   *   describe?: (i: number, j: number, value: number) => string, masked?: (i: number, j: number) => boolean,
   *   mark?: (cells: HTMLElement[][]) => void }} options  mark: marks the cells `highlight` names after each update
   */
  constructor(options) {
    this.options = { color: 'signed', ...options };
    this.id = `m${++tables}`;
    this.view = null;
    this.cells = [];
    this.titleNode = el('span', { text: options.title });
    this.shapeNode = el('span', { class: 'shape' });
    this.table = el('table', {
      tabIndex: 0,
      attrs: { role: 'grid', 'aria-label': options.title, 'aria-readonly': String(!options.editable) },
    });
    this.noteNode = el('div', { class: 'sub', text: options.note ?? '' });
    this.noteNode.hidden = !options.note;
    this.errorNode = el('p', { class: 'error', attrs: { role: 'alert' } });
    this.errorNode.hidden = true;
    this.element = el(
      'figure',
      { class: 'matrix', dataset: { matrix: options.name }, attrs: { part: 'matrix' } },
      el('figcaption', {}, this.titleNode, this.shapeNode),
      this.noteNode,
      scrollBox(this.table),
      this.errorNode,
    );
    this.keys = gridKeys(this.table, {
      size: () => ({ rows: this.view?.rows ?? 0, cols: this.view?.cols ?? 0 }),
      cellAt: (i, j) => this.cells[i]?.[j] ?? null,
      onActive: (cell) => this.options.onActive?.(cell),
      onEnter: (i, j) => (this.options.editable ? this.#edit(i, j) : this.options.onActivate?.(i, j)),
      onKey: (event, i, j) => {
        if (!this.options.editable || event.target !== this.table) return false;
        if (/^[-+.0-9]$/u.test(event.key) && !event.ctrlKey && !event.metaKey && !event.altKey) {
          event.preventDefault();
          this.#edit(i, j, event.key);
          return true;
        }
        return false;
      },
    });
    this.table.addEventListener('click', (event) => {
      const cell = event.target.closest?.('td[data-i]');
      if (cell && !this.options.editable) this.options.onActivate?.(Number(cell.dataset.i), Number(cell.dataset.j));
    });
    this.table.addEventListener('dblclick', (event) => {
      const cell = event.target.closest?.('td[data-i]');
      if (cell && this.options.editable) this.#edit(Number(cell.dataset.i), Number(cell.dataset.j));
    });
  }

  /** A new title, and the line under it when `note` is given (empty hides it). */
  setTitle(title, note) {
    this.titleNode.textContent = title;
    this.table.setAttribute('aria-label', title);
    if (note === undefined) return;
    this.noteNode.textContent = note;
    this.noteNode.hidden = !note;
  }

  /**
   * @param {{ data: ArrayLike<number>, rows: number, cols: number, rowLabels: string[], colLabels: string[],
   *   precision: number }} view  data: flat, row-major
   */
  update(view) {
    this.view = view;
    const { data, rows, cols, rowLabels, colLabels, precision } = view;
    this.shapeNode.textContent = `[${rows}, ${cols}]`;
    let maxAbs = 0;
    for (let k = 0; k < rows * cols; k++) if (Number.isFinite(data[k])) maxAbs = Math.max(maxAbs, Math.abs(data[k]));
    // Values that all show as 0 at this precision (float32 rounding, say) get no colour, not a full one.
    if (maxAbs < 0.5 * 10 ** -precision) maxAbs = 0;
    const head = el(
      'tr',
      {},
      el('td', { class: 'plain', attrs: { role: 'columnheader', 'aria-label': 'row' } }),
      colLabels.map((label) => el('th', { text: label, title: label, attrs: { scope: 'col' } })),
    );
    this.cells = [];
    const body = [];
    for (let i = 0; i < rows; i++) {
      const row = [];
      for (let j = 0; j < cols; j++) row.push(this.#cell(i, j, data[i * cols + j], maxAbs, precision));
      this.cells.push(row);
      body.push(el('tr', {}, el('th', { text: rowLabels[i], title: rowLabels[i], attrs: { scope: 'row' } }), row));
    }
    this.table.replaceChildren(el('thead', {}, head), el('tbody', {}, body));
    this.options.mark?.(this.cells);
    this.keys.setActive(Math.min(this.keys.active.i, rows - 1), Math.min(this.keys.active.j, cols - 1), false);
  }

  #cell(i, j, value, maxAbs, precision) {
    const { color, masked, editable } = this.options;
    const classes = [];
    if (masked?.(i, j)) classes.push('masked');
    else if (color === 'weights' && Number.isFinite(value)) {
      const c = weightClass(value);
      classes.push(c.cls, c.light ? 'lt' : '');
    } else if (color === 'signed' && Number.isFinite(value)) classes.push(signedClass(value, maxAbs).cls);
    else classes.push('plain');
    if (editable) classes.push('edit');
    return el('td', {
      id: `${this.id}-${i}-${j}`,
      class: classes.filter(Boolean).join(' '),
      text: formatValue(value, precision),
      dataset: { i: String(i), j: String(j) },
      attrs: { role: 'gridcell', 'aria-label': this.options.describe?.(i, j, value) },
    });
  }

  /** Highlights row i (null clears). */
  highlightRow(i) {
    this.cells.forEach((row, r) => row.forEach((cell) => cell.classList.toggle('hl', r === i)));
  }

  /** Fades rows by their weight (null clears): a value row that contributes little is faint. */
  fadeRows(weights) {
    this.cells.forEach((row, r) =>
      row.forEach((cell) => cell.classList.toggle('faded', !!weights && weights[r] < 0.1)),
    );
  }

  /** Shows a problem under the table, or hides it (null). */
  setError(message) {
    this.errorNode.textContent = message ?? '';
    this.errorNode.hidden = !message;
  }

  #edit(i, j, first) {
    const cell = this.cells[i]?.[j];
    if (!cell || cell.querySelector('input')) return;
    const old = cell.textContent;
    const input = el('input', {
      type: 'text',
      value: first ?? String(this.view.raw?.[i]?.[j] ?? old),
      attrs: { 'aria-label': `new value for ${this.options.title}, row ${i}, column ${j}`, inputmode: 'decimal' },
    });
    cell.replaceChildren(input);
    input.focus();
    if (first === undefined) input.select();
    let done = false;
    const close = (commit) => {
      if (done) return;
      done = true;
      const error = commit ? this.options.onEdit?.(i, j, input.value) : null;
      this.setError(error);
      if (input.isConnected) cell.replaceChildren(old);
      this.table.focus();
    };
    input.addEventListener('keydown', (event) => {
      event.stopPropagation();
      if (event.key === 'Enter') close(true);
      else if (event.key === 'Escape') close(false);
    });
    input.addEventListener('blur', () => close(true));
  }
}
