// An element's instrument (`view`: lens, attribution, patching, head-scores, loss) on a real model, the shipped one
// unless `model` names another: loaded with the other model figures' progress bar and messages (modelFigure.js),
// computed with attention-wasm/model's instruments, shaped by shared/instruments/ and drawn by the views the page's
// Investigate part draws with. base.js loads this file only for an element with `view`. Errors are the element's
// polite message, never thrown into the host page. A head clicked dispatches `headselect` (cancellable): unless
// cancelled, the element shows that head's attention weights (modelFigure.js), with a button back to the view.
import { BUILTIN, DEFAULT_SENTENCE, checkAgainst, modelSettings } from '../modelSettings.js';
import { ELEMENT_LIMITS } from '../elementLimits.js';
import { adoptSheet, failed, withModel } from '../modelLoading.js';
import { own } from '../modelFigureState.js';
import { el } from '../../shared/dom.js';
import { instrumentSheet } from './instrumentSheet.js';
import { VIEW_TITLES, readInstrument, unsupported } from './instrumentSettings.js';
import { COMPUTE } from './instrumentViews.js';

const message = (error) => `${error?.code ? `${error.code}: ` : ''}${error?.message ?? error}`;

/**
 * Computes and draws the element's instrument. `current()` is false once a newer computation started.
 * @param {import('../base.js').AttentionElement} element
 * @param {() => boolean} current
 */
export async function instrumentFigure(element, current) {
  const get = (name) => (name === 'model' ? (element.getAttribute('model') ?? BUILTIN) : element.getAttribute(name));
  const { settings: read, problems } = modelSettings(get, document.baseURI);
  const { instrument, problems: more } = readInstrument(get);
  if (!read || !instrument) return failed(element, [...problems, ...more], 'This figure cannot be shown:');
  problems.push(...more);
  return withModel(element, read, current, async (shared, model) => {
    const spec = model.spec;
    const settings = checkAgainst(read, spec, problems);
    const why = unsupported(instrument.view, spec);
    if (why) return failed(element, [...problems, why], 'This view cannot be shown for this model:');
    if (!settings.ids && !model.hasTokenizer)
      return failed(
        element,
        [...problems, `${read.name} has no tokenizer.json: give the tokens as ids="…"`],
        'Nothing to show:',
      );
    const input = settings.ids ? { ids: settings.ids } : (settings.sentence ?? DEFAULT_SENTENCE);
    const figure = own(element);
    figure.abort?.abort();
    const abort = (figure.abort = new AbortController());
    const heads = {
      onHead: (layer, head) => selectHead(element, instrument.view, layer, head),
      opens: element.localName === 'attention-explorer' ? 'open it step by step' : 'show its attention weights',
    };
    const ctx = { element, shared, model, spec, settings, instrument, input, problems, heads, current };
    ctx.signal = abort.signal;
    let shown;
    try {
      const quiet = { logits: 'last', topK: 1, attentions: false, hiddenStates: false, ablate: settings.ablate };
      const r = await shared.run(input, { ...quiet, signal: abort.signal });
      if (r.ids.length > ELEMENT_LIMITS.n)
        return failed(
          element,
          [`the sentence is ${r.ids.length} tokens for this model, over the ${ELEMENT_LIMITS.n} an element shows`],
          'Nothing to show:',
        );
      ctx.run = r;
      shown = await COMPUTE[instrument.view](ctx);
    } catch (error) {
      if (current() && error?.code !== 'ABORTED')
        failed(element, [...problems, message(error)], 'The model could not compute this input:');
      return;
    }
    if (!current()) return;
    if (shown.problem) return failed(element, [...problems, shown.problem], 'This figure cannot be shown:');
    // `caption` and `export` as for the other figures (the picture: instrumentPicture.js, loaded when asked for).
    let display = { caption: '', values: 'weights', hide: new Set(), exports: new Set(), problems: [] };
    if (element.hasAttribute('caption') || element.hasAttribute('export'))
      display = (await import('../display.js')).displayFromAttributes(get);
    element.display = display;
    problems.push(...display.problems);
    show(element, ctx, shown);
  });
}

/**
 * A head clicked in a view (layer and head from 0): `headselect` on the element, and unless a listener cancels it,
 * that head's attention weights in place of the view (element.edited, until an attribute changes), a button back.
 */
function selectHead(element, view, layer, head) {
  const detail = { layer, head, view };
  const event = new CustomEvent('headselect', { bubbles: true, composed: true, cancelable: true, detail });
  if (!element.dispatchEvent(event)) return;
  own(element).focusNext = { part: 'heatmap' };
  element.setEdited({ layer, head, modelView: false, fromView: { view, title: VIEW_TITLES[view] } });
}

/** Back from a head opened (selectHead): the focus on that head's button in the view again. */
function focusHead(element, { layer, head }) {
  const name = `L${layer}H${head}:`;
  const buttons = element.shadowRoot.querySelectorAll('.inv-figure button[aria-label]');
  Array.from(buttons)
    .find((b) => b.getAttribute('aria-label').startsWith(name))
    ?.focus();
}

/** Puts the view into the element, and tells the page (attention-change) with the numbers shown. */
function show(element, { settings, spec, instrument, run, problems }, { view, result, after }) {
  adoptSheet(element);
  const root = element.shadowRoot;
  if (!root.adoptedStyleSheets.includes(instrumentSheet()))
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, instrumentSheet()];
  element.pendingNode.hidden = true;
  element.showDisplay(problems); // the problems, and the caption (the display read, or the last one)
  element.result = { view: instrument.view, ids: run.ids, tokens: run.tokens ?? run.ids.map(String), ...result };
  element.currentState = null;
  const title = el('p', { class: 'title', attrs: { part: 'title' }, text: VIEW_TITLES[instrument.view] });
  const sub = el('p', {
    class: 'sub',
    text: `${settings.name} (${spec.family}, ${spec.numLayers} layers of ${spec.numHeads} heads; layers and heads count from 0)`,
  });
  element.content.replaceChildren(
    el('div', { class: 'inv-figure', attrs: { part: `instrument ${instrument.view}` } }, title, sub, view.element),
  );
  own(element).instrument = { view, name: instrument.view };
  const back = own(element).focusNext;
  own(element).focusNext = null;
  const done = () => {
    if (back?.part === 'head') focusHead(element, back);
    Object.assign(element.result, result); // patching's sweeps, done after it was shown
    element.status = 'ready';
    element.dispatchEvent(
      new CustomEvent('attention-change', {
        bubbles: true,
        composed: true,
        detail: {
          state: null,
          settings: { model: settings.name, view: instrument.view, ids: run.ids, tokens: element.result.tokens },
          result: element.result,
        },
      }),
    );
  };
  // Patching fills its grids in after it is shown: the element is ready once its sweeps are done.
  if (after) after().then(done);
  else done();
}
