// The logit lens on the page: the residuals × positions grid (each cell the top token and its probability, coloured
// by it) and the chosen token's probability at one position per residual, as a line. A cell clicked chooses its
// token and position; a token typed (word or id) chooses it too.
import { el, svg } from '../../shared/dom.js';
import { weightColor } from '../../shared/colors.js';
import { GridView } from './gridView.js';

export class LensView {
  /** @param {{ onPick: (position: number, id: number) => void, onToken: (text: string) => void }} handlers */
  constructor(handlers) {
    this.grid = new GridView({
      label: 'Logit lens: the top token of each residual at each position',
      onCell: (i, j) => handlers.onPick(j, this.shown.rows[i].cells[j].id),
      cellLabel: (i, j, c) => `${this.rowLabels[i]}, position ${j}: top ${c.text} p ${c.sub}; choose it`,
    });
    this.token = el('input', { type: 'text', id: 'inv-lens-token', autocomplete: 'off', spellcheck: false, size: 12 });
    this.token.addEventListener('change', () => handlers.onToken(this.token.value));
    this.caption = el('p', { class: 'hint inv-lens-caption', attrs: { role: 'status' } });
    this.chart = el('div', { class: 'inv-line' });
    this.element = el(
      'div',
      { class: 'inv-lens' },
      el('p', {
        class: 'hint',
        text: 'Each residual stream read through the final norm and the LM head, as if the model stopped there (TransformerLens: accumulated_resid, then unembed). Each cell: the top token and its probability (colour). Click a cell to follow its token down the layers.',
      }),
      this.grid.element,
      el(
        'label',
        { class: 'field inline', for: 'inv-lens-token' },
        el('span', { text: 'Token followed (a word or an id)' }),
        this.token,
      ),
      this.caption,
      this.chart,
    );
  }

  /**
   * @param {{ rows: { label: string, cells: { id: number, token: string, p: number }[] }[], line: number[] }} grid
   * @param {{ tokens: string[], position: number, chosenName: string }} how
   */
  draw(grid, { tokens, position, chosenName }) {
    this.shown = grid;
    this.rowLabels = grid.rows.map((r) => r.label);
    this.grid.draw({
      rowLabels: this.rowLabels,
      columns: tokens.map((t, i) => `${i} ${t}`),
      cells: grid.rows.map((row) =>
        row.cells.map((c, j) => ({
          text: c.token,
          sub: c.p.toFixed(2),
          value: c.p,
          color: weightColor(c.p),
          title: `${c.token} (id ${c.id}): p ${c.p.toFixed(4)}${j === position ? ' · the position followed' : ''}`,
        })),
      ),
    });
    this.grid.table.querySelectorAll(`td[data-col="${position}"]`).forEach((td) => td.classList.add('followed'));
    this.caption.textContent = `p(${chosenName}) at position ${position} “${tokens[position]}”, residual by residual: ${grid.line.map((p) => p.toFixed(3)).join(' → ')}`;
    this.#line(grid.line, this.rowLabels);
  }

  /** The chosen token's probability per residual as a line (0 to 1), each point labelled. */
  #line(values, labels) {
    const [w, h, left, bottom] = [360, 140, 34, 34];
    const x = (l) => left + ((w - left - 12) * l) / Math.max(1, values.length - 1);
    const y = (p) => 8 + (h - bottom - 8) * (1 - p);
    const points = values.map((p, l) => `${x(l)},${y(Number.isFinite(p) ? p : 0)}`).join(' ');
    this.chart.replaceChildren(
      svg(
        'svg',
        { viewBox: `0 0 ${w} ${h}`, class: 'inv-line-svg', role: 'img', 'aria-label': this.caption.textContent },
        svg('line', { x1: left, y1: y(0), x2: w - 8, y2: y(0), class: 'inv-axis' }),
        svg('line', { x1: left, y1: y(1), x2: w - 8, y2: y(1), class: 'inv-axis faint' }),
        svg('text', { x: left - 4, y: y(0) + 4, class: 'inv-tick', 'text-anchor': 'end' }, '0'),
        svg('text', { x: left - 4, y: y(1) + 4, class: 'inv-tick', 'text-anchor': 'end' }, '1'),
        svg('polyline', { points, class: 'inv-polyline' }),
        ...values.map((p, l) =>
          svg('circle', { cx: x(l), cy: y(Number.isFinite(p) ? p : 0), r: 3.5, class: 'inv-point' }),
        ),
        ...labels.map((label, l) =>
          svg(
            'text',
            {
              x: x(l),
              y: h - 18,
              class: 'inv-tick',
              'text-anchor': l === 0 ? 'start' : l === labels.length - 1 ? 'end' : 'middle',
            },
            label.replace(' (final)', ''),
          ),
        ),
      ),
    );
  }

  clear() {
    this.grid.clear();
    this.caption.textContent = '';
    this.chart.replaceChildren();
  }
}
