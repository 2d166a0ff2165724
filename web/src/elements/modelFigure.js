// An element's figure on a real model (`model` set; base.js loads this file only then, and with it
// attention-wasm/model): the shared model loaded with a progress bar, one forward pass of the element's tokens
// through the layers it needs, then the heatmap of one head (layer and head pickers), or every layer × head
// (`model-view`), and the next-token prediction (`next`). Errors are the element's polite message, never thrown.
import { Tensor } from '../../../src/js/tensor.js';
import { headName, headNames } from '../shared/counting.js';
import { formatValue } from '../shared/format.js';
import { el } from '../shared/dom.js';
import { HeatmapGrid, TITLES } from './heatmapGrid.js';
import { drawModelSteps } from './modelSteps.js';
import { OFF_NOTE, drawModelView, picker } from './modelView.js';
import { adoptSheet, failed, withModel } from './modelLoading.js';
import { BUILTIN, DEFAULT_SENTENCE, checkAgainst, modelSettings } from './modelSettings.js';
import { ELEMENT_LIMITS } from './elementLimits.js';
import { own } from './modelFigureState.js';

const PLAIN = { caption: '', values: 'weights', hide: new Set(), exports: new Set(), problems: [] };
const DISPLAY = ['caption', 'values', 'export'];

/** A token as a label: spaces at its ends shown as "·" (GPT-2's leading space), never empty. */
export const label = (token) => token.replace(/^\s+|\s+$/gu, (s) => '·'.repeat(s.length)) || '·';

/** The [H, …] stack of one step of every head's capture. */
function stack(captures, key) {
  const [first] = captures;
  const data = new Float32Array(first[key].data.length * captures.length);
  captures.forEach((c, h) => data.set(c[key].data, h * first[key].data.length));
  return new Tensor(data, [captures.length, ...first[key].shape]);
}

/** The element's result: the shown layer's steps, as selfAttention names them ([H, n, …] per head), and more. */
function resultOf(out, layer) {
  const { captures } = out;
  const steps = {};
  for (const key of ['q', 'k', 'v', 'rawScores', 'scaledScores', 'scores']) steps[key] = stack(captures, key);
  // LLaMA-family models rotate q and k (RoPE) before the scores.
  if (captures[0].qRotated) for (const key of ['qRotated', 'kRotated']) steps[key] = stack(captures, key);
  return {
    x: captures[0].x,
    ...steps,
    weights: out.attentions[layer],
    heads: stack(captures, 'headOutput'),
    concat: captures[0].concat,
    output: captures[0].output,
    attentions: out.attentions,
    ids: out.ids,
    tokens: out.tokens ?? out.ids.map(String),
    next: out.next,
  };
}

/** One forward pass for the settings, reused while its inputs stay the same (a head picked). */
async function forward(element, shared, settings, input, spec) {
  const layers = settings.next || settings.modelView ? spec.numLayers : settings.layer + 1;
  const options = {
    layers,
    capture: Array.from({ length: spec.numHeads }, (_, head) => ({ layer: settings.layer, head })),
    ablate: settings.ablate.filter(([layer]) => layer < layers),
    hiddenStates: false,
    logits: settings.next,
    topK: 5,
  };
  const key = JSON.stringify([settings.key, input, options]);
  const figure = own(element);
  if (figure.run?.key !== key) {
    // A newer computation of this element stops the one before (a download under way included).
    figure.abort?.abort();
    const abort = (figure.abort = new AbortController());
    figure.run = { key, out: await shared.run(input, { ...options, signal: abort.signal }) };
  }
  return figure.run.out;
}

/**
 * Computes and draws the element's figure on its model. `current()` is false once a newer computation started.
 * @param {import('./base.js').AttentionElement} element
 * @param {() => boolean} current
 */
export async function modelFigure(element, current) {
  // A head opened from a view (`view`, whose model is the shipped one unless `model` names another).
  const model = element.getAttribute('model') ?? BUILTIN;
  const get = (name) => (name === 'model' ? model : element.getAttribute(name));
  const { settings: read, problems } = modelSettings(get, document.baseURI);
  if (!read) return failed(element, problems, 'This figure has no model it can load:');
  return withModel(element, read, current, async (shared, model) => {
    const spec = model.spec;
    // A layer or head picked by the reader (element.edited) replaces the attributes' until they change.
    const settings = { ...checkAgainst(read, spec, problems), ...(element.edited ?? {}) };
    if (settings.next && !spec.choices?.causal) {
      // BERT's head predicts masked tokens, not a next one: its "next" at the last position ([SEP]) means nothing.
      problems.push(`next: ${spec.family} predicts masked tokens, not the next one, so no prediction is shown`);
      settings.next = false;
    }
    if (!settings.ids && !model.hasTokenizer) {
      return failed(
        element,
        [...problems, `${read.name} has no tokenizer.json: give the tokens as ids="…"`],
        'Nothing to show:',
      );
    }
    const input = settings.ids ? { ids: settings.ids } : (settings.sentence ?? DEFAULT_SENTENCE);
    let out;
    try {
      out = await forward(element, shared, settings, input, spec);
    } catch (error) {
      if (current())
        failed(element, [...problems, error?.message ?? String(error)], 'The model could not compute this input:');
      return;
    }
    if (!current()) return;
    if (out.ids.length > ELEMENT_LIMITS.n) {
      return failed(
        element,
        [`the sentence is ${out.ids.length} tokens for this model, over the ${ELEMENT_LIMITS.n} an element shows`],
        'Nothing to show:',
      );
    }
    const display = DISPLAY.some((name) => element.hasAttribute(name))
      ? (await import('./display.js')).displayFromAttributes(get)
      : PLAIN;
    const marks = await highlightOf(element, settings, out);
    if (!current()) return;
    show(element, { settings, spec, out, display, problems: [...problems, ...(marks?.problems ?? [])], marks });
  });
}

/**
 * `highlight` read against the tokens (written as the sentence has them: GPT-2's leading space is not typed), or null
 * without it; the model view, which draws every head small, says it marks one head's figure.
 */
async function highlightOf(element, settings, out) {
  const text = element.getAttribute('highlight');
  if (text === null) return null;
  if (settings.modelView && element.localName !== 'attention-explorer') {
    return {
      marked: null,
      mark: () => {},
      problems: [
        'highlight marks the cells of one head’s figure, and the model view draws every layer × head: give layer and head (without model-view) to see it',
      ],
    };
  }
  const tokens = (out.tokens ?? out.ids.map(String)).map((t) => t.trim() || t);
  return (await import('./highlight.js')).parseHighlight(text, tokens);
}

/** Draws the figure, and tells the page (attention-change). */
function show(element, { settings, spec, out, display, problems, marks = null }) {
  const result = resultOf(out, settings.layer);
  const labels = result.tokens.map(label);
  const causal = Boolean(spec.choices?.causal);
  element.result = result;
  element.currentState = null;
  element.display = display;
  element.marks = marks; // highlight's cells (highlight.js), marked by each query × key figure
  const figure = own(element);
  figure.shown = { settings, spec, labels, causal };
  element.layoutKey = null; // an explorer lays its example steps out again once `model` is removed
  adoptSheet(element);
  element.pendingNode.hidden = true;
  element.showDisplay([...problems, ...display.problems]);
  const pick = (choice) => element.setEdited({ ...(element.edited ?? {}), ...choice });
  // A head opened from the model view: shown as `layer` and `head` would show it, with a way back (drawHead).
  const open = (layer, head) => {
    figure.focusNext = { part: 'heatmap' };
    pick({ layer, head, modelView: false, fromModelView: true });
  };
  const shown = { result, labels, causal, spec, settings };
  const back = backButton(element, settings, pick);
  const parts =
    element.localName === 'attention-explorer'
      ? [
          ...back,
          ...heading(element, shown, pick, `${headName(settings.layer, settings.head)}, step by step`),
          ...drawModelSteps(element, shown),
        ]
      : settings.modelView
        ? drawModelView(shown, open)
        : [...back, ...drawHead(element, shown, pick)];
  element.content.replaceChildren(...parts, ...(settings.next ? [nextList(result.next, settings)] : []));
  moveFocus(element);
  element.status = 'ready';
  element.dispatchEvent(
    new CustomEvent('attention-change', {
      bubbles: true,
      composed: true,
      detail: {
        settings: {
          model: settings.name,
          layer: settings.layer,
          head: settings.head,
          ids: result.ids,
          tokens: result.tokens,
          ablate: settings.ablate.map(([l, h]) => `${l}.${h}`),
          modelView: settings.modelView,
        },
        result,
        weights: result.weights.toArray(),
      },
    }),
  );
}

/**
 * The focus on what the reader chose, once drawn: a head opened from the model view (its heatmap), the model view
 * again (that head's map), or a picker's button.
 */
function moveFocus(element) {
  const figure = own(element);
  const next = figure.focusNext;
  figure.focusNext = null;
  // A head opened from a view: its heatmap, or an explorer's button back.
  if (next?.part === 'heatmap')
    (figure.map?.grid.isConnected ? figure.map.grid : element.shadowRoot.querySelector('[part="back"]'))?.focus();
  else if (next?.part?.endsWith('-picker'))
    element.shadowRoot.querySelectorAll(`[part="${next.part}"] button`)[next.index]?.focus();
  else if (next?.part === 'model-view')
    element.shadowRoot
      .querySelector(`[part="model-view"] canvas[data-layer="${next.layer}"][data-head="${next.head}"]`)
      ?.focus();
}

/** A heatmap cell as a sentence for its readout and its screen-reader label. */
export const describeCell = (labels, causal, what) => (i, j, value) =>
  `query “${labels[i]}” → key “${labels[j]}”: ${causal && j > i ? 'masked (a token does not look ahead)' : `${what} ${formatValue(value, 3)}`}`;

/** The figure's title, the model it shows, the heads switched off, and the layer and head pickers. */
function heading(element, { spec, settings }, pick, title) {
  // The pickers are drawn again with the figure: the focus goes to the new button once it is there (moveFocus).
  const focus = (part, index) => (own(element).focusNext = { part, index });
  const off = headNames(settings.ablate);
  return [
    el('p', { class: 'title', attrs: { part: 'title' }, text: title }),
    el('p', {
      class: 'sub',
      text: `${settings.name} (${spec.family}, ${spec.numLayers} layers of ${spec.numHeads} heads) · rows: queries · columns: keys`,
    }),
    ...(off ? [el('p', { class: 'sub', text: `Switched off: ${off}` })] : []),
    picker('Layer', 'layer-picker', spec.numLayers, settings.layer, (l) => {
      focus('layer-picker', l);
      pick({ layer: l });
    }),
    picker('Head', 'head-picker', spec.numHeads, settings.head, (h) => {
      focus('head-picker', h);
      pick({ head: h });
    }),
  ].filter(Boolean);
}

/** The one head's heatmap, under its heading. */
function drawHead(element, shown, pick) {
  const { result, labels, causal, settings } = shown;
  const { layer, head } = settings;
  const values = element.display.values;
  const n = labels.length;
  const title = `${TITLES[values]}, ${headName(layer, head)}`;
  const describe = describeCell(labels, causal, values === 'scores' ? 'score' : 'weight');
  const figure = own(element);
  figure.map ??= new HeatmapGrid({
    label: title,
    describe: (i, j, v) => figure.describe(i, j, v),
    mark: (cells) => element.mark(cells),
  });
  figure.describe = describe;
  figure.map.setLabel(`${title} of ${settings.name}: rows are queries, columns are keys`);
  const size = n * n;
  figure.map.update({
    data: result[values].data.subarray(head * size, (head + 1) * size),
    rows: n,
    cols: n,
    rowLabels: labels,
    colLabels: labels,
    blocked: (i, j) => causal && j > i,
    values,
  });
  // A head switched off is drawn faded, with what that means (its weights are computed; its output is not used).
  const off = settings.ablate.some(([l, h]) => l === layer && h === head);
  figure.map.element.classList.toggle('off', off);
  const note = off && el('p', { class: 'offnote', attrs: { part: 'off-note' }, text: OFF_NOTE });
  return [...heading(element, shown, pick, title), figure.map.element, ...(note ? [note] : [])];
}

/**
 * A head opened from the model view, or from a view (headselect): a button back to it, where this head takes the
 * focus again. None otherwise.
 */
function backButton(element, settings, pick) {
  const { layer, head, fromModelView, fromView } = settings;
  if (!fromModelView && !fromView) return [];
  const figure = own(element);
  const click = fromView
    ? () => {
        figure.focusNext = { part: 'head', layer, head };
        element.setEdited(null); // the view again, as its attributes give it
      }
    : () => {
        figure.focusNext = { part: 'model-view', layer, head };
        pick({ modelView: true, fromModelView: false });
      };
  const text = fromView ? `← ${fromView.title}` : '← Every layer and head';
  return [el('button', { type: 'button', class: 'back', text, attrs: { part: 'back' }, on: { click } })];
}

/** The next-token prediction: the top 5 with their probabilities. */
function nextList(next, settings) {
  if (!next)
    return el('p', { class: 'sub', text: `${settings.name} has no language-model head: no next token to show` });
  const bar = (p) => {
    const node = el('span', { class: 'pbar', attrs: { 'aria-hidden': 'true' } });
    node.style.width = `${(p * 100).toFixed(1)}%`; // CSSOM, which a strict style-src allows
    return node;
  };
  return el(
    'figure',
    { class: 'next', attrs: { part: 'next' } },
    el('figcaption', { text: 'Next token: the 5 most probable' }),
    el(
      'ol',
      {},
      next.map(({ id, p, token }) =>
        el(
          'li',
          {},
          el('span', { class: 'tok', text: label(token ?? `#${id}`) }),
          el('span', { class: 'pwrap' }, bar(p)),
          el('span', { class: 'pct', text: `${formatValue(p * 100, 1)}%` }),
        ),
      ),
    ),
  );
}
