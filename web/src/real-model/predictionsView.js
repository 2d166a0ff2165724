// A real model's tokens (as it splits the sentence: readable text, the vocabulary's spelling, the id) and its
// predictions (the top tokens with their probabilities, and how an ablation moved them), as plain DOM: text goes in
// as text only.
import { predictionChanges, probabilityOf, readableToken, signedChange, topTokens } from './realModel.js';
import { el } from '../shared/dom.js';

export class TokensView {
  /** @param {{ onMask?: (index: number) => void }} handlers  onMask: a token clicked to mask it (BERT) */
  constructor(handlers = {}) {
    this.handlers = handlers;
    this.list = el('ol', {
      class: 'model-tokens',
      attrs: { 'aria-label': 'Tokens as the model splits the sentence' },
    });
    this.note = el('p', { class: 'hint model-unknown', id: 'model-unknown', hidden: true });
    this.element = el('div', {}, this.list, this.note);
  }

  /**
   * @param {{ ids: number[], rawTokens: string[], tokens: string[], maskable: boolean, masked: number,
   *   unknown?: (string | null)[], note?: string }} shown
   *   masked: the index shown as [MASK] (BERT), or -1; unknown[i]: the word typed when token i is the vocabulary's
   *   unknown token ('' when it cannot be told), else null (vocabulary.js's unknownWords); note: what they mean
   */
  draw({ ids, rawTokens, tokens, maskable, masked, unknown = [], note = '' }) {
    const items = ids.map((id, i) => {
      const raw = rawTokens?.[i] ?? tokens?.[i] ?? String(id);
      const word = unknown[i] ?? null;
      const text = word ? word : readableToken(raw, tokens?.[i] ?? null);
      const body = [
        el('span', { class: 'token-text', text }),
        el('span', { class: 'token-id', text: word === null ? String(id) : `${raw} ${id}` }),
      ];
      const title =
        word === null
          ? `token ${i + 1}: ${JSON.stringify(raw)}, id ${id}`
          : `token ${i + 1}: ${word ? `“${word}” is` : 'a word'} not in the vocabulary: the model reads ${raw}, id ${id}`;
      const unknownClass = word === null ? '' : ' unknown';
      const chip = maskable
        ? el(
            'button',
            {
              type: 'button',
              class: `token-chip${i === masked ? ' masked' : ''}${unknownClass}`,
              title,
              dataset: { index: String(i) },
              attrs: { 'aria-label': `${title}. Mask it`, 'aria-pressed': String(i === masked) },
              on: { click: () => this.handlers.onMask?.(i) },
            },
            body,
          )
        : el('span', { class: `token-chip${unknownClass}`, title, attrs: { 'aria-label': title } }, body);
      return el('li', { dataset: { id: String(id), ...(word === null ? {} : { unknown: word }) } }, chip);
    });
    this.list.replaceChildren(...items);
    this.note.textContent = note;
    this.note.hidden = !note;
  }

  /** No tokens (a model loaded, not run yet). */
  clear() {
    this.list.replaceChildren();
    this.note.textContent = '';
    this.note.hidden = true;
  }
}

export class PredictionsView {
  constructor() {
    this.caption = el('caption', {});
    this.body = el('tbody', {});
    this.head = el('thead', {});
    this.gone = el('p', { class: 'hint' });
    this.element = el(
      'div',
      { class: 'model-predictions' },
      el('table', { class: 'predictions-table' }, this.caption, this.head, this.body),
      this.gone,
    );
  }

  /**
   * Draws a run's prediction at row `row` (the last token, or BERT's [MASK]), beside the run with every head on
   * (`base`, when heads are switched off or numbers edited: `changed` says which, "with …").
   */
  show({ model, vocab, r, base, row, changed = 'with the heads switched off' }) {
    const V = model.spec.vocabSize;
    const where = model.spec.choices.maskedLm ? `at [MASK] (token ${row + 1})` : 'after the last token';
    if (!r.logits || row < 0) {
      const why = !r.logits
        ? 'This checkpoint has no language-model head: there is nothing to predict.'
        : 'Type [MASK] in the sentence, or click a token above to mask it: the model then guesses it.';
      return this.draw({ title: why, rows: [], compared: false, gone: [] });
    }
    const name = (id) => ({ raw: vocab[id] ?? String(id), token: null });
    const top = topTokens(r.logits.data, V, row).map((t) => ({ ...t, ...name(t.id) }));
    if (!base)
      return this.draw({ title: `The model's top ${top.length} ${where}`, rows: top, compared: false, gone: [] });
    const baseTop = topTokens(base.logits.data, V, row).map((t) => ({ ...t, ...name(t.id) }));
    const { rows, gone } = predictionChanges(
      top,
      baseTop,
      (id) => probabilityOf(base.logits.data, V, row, id),
      (id) => probabilityOf(r.logits.data, V, row, id),
    );
    const title = `The model's top ${top.length} ${where}, ${changed}`;
    this.draw({ title, rows, compared: true, gone, plain: changed.includes('edit') ? 'unedited' : 'all heads on' });
  }

  /**
   * @param {{ title: string, rows: { id: number, token: string, p: number, before?: number, delta?: number }[],
   *   compared: boolean, gone: { id: number, token: string, p: number, now?: number }[] }} shown
   *   compared: the ablated run beside the full one (columns "without ablation" and the change)
   */
  draw({ title, rows, compared, gone, plain = 'all heads on' }) {
    this.caption.textContent = title;
    const headings = ['#', 'token', 'id', 'p', ...(compared ? [plain, 'change'] : [])];
    this.head.replaceChildren(
      el(
        'tr',
        {},
        headings.map((text) => el('th', { text, attrs: { scope: 'col' } })),
      ),
    );
    const top = Math.max(...rows.map((row) => row.p), 1e-9);
    this.body.replaceChildren(
      ...rows.map((row, k) => {
        const bar = el('span', { class: 'p-bar', attrs: { 'aria-hidden': 'true' } });
        bar.style.setProperty('--p', (row.p / top).toFixed(3)); // of the top token's bar (realModel.css)
        const cells = [
          el('td', { text: String(k + 1) }),
          el('td', { class: 'p-token', text: readableToken(row.raw ?? row.token, row.token) }),
          el('td', { class: 'num', text: String(row.id) }),
          el('td', { class: 'num p-cell' }, bar, el('span', { class: 'p-value', text: row.p.toFixed(3) })),
        ];
        if (compared) {
          cells.push(el('td', { class: 'num', text: row.before.toFixed(3) }));
          const sign = row.delta > 5e-4 ? 'up' : row.delta < -5e-4 ? 'down' : 'same';
          cells.push(el('td', { class: `num change ${sign}`, text: signedChange(row.delta) }));
        }
        return el('tr', { dataset: { id: String(row.id) } }, cells);
      }),
    );
    this.gone.textContent = gone.length
      ? `Left the list after the ablation: ${gone.map((t) => `“${readableToken(t.raw ?? t.token, t.token)}” (was ${t.p.toFixed(3)}${t.now === undefined ? '' : `, now ${t.now.toFixed(3)}`})`).join(', ')}.`
      : '';
  }

  /** No prediction (a model loaded, not run yet). */
  clear() {
    this.draw({ title: '', rows: [], compared: false, gone: [] });
  }
}
