// Draws the designed-heads lesson: for each head, how its W_q and W_k make its pattern, its heatmap, and which
// key each query attends to most.
import { notDesignedText } from '../../shared/provenance.js';
import { designedPatterns, designedSizeNote } from './designedLesson.js';
import { headSlice, labelsFor, maskCell } from '../../shared/inputs.js';
import { cellTooltip, quote } from '../../shared/tooltips.js';
import { byId, el, show } from '../../shared/dom.js';
import { Heatmap } from '../../walk/heatmap.js';
import { forget } from '../../walk/renderScheduler.js';

export class DesignedView {
  /**
   * @param {object} app  the page's app (state and result, for the tooltips)
   * @param {{ onLoad: () => void, onSelectHead: (head: number) => void }} handlers
   */
  constructor(app, handlers) {
    this.app = app;
    this.handlers = handlers;
    this.cards = [];
    byId('load-designed').addEventListener('click', () => handlers.onLoad());
  }

  #card(head) {
    const map = new Heatmap({
      label: `Designed head ${head} attention weights`,
      labels: true,
      describe: (i, j, w) => cellTooltip(this.app.state, this.app.result, 'head', i, j, w),
    });
    const title = el('h3', { class: 'designed-title' });
    const how = el('p', { class: 'designed-how' });
    const verdict = el('p', { class: 'designed-verdict', attrs: { 'data-head': String(head) } });
    const argmax = el('p', { class: 'designed-argmax hint' });
    const follow = el('button', {
      type: 'button',
      class: 'secondary small',
      text: `Follow head ${head} in the steps`,
      on: { click: () => this.handlers.onSelectHead(head) },
    });
    const element = el(
      'article',
      { class: 'designed-card' },
      title,
      el(
        'div',
        { class: 'designed-body' },
        el('div', { class: 'designed-map' }, map.element),
        el('div', {}, how, verdict, argmax, map.readout, follow),
      ),
    );
    return { element, map, title, how, verdict, argmax };
  }

  /** Draws the lesson for the state and its selfAttention result (weights [H, n, n]). */
  draw(state, result) {
    const mount = byId('mount-designed');
    byId('load-designed').hidden = state.design;
    show(byId('designed-off'), !state.design);
    if (!state.design) byId('designed-off').textContent = notDesignedText(state);
    const note = byId('designed-note');
    note.textContent = state.design ? designedSizeNote(state) : '';
    show(note, Boolean(note.textContent));
    const patterns = state.design ? designedPatterns(state, result.weights) : [];
    if (this.cards.length !== patterns.length) {
      for (const card of this.cards) forget(card.map);
      this.cards = patterns.map((_, head) => this.#card(head));
      mount.replaceChildren(...this.cards.map((card) => card.element));
    }
    const labels = labelsFor(state);
    const blocked = (i, j) => maskCell(state, i, j) !== 'open';
    patterns.forEach(({ head, design, rows, holds, checked }, h) => {
      const card = this.cards[h];
      card.title.textContent = `Head ${head}: ${design.title}`;
      card.how.textContent = design.how;
      card.verdict.textContent =
        checked === 0
          ? 'No query has a key this design looks for here.'
          : holds === checked
            ? `The pattern holds: in all ${checked} rows it applies to, the largest weight is where the design puts it.`
            : `The pattern is broken in ${checked - holds} of ${checked} rows: ${rows
                .map((r, i) => (r.ok === false ? `${quote(labels[i])} looks most at ${quote(labels[r.argmax])}` : ''))
                .filter(Boolean)
                .join(', ')}.`;
      card.verdict.classList.toggle('broken', holds !== checked);
      card.argmax.textContent = `Largest weight per query: ${rows
        .map((r, i) =>
          r.ok === null && state.design && design.kind === 'same'
            ? `${labels[i]} → no match, even`
            : `${labels[i]} → ${r.argmax === i ? 'itself' : labels[r.argmax]} ${r.weight.toFixed(2)}`,
        )
        .join(' · ')}`;
      const { data } = headSlice(result.weights, head);
      card.map.update({ data, rows: state.n, cols: state.n, blocked, rowLabels: labels, colLabels: labels });
    });
  }
}
