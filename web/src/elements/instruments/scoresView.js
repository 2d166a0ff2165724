// Head detector scores on the page: a table of every head's previous-token, duplicate-token and induction scores,
// sorted by any column (its header a button; aria-sort says how), with the sequences scored and the exclusions.
import { el } from '../../shared/dom.js';
import { weightColor } from '../../shared/colors.js';
import { SCORE_KINDS, sortRows } from '../../shared/instruments/headScores.js';

export class ScoresView {
  /**
   * @param {{ onOptions: () => void, onHead?: (layer: number, head: number) => void, opens?: string }} handlers
   *   without onHead, the heads' names are text; opens: what a click does (an element's; the page's opens it in the
   *   steps, and its model view marks the heads)
   */
  constructor(handlers) {
    this.sort = { key: 'name', descending: false };
    this.rows = [];
    this.handlers = handlers;
    this.which = el(
      'select',
      { id: 'inv-scores-ids', on: { change: handlers.onOptions } },
      el('option', { value: 'sentence', text: 'the sentence' }),
      el('option', { value: 'repeated', text: '4 sequences of 12 random tokens, each written twice' }),
    );
    const box = (id, text) => {
      const input = el('input', { type: 'checkbox', id, on: { change: handlers.onOptions } });
      return { input, label: el('label', { class: 'check', for: id }, input, ' ', text) };
    };
    this.bos = box('inv-scores-bos', 'leave out the first token (excludeBos)');
    this.current = box('inv-scores-current', 'leave out each token’s own key (excludeCurrentToken)');
    this.table = el('table', { class: 'inv-scores', attrs: { 'aria-label': 'Head detector scores' } });
    this.summary = el('p', { class: 'hint', attrs: { role: 'status' } });
    this.element = el(
      'div',
      { class: 'inv-head-scores' },
      el('p', {
        class: 'hint',
        text: `How much of each head’s attention falls where a pattern says (TransformerLens: head_detector, “mul”): previous token (the sub-diagonal), duplicate token (earlier copies of the same token), induction (the token after an earlier copy), with every head on.${handlers.opens ? ` Click a head to ${handlers.opens}.` : handlers.onHead ? ' The model view above marks each head that stands out in a pattern: 0.15 or more, and at least half the pattern’s highest score.' : ''}`,
      }),
      el(
        'div',
        { class: 'inv-fields' },
        el('label', { class: 'field inline', for: 'inv-scores-ids' }, el('span', { text: 'Scored on' }), this.which),
        this.bos.label,
        this.current.label,
      ),
      this.summary,
      this.table,
    );
  }

  /** The options chosen: the sequences, and the exclusions. */
  options() {
    return {
      which: this.which.value,
      excludeBos: this.bos.input.checked,
      excludeCurrentToken: this.current.input.checked,
    };
  }

  /** @param {object[]} rows  headScores.js's scoreRows */
  draw(rows, summary) {
    this.rows = rows;
    this.summary.textContent = summary;
    this.#render();
  }

  #render() {
    const { key, descending } = this.sort;
    const header = (k, text) => {
      const sorted = key === k;
      const button = el('button', {
        type: 'button',
        class: 'inv-sort',
        text: `${text}${sorted ? (descending ? ' ▼' : ' ▲') : ''}`,
        dataset: { key: k },
        on: { click: () => this.sortBy(k) },
      });
      return el(
        'th',
        { scope: 'col', attrs: { 'aria-sort': sorted ? (descending ? 'descending' : 'ascending') : 'none' } },
        button,
      );
    };
    const cell = (v) => {
      const td = el('td', { class: 'num', text: Number.isNaN(v) ? '–' : v.toFixed(3), dataset: { value: String(v) } });
      const c = weightColor(v);
      td.style.background = c.css;
      td.classList.toggle('light-text', c.light);
      return td;
    };
    const body = sortRows(this.rows, key, descending).map((r) =>
      el(
        'tr',
        { dataset: { layer: String(r.layer), head: String(r.head) } },
        el(
          'th',
          { scope: 'row' },
          this.handlers.onHead
            ? el('button', {
                type: 'button',
                class: 'inv-head-link',
                text: r.name,
                attrs: { 'aria-label': `${r.name}: ${this.handlers.opens ?? 'open it in the steps'}` },
                on: { click: () => this.handlers.onHead(r.layer, r.head) },
              })
            : r.name,
        ),
        ...SCORE_KINDS.map(({ kind }) => cell(r[kind])),
      ),
    );
    this.table.replaceChildren(
      el('thead', {}, el('tr', {}, header('name', 'head'), ...SCORE_KINDS.map(({ kind, name }) => header(kind, name)))),
      el('tbody', {}, body),
    );
  }

  /** Sorts by column `key` (a second click reverses; a score column starts highest first). */
  sortBy(key) {
    const again = this.sort.key === key;
    this.sort = { key, descending: again ? !this.sort.descending : key !== 'name' };
    this.#render();
    this.table.querySelector(`button[data-key="${key}"]`)?.focus();
  }

  clear() {
    this.rows = [];
    this.table.replaceChildren();
    this.summary.textContent = '';
  }
}
