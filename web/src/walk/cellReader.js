// Reading a heatmap drawn on a canvas cell by cell, by pointer or keyboard: the canvas is one tab stop, the arrow keys
// (Home, End, PageUp, PageDown) move an active cell, and the cell pointed at or moved to is written into a polite live
// region. The large matrices (canvasMatrix.js) and the small heatmaps (heatmap.js) read their cells through it.
import { el } from '../shared/dom.js';
import { keyMoves } from './gridInput.js';

export class CellReader {
  /**
   * @param {HTMLCanvasElement} canvas
   * @param {object} hooks
   * @param {() => { rows: number, cols: number } | null} hooks.size  null while there is nothing to read
   * @param {(event: MouseEvent) => { i: number, j: number } | null} hooks.cellAt  the cell under the pointer
   * @param {(i: number, j: number) => string[]} hooks.lines  the readout of a cell: a heading, then its lines
   * @param {(cell: { i: number, j: number } | null) => void} [hooks.onCell]  pointed at or moved to; null: left
   * @param {() => void} [hooks.onShow]  the cell in the readout changed (redraw its outline)
   * @param {number} [hooks.page]  rows PageUp and PageDown move
   * @param {HTMLElement} [readout]  a live region shared with other heatmaps; made here when not given
   */
  constructor(canvas, hooks, readout) {
    this.hooks = hooks;
    this.active = { i: 0, j: 0 };
    this.shown = null; // the cell in the readout
    this.readout = readout ?? el('p', { class: 'cm-readout', attrs: { 'aria-live': 'polite' } });
    canvas.tabIndex = 0;
    canvas.setAttribute('role', 'application');
    canvas.setAttribute('aria-roledescription', 'heatmap');
    canvas.addEventListener('mousemove', (event) => {
      const cell = this.hooks.size() && this.hooks.cellAt(event);
      if (!cell) return;
      this.show(cell);
      this.hooks.onCell?.(cell);
    });
    canvas.addEventListener('mouseleave', () => {
      this.hooks.onCell?.(null);
      this.show(this.active);
    });
    canvas.addEventListener('keydown', (event) => this.#key(event));
    canvas.addEventListener('focus', () => this.show(this.active));
  }

  /** Keeps the active cell inside a matrix of the new size, and rewrites the readout without announcing it again. */
  refresh() {
    const size = this.hooks.size();
    if (!size) return;
    const inside = ({ i, j }) => ({ i: Math.min(i, size.rows - 1), j: Math.min(j, size.cols - 1) });
    this.active = inside(this.active);
    if (this.shown) this.show(inside(this.shown), { quiet: true });
  }

  /** Writes cell (i, j) into the readout; `quiet`: a redraw of the same place, not announced again. */
  show(cell, { quiet = false } = {}) {
    const size = this.hooks.size();
    if (!size || cell.i >= size.rows || cell.j >= size.cols) return;
    this.shown = cell;
    const nodes = this.hooks
      .lines(cell.i, cell.j)
      .map((text, k) => el('span', { class: k ? 'cm-line' : 'cm-head', text }));
    if (quiet) this.readout.setAttribute('aria-live', 'off');
    this.readout.replaceChildren(...nodes);
    this.readout.dataset.i = String(cell.i);
    this.readout.dataset.j = String(cell.j);
    if (quiet) this.readout.setAttribute('aria-live', 'polite');
    this.hooks.onShow?.();
  }

  #key(event) {
    const size = this.hooks.size();
    if (!size || event.altKey || event.ctrlKey || event.metaKey) return;
    const move = keyMoves(this.active.i, this.active.j, size.cols, this.hooks.page ?? 8)[event.key];
    if (!move) return;
    event.preventDefault();
    const [i, j] = move;
    this.active = { i: Math.min(size.rows - 1, Math.max(0, i)), j: Math.min(size.cols - 1, Math.max(0, j)) };
    this.show(this.active);
    this.hooks.onCell?.(this.active);
  }
}
