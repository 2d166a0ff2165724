// Direct logit attribution on the page: the layers × heads heatmap of each head's part of the logit (difference),
// the other parts beside (embeddings, each MLP and attention bias, the final norm's bias), the target typed as token
// a (− token b), and a head clicked opens it (the page: in the walk; an element: its attention weights).
import { el, show } from '../../shared/dom.js';
import { signedColor } from '../../shared/colors.js';
import { headName } from '../../shared/counting.js';
import { formatValue } from '../../shared/format.js';
import { GridView } from './gridView.js';

export class AttributionView {
  /**
   * @param {{ onTarget: () => void, onHead?: (layer: number, head: number) => void, opens?: string }} handlers
   *   without onHead, the heads are not buttons; opens: what a click does (default: open it in the steps)
   */
  constructor(handlers) {
    const opens = handlers.opens ?? 'open it in the steps';
    const field = (id, label) => {
      const input = el('input', { type: 'text', id, autocomplete: 'off', spellcheck: false, size: 12 });
      input.addEventListener('change', handlers.onTarget);
      return { input, label: el('label', { class: 'field inline', for: id }, el('span', { text: label }), input) };
    };
    this.a = field('inv-attr-a', 'Token a (empty: the predicted one)');
    this.b = field('inv-attr-b', '− token b (optional)');
    this.grid = new GridView({
      label: 'Direct logit attribution: each head, layers by heads',
      onCell: handlers.onHead ? (l, h) => handlers.onHead(l, h) : null,
      cellLabel: (l, h, c) => `${headName(l, h)}: ${c.text}; ${opens}`,
    });
    this.parts = el('table', { class: 'inv-parts', attrs: { 'aria-label': 'The other parts of the logit' } });
    this.summary = el('p', { class: 'hint', attrs: { role: 'status' } });
    // The heads' grid and the other parts under their headings: shown with numbers only (none yet, or a target that
    // is no token: the summary says why).
    this.pair = el(
      'div',
      { class: 'inv-pair', hidden: true },
      el('div', {}, el('h5', { text: 'Heads' }), this.grid.element),
      el('div', {}, el('h5', { text: 'The other parts' }), this.parts),
    );
    this.element = el(
      'div',
      { class: 'inv-attribution' },
      el('p', {
        class: 'hint',
        text: `What each part of the model writes into the last token’s residual stream, read through the final norm (its scale frozen) and the LM head’s row of the token (TransformerLens: decompose_resid, logit_attrs). The parts sum to the logit.${handlers.onHead ? ` Click a head to ${opens}.` : ''}`,
      }),
      el('div', { class: 'inv-fields' }, this.a.label, this.b.label),
      this.summary,
      this.pair,
    );
  }

  /** The two fields' text. */
  values() {
    return { a: this.a.input.value, b: this.b.input.value };
  }

  /** @param {ReturnType<typeof import('../../shared/instruments/attribution.js').attributionView>} view */
  draw(view, summary) {
    this.shown = view; // what a picture of it draws (instrumentPicture.js)
    const color = (v) => signedColor(v, view.maxAbs);
    const headColor = (v) => signedColor(v, view.headsMaxAbs); // the heads on their own scale
    this.grid.draw({
      rowLabels: view.heads.map((_, l) => `L${l}`),
      columns: Array.from({ length: view.H }, (_, h) => `H${h}`),
      cells: view.heads.map((row, l) =>
        row.map((v, h) => ({
          text: formatValue(v, 2),
          value: v,
          color: headColor(v),
          title: `${headName(l, h)}: ${v.toFixed(4)}`,
        })),
      ),
    });
    const row = (p) => {
      const td = el('td', { class: 'num', text: formatValue(p.value, 3) });
      if (p.key !== 'total') {
        td.style.background = color(p.value).css; // CSSOM, which the page's CSP allows (a style attribute it does not)
        td.classList.toggle('light-text', color(p.value).light);
      }
      return el(
        'tr',
        { dataset: { part: p.key, value: String(p.value) } },
        el('th', { scope: 'row', text: p.label }),
        td,
      );
    };
    const total = { key: 'total', label: 'total (the run’s logit)', value: view.total };
    this.parts.replaceChildren(el('tbody', {}, [...view.parts, total].map(row)));
    show(this.pair, true);
    this.say(summary);
  }

  say(text) {
    this.summary.textContent = text;
  }

  clear() {
    this.grid.clear();
    this.parts.replaceChildren();
    show(this.pair, false);
    this.say('');
  }
}
