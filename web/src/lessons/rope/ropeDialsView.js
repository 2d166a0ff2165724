// The RoPE lesson's dials: one small 2-D dial per pair of dimensions (columns) and per token (rows), with q and k
// of that pair before (dashed) and after (solid) the rotation, and the angle turned as an arc. SVG on the light paper
// of the numbers. One tab stop: the arrow keys (and Home/End) move between dials and write the chosen dial's text
// into a readout (a polite live region); each dial also carries its text as its accessible name.
import { dialText } from './ropeLesson.js';
import { el, svg } from '../../shared/dom.js';

const SIZE = 56;
const C = SIZE / 2;
const R = 23;
/** At most this many tokens and pairs are drawn: dials of a long sentence would not be read. */
export const DIAL_ROWS = 12;
export const DIAL_COLS = 8;

const point = (x, y, scale) => [C + x * scale, C - y * scale];
const fmt = (v) => v.toFixed(2);

/** An arrow from the centre to (x, y): its shaft and a head, a triangle for q and a dot for k. */
function arrow(x, y, scale, kind, rotated) {
  const [px, py] = point(x, y, scale);
  const cls = `rope-${kind}${rotated ? '' : ' rope-before'}`;
  const line = svg('line', { x1: C, y1: C, x2: fmt(px), y2: fmt(py), class: cls });
  if (!rotated) return line;
  const length = Math.hypot(px - C, py - C);
  if (length < 3) return line;
  const [ux, uy] = [(px - C) / length, (py - C) / length];
  const head =
    kind === 'q'
      ? svg('polygon', {
          points: [
            [px, py],
            [px - 6 * ux - 3 * uy, py - 6 * uy + 3 * ux],
            [px - 6 * ux + 3 * uy, py - 6 * uy - 3 * ux],
          ]
            .map((p) => p.map(fmt).join(','))
            .join(' '),
          class: `${cls} rope-head`,
        })
      : svg('circle', { cx: fmt(px), cy: fmt(py), r: 2.6, class: `${cls} rope-head` });
  return svg('g', {}, line, head);
}

/** The arc from the pair's own direction (angle 0, to the right) to the angle turned, less whole turns. */
function arc(angle) {
  const turned = angle % (2 * Math.PI);
  if (turned < 0.02) return null;
  const r = R + 3;
  const [x, y] = [C + r * Math.cos(turned), C - r * Math.sin(turned)];
  const large = turned > Math.PI ? 1 : 0;
  return svg('path', { d: `M ${C + r} ${C} A ${r} ${r} 0 ${large} 0 ${fmt(x)} ${fmt(y)}`, class: 'rope-arc' });
}

function dial(step, t, i, dK, scale) {
  const [a, b] = step.pairs[i];
  const at = (v) => [v[t * dK + a], v[t * dK + b]];
  return svg(
    'svg',
    { viewBox: `0 0 ${SIZE} ${SIZE}`, width: SIZE, height: SIZE, class: 'rope-dial', 'aria-hidden': 'true' },
    svg('circle', { cx: C, cy: C, r: R, class: 'rope-rim' }),
    svg('line', { x1: C, y1: C, x2: C + R, y2: C, class: 'rope-zero' }),
    arc(step.positions[t] * step.frequencies[i]),
    arrow(...at(step.q), scale, 'q', false),
    arrow(...at(step.k), scale, 'k', false),
    arrow(...at(step.qRotated), scale, 'q', true),
    arrow(...at(step.kRotated), scale, 'k', true),
  );
}

export class RopeDials {
  constructor() {
    this.active = { t: 0, i: 0 };
    this.cells = [];
    this.step = null;
    this.readout = el('p', { class: 'readout rope-readout', attrs: { 'aria-live': 'polite' } });
    this.table = el('table', { class: 'rope-table' });
    this.scroller = el(
      'div',
      {
        class: 'rope-scroll',
        tabIndex: 0,
        attrs: {
          role: 'group',
          'aria-label': 'Dials of q and k, one per token and pair: arrow keys move between them',
          'data-matrix': 'ropeDials',
        },
        on: { keydown: (event) => this.#key(event) },
      },
      this.table,
    );
    this.scroller.addEventListener('focus', () => this.#show());
    const legend = el(
      'p',
      { class: 'rope-legend rope-note' },
      el('span', { class: 'rope-key rope-key-q', text: 'q ▲' }),
      ' and ',
      el('span', { class: 'rope-key rope-key-k', text: 'k ●' }),
      ' after the rotation (solid) and before it (dashed); the grey arc is the angle turned, position × frequency, ' +
        'counter-clockwise from the line to the right. The arrows of each dial are drawn to one scale.',
    );
    this.element = el('figure', { class: 'rope-dials' }, legend, this.scroller, this.readout);
  }

  /** Draws the dials of `step` (from ropeStep) for the state's d_k. */
  update(state, step) {
    this.step = step;
    this.dK = state.dK;
    const rows = Math.min(step.labels.length, DIAL_ROWS);
    const cols = Math.min(step.pairs.length, DIAL_COLS);
    this.rows = rows;
    this.cols = cols;
    this.active = { t: Math.min(this.active.t, rows - 1), i: Math.min(this.active.i, cols - 1) };
    let largest = 0;
    for (const v of [step.q, step.k, step.qRotated, step.kRotated]) {
      for (let t = 0; t < rows; t++) {
        for (let i = 0; i < cols; i++) {
          const [a, b] = step.pairs[i];
          largest = Math.max(largest, Math.hypot(v[t * state.dK + a], v[t * state.dK + b]));
        }
      }
    }
    const scale = largest > 0 ? R / largest : 1;
    const head = el(
      'tr',
      {},
      el('th', { class: 'rope-corner', text: 'token · pos.', attrs: { scope: 'col' } }),
      step.pairs
        .slice(0, cols)
        .map(([a, b], i) =>
          el(
            'th',
            { attrs: { scope: 'col' } },
            el('span', { class: 'rope-pair', text: `(${a}, ${b})` }),
            el('span', { class: 'rope-freq', text: `f ${Number(step.frequencies[i].toPrecision(2))}` }),
          ),
        ),
    );
    this.cells = [];
    const body = [];
    for (let t = 0; t < rows; t++) {
      const row = [];
      for (let i = 0; i < cols; i++) {
        const text = dialText(step, t, i, state.dK);
        const cell = el(
          'td',
          {
            attrs: { role: 'img', 'aria-label': text, title: text },
            dataset: { t: String(t), i: String(i) },
            on: { click: () => this.#move(t, i), pointerenter: () => this.#move(t, i) },
          },
          dial(step, t, i, state.dK, scale),
        );
        row.push(cell);
      }
      this.cells.push(row);
      body.push(
        el('tr', {}, el('th', { attrs: { scope: 'row' }, text: `${step.labels[t]} · ${step.positions[t]}` }), row),
      );
    }
    const left = [
      step.labels.length > rows ? `${rows} of ${step.labels.length} tokens` : '',
      step.pairs.length > cols ? `${cols} of ${step.pairs.length} pairs` : '',
    ].filter(Boolean);
    const caption = left.length ? el('caption', { text: `The first ${left.join(' and the first ')}.` }) : null;
    this.table.replaceChildren(...[caption, el('thead', {}, head), el('tbody', {}, body)].filter(Boolean));
    this.#show();
  }

  #move(t, i) {
    this.active = { t: Math.max(0, Math.min(this.rows - 1, t)), i: Math.max(0, Math.min(this.cols - 1, i)) };
    this.#show();
  }

  #show() {
    if (!this.step) return;
    const { t, i } = this.active;
    for (const row of this.cells) for (const cell of row) cell.classList.remove('active');
    this.cells[t]?.[i]?.classList.add('active');
    this.readout.textContent = dialText(this.step, t, i, this.dK);
  }

  #key(event) {
    const { t, i } = this.active;
    const moves = {
      ArrowUp: [t - 1, i],
      ArrowDown: [t + 1, i],
      ArrowLeft: [t, i - 1],
      ArrowRight: [t, i + 1],
      Home: [t, 0],
      End: [t, this.cols - 1],
    };
    const next = moves[event.key];
    if (!next) return;
    event.preventDefault();
    this.#move(...next);
    this.cells[this.active.t]?.[this.active.i]?.scrollIntoView({ block: 'nearest', inline: 'nearest' });
  }
}
