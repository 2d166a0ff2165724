// The "Real model" source: a GPT-2, BERT or LLaMA-family checkpoint run by attention-wasm/model (the shipped
// induction model by default, or a dropped / picked folder), its tokens and next-token prediction, every head in the
// model view, heads switched off (ablation) with the prediction's change, and a head opened in the steps with the
// model's own numbers. Loaded by import() only when asked for: the page's first load does not carry it.
import { loadOnWorkers } from './loadOnWorkers.js';
import '../css/realModel.css'; // with this code only
import { afterNextPaint } from '../app/latency.js';
import { RealModelEdits } from './tools/walk/headEdits.js';
import { openModelHead } from './tools/walk/openHead.js';
import * as rm from './realModel.js';
import { RealModelSession } from './session.js';
import { knownMaskId } from './run/runInput.js';
import {
  cacheBytes,
  clearCache,
  droppedFiles,
  fetchBuiltin,
  filesOf,
  openCache,
  typedModel,
  watchLoad,
} from './files.js';
import { RealModelViews } from './tools/layer/layerViews.js';
import { RealModelControls } from './panelControls.js';
import { RealModelGenerate } from './tools/generate/generatePanel.js';
import { ModelView } from './allHeadsView.js';
import { PredictionsView, TokensView } from './predictionsView.js';
import { VocabularyView } from './vocabularyView.js';
import { partId } from './partLinks.js';
import { RopeGrids } from './tools/walk/ropeGrids.js';
import { RealModelInvestigate } from './tools/investigate/investigate.js';
import { AblationModeView } from './tools/investigate/ablationModeView.js';
import { byId, setError } from '../shared/dom.js';
import { writeLinkSoon } from './panelLink.js';

export { readModelLink } from './realModel.js';

export class RealModelPanel {
  /** @param {{ state: object, setState: Function, showModelHead: Function, modelOpened?: Function,
   *   modelRan?: Function }} app */
  constructor(app) {
    this.app = app;
    this.session = new RealModelSession(); // the state: every part reads and changes it through its methods
    this.layersRun = 0; // layers the model computed, for the page tests (data-model-layers-run)
    this.ui = new RealModelControls({
      onBuiltin: () => this.loadBuiltin(),
      onFiles: (list) => this.loadFiles(list),
      onDrop: async (transfer) => this.loadFiles(await droppedFiles(transfer)),
      onCancel: () => this.cancel(),
      onUrl: (text) => this.loadUrl(text),
      onClearCache: () => clearCache().then(() => this.#showCache()),
      onText: () => this.setText(this.ui.text.value),
      onAllOn: () => this.setAblate([]),
      onLessonSentence: () => this.typed(rm.INDUCTION_SENTENCE),
    });
    this.editing = new RealModelEdits(this);
    this.tokens = new TokensView({ onMask: (i) => this.mask(i) });
    this.predictions = new PredictionsView();
    this.vocabulary = new VocabularyView(); // the tokens the model knows, under its tokens
    this.view = new ModelView({
      onSelect: (layer, head) => this.openHead(layer, head),
      onAblate: (layer, head) => this.setAblate(rm.toggleHead(this.session.ablate, layer, head)),
    });
    this.rope = new RopeGrids();
    this.generator = new RealModelGenerate(this.session);
    this.views = new RealModelViews(this.ui.work); // the head view and the block of one layer, after the model view
    this.investigate = new RealModelInvestigate(this.session, {
      onHead: (layer, head) => this.openHead(layer, head),
      onMarks: (marks) => this.view.mark(marks),
      onLink: () => this.writeLink(),
    });
    this.ablateMode = new AblationModeView({ onChange: (mode, reference) => this.setAblateMode(mode, reference) });
    this.ui.ablatedLine.parentElement.after(this.ablateMode.element);
    this.ui.mount({
      investigate: this.investigate.element,
      generate: this.generator.element,
      tokens: this.tokens.element,
      vocabulary: this.vocabulary.element,
      predictions: this.predictions.element,
      view: this.view.element,
      rope: this.rope.element,
    });
    this.ui.walkLine.after(this.editing.reset);
    this.views.title.append(' ', ...this.ui.parts.link('layer', 'One layer'));
  }

  get element() {
    return this.ui.element;
  }

  /** Opens the source from a link (readModelLink's), or the shipped model. */
  async open(link) {
    this.session.opening(link);
    this.ui.text.value = this.session.text;
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

  cancel() {
    const half = this.session.cancel(); // an edit's steps drawn, its later layers not run
    this.ui.busy(false);
    this.editing.updating(false);
    this.ui.say(
      half === null
        ? 'Cancelled. The page is as it was.'
        : `Cancelled. The steps show the edit in layer ${half}; the later layers, the model view and the next token are from before it, until the next change runs them.`,
    );
  }

  async loadBuiltin() {
    const signal = this.session.signal();
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
    const session = this.session;
    const generation = session.begin();
    let model;
    const watch = watchLoad(); // what the page's CSP refused and the files fetched, for what the page says
    try {
      const cache = folder ? await openCache() : undefined;
      const onProgress = (event) => this.#progress(watch.saw(event));
      model = await loadOnWorkers(from, { onProgress, signal: session.signal(), cache });
    } catch (error) {
      const blocked = await watch.refused();
      if (!session.current(generation) || error?.code === 'ABORTED') return;
      return this.#fail(rm.loadMessage(error, folder, { page: location.origin, blocked }));
    }
    watch.refused();
    if (!session.current(generation)) return;
    const files = folder ? null : from;
    const { link, counts } = session.loaded(model, { source, folder, files });
    const name =
      source === 'builtin' ? 'the page’s trained GPT-2' : source === 'files' ? 'the model of your files' : source;
    this.app.modelOpened?.({ spec: model.spec, name: `${name} (${model.family})` });
    this.generator.setModel(model, link?.generate);
    this.ablateMode.set(session.ablateMode, session.ablateReference);
    this.editing.show();
    this.ui.linkNote([...(link?.warnings ?? []), counts.message].filter(Boolean).join(' '));
    session.setVocab(await this.vocabulary.use(model, files, folder)); // id → token, from tokenizer.json
    // Nothing of the model before stays on screen, under this one's name (its first run may not run).
    for (const view of [this.tokens, this.predictions, this.view, this.views]) view.clear();
    this.rope.draw(null);
    const what = source === 'builtin' ? 'shipped with the page, trained here' : (folder ?? `${files.size} files`);
    this.ui.loaded(rm.describeModel(model, what), source === 'builtin', model.spec.choices.maskedLm);
    this.ui.text.value = session.text;
    const { vocabSize, choices } = model.spec;
    this.ui.idsHint(model.hasTokenizer ? null : vocabSize, choices.maskedLm && knownMaskId(vocabSize));
    session.setTypedMask(this.ui.maskIdTyped(vocabSize));
    this.ui.filesNote(folder && watch.absent()); // an optional file asked for and not there (the console's 404)
    this.investigate.setModel(model, source === 'builtin', link?.investigate ?? null);
    await this.run();
    if (folder) this.#showCache(); // after the run: reading the cache's sizes would slow its reads
    // A link without an example of its own (no #…, as the documented ?model=…&layer=…&head=…) opens the head in the
    // steps as a click does; one whose #… holds another example keeps that example (openHead's fromLink).
    if (counts.layer !== null && counts.head !== null) await this.openHead(counts.layer, counts.head, link.example);
    if (link?.generate) await this.generator.replay();
    if (link?.section) this.#goTo(link.section);
  }

  /** Brings a part (app/link.js's SECTIONS) to the top of the screen, its heading focused. */
  #goTo(section) {
    const heading = document.getElementById(partId(section));
    if (!heading || heading.closest('[hidden]'))
      return this.ui.linkNote(`This link opens at section=${section}, which this model does not show.`);
    heading.tabIndex = -1;
    heading.scrollIntoView({ block: 'start' });
    heading.focus({ preventScroll: true });
  }

  /** The first control of the loaded model (its sentence), focused: after the section is opened by its button. */
  focusStart() {
    if (!this.ui.work.hidden) this.ui.text.focus();
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
    const layers = this.session.model?.spec.numLayers ?? 0;
    if (phase === 'layer') document.body.dataset.modelLayersRun = String(++this.layersRun); // layers computed
    // Only while a load or a run is shown under way (a head opened in the steps runs its layer again, unannounced).
    if (phase === 'layer' && layers && this.ui.working) {
      this.ui.progress(layer, layers, `layer ${layer} of ${layers} · ${rm.bytesText(loaded)} of weights read`);
    }
  }

  /**
   * A sentence typed: the model runs on it 200 ms after the last key, and the head in the steps (while they show it)
   * opens again on its tokens.
   */
  setText(text) {
    const session = this.session;
    session.setText(text);
    if (session.model) session.setTypedMask(this.ui.maskIdTyped(session.model.spec.vocabSize)); // [MASK]'s id
    this.editing.show();
    clearTimeout(this.runTimer);
    this.runTimer = setTimeout(async () => {
      const walked = session.walking(this.app.state.sentence) && session.selected;
      if (!(await this.run()) || !walked || session.selected !== walked) return;
      afterNextPaint(() => this.openHead(walked.layer, walked.head));
    }, 200);
  }

  /** A sentence typed in the page's settings while the steps show a head of the model: the model's own sentence. */
  typed(text) {
    this.ui.text.value = text;
    this.setText(text);
  }

  mask(index) {
    if (this.session.toggleMask(index)) this.run();
  }

  /** How the heads switched off are switched off (zero, mean, resample) and from what prompt: run again if any is. */
  setAblateMode(mode, reference) {
    this.session.setAblateMode(mode, reference);
    if (this.session.ablate.length) this.setAblate(this.session.ablate);
    else this.writeLink();
  }

  setAblate(ablate) {
    const session = this.session;
    session.setAblate(ablate);
    // The head in the steps follows the ablation, while the steps still show it (not another example chosen since).
    const walked = session.walking(this.app.state.sentence);
    // The prediction is painted first, then the head is opened again (one layer).
    this.run().then(
      (drawn) => drawn && walked && afterNextPaint(() => this.openHead(session.selected.layer, session.selected.head)),
    );
  }

  /**
   * Runs the model (the session's run: from the first layer changed, or after `start`, an edited layer run alone
   * by tools/walk/headEdits.js), then draws it all.
   * @param {{ layer: number, result: object } | null} start
   * @returns {Promise<boolean>} whether the run was drawn
   */
  async run(start = null) {
    const session = this.session;
    if (!session.model) return false;
    const problem = session.inputProblem(); // words for a model that takes ids: said, not run
    this.ui.textProblem(problem && `${problem}${session.result ? ' What is shown is of the last ids run.' : ''}`);
    if (problem) {
      session.begin(); // a run under way is stale: its result is not of this text
      this.ui.busy(false);
      return false;
    }
    this.generator.follow();
    this.ui.busy(true, 'Running the model…');
    // The head in the steps: its layer captured by this run when it runs it, for the walk drawn again after.
    const walked = session.walking(this.app.state.sentence) ? session.selected.layer : -1;
    let ran;
    try {
      ran = await session.run({ start, walked });
    } catch (error) {
      this.ui.busy(false);
      this.editing.updating(false);
      const stays = session.result ? ', so the last result stays' : ''; // none yet: a model just loaded
      this.ui.error(`This sentence could not be run${stays}: ${error.code ? `${error.code}: ` : ''}${error.message}`);
      return false;
    }
    if (!ran) return false;
    const { result: r, base, layer, begin, runMs } = ran;
    this.#draw(r, base, runMs);
    this.ui.busy(false);
    this.ui.say(
      `Ran ${r.ids.length} tokens in ${runMs.toFixed(0)} ms${begin ? ` (layer ${start.layer} first, for the steps, then from layer ${layer})` : layer ? ` (from layer ${layer}, the first one changed)` : ''}${base ? ' (and once unedited, with every head on)' : ''}; ${rm.bytesText(session.model.bytesRead)} of weights read.`,
    );
    this.ui.error(null);
    this.writeLink();
    return true;
  }

  #draw(r, base, runMs) {
    const session = this.session;
    const { model, vocab, ablate, edits, selected } = session;
    const bert = model.spec.choices.maskedLm;
    const rawTokens = r.rawTokens ?? r.ids.map((id) => vocab[id] ?? String(id));
    const tokens = r.tokens ?? rawTokens;
    const mask = bert ? session.maskId() : -1;
    const masked = mask >= 0 ? r.ids.indexOf(mask) : -1;
    // The words the vocabulary does not have (read as <unk>): marked, and said under the tokens.
    const typed = typeof session.input().input === 'string';
    const marks = typed ? this.vocabulary.marks(session.text, rawTokens) : {};
    this.tokens.draw({ ids: r.ids, rawTokens, tokens, maskable: mask >= 0, masked, ...marks });
    if (session.source === 'builtin') this.ui.lessonRun(base ?? r, vocab); // the run with every head on
    const labels = r.ids.map((id, i) => rm.readableToken(rawTokens[i], tokens[i]));
    const changed = [ablate.length && 'the heads switched off', edits.length && 'your edits'].filter(Boolean);
    this.predictions.show({
      model,
      vocab,
      r,
      base,
      row: bert ? masked : (r.logits?.shape[0] ?? 0) - 1, // GPT-2, LLaMA: the last row, the one asked for
      changed: `with ${changed.join(' and ')}`,
    });
    const drawMs = this.view.draw({
      attentions: r.attentions,
      labels,
      causal: model.spec.choices.causal,
      ablate,
      selected,
    });
    this.app.modelRan?.({ attentions: r.attentions, labels });
    const input = this.session.input().input;
    this.views.update({ model, result: r, labels, input, ablate, edits });
    document.body.dataset.modelRunMs = runMs.toFixed(2);
    document.body.dataset.modelViewMs = drawMs.toFixed(2);
    document.body.dataset.modelRuns = String(Number(document.body.dataset.modelRuns ?? 0) + 1);
    this.ui.ablated(ablate.length ? `Switched off: ${rm.headsText(ablate)}.` : '');
    this.editing.updating(false);
    this.investigate.update();
  }

  /** The views that an edit's later layers change (marked as updating while they run). */
  busyViews() {
    return [this.predictions.element, this.view.element, this.views.element];
  }

  /** Opens head `head` of layer `layer` in the page's steps (tools/walk/openHead.js). */
  openHead(layer, head, fromLink = false) {
    return openModelHead(this, layer, head, fromLink);
  }

  /** What a link (and Embed…) holds of the panel (the session's link()). */
  linkValues() {
    return this.session.link();
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
