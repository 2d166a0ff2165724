// What both elements share: a shadow root with the adopted stylesheet, attributes and properties read into the
// page's state, exact numbers from a child JSON script or a file, the shared attention-wasm instance, computing
// only once in view, polite messages for bad input, the attention-change event, the author's fallback content (shown
// until the figure is ready, and when it cannot be), the caption, the highlight, and the figure's export.
import { attentionCall, labelsFor } from '../shared/inputs.js';
import { el } from '../shared/dom.js';
import { sharedAttention } from './api.js';
import { OWN_ATTRIBUTES, SETTINGS, propertyName, stateFromAttributes, unknownAttributeWarning } from './attributes.js';
import { styleSheet } from './styles.js';

const warned = new Set();
const sources = new Map();
const BOOLEAN = new Set(['causal', 'scale', 'positions', 'readonly']);
// A figure without the attributes display.js reads (loaded only for an element with one of them).
const PLAIN = { caption: '', values: 'weights', hide: new Set(), exports: new Set(), problems: [] };
const DISPLAY = ['caption', 'values', 'hide', 'export'];
// Fallback content that shows nothing: the exact numbers' script, and white space.
const shows = (node) =>
  node.nodeType === Node.ELEMENT_NODE ? !/^(?:script|template|style)$/iu.test(node.localName) : /\S/u.test(node.data);
const STATE_FIELDS = {
  sentence: 'sentence',
  seed: 'seed',
  'd-model': 'dModel',
  'd-k': 'dK',
  'd-v': 'dV',
  heads: 'numHeads',
  head: 'head',
  causal: 'causal',
  temperature: 'temperature',
  scale: 'scaling',
  positions: 'positions',
  'kv-heads': 'kvHeads',
  source: 'source',
  precision: 'precision',
};

let observer = null;
/** One IntersectionObserver for every element: each computes when it comes near the viewport. */
function watch(element) {
  if (typeof IntersectionObserver === 'undefined') return element.reveal();
  observer ??= new IntersectionObserver(
    (entries) => {
      for (const entry of entries) {
        if (!entry.isIntersecting) continue;
        observer.unobserve(entry.target);
        entry.target.reveal();
      }
    },
    { rootMargin: '200px 0px' },
  );
  observer.observe(element);
}

export class AttentionElement extends HTMLElement {
  static get observedAttributes() {
    return [...SETTINGS, ...(OWN_ATTRIBUTES[this.tag] ?? [])];
  }

  constructor() {
    super();
    const root = this.attachShadow({ mode: 'open' });
    root.adoptedStyleSheets = [styleSheet()];
    this.messageNode = el('div', { class: 'message', attrs: { part: 'message', role: 'status' } });
    this.messageNode.hidden = true;
    // The author's content inside the element (an image, say) shows in place of the figure until it is ready.
    this.pendingText = el('span', { text: 'The figure is computed when it scrolls into view.' });
    const fallback = el('slot', {
      on: { slotchange: () => this.pendingNode.classList.toggle('fallback', fallback.assignedNodes().some(shows)) },
    });
    this.pendingNode = el('div', { class: 'pending' }, fallback, this.pendingText);
    this.content = el('div', { class: 'content' });
    this.captionNode = el('p', { id: 'caption', class: 'caption', attrs: { part: 'caption' } });
    this.exportNode = el('div', { class: 'export', attrs: { part: 'export' } });
    this.captionNode.hidden = this.exportNode.hidden = true;
    this.box = el(
      'div',
      { class: 'box', attrs: { part: 'box' } },
      this.messageNode,
      this.pendingNode,
      this.content,
      this.captionNode,
      this.exportNode,
    );
    root.append(this.box);
    this.display = PLAIN;
    this.marks = null;
    this.visible = false;
    this.status = 'pending';
    this.result = null;
    this.attention = null;
    this.currentState = null;
    this.dataObject = undefined;
    this.queued = false;
    this.edited = null;
    this.run = 0;
    this.modelFigure = null; // on a real model (`model`): modelFigure.js's ModelFigureState, made at its first run
  }

  connectedCallback() {
    for (const name of this.getAttributeNames()) {
      const warning = unknownAttributeWarning(this.localName, name);
      if (warning && !warned.has(`${this.localName}:${name}`)) {
        warned.add(`${this.localName}:${name}`);
        console.warn(warning);
      }
    }
    this.children$ ??= new MutationObserver(() => this.refresh());
    this.children$.observe(this, { childList: true, characterData: true, subtree: true });
    watch(this);
  }

  disconnectedCallback() {
    this.children$?.disconnect();
    observer?.unobserve(this);
  }

  attributeChangedCallback(_name, before, after) {
    if (before !== after) this.refresh();
  }

  /** Called once the element is near the viewport: from then on it computes. */
  reveal() {
    if (this.visible) return;
    this.visible = true;
    this.refresh();
  }

  /** Recomputes from the attributes soon (changes in one task are computed once). */
  refresh() {
    this.edited = null;
    this.schedule();
  }

  schedule() {
    if (!this.visible || this.queued) return;
    this.queued = true;
    queueMicrotask(() => {
      this.queued = false;
      this.#compute().catch((error) => this.showMessage([`Something went wrong: ${error?.message ?? error}`]));
    });
  }

  /** Recomputes with a state the reader made (a typed number, a head chosen), keeping it until attributes change. */
  setEdited(state) {
    this.edited = state;
    this.schedule();
  }

  /** The state to show, with the problems found reading it. */
  async readState() {
    // What only some attributes need loads only for them, so that a post without them stays small: the examples'
    // model for `example`, the link table for `state`, the counting rules for `head`.
    const [examples, decodeState, readCounts] = await Promise.all([
      this.hasAttribute('example') ? import('../shared/examples.js').then((m) => m.EXAMPLES) : [],
      this.hasAttribute('state') ? import('../shared/link.js').then((m) => m.decodeState) : null,
      this.hasAttribute('head') ? import('../shared/counting.js').then((m) => m.readCounts) : null,
    ]);
    const get = (name) => this.getAttribute(name);
    const { state, problems } = stateFromAttributes(get, { examples, decodeState, readCounts });
    let data = this.dataObject;
    const script = this.querySelector(':scope > script[type="application/json"]');
    const src = this.getAttribute('src');
    if (data === undefined && !script && !src) return { state, problems };
    // The reader of exact numbers loads only for an element that has some.
    const { InputProblem, applyData, parseJson } = await import('./data.js');
    try {
      if (data === undefined && script)
        data = parseJson(script.textContent, 'the <script type="application/json"> inside the element');
      if (data === undefined && src) {
        const url = new URL(src, document.baseURI).href;
        if (!sources.has(url))
          sources.set(
            url,
            import('./source.js').then(({ loadSource }) => loadSource(url, (u) => fetch(u), src)),
          );
        data = await (await sources.get(url))(state);
      }
      return { state: data === undefined ? state : applyData(state, data), problems };
    } catch (error) {
      if (!(error instanceof InputProblem)) throw error;
      return { state, problems: [...problems, error.message] };
    }
  }

  async #compute() {
    const run = ++this.run;
    // An instrument (instruments/, on the shipped model unless `model` names another) loads only for `view`, and a
    // real model's figure (modelFigure.js, with attention-wasm/model) only for an element with `model`, or for a
    // head opened from a view (edited.fromView).
    const current = () => run === this.run;
    if (this.hasAttribute('view') && !this.edited?.fromView)
      return (await import('./instruments/instrumentFigure.js')).instrumentFigure(this, current);
    if (this.hasAttribute('model') || this.edited?.fromView)
      return (await import('./modelFigure.js')).modelFigure(this, current);
    const read = this.edited ? { state: this.edited, problems: [] } : await this.readState();
    if (run !== this.run) return;
    const { state, problems } = read;
    if (!this.attention) {
      this.status = 'loading';
      this.pendingText.textContent = 'Loading attention-wasm…';
      try {
        this.attention = await sharedAttention();
      } catch (error) {
        this.status = 'error';
        this.fallbackOnly();
        this.showMessage(
          [
            `The WebAssembly module could not be loaded, so nothing can be computed here: ${error?.message ?? error}`,
            "If you host this page, check that the .wasm files are served next to the JavaScript files, and that the Content-Security-Policy allows 'wasm-unsafe-eval' in script-src.",
          ],
          'Live figure unavailable',
        );
        return;
      }
      if (run !== this.run) return;
    }
    if (state.design) {
      await import('../lessons/designed-heads/designedHeads.js'); // hands the designed X, W_q and W_k to matrices.js
      if (run !== this.run) return;
    }
    let result;
    try {
      const call = attentionCall(state);
      result = this.attention.selfAttention(call.x, call.weights, call.options);
    } catch (error) {
      this.status = 'error';
      this.fallbackOnly();
      this.showMessage([...problems, `attention-wasm could not compute this input: ${error?.message ?? error}`]);
      return;
    }
    // `highlight`'s reader, and display.js, load only for an element that uses them.
    const get = (name) => this.getAttribute(name);
    const marks =
      get('highlight') === null
        ? null
        : (await import('./highlight.js')).parseHighlight(get('highlight'), labelsFor(state));
    const display = DISPLAY.some((name) => this.hasAttribute(name))
      ? (await import('./display.js')).displayFromAttributes(get)
      : PLAIN;
    if (run !== this.run) return;
    this.currentState = state;
    this.result = result;
    this.marks = marks;
    this.pendingNode.hidden = true;
    this.display = display;
    this.showDisplay([...problems, ...(marks?.problems ?? []), ...display.problems]);
    this.draw(state, result, this.attention);
    this.status = 'ready';
    this.dispatchEvent(
      new CustomEvent('attention-change', {
        bubbles: true,
        composed: true,
        detail: { settings: { ...state }, result, weights: result.weights.toArray() },
      }),
    );
  }

  /** With no figure to show: the author's fallback content stays, if any (it is all this reader gets). */
  fallbackOnly() {
    this.pendingText.hidden = true;
    this.pendingNode.hidden = !this.pendingNode.classList.contains('fallback');
  }

  /** Shows every problem, the caption and the export buttons. */
  showDisplay(problems) {
    this.showMessage(problems);
    const { caption, exports } = this.display;
    this.captionNode.textContent = caption;
    this.captionNode.hidden = !caption;
    if (caption) {
      this.box.setAttribute('role', 'figure');
      this.box.setAttribute('aria-labelledby', 'caption');
    } else {
      this.box.removeAttribute('role');
      this.box.removeAttribute('aria-labelledby');
    }
    this.exportNode.hidden = exports.size === 0;
    this.exportNode.replaceChildren(
      ...[...exports].map((kind) =>
        el('button', { type: 'button', text: `Download ${kind.toUpperCase()}`, on: { click: () => this.#save(kind) } }),
      ),
    );
  }

  /** The figure's picture as SVG text: the heatmap with its labels, highlight, legend and caption. */
  toSVG() {
    return this.#picture('svg');
  }

  /** The figure's picture as a PNG Blob, `scale` pixels per CSS pixel (default 2). */
  toPNG(scale = 2) {
    return this.#picture('png', scale);
  }

  // The picture's code loads only when one is asked for.
  async #picture(kind, scale) {
    if (this.status !== 'ready')
      throw new Error(`<${this.localName}> has no figure yet (its status is ${this.status})`);
    // An instrument's (`view`, unless a head was opened from it) is its own picture.
    if (this.hasAttribute('view') && !this.edited?.fromView)
      return (await import('./instruments/instrumentPicture.js')).instrumentPicture(this, kind, scale);
    const { figureOf, picture } = await import('./figure.js');
    return picture(figureOf(this), kind, scale);
  }

  #save(kind) {
    import('./pictureDraw.js')
      .then(({ download }) => download(this.#picture(kind), `${this.localName}.${kind}`, this.shadowRoot))
      .catch((error) => this.showMessage([`The ${kind.toUpperCase()} could not be made: ${error?.message ?? error}`]));
  }

  /** Marks the cells `highlight` names in a grid's cells ([rows][cols]), if it names any. */
  mark(cells) {
    this.marks?.mark(cells);
  }

  /** Shows the problems politely inside the element, or hides the message when there are none. */
  showMessage(problems, heading = 'Part of this figure could not be read, so defaults are used there:') {
    this.messageNode.hidden = problems.length === 0;
    if (!problems.length) return;
    this.messageNode.replaceChildren(
      el('strong', { text: heading }),
      el(
        'ul',
        {},
        problems.slice(0, 6).map((p) => el('li', { text: p })),
      ),
    );
  }

  /** Draws the state and its result into this.content (each element its own). */
  draw() {}

  // The settings as properties: reading gives the value in use, writing sets the attribute.
  get data() {
    return this.dataObject;
  }

  set data(value) {
    this.dataObject = value === null ? undefined : value;
    this.refresh();
  }

  /**
   * The permalink of what is shown (the page's hash, without "#"), or null before the first figure; the link table
   * loads only now (or for a `state` attribute), so that a post that asks for none stays small.
   */
  async permalink() {
    if (!this.currentState) return null;
    const { encodeState } = await import('../shared/link.js');
    return encodeState(this.currentState);
  }
}

/** Defines the attributes `names` as properties of `target` (a prototype): reading gives the value in use. */
export function defineProperties(target, names) {
  for (const attribute of names) {
    const property = propertyName(attribute);
    Object.defineProperty(target, property, {
      configurable: true,
      get() {
        const field = STATE_FIELDS[attribute];
        if (field && this.currentState) return this.currentState[field];
        if (BOOLEAN.has(attribute)) return this.hasAttribute(attribute) && this.getAttribute(attribute) !== 'false';
        return this.getAttribute(attribute);
      },
      set(value) {
        if (value === null || value === undefined || (attribute === 'readonly' && value === false))
          this.removeAttribute(attribute);
        else this.setAttribute(attribute, String(value));
      },
    });
  }
}

defineProperties(AttentionElement.prototype, SETTINGS);
