// Draws the cross-attention lesson: the second sentence's input, K of the shown head, the L_q × L_k weights as
// numbers and as a heatmap, and the output.
import { crossStep, crossText } from './cross.js';
import { formatShape } from '../../shared/format.js';
import { headSlice } from '../../shared/inputs.js';
import { headNote, kvHeadNote } from '../../shared/explanations.js';
import { headBlock } from '../../shared/matrices.js';
import { quote } from '../../shared/tooltips.js';
import { byId, el, setError, show } from '../../shared/dom.js';
import { Heatmap } from '../../walk/heatmap.js';
import { MatrixGrid } from '../../walk/matrixGrid.js';

const dims = (count) => Array.from({ length: count }, (_, i) => String(i));

export class CrossView {
  /** @param {object} app  the page's app: state and setState */
  constructor(app) {
    this.app = app;
    this.step = null;
    const grid = (name, title, note, color = 'signed', describe) =>
      new MatrixGrid({ name, title, note, color, describe });
    this.grids = {
      source: grid('crossSource', 'X of the second sentence', 'encoder side: E[token]'),
      k: grid('crossK', 'K', 'from the second sentence'),
      weights: grid('crossWeights', 'weights', 'rows: first sentence · columns: second', 'weights', (i, j, w) => [
        `query ${quote(this.step.queries[i])} → key ${quote(this.step.keys[j])}`,
        `weight ${w.toFixed(4)}`,
      ]),
      output: grid('crossOutput', 'output', 'one row per query, through W_o'),
    };
    this.heatmap = new Heatmap({
      label: 'Cross-attention weights',
      labels: true,
      describe: (i, j, w) => [
        `query ${quote(this.step.queries[i])} → key ${quote(this.step.keys[j])}`,
        `weight ${w.toFixed(4)}`,
      ],
    });
    const g = this.grids;
    byId('mount-cross').append(
      el('div', { class: 'matrices' }, g.source.element, g.k.element),
      el(
        'div',
        { class: 'softmax-layout' },
        el('div', { class: 'matrices' }, g.weights.element),
        el(
          'figure',
          { class: 'heatmap-box' },
          el('figcaption', { class: 'matrix-heading', id: 'cross-caption' }),
          this.heatmap.element,
          this.heatmap.readout,
        ),
      ),
      el('div', { class: 'matrices' }, g.output.element),
    );
    byId('source').addEventListener('input', (event) =>
      app.setState({ ...app.state, source: event.target.value }, { from: event.target }),
    );
  }

  /** Computes (through crossStep) and draws the lesson, or its inline message when the second sentence is empty. */
  draw(attn, state) {
    const input = byId('source');
    if (document.activeElement !== input) input.value = state.source;
    const step = crossStep(attn, state);
    this.step = step;
    setError(byId('source-error'), step.error ?? null);
    input.toggleAttribute('aria-invalid', Boolean(step.error));
    byId('cross-text').textContent = crossText(state, step);
    show(byId('mount-cross'), !step.error);
    if (step.error) return;
    const { n, dModel, dK, head, precision } = state;
    const Lk = step.keys.length;
    const g = this.grids;
    g.k.setTitle(`K${kvHeadNote(state)}`);
    g.weights.setTitle(`weights${headNote(state)}`);
    const view = (data, rows, cols, rowLabels, colLabels) => ({ data, rows, cols, rowLabels, colLabels, precision });
    g.source.update(view(Float64Array.from(step.context.flat()), Lk, dModel, step.keys, dims(dModel)));
    g.k.update(view(headSlice(step.result.k, headBlock(state, 'wk')).data, Lk, dK, step.keys, dims(dK)));
    const weights = headSlice(step.result.weights, head).data;
    g.weights.update(view(weights, n, Lk, step.queries, step.keys));
    g.output.update(view(step.result.output.data, n, dModel, step.queries, dims(dModel)));
    this.heatmap.update({ data: weights, rows: n, cols: Lk, rowLabels: step.queries, colLabels: step.keys });
    byId('cross-caption').textContent = `Heatmap ${formatShape([n, Lk])}${headNote(state)}`;
  }
}
