// Draws the steps of attention: the grids from X to the output, the weights' heatmap, the heads and their texts.
import { formatShape } from '../shared/format.js';
import { averageHeads, headSlice, labelsFor, maskCell } from '../shared/inputs.js';
import { cached, columnBlockOf, flatRows } from '../shared/reuse.js';
import {
  entropyText,
  explainOutputRow,
  headColumnsNote,
  headNote,
  headsText,
  kvHeadNote,
  kvSharedNote,
  projectionText,
  randomNote,
  scaleTexts,
} from '../shared/explanations.js';
import { varianceText } from '../lessons/scaling/scalingText.js';
import { INPUT_TITLES, currentMatrix, headBlock, headWidth, kvHeadsOf } from '../shared/matrices.js';
import { embeddingSourceText, xNote } from '../shared/provenance.js';
import { cellTooltip } from '../shared/tooltips.js';
import { byId, el, show } from '../shared/dom.js';
import { Heatmap, weightsLegend } from './heatmap.js';
import { MatrixGrid } from './matrixGrid.js';
import { forget } from './renderScheduler.js';

const dimLabels = new Map();
/** The labels 0 … count-1 (with `prefix`), made once per count: grids compare the same list at once (sameView). */
const dims = (count, prefix = '') =>
  cached(dimLabels, `${prefix}|${count}`, () => Array.from({ length: count }, (_, i) => `${prefix}${i}`));

export class Steps {
  /**
   * Builds the grids and heatmaps into the page's mount points.
   * @param {{ state: object, result: object | null }} app  read at each hover and draw
   * @param {{ onEdit: (name: string, i: number, j: number, text: string) => string | null,
   *   onToggleMask: (i: number, j: number) => void, onSelectHead: (head: number) => void }} handlers
   */
  constructor(app, handlers) {
    this.app = app;
    this.handlers = handlers;
    this.hoveredOutputRow = null;
    this.headViews = [];
    const tip = (matrix) => (i, j, value) => cellTooltip(app.state, app.result, matrix, i, j, value);
    const hoverPair = (cell) => this.#hoverPair(cell);
    const signed = { color: 'signed' };
    const grids = {};
    this.grids = grids;
    const editable = (name) => ({
      editable: true,
      onEdit: (i, j, t) => handlers.onEdit(name, i, j, t),
      describe: tip(name),
    });
    grids.x = new MatrixGrid({ name: 'x', title: 'X', note: 'embeddings · rows: tokens', ...signed, ...editable('x') });
    for (const name of ['wq', 'wk', 'wv']) {
      grids[name] = new MatrixGrid({
        name,
        title: INPUT_TITLES[name],
        note: 'weights · editable',
        ...signed,
        ...editable(name),
      });
    }
    grids.q = new MatrixGrid({ name: 'q', title: 'Q', note: 'queries', ...signed, describe: tip('q') });
    grids.k = new MatrixGrid({ name: 'k', title: 'K', note: 'keys', ...signed, describe: tip('k') });
    grids.v = new MatrixGrid({ name: 'v', title: 'V', note: 'values', ...signed, describe: tip('v') });
    grids.raw = new MatrixGrid({
      name: 'rawScores',
      title: 'QKᵀ',
      note: 'rows: queries · columns: keys',
      ...signed,
      onHover: hoverPair,
      describe: tip('rawScores'),
    });
    grids.scaled = new MatrixGrid({
      name: 'scaledScores',
      title: 'scaled scores',
      note: 'QKᵀ × factor',
      ...signed,
      onHover: hoverPair,
      describe: tip('scaledScores'),
    });
    grids.mask = new MatrixGrid({
      name: 'mask',
      title: 'mask',
      note: 'click to block / allow',
      render: (i, j) => this.#maskRender(i, j),
      onActivate: (i, j) => handlers.onToggleMask(i, j),
      onHover: hoverPair,
      describe: tip('mask'),
    });
    grids.scores = new MatrixGrid({
      name: 'scores',
      title: 'masked scores',
      note: 'scaled scores + mask',
      ...signed,
      onHover: hoverPair,
      describe: tip('scores'),
    });
    grids.weights = new MatrixGrid({
      name: 'weights',
      title: 'attention weights',
      note: 'softmax of each row · rows sum to 1',
      color: 'weights',
      onHover: hoverPair,
      masked: (i, j) => maskCell(app.state, i, j) !== 'open',
      describe: tip('weights'),
    });
    grids.vOut = new MatrixGrid({ name: 'vOut', title: 'V', note: 'values', ...signed, describe: tip('vOut') });
    grids.output = new MatrixGrid({
      name: 'output',
      title: 'output',
      note: 'one row per token',
      ...signed,
      onHover: (cell) => this.#hoverOutput(cell),
      describe: tip('output'),
    });
    grids.concat = new MatrixGrid({
      name: 'concat',
      title: 'concatenated heads',
      note: 'head outputs side by side',
      ...signed,
      describe: tip('concat'),
    });
    grids.wo = new MatrixGrid({
      name: 'wo',
      title: 'W_o',
      note: 'output projection · editable',
      ...signed,
      ...editable('wo'),
    });
    grids.layerOutput = new MatrixGrid({
      name: 'layerOutput',
      title: 'layer output',
      note: 'back to d_model columns',
      ...signed,
      describe: tip('layerOutput'),
    });

    // An operator and the matrix after it wrap together: a wrapped equation's line starts with its operator, which
    // never stays behind at the end of the line above.
    const op = (text, grid, cls = 'op') =>
      el(
        'span',
        { class: 'op-term' },
        el('span', { class: cls, text, attrs: { 'aria-hidden': 'true' } }),
        grid.element,
      );
    byId('mount-x').append(grids.x.element);
    byId('mount-q').append(op('X ·', grids.wq, 'op x-op'), op('=', grids.q));
    byId('mount-k').append(op('X ·', grids.wk, 'op x-op'), op('=', grids.k));
    byId('mount-v').append(op('X ·', grids.wv, 'op x-op'), op('=', grids.v));
    byId('mount-raw').append(grids.raw.element);
    byId('mount-scaled').append(grids.scaled.element);
    byId('mount-mask').append(op('+', grids.mask), op('=', grids.scores));
    byId('mount-weights').append(grids.weights.element);
    byId('mount-output').append(op('weights ·', grids.vOut), op('=', grids.output));
    byId('mount-projection').append(grids.concat.element, op('·', grids.wo), op('=', grids.layerOutput));

    this.heatmap = new Heatmap({
      label: 'Heatmap of the attention weights: rows are queries, columns are keys',
      labels: true,
      onHover: hoverPair,
      describe: tip('heatmap'),
    });
    byId('mount-heatmap').append(this.heatmap.element);
    byId('mount-legend').append(weightsLegend());
    byId('mount-legend').after(this.heatmap.readout);
    // One readout under the heads' heatmaps, for whichever is read.
    this.headsReadout = el('p', { class: 'cm-readout', attrs: { 'aria-live': 'polite' } });
    byId('mount-heads').after(this.headsReadout);
  }

  /** Forgets refused typed text in the input matrix `name`, or in every grid. */
  clearInvalid(name) {
    if (name) this.grids[name].clearInvalid();
    else for (const grid of Object.values(this.grids)) grid.clearInvalid();
  }

  #maskRender(i, j) {
    const kind = maskCell(this.app.state, i, j);
    if (kind === 'open') return { text: '0', cls: 'mask-open' };
    return { text: '-∞', cls: kind === 'causal' ? 'mask-causal' : 'mask-blocked' };
  }

  #hoverPair(cell) {
    this.grids.q.highlightRow(cell ? cell.i : null);
    this.grids.k.highlightRow(cell ? cell.j : null);
    this.heatmap.setHighlight(cell ? { i: cell.i, j: cell.j } : null);
  }

  #hoverOutput(cell) {
    const i = cell ? cell.i : null;
    this.hoveredOutputRow = i;
    this.grids.weights.highlightRow(i);
    this.grids.output.highlightRow(i);
    this.heatmap.setHighlight(i === null ? null : { i });
    this.#explainOutput();
  }

  #explainOutput() {
    const { text, weights } = explainOutputRow(this.app.state, this.app.result, this.hoveredOutputRow);
    this.grids.vOut.emphasizeRows(weights);
    byId('output-explain').textContent = text;
  }

  /** Draws the state's inputs and the result of selfAttention on them. */
  draw(state, result) {
    const { grids } = this;
    const labels = labelsFor(state);
    const { n, dModel, dK, dV, numHeads: H, head: h, precision } = state;
    const qNote = headNote(state);
    const kvNote = kvHeadNote(state); // the kv head that h shares with its group, with grouped-query attention
    const kv = headBlock(state, 'wk');
    const withShared = (note) => kvSharedNote(state, note); // "shared by heads 2 and 3 · …", when grouped
    const flat = flatRows; // made once per matrix

    const x = currentMatrix(state, 'x');
    grids.x.setTitle('X', xNote(state)); // a model's layer: its (normed) input, not embeddings
    grids.x.update({
      data: flat(x),
      rows: n,
      cols: dModel,
      rowLabels: labels,
      colLabels: dims(dModel),
      precision,
      raw: x,
    });
    for (const name of ['wq', 'wk', 'wv']) {
      const width = headWidth(state, name);
      const block = columnBlockOf(currentMatrix(state, name), headBlock(state, name) * width, width);
      grids[name].options.editable = !(name === 'wk' && state.shareQK);
      const note = name === 'wk' && state.shareQK ? 'same as W_q (W_k = W_q is on)' : 'weights · editable';
      if (name === 'wq') grids.wq.setTitle(`W_q${qNote}`, note);
      else grids[name].setTitle(`${INPUT_TITLES[name]}${kvNote}`, withShared(note));
      grids[name].update({
        data: block.data,
        rows: dModel,
        cols: width,
        rowLabels: dims(dModel),
        colLabels: dims(width),
        precision,
        raw: block.rows,
      });
    }
    const perHead = (grid, tensor, title, colLabels, index = h, note = qNote, sub = undefined) => {
      grid.setTitle(`${title}${note}`, sub);
      grid.update({
        data: headSlice(tensor, index).data,
        rows: n,
        cols: colLabels.length,
        rowLabels: labels,
        colLabels,
        precision,
      });
    };
    perHead(grids.q, result.q, 'Q', dims(dK));
    perHead(grids.k, result.k, 'K', dims(dK), kv, kvNote, withShared('keys'));
    perHead(grids.v, result.v, 'V', dims(dV), kv, kvNote, withShared('values'));
    perHead(grids.raw, result.rawScores, 'QKᵀ', labels);
    perHead(grids.scaled, result.scaledScores, 'scaled scores', labels);
    const additiveMask = Float32Array.from({ length: n * n }, (_, k) =>
      maskCell(state, Math.floor(k / n), k % n) === 'open' ? 0 : -Infinity,
    );
    grids.mask.update({ data: additiveMask, rows: n, cols: n, rowLabels: labels, colLabels: labels, precision });
    perHead(grids.scores, result.scores, 'masked scores', labels);
    perHead(grids.weights, result.weights, 'attention weights', labels);
    perHead(grids.vOut, result.v, 'V', dims(dV), kv, kvNote, withShared('values'));
    perHead(grids.output, result.heads, H > 1 ? 'head output' : 'output', dims(dV));
    const concatLabels = Array.from({ length: H * dV }, (_, c) =>
      H > 1 ? `h${Math.floor(c / dV) + 1}·${c % dV}` : String(c),
    );
    grids.concat.setTitle(
      H > 1 ? 'concatenated heads' : 'head output',
      H > 1 ? 'head outputs side by side' : 'one head: nothing to put beside it',
    );
    grids.concat.update({
      data: result.concat.data,
      rows: n,
      cols: H * dV,
      rowLabels: labels,
      colLabels: concatLabels,
      precision,
    });
    const wo = currentMatrix(state, 'wo');
    grids.wo.update({
      data: flat(wo),
      rows: H * dV,
      cols: dModel,
      rowLabels: concatLabels,
      colLabels: dims(dModel),
      precision,
      raw: wo,
    });
    grids.layerOutput.update({
      data: result.output.data,
      rows: n,
      cols: dModel,
      rowLabels: labels,
      colLabels: dims(dModel),
      precision,
    });

    const weights = headSlice(result.weights, h);
    const blocked = (i, j) => maskCell(state, i, j) !== 'open';
    this.heatmap.update({ data: weights.data, rows: n, cols: n, blocked, rowLabels: labels, colLabels: labels });
    byId('heatmap-caption').textContent = `${formatShape([n, n])}${qNote}`;
    this.#drawHeads(state, result);
    this.#drawTexts(state, result);
    this.#explainOutput();
  }

  #headFigure(index) {
    const isAverage = index === -1;
    const name = isAverage ? 'average of the heads' : `head ${index}`;
    const map = new Heatmap({
      label: isAverage ? 'Average of the heads' : `Head ${index} attention weights`,
      labels: true,
      readout: this.headsReadout,
      describe: (i, j, w) => {
        const [pair, ...lines] = cellTooltip(this.app.state, this.app.result, isAverage ? 'average' : 'head', i, j, w);
        return [`${name}: ${pair}`, ...lines];
      },
    });
    const caption = isAverage
      ? el('figcaption', { class: 'head-caption', text: 'average' })
      : el(
          'figcaption',
          {},
          el('button', {
            type: 'button',
            class: 'head-button',
            text: `head ${index}`,
            attrs: { 'aria-label': `Show head ${index} in the steps` },
            on: { click: () => this.handlers.onSelectHead(index) },
          }),
        );
    const figure = el('figure', { class: `head-figure${isAverage ? ' average' : ''}` }, caption, map.element);
    return { figure, map };
  }

  #drawHeads(state, result) {
    const mount = byId('mount-heads');
    const H = state.numHeads;
    const views = this.headViews;
    byId('heads-text').textContent = headsText(state);
    byId('projection-text').textContent = projectionText(state);
    show(this.headsReadout, H > 1);
    if (views.length !== (H === 1 ? 0 : H + 1)) {
      for (const view of views) forget(view.map);
      views.length = 0;
      this.headsReadout.replaceChildren();
    }
    if (H === 1) {
      mount.replaceChildren();
      return;
    }
    if (views.length !== H + 1) {
      for (let h = 0; h < H; h++) views.push(this.#headFigure(h));
      views.push(this.#headFigure(-1));
      mount.replaceChildren(...views.map((v) => v.figure), el('div', { class: 'heads-legend' }, weightsLegend()));
    }
    const blocked = (i, j) => maskCell(state, i, j) !== 'open';
    const labels = labelsFor(state);
    const view = { rows: state.n, cols: state.n, blocked, rowLabels: labels, colLabels: labels };
    for (let h = 0; h < H; h++) {
      const { data } = headSlice(result.weights, h);
      views[h].map.update({ data, ...view });
      views[h].figure.classList.toggle('selected', h === state.head);
      const button = views[h].figure.querySelector('button');
      button.setAttribute('aria-pressed', String(h === state.head));
      // With grouped-query attention, the caption names the K and V the head shares with its group.
      const kv = kvHeadsOf(state) < H ? ` · K, V ${headBlock(state, 'wk', h)}` : '';
      button.textContent = `head ${h}${kv}`;
    }
    views[H].map.update({ ...averageHeads(result.weights), ...view });
  }

  #drawTexts(state, result) {
    const scale = scaleTexts(state);
    byId('scale-title').textContent = scale.title;
    byId('scale-formula').textContent = scale.formula;
    byId('scale-text').textContent = scale.text;
    byId('entropy-text').textContent = entropyText(state, result);
    byId('random-note').textContent = randomNote(state, result);
    byId('x-source').textContent = embeddingSourceText(state);
    byId('why-text').textContent = varianceText(state, result);
    const headsNote = byId('qkv-heads-note');
    headsNote.textContent = headColumnsNote(state);
    show(headsNote, state.numHeads > 1);
  }
}
