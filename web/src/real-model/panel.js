// The "Real model" source: a GPT-2, BERT or LLaMA-family checkpoint run by attention-wasm/model (the shipped
// induction model by default, or a dropped / picked folder), its tokens and next-token prediction, every head in the
// model view, heads switched off (ablation) with the prediction's change, and a head opened in the steps with the
// model's own numbers. Loaded by import() only when asked for: the page's first load does not carry it.
import { loadModel } from '../../../src/js/model/index.js';
import '../css/realModel.css'; // with this code only
import { afterNextPaint } from '../app/latency.js';
import { RealModelEdits } from './tools/walk/headEdits.js';
import { layerCapture, openModelHead, rememberLayer } from './tools/walk/openHead.js';
import * as rm from './realModel.js';
import { firstChangedLayer, fromOptions, mergeRun } from './run/rerun.js';
import { runInParts } from './run/runParts.js';
import { knownMaskId, runInput } from './run/runInput.js';
import {
  cacheBytes,
  clearCache,
  droppedFiles,
  fetchBuiltin,
  filesOf,
  openCache,
  tokenizerJson,
  typedModel,
  watchLoad,
} from './files.js';
import { RealModelViews } from './tools/layer/layerViews.js';
import { RealModelControls } from './panelControls.js';
import { RealModelGenerate } from './tools/generate/generatePanel.js';
import { ModelView } from './allHeadsView.js';
import { PredictionsView, TokensView } from './predictionsView.js';
import { VocabularyView } from './vocabularyView.js';
import { RopeGrids } from './tools/walk/ropeGrids.js';
import { byId, setError } from '../shared/dom.js';
import { linkValues, writeLinkSoon } from './panelLink.js';

export { readModelLink } from './realModel.js';

export class RealModelPanel {
  /** @param {{ state: object, setState: Function, showModelHead: Function }} app */
  constructor(app) {
    this.app = app;
    this.model = null;
    this.files = null;
    this.source = null; // 'builtin' | 'files'
    this.vocab = [];
    this.ablate = [];
    this.edits = []; // numbers edited in the walk, as the model's run takes them (tools/walk/headEdits.js)
    this.editing = new RealModelEdits(this);
    this.selected = null;
    this.masked = -1;
    this.generation = 0;
    this.base = null; // { key, result }: the run with every head on, for the ablation's change
    this.controller = null;
    this.layersRun = 0; // layers the model computed, for the page tests (data-model-layers-run)
    this.ui = new RealModelControls({
      onBuiltin: () => this.loadBuiltin(),
      onFiles: (list) => this.loadFiles(list),
      onDrop: async (transfer) => this.loadFiles(await droppedFiles(transfer)),
      onCancel: () => this.cancel(),
      onUrl: (text) => this.loadUrl(text),
      onClearCache: () => clearCache().then(() => this.#showCache()),
      onText: () => this.scheduleRun(),
      onAllOn: () => this.setAblate([]),
      onLessonSentence: () => {
        this.ui.text.value = rm.INDUCTION_SENTENCE;
        this.scheduleRun();
      },
    });
    this.tokens = new TokensView({ onMask: (i) => this.mask(i) });
    this.predictions = new PredictionsView();
    this.vocabulary = new VocabularyView(); // the tokens the model knows, under its tokens
    this.view = new ModelView({
      onSelect: (layer, head) => this.openHead(layer, head),
      onAblate: (layer, head) => this.setAblate(rm.toggleHead(this.ablate, layer, head)),
    });
    this.rope = new RopeGrids();
    this.generator = new RealModelGenerate({ prompt: () => this.input(), vocab: () => this.vocab });
    this.views = new RealModelViews(this.ui.work); // the head view and the block of one layer, after the model view
    this.ui.mount({
      generate: this.generator.element,
      tokens: this.tokens.element,
      vocabulary: this.vocabulary.element,
      predictions: this.predictions.element,
      view: this.view.element,
      rope: this.rope.element,
    });
    this.ui.walkLine.after(this.editing.reset);
  }

  get element() {
    return this.ui.element;
  }

  /** Opens the source from a link (readModelLink's), or the shipped model. */
  async open(link) {
    this.pending = link;
    if (link?.text !== null && link?.text !== undefined) this.ui.text.value = link.text;
    if (link?.model === 'files') {
      this.ui.say(
        'This link was made with model files dropped on the page, which a link cannot hold: drop or pick the same folder again to reopen its view.',
      );
      return;
    }
    if (link && link.model !== 'builtin') {
      this.ui.url.value = link.model;
      return this.loadUrl(link.model);
    }
    await this.loadBuiltin();
  }

  /** A new AbortSignal for a load or a run; Cancel (or the next load) aborts it. */
  #signal() {
    this.controller?.abort();
    this.controller = new AbortController();
    return this.controller.signal;
  }

  cancel() {
    const half = this.rest?.drawn ? this.rest.layer : null; // an edit's steps drawn, its later layers not run
    this.controller?.abort();
    this.controller = null;
    this.generation++;
    this.ui.busy(false);
    this.editing.updating(false);
    this.ui.say(
      half === null
        ? 'Cancelled. The page is as it was.'
        : `Cancelled. The steps show the edit in layer ${half}; the later layers, the model view and the next token are from before it, until the next change runs them.`,
    );
  }

  async loadBuiltin() {
    const signal = this.#signal();
    this.ui.busy(true, 'Downloading the shipped model…');
    try {
      const files = await fetchBuiltin(signal, (loaded, total) =>
        this.ui.progress(loaded, total, `${rm.bytesText(loaded)} of ${rm.bytesText(total)}`),
      );
      if (signal.aborted) return;
      await this.#use(files, 'builtin');
    } catch (error) {
      if (signal.aborted) return;
      this.#fail(
        `The shipped model could not be downloaded from this page's folder (${error.message}). Check the connection and choose it again.`,
      );
    }
  }

  async loadFiles(list) {
    if (!list?.length) return;
    this.ui.busy(true, `Reading ${list.length} file${list.length > 1 ? 's' : ''}…`);
    await this.#use(filesOf(list), 'files');
  }

  /** A Hub model id or a folder URL typed in the field: read by Range requests (attention-wasm/model). */
  async loadUrl(text) {
    const typed = typedModel(text);
    if (typed.problem) return this.ui.error(typed.problem);
    this.ui.busy(true, `Opening ${typed.name}…`);
    await this.#use(typed.source, typed.name, typed.folder);
  }

  /** Loads a model from `from` (files or a web source): `source` names it in links; `folder` is its URL. */
  async #use(from, source, folder = null) {
    const generation = ++this.generation;
    let model;
    const watch = watchLoad(); // what the page's CSP refused and the files fetched, for what the page says
    try {
      const cache = folder ? await openCache() : undefined;
      const onProgress = (event) => this.#progress(watch.saw(event));
      model = await loadModel(from, { onProgress, signal: this.#signal(), cache });
    } catch (error) {
      const blocked = await watch.refused();
      if (generation !== this.generation || error?.code === 'ABORTED') return;
      return this.#fail(rm.loadMessage(error, folder, { page: location.origin, blocked }));
    }
    watch.refused();
    if (generation !== this.generation) return;
    this.model?.dispose();
    const same = this.source === source && this.ui.text.value; // the same model again keeps its sentence
    const files = folder ? null : from;
    Object.assign(this, { model, files, folder, source, base: null, ran: null, selected: null, masked: -1 });
    const link = this.pending;
    this.pending = null;
    this.generator.setModel(model, link?.generate);
    const counts = rm.linkCounts(link, model.spec); // counted from 0; a link written counted from 1 is said so
    this.ablate = counts.ablate;
    this.ui.linkNote([...(link?.warnings ?? []), counts.message].filter(Boolean).join(' '));
    this.editing.use((link?.edits ?? []).filter((e) => e.layer < model.spec.numLayers));
    const tokenizer = model.hasTokenizer ? await tokenizerJson(files, folder) : null; // tokenizer.json's object
    this.vocab = tokenizer ? rm.vocabulary(tokenizer) : [];
    this.vocabulary.show(this.vocab, tokenizer);
    this.view.clear();
    this.rope.draw(null);
    const what = source === 'builtin' ? 'shipped with the page, trained here' : (folder ?? `${files.size} files`);
    this.ui.loaded(rm.describeModel(model, what), source === 'builtin', model.spec.choices.maskedLm);
    this.ui.text.value = link?.text ?? (same || rm.defaultText(model, source));
    this.ui.idsHint(!model.hasTokenizer, model.spec.choices.maskedLm && knownMaskId(model.spec.vocabSize));
    this.ui.filesNote(folder && watch.absent()); // an optional file asked for and not there (the console's 404)
    await this.run();
    if (folder) this.#showCache(); // after the run: reading the cache's sizes would slow its reads
    // A link without an example of its own (no #…, as the documented ?model=…&layer=…&head=…) opens the head in the
    // steps as a click does; one whose #… holds another example keeps that example (openHead's fromLink).
    if (counts.layer !== null && counts.head !== null) await this.openHead(counts.layer, counts.head, link.example);
    if (link?.generate) await this.generator.replay();
  }

  async #showCache() {
    this.ui.cache(await cacheBytes());
  }

  #fail(message) {
    this.ui.busy(false);
    this.ui.error(message);
  }

  #progress({ phase, layer, loaded, total, file }) {
    if (phase === 'cache') return this.#showCache(); // what a run fetched is written in the cache after it
    if (phase === 'download' && total)
      this.ui.progress(loaded, total, `${file ?? 'downloading'}: ${rm.bytesText(loaded)} of ${rm.bytesText(total)}`);
    const layers = this.model?.spec.numLayers ?? this.runLayers ?? 0;
    if (phase === 'layer') document.body.dataset.modelLayersRun = String(++this.layersRun); // layers computed
    // Only while a load or a run is shown under way: a head opened in the steps runs its layer again, and the status
    // line keeps what the last run said.
    if (phase === 'layer' && layers && this.ui.working) {
      this.ui.progress(layer, layers, `layer ${layer} of ${layers} · ${rm.bytesText(loaded)} of weights read`);
    }
  }

  /** The run's input: the text, or its ids typed, with one token masked (BERT: a token clicked, or [MASK] typed). */
  input() {
    return runInput(this.ui.text.value, this.model, this, this.maskId());
  }

  /** BERT's [MASK] id: the vocabulary's, or (without tokenizer.json) the one typed beside the ids; -1 when unknown. */
  maskId() {
    return this.model.hasTokenizer ? rm.maskId(this.vocab) : this.ui.maskIdTyped(this.model.spec.vocabSize);
  }

  scheduleRun() {
    this.masked = -1;
    this.editing.use(this.edits.filter((e) => e.step !== 'x')); // X's edits are of the old sentence's tokens
    clearTimeout(this.runTimer);
    this.runTimer = setTimeout(() => this.run(), 200);
  }

  mask(index) {
    if (this.maskId() < 0) return;
    this.masked = this.masked === index ? -1 : index;
    this.run();
  }

  setAblate(ablate) {
    this.ablate = ablate;
    // The head in the steps follows the ablation, while the steps still show it (not another example chosen since).
    const walked = this.selected && this.shown && this.app.state.sentence === this.shown.sentence;
    // The prediction is painted first, then the head is opened again (one layer).
    this.run().then(
      (drawn) => drawn && walked && afterNextPaint(() => this.openHead(this.selected.layer, this.selected.head)),
    );
  }

  /**
   * Runs the model on the sentence (with the ablations, and without them once per sentence), then draws it all. The
   * same sentence again runs from the first layer whose ablations or edits changed (run/rerun.js), or with `start`
   * (an edited layer run alone on the last run, with its capture: tools/walk/headEdits.js) from the layer after it.
   * @param {{ layer: number, result: object } | null} start
   * @returns {Promise<boolean>} whether the run was drawn
   */
  async run(start = null) {
    if (!this.model) return false;
    const generation = ++this.generation;
    const model = this.model;
    const { input, key } = this.input();
    this.generator.follow(key);
    this.ui.busy(true, 'Running the model…');
    try {
      this.runLayers = model.spec.numLayers;
      const t0 = performance.now();
      const signal = this.#signal();
      const settings = { ablate: this.ablate.slice(), edits: this.edits.slice() };
      // The prediction reads one row of the logits: the last (GPT-2, LLaMA), or the [MASK]'s (BERT: all rows).
      const options = { topK: rm.TOP_K, ...settings, signal, logits: model.spec.choices.maskedLm || 'last' };
      const last = this.ran?.key === key && this.ran.model === model ? this.ran : null;
      const begin = last && start; // the edited layer's run holds for this sentence only
      const prior = begin ? mergeRun(last.result, start.result, start.layer) : last?.result;
      const layer = !last
        ? 0
        : begin
          ? start.layer + 1
          : Math.min(firstChangedLayer(last, settings) ?? Infinity, model.spec.numLayers - 1);
      const from = layer > 0 ? fromOptions(prior, layer, settings) : {};
      // The head in the steps: its layer captured by this run when it runs it, for the walk drawn again after.
      const walked = this.selected && this.shown?.sentence === this.app.state.sentence ? this.selected.layer : -1;
      if (walked >= layer) from.capture = layerCapture(model.spec, walked);
      // In parts with a task between (run/runParts.js), once the model has run: its weights are read then (a
      // first run's reads stay one run, its cache written after it).
      const run = (o) => (this.ran?.model === model ? runInParts(model, input, o) : model.run(input, o));
      const r = mergeRun(prior, await run({ ...options, ...from }), layer);
      if (begin) r.captures = start.result.captures; // the edited layer's, the walk's
      const runMs = performance.now() - t0;
      const plain = !settings.ablate.length && !settings.edits.length;
      if (plain) this.base = { key, result: r };
      else if (this.base?.key !== key) this.base = { key, result: await run({ ...options, ablate: [], edits: [] }) };
      const base = plain ? null : this.base.result;
      if (generation !== this.generation) return false;
      this.ran = { model, key, ...settings, result: r };
      if (this.masked < 0) this.lastIds = r.ids; // the ids a token clicked is masked in
      this.result = r;
      if (walked >= layer || (begin && walked === start.layer)) rememberLayer(this, walked, r);
      this.#draw(r, base, runMs);
      this.ui.busy(false);
      this.ui.say(
        `Ran ${r.ids.length} tokens in ${runMs.toFixed(0)} ms${begin ? ` (layer ${start.layer} first, for the steps, then from layer ${layer})` : layer ? ` (from layer ${layer}, the first one changed)` : ''}${base ? ' (and once unedited, with every head on)' : ''}; ${rm.bytesText(model.bytesRead)} of weights read.`,
      );
      this.ui.error(null);
      this.writeLink();
      return true;
    } catch (error) {
      if (generation !== this.generation || error?.code === 'ABORTED') return false;
      this.ui.busy(false);
      this.editing.updating(false);
      this.ui.error(
        `This sentence could not be run, so the last result stays: ${error.code ? `${error.code}: ` : ''}${error.message}`,
      );
      return false;
    }
  }

  #draw(r, base, runMs) {
    const model = this.model;
    const bert = model.spec.choices.maskedLm;
    const rawTokens = r.rawTokens ?? r.ids.map((id) => this.vocab[id] ?? String(id));
    const tokens = r.tokens ?? rawTokens;
    const mask = bert ? this.maskId() : -1;
    const masked = mask >= 0 ? r.ids.indexOf(mask) : -1;
    // The words the vocabulary does not have (read as <unk>): marked, and said under the tokens.
    const typed = typeof this.input().input === 'string';
    const marks = typed ? this.vocabulary.marks(this.ui.text.value, rawTokens) : {};
    const maskable = mask >= 0;
    this.tokens.draw({ ids: r.ids, rawTokens, tokens, maskable, masked, ...marks });
    if (this.source === 'builtin') this.ui.lessonRun(base ?? r, this.vocab); // the run with every head on
    const labels = r.ids.map((id, i) => rm.readableToken(rawTokens[i], tokens[i]));
    const changed = [this.ablate.length && 'the heads switched off', this.edits.length && 'your edits'].filter(Boolean);
    this.predictions.show({
      model,
      vocab: this.vocab,
      r,
      base,
      row: bert ? masked : (r.logits?.shape[0] ?? 0) - 1, // GPT-2, LLaMA: the last row, the one asked for
      changed: `with ${changed.join(' and ')}`,
    });
    const drawMs = this.view.draw({
      attentions: r.attentions,
      labels,
      causal: model.spec.choices.causal,
      ablate: this.ablate,
      selected: this.selected,
    });
    this.views.update({ model, result: r, labels, input: this.input().input, ablate: this.ablate, edits: this.edits });
    document.body.dataset.modelRunMs = runMs.toFixed(2);
    document.body.dataset.modelViewMs = drawMs.toFixed(2);
    document.body.dataset.modelRuns = String(Number(document.body.dataset.modelRuns ?? 0) + 1);
    this.ui.ablated(this.ablate.length ? `Switched off: ${rm.headsText(this.ablate)}.` : '');
    this.editing.updating(false);
  }

  /** Opens head `head` of layer `layer` in the page's steps (tools/walk/openHead.js). */
  openHead(layer, head, fromLink = false) {
    return openModelHead(this, layer, head, fromLink);
  }

  /** What a link (and Embed…) holds of the panel (panelLink.js). */
  linkValues() {
    return linkValues(this);
  }

  /** Writes the link 100 ms after the last change (panelLink.js). */
  writeLink() {
    writeLinkSoon(this);
  }
}

/** Opens the "Real model" section (made once) and its source. */
let panel = null;
export async function openRealModel(app, link) {
  const section = byId('step-model');
  if (!panel) {
    panel = new RealModelPanel(app);
    byId('mount-model').append(panel.element);
  }
  section.hidden = false;
  setError(byId('model-load-error'), null);
  await panel.open(link);
  return panel;
}
