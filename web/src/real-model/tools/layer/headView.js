// The head view (as bertviz's): one layer's tokens in two columns, a line from each query token (left) to each key
// it attends to (right), as opaque as its weight and coloured by head. Hover, focus or tap a token to keep only its
// lines (a tap or Enter pins it; Escape lets go; each column is one Tab stop, the arrow keys move between tokens);
// the head buttons pick which heads draw. Draws only: the layout is model/headLayout.js.
import { formatValue } from '../../../shared/format.js';
import { focusShares, headColor, headLines, strongestLinks } from './headLayout.js';
import { shortLabel } from '../../../shared/tokens.js';
import { el, svg } from '../../../shared/dom.js';

const ROW = 26; // px per token row: the SVG's viewBox matches the token columns row for row
const SIDES = ['left', 'right'];

export class HeadView {
  #weights = null; // { data, shape: [H, n, n] }
  #tokens = [];
  #heads = new Set();
  #hover = null; // { side, token }
  #pinned = null;
  #all = null; // { weights, key, group }: every line of the chosen heads, kept while neither changes

  /** @param {{ label?: string }} [options]  label: the view's accessible name */
  constructor({ label = 'Head view: which tokens each token attends to' } = {}) {
    this.headBar = el('div', { class: 'head-view-heads', attrs: { role: 'group', 'aria-label': 'Heads shown' } });
    this.columns = SIDES.map((side) =>
      el('ol', { class: `head-view-tokens ${side}`, attrs: { 'aria-label': side === 'left' ? 'From' : 'To' } }),
    );
    this.lines = svg('svg', { class: 'head-view-lines', 'aria-hidden': 'true', preserveAspectRatio: 'none' });
    // Away from the screen the browser skips the lines' style, layout and paint (content-visibility in views.css):
    // GPT-2's 6 000 lines at 32 tokens took 60 ms of a frame after each layer drawn there, in idle time.
    this.linesBox = el('div', { class: 'head-view-lines-box' }, this.lines);
    this.focusLines = svg('g'); // a focused token's lines
    this.readout = el('p', { class: 'head-view-readout', attrs: { 'aria-live': 'polite' } });
    this.element = el(
      'section',
      { class: 'head-view', attrs: { 'aria-label': label } },
      this.headBar,
      el(
        'div',
        { class: 'head-view-body' },
        el('span', { class: 'head-view-side', text: 'from' }),
        el('span'),
        el('span', { class: 'head-view-side', text: 'to' }),
        this.columns[0],
        this.linesBox,
        this.columns[1],
      ),
      this.readout,
    );
    this.element.addEventListener('keydown', (event) => this.#key(event));
  }

  /** The heads drawn, from 0. */
  get heads() {
    return [...this.#heads].sort((a, b) => a - b);
  }

  set heads(list) {
    this.#heads = new Set(list);
    this.#render();
  }

  /**
   * Shows a layer: its weights [H, n, n] and the n token labels. The heads chosen stay when H does (all at first).
   * @param {{ weights: { data: ArrayLike<number>, shape: number[] }, tokens: string[] }} layer
   */
  update({ weights, tokens }) {
    const [H, n] = weights.shape;
    if (this.#weights?.shape[0] !== H) this.#heads = new Set(Array.from({ length: H }, (_, h) => h));
    if (this.#weights?.shape[1] !== n) this.#hover = this.#pinned = null;
    this.#weights = weights;
    this.#tokens = Array.from({ length: n }, (_, i) => tokens[i] ?? String(i + 1));
    this.#buildHeads(H);
    this.#buildTokens();
    this.#render();
  }

  get #focus() {
    return this.#pinned ?? this.#hover;
  }

  #buildHeads(H) {
    const toggle = (h) => {
      if (this.#heads.has(h)) this.#heads.delete(h);
      else this.#heads.add(h);
      this.#render();
    };
    const all = el('button', {
      type: 'button',
      class: 'head-view-all',
      text: 'All',
      on: {
        click: () => {
          this.#heads = this.#heads.size === H ? new Set() : new Set(Array.from({ length: H }, (_, h) => h));
          this.#render();
        },
      },
    });
    const buttons = Array.from({ length: H }, (_, h) => {
      const swatch = el('span', { class: 'head-view-swatch' });
      swatch.style.background = headColor(h); // CSSOM, which a strict style-src allows
      const on = { click: () => toggle(h) };
      const attrs = { 'aria-label': `head ${h}` };
      return el(
        'button',
        { type: 'button', class: 'head-view-head', dataset: { head: String(h) }, on, attrs },
        swatch,
        String(h),
      );
    });
    this.headBar.replaceChildren(all, ...buttons);
  }

  #buildTokens() {
    const n = this.#tokens.length;
    this.element.style.setProperty('--head-view-row', `${ROW}px`);
    this.lines.setAttribute('viewBox', `0 0 100 ${n * ROW}`);
    this.lines.style.height = `${n * ROW}px`;
    this.linesBox.style.containIntrinsicHeight = `auto ${n * ROW}px`; // its height while skipped
    SIDES.forEach((side, s) => {
      const items = this.#tokens.map((token, t) => {
        const button = el('button', {
          type: 'button',
          class: 'head-view-token',
          text: shortLabel(token, 14),
          title: token,
          dataset: { side, token: String(t) },
          // one Tab stop per column (its first token, then the last one focused); the arrow keys move
          attrs: { 'aria-pressed': 'false', tabindex: t === 0 ? '0' : '-1' },
          on: {
            pointerenter: () => this.#setHover({ side, token: t }),
            pointerleave: () => this.#setHover(null),
            focus: () => this.#setHover({ side, token: t }),
            blur: () => this.#setHover(null),
            click: () => this.#pin({ side, token: t }),
          },
        });
        return el('li', null, button);
      });
      this.columns[s].replaceChildren(...items);
    });
  }

  #setHover(focus) {
    this.#hover = focus;
    this.#render();
  }

  #pin(focus) {
    const same = this.#pinned?.side === focus.side && this.#pinned.token === focus.token;
    this.#pinned = same ? null : focus;
    this.#render();
  }

  #key(event) {
    const { side, token } = event.target.dataset ?? {};
    if (event.key === 'Escape' && this.#pinned) {
      this.#pinned = null;
      this.#render();
      event.preventDefault();
      return;
    }
    if (side === undefined || token === undefined) return;
    const moves = { ArrowUp: [0, -1], ArrowDown: [0, 1], ArrowLeft: [-1, 0], ArrowRight: [1, 0] };
    const move = moves[event.key];
    if (!move) return;
    const s = Math.min(1, Math.max(0, SIDES.indexOf(side) + move[0]));
    const t = Math.min(this.#tokens.length - 1, Math.max(0, Number(token) + move[1]));
    const target = this.columns[s].querySelectorAll('button')[t];
    for (const button of this.columns[s].querySelectorAll('button')) button.tabIndex = button === target ? 0 : -1;
    target?.focus();
    event.preventDefault();
  }

  #render() {
    if (!this.#weights) return;
    const heads = this.heads;
    const focus = this.#focus;
    const H = this.#weights.shape[0];
    for (const button of this.headBar.querySelectorAll('.head-view-head')) {
      button.setAttribute('aria-pressed', String(this.#heads.has(Number(button.dataset.head))));
    }
    this.headBar.querySelector('.head-view-all').setAttribute('aria-pressed', String(this.#heads.size === H));
    // Every line of the chosen heads is drawn once per layer and head choice, and kept: a focus draws its few
    // lines in a group of its own and hides that one, so that leaving a token costs nothing.
    const key = heads.join(',');
    if (this.#all?.weights !== this.#weights || this.#all.key !== key) {
      this.#all = { weights: this.#weights, key, group: svg('g', null, ...this.#lineElements(heads, null)) };
      this.lines.replaceChildren(this.#all.group, this.focusLines);
    }
    this.#all.group.style.display = focus ? 'none' : '';
    this.focusLines.replaceChildren(...(focus ? this.#lineElements(heads, focus) : []));
    const shares = focusShares(this.#weights, { heads, focus });
    SIDES.forEach((side, s) => {
      this.columns[s].querySelectorAll('button').forEach((button, t) => {
        const isFocus = focus?.side === side && focus.token === t;
        const share = shares && focus.side !== side ? shares[t] : 0;
        button.classList.toggle('focused', isFocus);
        button.setAttribute('aria-pressed', String(this.#pinned?.side === side && this.#pinned.token === t));
        button.style.setProperty('--share', share.toFixed(3));
      });
    });
    this.readout.textContent = this.#describe(focus, heads);
  }

  #lineElements(heads, focus) {
    const y = (t) => String((t + 0.5) * ROW);
    // A layer of GPT-2 at 32 tokens draws 6 000 lines: each a clone of one line with what they share, 4 attributes set.
    const template = svg('line', { x1: 0, x2: 100, 'vector-effect': 'non-scaling-stroke' });
    const colors = heads.map(headColor);
    const colorOf = new Map(heads.map((h, k) => [h, colors[k]]));
    return headLines(this.#weights, { heads, focus }).map(({ head, i, j, weight }) => {
      const line = template.cloneNode(false);
      line.setAttribute('y1', y(i));
      line.setAttribute('y2', y(j));
      line.setAttribute('stroke', colorOf.get(head));
      line.setAttribute('stroke-opacity', Math.min(1, weight).toFixed(3));
      return line;
    });
  }

  #describe(focus, heads) {
    if (!heads.length) return 'No head is shown: pick one above.';
    const count = heads.length === 1 ? `head ${heads[0]}` : `${heads.length} heads`;
    if (!focus) return `${count}. Hover, focus or tap a token to see only its lines.`;
    const name = this.#tokens[focus.token];
    const links = strongestLinks(this.#weights, { heads, focus }).map(
      ({ head, token, weight }) => `‘${this.#tokens[token]}’ ${formatValue(weight, 2)} (head ${head})`,
    );
    const verb = focus.side === 'left' ? 'attends most to' : 'is attended to most by';
    return `‘${name}’ ${verb} ${links.join(', ') || 'nothing above the threshold'} — ${count}.`;
  }
}
