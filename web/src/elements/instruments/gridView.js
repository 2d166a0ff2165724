// A labelled grid of coloured cells (an HTML table: its numbers are text a reader can select and a screen reader
// reads): the logit lens, the attribution's heads and the patching sweeps draw with it. A cell with `onCell` is a
// button. Only draws: the numbers and colours come from the instruments' shaping (shared/instruments/).
import { el } from '../../shared/dom.js';

export class GridView {
  /** @param {{ label: string, onCell?: (row: number, col: number) => void, cellLabel?: Function }} how */
  constructor({ label, onCell = null, cellLabel = null }) {
    this.onCell = onCell;
    this.cellLabel = cellLabel;
    this.table = el('table', { class: 'inv-grid', attrs: { 'aria-label': label } });
    this.element = el('div', { class: 'inv-grid-wrap' }, this.table);
  }

  /**
   * @param {{ rowLabels: string[], columns: string[], cells: { text: string, sub?: string, value: number,
   *   color: { css: string, light: boolean } | null, title?: string }[][] }} grid
   */
  draw({ rowLabels, columns, cells }) {
    this.shown = { rowLabels, columns, cells }; // what a picture of it draws (instrumentPicture.js)
    const head = el(
      'tr',
      {},
      el('th', { scope: 'col', class: 'inv-corner' }),
      ...columns.map((c) => el('th', { scope: 'col', text: c })),
    );
    const body = cells.map((row, i) =>
      el('tr', {}, el('th', { scope: 'row', text: rowLabels[i] }), ...row.map((cell, j) => this.#cell(cell, i, j))),
    );
    this.table.replaceChildren(el('thead', {}, head), el('tbody', {}, body));
  }

  #cell(cell, i, j) {
    const content = [
      el('span', { class: 'inv-cell-text', text: cell.text }),
      cell.sub ? el('span', { class: 'inv-cell-sub', text: cell.sub }) : null,
    ];
    const inner = this.onCell
      ? el(
          'button',
          {
            type: 'button',
            class: 'inv-cell-button',
            attrs: { 'aria-label': this.cellLabel?.(i, j, cell) },
            on: { click: () => this.onCell(i, j) },
          },
          content,
        )
      : content;
    const td = el(
      'td',
      {
        class: 'inv-cell',
        dataset: { row: String(i), col: String(j), value: String(cell.value) },
        title: cell.title ?? '',
      },
      inner,
    );
    if (cell.color) {
      td.style.background = cell.color.css;
      td.classList.toggle('light-text', cell.color.light);
    } else td.classList.add('pending');
    return td;
  }

  clear() {
    this.shown = null;
    this.table.replaceChildren();
  }
}
