// Draws the positions lesson: P and X + P in step 1, and the word-order demo's two change matrices side by side.
import { labelsFor } from '../../shared/inputs.js';
import { currentMatrix } from '../../shared/matrices.js';
import { addMatrices, sinusoidalPositions } from '../../shared/positions.js';
import { wordOrderText } from './wordOrder.js';
import { byId, el, show } from '../../shared/dom.js';
import { MatrixGrid } from '../../walk/matrixGrid.js';

const dims = (count) => Array.from({ length: count }, (_, i) => String(i));
const flat = (rows) => Float64Array.from(rows.flat());

export class OrderView {
  constructor() {
    const op = (text) => el('span', { class: 'op', text, attrs: { 'aria-hidden': 'true' } });
    this.positions = new MatrixGrid({
      name: 'positions',
      title: 'P',
      note: 'sinusoidal · rows: positions',
      color: 'signed',
      describe: (i, j, v) => [
        `position ${i}, dimension ${j}`,
        `${j % 2 ? 'cos' : 'sin'}(${i} / 10000^(${2 * Math.floor(j / 2)}/d_model)) = ${v.toFixed(4)}`,
      ],
    });
    this.input = new MatrixGrid({
      name: 'input',
      title: 'X + P',
      note: 'what attention gets',
      color: 'signed',
      describe: (i, j, v) => [`row ${i}, dimension ${j}`, `embedding + position = ${v.toFixed(4)}`],
    });
    byId('mount-positions').append(op('X +'), this.positions.element, op('='), this.input.element);
    this.changes = [false, true].map(
      (withPositions) =>
        new MatrixGrid({
          name: withPositions ? 'changeWith' : 'changeWithout',
          title: withPositions ? 'with positions' : 'without positions',
          note: 'shuffled output − original output of the same token',
          color: 'signed',
          describe: (i, j, v) => [`the token now at position ${i}, dimension ${j}`, `change ${v.toExponential(2)}`],
        }),
    );
    byId('mount-order').append(...this.changes.map((grid) => grid.element));
  }

  /** Draws P and X + P, when positions are on. */
  drawPositions(state) {
    const { n, dModel, precision } = state;
    const labels = labelsFor(state);
    show(byId('positions-step'), state.positions);
    for (const node of document.querySelectorAll('.x-op')) node.textContent = state.positions ? '(X + P) ·' : 'X ·';
    if (state.positions) {
      const p = sinusoidalPositions(n, dModel);
      const rowLabels = labels.map((label, i) => `${i} ${label}`);
      this.positions.update({
        data: flat(p),
        rows: n,
        cols: dModel,
        rowLabels: dims(n),
        colLabels: dims(dModel),
        precision,
      });
      this.input.update({
        data: flat(addMatrices(currentMatrix(state, 'x'), p)),
        rows: n,
        cols: dModel,
        rowLabels,
        colLabels: dims(dModel),
        precision,
      });
    }
  }

  /** Draws the word-order demo (from wordOrderDemo). */
  drawDemo(state, demo) {
    const { n, dModel, precision } = state;
    // One colour scale for both, so that float32 rounding stays white next to a real change.
    const colorScale = Math.max(...demo.cases.map((c) => c.largest));
    demo.cases.forEach((c, k) => {
      this.changes[k].update({
        data: flat(c.change),
        rows: n,
        cols: dModel,
        rowLabels: demo.labels,
        colLabels: dims(dModel),
        precision,
        colorScale,
      });
    });
    byId('order-text').textContent = wordOrderText(state, demo);
  }
}
