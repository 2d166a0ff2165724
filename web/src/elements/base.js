// What both elements share: a shadow root with the adopted stylesheet, attributes and properties read into the
// page's state, exact numbers from a child JSON script or a file, the shared attention-wasm instance, computing
// only once in view, polite messages for bad input, and the attention-change event.
import { attentionCall } from '../model/inputs.js';
import { encodeState } from '../model/state.js';
import { el } from '../view/dom.js';
import { sharedAttention } from './api.js';
import { OWN_ATTRIBUTES, SETTINGS, propertyName, stateFromAttributes, unknownAttributeWarning } from './config.js';
import { InputProblem, applyData, parseJson } from './data.js';
import { styleSheet } from './styles.js';

const warned = new Set();
const sources = new Map();
const BOOLEAN = new Set(['causal', 'scale', 'positions', 'readonly']);
const STATE_FIELDS = {
  sentence: 'sentence',
  seed: 'seed',
  'd-model': 'dModel',
  'd-k': 'dK',
  'd-v': 'dV',
  heads: 'numHeads',
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
    this.pendingNode = el('div', { class: 'pending', text: 'The figure is computed when it scrolls into view.' });
    this.content = el('div', { class: 'content' });
    this.box = el('div', { class: 'box', attrs: { part: 'box' } }, this.messageNode, this.pendingNode, this.content);
    root.append(this.box);
    this.visible = false;
    this.status = 'pending';
    this.result = null;
    this.attention = null;
    this.currentState = null;
    this.dataObject = undefined;
    this.queued = false;
    this.edited = null;
    this.run = 0;
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
    const { state, problems } = stateFromAttributes((name) => this.getAttribute(name));
    let data = this.dataObject;
    try {
      if (data === undefined) {
        const script = this.querySelector(':scope > script[type="application/json"]');
        if (script) data = parseJson(script.textContent, 'the <script type="application/json"> inside the element');
      }
      const src = this.getAttribute('src');
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
    const read = this.edited ? { state: this.edited, problems: [] } : await this.readState();
    if (run !== this.run) return;
    const { state, problems } = read;
    if (!this.attention) {
      this.status = 'loading';
      this.pendingNode.textContent = 'Loading attention-wasm…';
      try {
        this.attention = await sharedAttention();
      } catch (error) {
        this.status = 'error';
        this.pendingNode.hidden = true;
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
    let result;
    try {
      const call = attentionCall(state);
      result = this.attention.selfAttention(call.x, call.weights, call.options);
    } catch (error) {
      this.status = 'error';
      this.showMessage([...problems, `attention-wasm could not compute this input: ${error?.message ?? error}`]);
      return;
    }
    this.currentState = state;
    this.result = result;
    this.pendingNode.hidden = true;
    this.showMessage(problems);
    this.draw(state, result, this.attention);
    this.status = 'ready';
    this.dispatchEvent(
      new CustomEvent('attention-change', {
        bubbles: true,
        composed: true,
        detail: { state: encodeState(state), settings: { ...state }, result, weights: result.weights.toArray() },
      }),
    );
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

  get state() {
    return this.currentState ? encodeState(this.currentState) : this.getAttribute('state');
  }
}

for (const attribute of [...SETTINGS, 'steps']) {
  const property = propertyName(attribute);
  if (property === 'state') {
    Object.defineProperty(AttentionElement.prototype, property, {
      ...Object.getOwnPropertyDescriptor(AttentionElement.prototype, 'state'),
      set(value) {
        this.setAttribute('state', String(value));
      },
    });
    continue;
  }
  Object.defineProperty(AttentionElement.prototype, property, {
    configurable: true,
    get() {
      const field = STATE_FIELDS[attribute];
      if (field && this.currentState) return this.currentState[field];
      if (attribute === 'head' && this.currentState) return this.currentState.head + 1;
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
