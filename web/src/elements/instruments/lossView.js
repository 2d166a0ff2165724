// The loss per token on the page: each token of the sentence with the cross-entropy of predicting it from the ones
// before (coloured: darker is more surprising), and the mean.
import { el } from '../../shared/dom.js';
import { weightColor } from '../../shared/colors.js';

export class LossView {
  /** @param {{ ablated?: string }} [how]  how the heads switched off are named (the page: “as they are above”) */
  constructor({ ablated = 'with the heads switched off as they are above' } = {}) {
    this.summary = el('p', { class: 'hint', attrs: { role: 'status' } });
    this.list = el('ol', { class: 'inv-loss', attrs: { 'aria-label': 'Loss per token' } });
    this.element = el(
      'div',
      { class: 'inv-loss-part' },
      el('p', {
        class: 'hint',
        text: `The next-token cross-entropy, −log p(token | the tokens before), in nats (TransformerLens: lm_cross_entropy_loss, per token), ${ablated}. The first token has none.`,
      }),
      this.summary,
      this.list,
    );
  }

  /** @param {{ position: number, token: string, next: string, loss: number, p: number }[]} rows  loss.js's */
  draw(rows, { first, mean, scale, changed }) {
    this.shown = { rows, first, scale }; // what a picture of it draws (instrumentPicture.js)
    const item = (token, row) => {
      const li = el(
        'li',
        { class: 'inv-loss-token', dataset: row ? { position: String(row.position + 1), loss: String(row.loss) } : {} },
        el('span', { class: 'inv-loss-word', text: token }),
        el('span', { class: 'inv-loss-value', text: row ? row.loss.toFixed(2) : '–' }),
      );
      if (row) {
        const c = weightColor(row.loss / scale);
        li.style.background = c.css;
        li.classList.toggle('light-text', c.light);
        li.title = `p(${row.next} | …${row.token}) = ${row.p.toFixed(4)}`;
      }
      return li;
    };
    this.list.replaceChildren(item(first, null), ...rows.map((r) => item(r.next, r)));
    this.summary.textContent = `Mean loss ${Number.isFinite(mean) ? mean.toFixed(3) : '–'} nats over ${rows.length} predictions${changed ? `, ${changed}` : ''}.`;
  }

  clear() {
    this.list.replaceChildren();
    this.summary.textContent = '';
  }
}
