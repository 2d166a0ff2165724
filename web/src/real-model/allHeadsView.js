// The model view: every layer × head of a real model as a small heatmap with token labels (the page's Heatmap: one
// Tab stop each, arrow keys and the pointer read a cell into one shared readout), each with a button that opens the
// head in the steps and a switch that ablates it.
import { headName } from '../shared/counting.js';
import { formatValue } from '../shared/format.js';
import { Heatmap, weightsLegend } from '../walk/heatmap.js';
import { el } from '../shared/dom.js';
import { forget } from '../walk/renderScheduler.js';

export class ModelView {
  /**
   * @param {{ onSelect: (layer: number, head: number) => void, onAblate: (layer: number, head: number) => void }} handlers
   */
  constructor(handlers) {
    this.handlers = handlers;
    this.readout = el('p', { class: 'cm-readout', attrs: { 'aria-live': 'polite' } });
    this.grid = el('div', { class: 'model-grid' });
    this.figures = []; // [layer][head]: { figure, map, select, ablate }
    this.shape = '';
    this.element = el(
      'div',
      { class: 'model-view' },
      this.grid,
      el('div', { class: 'heads-legend' }, weightsLegend()),
      this.readout,
    );
  }

  #figure(layer, head) {
    const name = headName(layer, head);
    const map = new Heatmap({
      label: `${name} (layer ${layer} head ${head}) attention weights`,
      labels: true,
      readout: this.readout,
      describe: (i, j, w) => {
        const { rowLabels, colLabels, blocked } = map.view;
        return [
          `${name}: “${rowLabels[i]}” (row ${i + 1}) → “${colLabels[j]}” (column ${j + 1})`,
          blocked?.(i, j) ? 'masked: a token does not look ahead' : `weight ${formatValue(w, 3)}`,
        ];
      },
    });
    const select = el('button', {
      type: 'button',
      class: 'head-button',
      text: name,
      dataset: { layer: String(layer), head: String(head) },
      attrs: {
        'aria-label': `${name}: show layer ${layer} head ${head} in the steps`,
        'aria-pressed': 'false',
      },
      on: { click: () => this.handlers.onSelect(layer, head) },
    });
    const ablate = el('button', {
      type: 'button',
      class: 'ablate-button',
      text: 'off',
      dataset: { layer: String(layer), head: String(head) },
      // A toggle: its name stays, aria-pressed says whether the head is switched off (the visible text leads the name).
      attrs: { 'aria-label': `off: switch off ${name}`, 'aria-pressed': 'false' },
      on: { click: () => this.handlers.onAblate(layer, head) },
    });
    const figure = el('figure', { class: 'head-figure model-head' }, el('figcaption', {}, select, ablate), map.element);
    return { figure, map, select, ablate };
  }

  /** Builds the figures for a model of `layers` × `heads` (once per shape). */
  #build(layers, heads) {
    const shape = `${layers}x${heads}`;
    if (this.shape === shape) return;
    for (const row of this.figures) for (const f of row) forget(f.map);
    this.shape = shape;
    this.grid.classList.toggle('many', heads > 6); // smaller heatmaps: a layer of GPT-2's 12 heads on two rows
    this.readout.replaceChildren();
    this.figures = Array.from({ length: layers }, (_, l) =>
      Array.from({ length: heads }, (_, h) => this.#figure(l, h)),
    );
    this.grid.replaceChildren(
      ...this.figures.map((row, l) =>
        el(
          'section',
          { class: 'model-layer', attrs: { 'aria-label': `Layer ${l}` } },
          el('h4', { class: 'model-layer-title', text: `layer ${l}` }),
          el(
            'div',
            { class: 'heads' },
            row.map((f) => f.figure),
          ),
        ),
      ),
    );
  }

  /**
   * Draws every head's weights.
   * @param {{ attentions: { data: Float32Array, shape: number[] }[], labels: string[], causal: boolean,
   *   ablate: number[][], selected: { layer: number, head: number } | null }} shown
   * @returns {number} the milliseconds spent, painting included
   */
  draw({ attentions, labels, causal, ablate, selected }) {
    const t0 = performance.now();
    const [H, n] = attentions[0].shape;
    this.#build(attentions.length, H);
    const blocked = causal ? (i, j) => j > i : undefined;
    const off = new Set(ablate.map(([l, h]) => `${l}.${h}`));
    attentions.forEach((tensor, l) => {
      for (let h = 0; h < H; h++) {
        const f = this.figures[l][h];
        const data = tensor.data.subarray(h * n * n, (h + 1) * n * n);
        f.map.update({ data, rows: n, cols: n, blocked, rowLabels: labels, colLabels: labels });
        f.map.flush();
        const isOff = off.has(`${l}.${h}`);
        f.figure.classList.toggle('ablated', isOff);
        f.ablate.setAttribute('aria-pressed', String(isOff));
      }
    });
    this.select(selected);
    return performance.now() - t0;
  }

  /** Marks the head opened in the steps (none: null), without drawing the weights again. */
  select(selected) {
    this.figures.forEach((row, l) =>
      row.forEach((f, h) => {
        const chosen = selected?.layer === l && selected?.head === h;
        f.figure.classList.toggle('selected', chosen);
        f.select.setAttribute('aria-pressed', String(chosen));
      }),
    );
  }

  /**
   * Marks the heads that a detector names (the Investigate part's head scores): a badge in each one's caption, as
   * "prev 0.67" or "ind 0.25"; heads not in `marks` lose theirs.
   * @param {Map<string, { kind: string, name: string, score: number }>} marks  'layer.head' → its highest kind
   */
  mark(marks) {
    const short = { previousToken: 'prev', duplicateToken: 'dup', induction: 'ind' };
    this.figures.forEach((row, l) =>
      row.forEach((f, h) => {
        const mark = marks.get(`${l}.${h}`);
        f.figure.querySelector('.head-mark')?.remove();
        if (!mark) return;
        const text = `${short[mark.kind]} ${mark.score.toFixed(2)}`;
        const badge = el('span', { class: 'head-mark', text, dataset: { kind: mark.kind } });
        badge.title = `${mark.name} score ${mark.score.toFixed(3)} (Investigate: head scores)`;
        f.figure.querySelector('figcaption').append(badge);
      }),
    );
  }

  /** Forgets the figures (another model comes). */
  clear() {
    for (const row of this.figures) for (const f of row) forget(f.map);
    this.figures = [];
    this.shape = '';
    this.grid.replaceChildren();
    this.readout.replaceChildren();
  }
}
