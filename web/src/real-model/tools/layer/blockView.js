// The block around attention: one layer as its steps in order with their real sizes (blockLayout.js), each
// tensor's numbers shown on demand (a disclosure per tensor, its table made when opened), and the residual stream's
// norm per layer as a small bar chart. Draws only.
import { blockParts, normBars, tensorPreview } from './blockLayout.js';
import { formatValue } from '../../../shared/format.js';
import { shortLabel } from '../../../shared/tokens.js';
import { el, svg } from '../../../shared/dom.js';

const CHART = { width: 320, height: 120, pad: { left: 34, right: 6, top: 8, bottom: 22 } };

export class BlockView {
  /** @param {{ label?: string }} [options] */
  constructor({ label = 'The block around attention' } = {}) {
    this.title = el('h4', { class: 'block-view-title' });
    this.parts = el('ol', { class: 'block-view-parts' });
    this.chart = el('figure', { class: 'block-view-chart' });
    this.element = el(
      'section',
      { class: 'block-view', attrs: { 'aria-label': label } },
      this.title,
      this.parts,
      this.chart,
    );
  }

  /**
   * Shows layer `layer` of a model run: its steps from a capture of that layer, and the norms of hiddenStates
   * (`normed`: the last one is after the model's final norm, blockLayout.js's normBars).
   * @param {{ spec: object, layer: number, capture: Record<string, any>,
   *   hiddenStates: { data: ArrayLike<number>, shape: number[] }[], normed: boolean, tokens: string[] }} run
   */
  update({ spec, layer, capture, hiddenStates, normed, tokens }) {
    const n = capture.input.shape[0];
    this.title.textContent = `Layer ${layer} of ${hiddenStates.length - 1} (${spec.labels.placement}), ${n} tokens`;
    const items = blockParts(spec, n).map((part) =>
      part.kind === 'tensor' ? this.#tensorItem(part, capture[part.key], tokens) : this.#operation(part),
    );
    this.parts.replaceChildren(...items);
    const last = layer === hiddenStates.length - 2 ? capture.hidden : null; // the last layer's own output
    this.#drawChart(normBars(hiddenStates, { layer, normed, lastOutput: last }), normed && !last);
  }

  #operation({ kind, label, detail }) {
    return el(
      'li',
      { class: `block-view-op ${kind}` },
      el('span', { class: 'block-view-op-label', text: label }),
      el('span', { class: 'block-view-op-detail', text: detail }),
    );
  }

  #tensorItem({ key, label, shape }, tensor, tokens) {
    const summary = el(
      'summary',
      null,
      el('code', { text: key }),
      ` ${label} `,
      el('span', { class: 'block-view-shape', text: `[${shape.join(' × ')}]` }),
    );
    const details = el('details', { class: 'block-view-tensor', dataset: { key } }, summary);
    details.addEventListener('toggle', () => {
      if (details.open && details.children.length === 1) details.append(numbersTable(tensor, tokens, key));
    });
    return el('li', { class: 'block-view-step' }, details);
  }

  /** The bars (normBars'); `skipped`: the last layer's own output is not among them (another layer is shown). */
  #drawChart(bars, skipped) {
    const { height, pad } = CHART;
    const width = Math.max(CHART.width, pad.left + pad.right + bars.length * 30); // room for each bar's label
    const max = Math.max(...bars.map((bar) => bar.value), 1e-9);
    const plotW = width - pad.left - pad.right;
    const plotH = height - pad.top - pad.bottom;
    const band = plotW / bars.length;
    const drawn = bars.map((bar, i) => {
      const h = (bar.value / max) * plotH;
      return svg(
        'g',
        { 'data-what': bar.what, 'data-norm': String(bar.value) },
        svg('title', null, `${bar.what}: ${formatValue(bar.value, 2)}`),
        svg('rect', {
          class: bar.current ? 'block-view-bar current' : 'block-view-bar',
          x: (pad.left + i * band + band * 0.15).toFixed(1),
          y: (pad.top + plotH - h).toFixed(1),
          width: (band * 0.7).toFixed(1),
          height: Math.max(0.5, h).toFixed(1),
        }),
        svg(
          'text',
          {
            class: 'block-view-axis',
            x: (pad.left + (i + 0.5) * band).toFixed(1),
            y: height - 8,
            'text-anchor': 'middle',
          },
          bar.label,
        ),
      );
    });
    const final = bars.at(-1).label === 'final';
    const last = final
      ? ` “final” is after the final norm: the last layer's output normed, as the LM head reads it${skipped ? ' (that layer’s own output, before the norm, shows when that layer is chosen)' : ''}.`
      : '';
    const described = bars.map((bar) => `${bar.what} ${formatValue(bar.value, 2)}`);
    const chart = svg(
      'svg',
      { viewBox: `0 0 ${width} ${height}`, role: 'img', class: 'block-view-svg' },
      svg('title', null, `Mean norm of the residual stream: ${described.join(', ')}.`),
      svg('text', { class: 'block-view-axis', x: 2, y: pad.top + 8 }, formatValue(max, 1)),
      svg('text', { class: 'block-view-axis', x: 2, y: pad.top + plotH }, '0'),
      ...drawn,
    );
    this.chart.replaceChildren(
      chart,
      el('figcaption', {
        class: 'block-view-note',
        text: `The residual stream's mean norm (‖h‖ per token): “emb” the embeddings, “L0”, “L1”, … each layer's output (layers counted from 0); this layer's input and output are highlighted.${last}`,
      }),
    );
  }
}

/** A tensor's numbers: a row per token, its first columns (the rest counted), and each row's norm. */
function numbersTable(tensor, tokens, key) {
  if (!tensor) return el('p', { class: 'block-view-note', text: `This run holds no ${key}.` });
  const { rows, more } = tensorPreview(tensor);
  const width = tensor.shape[1];
  const head = el(
    'tr',
    null,
    el('th', { text: 'token', attrs: { scope: 'col' } }),
    rows[0].map((_, c) => el('th', { text: String(c), attrs: { scope: 'col' } })),
    more ? el('th', { text: `… ${more} more`, attrs: { scope: 'col' } }) : null,
    el('th', { text: '‖row‖', attrs: { scope: 'col' } }),
  );
  const body = rows.map((row, i) => {
    let sum = 0;
    for (let c = 0; c < width; c++) sum += tensor.data[i * width + c] ** 2;
    return el(
      'tr',
      null,
      el('th', { text: shortLabel(tokens[i] ?? String(i + 1), 10), attrs: { scope: 'row' } }),
      row.map((v) => el('td', { text: formatValue(v, 3) })),
      more ? el('td', { text: '…' }) : null,
      el('td', { text: formatValue(Math.sqrt(sum), 2) }),
    );
  });
  return el(
    'div',
    { class: 'block-view-numbers' },
    el('table', null, el('thead', null, head), el('tbody', null, body)),
  );
}
