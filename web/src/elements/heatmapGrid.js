// The weights as a heatmap for the elements: a CSS grid of coloured cells with the tokens as row and column
// labels, a legend, and a readout of the cell under the pointer or the keyboard's active cell.
import { headSlice, labelsFor, maskCell } from '../shared/inputs.js';
import { el } from '../shared/dom.js';
import { formatValue } from '../shared/format.js';
import { gridKeys, scrollBox } from './gridKeys.js';
import { signedClass, weightClass } from './styles.js';

let maps = 0;

/**
 * A cell's tooltip lines (shared/tooltips.js) as one sentence for a readout and a screen reader: the heading, a
 * colon, then the lines, each after the one that introduces it.
 */
export function joinLines(lines) {
  return lines.reduce((text, line, k) => {
    if (k === 0) return line;
    return `${text}${k === 1 ? ': ' : /[:=]$/u.test(text) || line.startsWith('=') ? ' ' : '; '}${line}`;
  }, '');
}

/** What a heatmap draws for one head of a result: its [n, n] weights, the tokens, and the masked cells. */
export function weightsView(state, weights, head) {
  const labels = labelsFor(state);
  return {
    data: headSlice(weights, head).data,
    rows: state.n,
    cols: state.n,
    rowLabels: labels,
    colLabels: labels,
    blocked: (i, j) => maskCell(state, i, j) !== 'open',
  };
}

/** What a heatmap of each kind of values is called. */
export const TITLES = { weights: 'Attention weights', scores: 'Attention scores' };

/** The largest magnitude of the finite values of a view (what a signed colour scale spans). */
export function largest({ data, rows, cols }) {
  let max = 0;
  for (let k = 0; k < rows * cols; k++) if (Number.isFinite(data[k])) max = Math.max(max, Math.abs(data[k]));
  return max;
}

/** The texts of a heatmap's colour scale: its ends and what it shows. */
export function legendTexts(view, max = largest(view)) {
  return view.values === 'scores'
    ? [formatValue(-max, 2), formatValue(max, 2), 'score (before softmax) · striped: masked']
    : ['0', '1', 'attention weight · striped: masked'];
}

export class HeatmapGrid {
  /**
   * @param {{ label: string, describe: (i: number, j: number, value: number) => string,
   *   onActive?: (cell: { i: number, j: number } | null) => void, readout?: HTMLElement,
   *   mark?: (cells: HTMLElement[][]) => void }} options
   *   readout: where the active cell is described (a live region); made here when not given; mark: marks the cells
   *   `highlight` names after each update
   */
  constructor(options) {
    this.options = options;
    this.id = `h${++maps}`;
    this.view = null;
    this.cells = [];
    this.grid = el('div', { class: 'hm', tabIndex: 0, attrs: { role: 'grid', 'aria-label': options.label } });
    this.legendTexts = [el('span'), el('span'), el('span')];
    this.bar = el('span', { class: 'bar' });
    const [low, high, what] = this.legendTexts;
    this.readout =
      options.readout ??
      el('p', {
        class: 'readout',
        text: 'Hover over a cell, or focus the heatmap and use the arrow keys, to read its weight.',
        attrs: { part: 'readout', 'aria-live': 'polite' },
      });
    this.element = el(
      'figure',
      { class: 'heatmap', attrs: { part: 'heatmap' } },
      scrollBox(this.grid),
      el('div', { class: 'legend', attrs: { part: 'legend', 'aria-hidden': 'true' } }, low, this.bar, high, what),
      options.readout ? null : this.readout,
    );
    this.keys = gridKeys(this.grid, {
      size: () => ({ rows: this.view?.rows ?? 0, cols: this.view?.cols ?? 0 }),
      cellAt: (i, j) => this.cells[i]?.[j] ?? null,
      onActive: (cell) => {
        if (cell && this.view) {
          this.readout.textContent = options.describe(cell.i, cell.j, this.view.data[cell.i * this.view.cols + cell.j]);
        }
        options.onActive?.(cell);
      },
    });
  }

  setLabel(label) {
    this.grid.setAttribute('aria-label', label);
  }

  /**
   * @param {{ data: ArrayLike<number>, rows: number, cols: number, rowLabels: string[], colLabels: string[],
   *   blocked?: (i: number, j: number) => boolean, values?: 'weights' | 'scores' }} view  values: the colour scale,
   *   viridis from 0 to 1 for weights (the default), diverging around 0 for scores
   */
  update(view) {
    this.view = view;
    const { data, rows, cols, rowLabels, colLabels, blocked } = view;
    const max = largest(view);
    const signed = view.values === 'scores';
    legendTexts(view, max).forEach((text, k) => (this.legendTexts[k].textContent = text));
    this.bar.classList.toggle('signed', signed);
    // Short labels read across; long ones run upwards.
    const across = cols * Math.max(...colLabels.map((label) => label.length)) <= 30;
    this.grid.className = `hm c${cols}${Math.max(rows, cols) > 16 ? ' tiny' : ''}${across ? ' across' : ''}`;
    const header = el(
      'div',
      { class: 'r', attrs: { role: 'row' } },
      el('span', { attrs: { role: 'columnheader', 'aria-label': 'query / key' } }),
      colLabels.map((label) =>
        el('span', { class: 'lab clab', text: label, title: label, attrs: { role: 'columnheader' } }),
      ),
    );
    this.cells = [];
    const rowsOut = [header];
    for (let i = 0; i < rows; i++) {
      const row = [];
      for (let j = 0; j < cols; j++) {
        const value = data[i * cols + j];
        const colour = blocked?.(i, j) ? { cls: 'masked' } : signed ? signedClass(value, max) : weightClass(value);
        row.push(
          el('span', {
            id: `${this.id}-${i}-${j}`,
            class: `cell ${colour.cls}`,
            dataset: { i: String(i), j: String(j) },
            attrs: { role: 'gridcell', 'aria-label': this.options.describe(i, j, value) },
          }),
        );
      }
      this.cells.push(row);
      rowsOut.push(
        el(
          'div',
          { class: 'r', attrs: { role: 'row' } },
          el('span', { class: 'lab rlab', text: rowLabels[i], title: rowLabels[i], attrs: { role: 'rowheader' } }),
          row,
        ),
      );
    }
    this.grid.replaceChildren(...rowsOut);
    this.options.mark?.(this.cells);
    this.keys.setActive(Math.min(this.keys.active.i, rows - 1), Math.min(this.keys.active.j, cols - 1), false);
  }

  /** Outlines row i, or cell (i, j); null clears. */
  setHighlight(h) {
    this.cells.forEach((row, i) =>
      row.forEach((cell, j) => cell.classList.toggle('hl', !!h && h.i === i && (h.j === undefined || h.j === j))),
    );
  }
}
