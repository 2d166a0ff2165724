// What every element on a real model does before it draws (modelFigure.js, instruments/instrumentFigure.js): the
// shared model loaded with a progress bar and the bytes and layers read, and the element's message when it cannot be
// loaded or a figure cannot be shown (the author's fallback content kept). Never throws into the page.
import { el } from '../shared/dom.js';
import { modelSheet } from './modelView.js';
import { own } from './modelFigureState.js';
import { sharedModel } from './sharedModel.js';

const kB = (bytes) => `${(bytes / 1000).toFixed(bytes < 10000 ? 1 : 0)} kB`;

/** Adds the stylesheet of the model's parts to the element's (once). */
export function adoptSheet({ shadowRoot: root }) {
  if (!root.adoptedStyleSheets.includes(modelSheet()))
    root.adoptedStyleSheets = [...root.adoptedStyleSheets, modelSheet()];
}

/** What the element shows while the model loads and runs: a text and a progress bar. */
export function showLoading(element, name) {
  adoptSheet(element);
  element.pendingText.textContent = `Loading ${name}…`;
  const figure = own(element);
  figure.progress ??= el('progress', { attrs: { part: 'progress', 'aria-label': 'Loading the model' } });
  figure.progress.removeAttribute('value');
  figure.progress.hidden = false;
  element.pendingNode.append(figure.progress);
}

/** A load's or run's progress event, shown by an element still loading. */
export function showProgress(element, name, event) {
  if (element.status !== 'loading') return;
  const figure = own(element);
  const bar = figure.progress;
  if (event.phase === 'download') {
    // Per file: config.json, the checkpoint's header, tokenizer.json (the weights are read by each run, by layer).
    if (event.total) [bar.max, bar.value] = [event.total, event.loaded];
    const of = event.total ? ` of ${kB(event.total)}` : '';
    element.pendingText.textContent = `Loading ${name}: ${event.file}, ${kB(event.loaded)}${of}`;
  } else if (event.total) {
    // A run (runs one after another): the bytes of the weights it reads (downloaded now from a web source), counted
    // from its first event, since the model's count goes on from run to run.
    if (event.phase === 'embeddings') figure.runStart = event.loaded;
    const start = figure.runStart;
    [bar.max, bar.value] = [event.total - start, event.loaded - start];
    const layer = event.phase === 'layer' ? `layer ${event.layer} of ${figure.numLayers}, ` : '';
    element.pendingText.textContent = `Running ${name}: ${layer}${kB(event.loaded - start)} of ${kB(event.total - start)} read`;
  }
}

/** Shows the problems as the element's message, with the author's fallback content (if any) and no figure. */
export function failed(element, problems, heading) {
  element.status = 'error';
  if (element.modelFigure?.progress) element.modelFigure.progress.hidden = true;
  element.content.replaceChildren();
  element.fallbackOnly();
  element.showMessage(problems, heading);
}

/** The sentence a load error gives the reader, with what to do for the built-in model. */
export function loadProblem(error, settings) {
  const text = `${settings.name}: ${error?.message ?? error}`;
  if (settings.key !== 'builtin' || !/MISSING_FILE|FETCH_FAILED|BAD_OPTION/u.test(error?.code ?? '')) return text;
  return `${text}. The built-in model's files are in the package's web/public/models/induction/ folder: when the elements are bundled, copy that folder to your site and give its URL as model="/…/induction/".`;
}

/**
 * Shows the loading bar (until the element is ready once), loads the shared model of `read` and calls
 * `use(shared, model)`, the load's and runs' progress shown until it returns; a model that cannot load is the
 * element's message. Nothing when a newer computation started meanwhile.
 */
export async function withModel(element, read, current, use) {
  if (element.status !== 'ready') {
    element.status = 'loading';
    element.pendingNode.hidden = false;
    element.pendingText.hidden = false;
    showLoading(element, read.name);
  }
  const shared = sharedModel(read, (event) => showProgress(element, read.name, event));
  try {
    let model;
    try {
      model = await shared.model;
    } catch (error) {
      if (current())
        failed(element, [loadProblem(error, read)], 'The model could not be loaded, so this figure cannot be shown:');
      return;
    }
    if (!current()) return;
    own(element).numLayers = model.spec.numLayers;
    return await use(shared, model);
  } finally {
    shared.forget();
  }
}
