// Draws the grouped-query lesson: the kv heads setting, each query head's weights coloured by the K and V it
// shares, each kv head's K and V, and the memory saved.
import { GROUP_COLORS } from '../../shared/colors.js';
import { gqaText } from './gqa.js';
import { headSlice, labelsFor, maskCell } from '../../shared/inputs.js';
import { cellTooltip } from '../../shared/tooltips.js';
import { byId, el, setError, show } from '../../shared/dom.js';
import { Heatmap } from '../../walk/heatmap.js';
import { MatrixGrid } from '../../walk/matrixGrid.js';
import { forget } from '../../walk/renderScheduler.js';

const dims = (count) => Array.from({ length: count }, (_, i) => String(i));

export class GqaView {
  /** @param {object} app  the page's app: state, setState and the last result (for the tooltips) */
  constructor(app) {
    this.app = app;
    this.heads = [];
    this.kv = [];
    // One readout under the query heads' heatmaps, and the shown head's grouped weights as numbers.
    this.readout = el('p', { class: 'cm-readout', attrs: { 'aria-live': 'polite' } });
    this.weights = new MatrixGrid({
      name: 'gqaWeights',
      title: 'weights',
      color: 'weights',
      masked: (i, j) => maskCell(app.state, i, j) !== 'open',
      describe: (i, j, w) => cellTooltip(app.state, app.result, 'head', i, j, w),
    });
    byId('mount-gqa-heads').after(this.readout, el('div', { class: 'matrices' }, this.weights.element));
    byId('kv-heads').addEventListener('input', (event) => {
      const value = Number(event.target.value);
      if (event.target.value.trim() === '' || !Number.isInteger(value) || value < 1 || value > 64) {
        setError(byId('kv-heads-error'), 'kv heads must be a whole number from 1 to the number of heads.');
        event.target.setAttribute('aria-invalid', 'true');
        return;
      }
      event.target.removeAttribute('aria-invalid');
      app.setState({ ...app.state, kvHeads: value === app.state.numHeads ? null : value });
    });
  }

  #headFigure(h) {
    const caption = el('figcaption', { class: 'head-caption' });
    const map = new Heatmap({
      label: `Query head ${h} attention weights (grouped)`,
      labels: true,
      readout: this.readout,
      describe: (i, j, w) => {
        const [pair, ...lines] = cellTooltip(this.app.state, this.app.result, 'head', i, j, w);
        return [`${caption.textContent}: ${pair}`, ...lines];
      },
    });
    return { element: el('figure', { class: 'head-figure gqa-head' }, caption, map.element), map, caption };
  }

  #kvFigure(g) {
    const grid = (name, title) => new MatrixGrid({ name: `${name}${g}`, title, color: 'signed' });
    const k = grid('gqaK', `K of kv head ${g}`);
    const v = grid('gqaV', `V of kv head ${g}`);
    return { element: el('div', { class: 'matrices gqa-kv' }, k.element, v.element), k, v };
  }

  /** Draws the step computed by gqaStep: its inline message when kv heads does not divide heads. */
  draw(state, step) {
    const input = byId('kv-heads');
    const G = state.kvHeads ?? state.numHeads;
    if (document.activeElement !== input) input.value = String(G);
    input.max = String(state.numHeads);
    setError(byId('kv-heads-error'), step.error ?? null);
    if (step.error) input.setAttribute('aria-invalid', 'true');
    else input.removeAttribute('aria-invalid');
    byId('gqa-text').textContent = gqaText(state, step);
    show(byId('mount-gqa'), !step.error);
    if (step.error) return;
    const { numHeads: H, n, dK, dV, precision } = state;
    const labels = labelsFor(state);
    if (this.heads.length !== H) {
      for (const figure of this.heads) forget(figure.map);
      this.heads = Array.from({ length: H }, (_, h) => this.#headFigure(h));
      this.readout.replaceChildren();
    }
    if (this.kv.length !== step.kvHeads) this.kv = Array.from({ length: step.kvHeads }, (_, g) => this.#kvFigure(g));
    const headsMount = byId('mount-gqa-heads');
    if (headsMount.children.length !== H) headsMount.replaceChildren(...this.heads.map((f) => f.element));
    const kvMount = byId('mount-gqa-kv');
    if (kvMount.children.length !== step.kvHeads) kvMount.replaceChildren(...this.kv.map((f) => f.element));
    const blocked = (i, j) => maskCell(state, i, j) !== 'open';
    this.heads.forEach((figure, h) => {
      const g = step.group[h];
      figure.element.style.setProperty('--group', GROUP_COLORS[g % GROUP_COLORS.length]);
      figure.element.dataset.group = String(g);
      figure.caption.textContent = `head ${h} · K, V ${g}`;
      const data = headSlice(step.result.weights, h).data;
      figure.map.update({ data, rows: n, cols: n, blocked, rowLabels: labels, colLabels: labels });
    });
    const h = state.head;
    this.weights.setTitle(
      `weights of query head ${h} (K, V ${step.group[h]})`,
      'grouped · the head shown in the steps · rows sum to 1',
    );
    this.weights.update({
      data: headSlice(step.result.weights, h).data,
      rows: n,
      cols: n,
      rowLabels: labels,
      colLabels: labels,
      precision,
    });
    this.kv.forEach((figure, g) => {
      figure.element.style.setProperty('--group', GROUP_COLORS[g % GROUP_COLORS.length]);
      const users = step.group.flatMap((gg, h) => (gg === g ? [h] : []));
      const note = `shared by head${users.length > 1 ? 's' : ''} ${users.join(', ')}`;
      figure.k.setTitle(`K of kv head ${g}`, note);
      figure.v.setTitle(`V of kv head ${g}`, note);
      const view = (tensor, cols) => ({
        data: headSlice(tensor, g).data,
        rows: n,
        cols,
        rowLabels: labels,
        colLabels: dims(cols),
        precision,
      });
      figure.k.update(view(step.result.k, dK));
      figure.v.update(view(step.result.v, dV));
    });
  }
}
