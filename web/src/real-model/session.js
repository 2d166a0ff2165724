// The real model's page state in one object, without the page: the model and where it comes from, its sentence and
// vocabulary, the heads switched off and the numbers edited, the last run and the run with every head on, the head
// opened, the load or run under way (a generation count and an AbortController), and the caches of one layer's run
// and weights. Its methods are the transitions (a model loaded, a sentence typed, a token masked, a head switched
// off, a head opened, a run, a cancel); the panel (panel.js) and its tools (tools/walk/, tools/generate/,
// tools/layer/) read it and change it only through them, and draw. No DOM.
import * as rm from './realModel.js';
import { firstChangedLayer, fromOptions, layerCapture, mergeRun } from './run/rerun.js';
import { runInParts } from './run/runParts.js';
import { runInput } from './run/runInput.js';

// The layers whose attention weights are kept: copying them out again is a few ms, a large model's layer tens of MB.
const KEPT_LAYERS = 2;

export class RealModelSession {
  /** The loaded model (attention-wasm/model), or null. */
  model = null;
  /** What a link names the model by: 'builtin', 'files', or the URL or Hub id typed. */
  source = null;
  /** The folder's URL, when the model is read by address. */
  folder = null;
  /** The dropped or picked files (name → File), when the model came from them. */
  files = null;
  /** The vocabulary, id → token (empty without a tokenizer.json). */
  vocab = [];
  /** The sentence (or, without a tokenizer, the ids) the model runs on. */
  text = '';
  /** The token shown as [MASK] (BERT, a token clicked), or -1. */
  masked = -1;
  /** BERT's [MASK] id typed beside the ids (a folder without tokenizer.json), or -1. */
  typedMask = -1;
  /** The heads switched off, [layer, head] pairs sorted. */
  ablate = [];
  /** How they are switched off: 'zero', 'mean' (over this run, or over `ablateReference`'s) or 'resample'. */
  ablateMode = 'zero';
  /** The prompt whose run gives a 'mean' or 'resample' ablation its values ('' for 'mean': this run's). */
  ablateReference = '';
  /** Numbers edited in the walk, as model.run takes them (tools/walk/walkEdits.js). */
  edits = [];
  /** The head opened ({ layer, head }): in the model view, the steps and the one-layer views. */
  selected = null;
  /** The page's state of the head in the steps (tools/walk/modelWalk.js's walkState), or null. */
  shown = null;
  /** The last run drawn: { model, key, ablate, edits, result }. */
  ran = null;
  /** The run of that sentence with every head on and no edit, for the ablation's change: { key, result }. */
  base = null;
  /** The ids of the last sentence run as text (the [MASK] goes in place of one of them). */
  lastIds = null;
  /** The link being opened (realModel.js's readModelLink), until its model is loaded. */
  pending = null;
  /** An edit's later layers under way (tools/walk/headEdits.js): { layer, done, drawn }. */
  rest = null;
  /** Counts loads, runs and cancels: a run of an older count is not drawn. */
  generation = 0;
  #controller = null;
  #weights = new Map(); // layer → Promise of its attention weights (unedited), newest last
  #layerRun = null; // { result, ablate, edits, layer, run }: the last layer run alone, which its other heads reuse

  /** The last run's result (model.run's), or null. */
  get result() {
    return this.ran?.result ?? null;
  }

  /** A new AbortSignal for a load or a run: the one before is aborted. */
  signal() {
    this.#controller?.abort();
    this.#controller = new AbortController();
    return this.#controller.signal;
  }

  /** Whatever runs or loads is aborted and stale. @returns {number | null} an edit's layer whose steps are drawn */
  cancel() {
    const half = this.rest?.drawn ? this.rest.layer : null;
    this.#controller?.abort();
    this.#controller = null;
    this.generation++;
    return half;
  }

  /** A load, a run or an edit begins: the ones before are stale. @returns {number} its generation */
  begin() {
    return ++this.generation;
  }

  /** Whether `generation` (begin's) is still the newest. */
  current(generation) {
    return generation === this.generation;
  }

  /** The link being opened: its sentence is the one the model runs first. */
  opening(link) {
    this.pending = link;
    if (link?.text !== null && link?.text !== undefined) this.text = link.text;
  }

  /**
   * A model is loaded: it replaces the last one (disposed) and everything of it (runs, head, mask, caches). The link
   * being opened gives its sentence, ablations and edits (those of layers the model has, realModel.js's linkCounts);
   * else the sentence stays for the same source read the same way (words, or ids without a tokenizer), or the model's
   * default sentence.
   * @returns {{ link: object | null, counts: { layer: number | null, head: number | null, message: string } }} the
   *   link that was being opened, and its head and message as linkCounts read them
   */
  loaded(model, { source, folder = null, files = null }) {
    const old = this.model;
    const keep = this.text && this.source === source && old?.hasTokenizer === model.hasTokenizer;
    old?.dispose();
    const link = this.pending;
    const { numLayers } = model.spec;
    Object.assign(this, { model, source, folder, files, vocab: [], pending: null });
    Object.assign(this, { ran: null, base: null, lastIds: null, selected: null, shown: null, masked: -1 });
    this.#weights = new Map();
    this.#layerRun = null;
    const counts = rm.linkCounts(link, model.spec); // counted from 0; a link written counted from 1 is said so
    this.ablate = counts.ablate;
    this.ablateMode = link?.ablateMode ?? this.ablateMode;
    this.ablateReference = link?.ablateReference ?? this.ablateReference;
    this.edits = (link?.edits ?? []).filter((e) => e.layer < numLayers);
    this.text = link?.text ?? (keep ? this.text : rm.defaultText(model, source));
    return { link, counts };
  }

  /** The model's vocabulary (id → token), once its tokenizer.json is read. */
  setVocab(vocab) {
    this.vocab = vocab;
  }

  /** A new sentence: no token masked, and X's edits (of the old sentence's tokens) dropped. */
  setText(text) {
    this.text = text;
    this.masked = -1;
    this.edits = this.edits.filter((e) => e.step !== 'x');
  }

  /** The [MASK] id typed beside the ids (the panel's field: -1 when none is). */
  setTypedMask(id) {
    this.typedMask = id;
  }

  /** BERT's [MASK] id: the vocabulary's, or (without tokenizer.json) the one typed beside the ids; -1 when unknown. */
  maskId() {
    return this.model.hasTokenizer ? rm.maskId(this.vocab) : this.typedMask;
  }

  /** Masks token `index` (BERT), or unmasks it. @returns {boolean} false when no [MASK] id is known */
  toggleMask(index) {
    if (this.maskId() < 0) return false;
    this.masked = this.masked === index ? -1 : index;
    return true;
  }

  /** The heads switched off. */
  setAblate(ablate) {
    this.ablate = ablate;
  }

  /** How the heads are switched off (`mode`, with the prompt that gives 'mean' or 'resample' its values). */
  setAblateMode(mode, reference = '') {
    this.ablateMode = mode;
    this.ablateReference = reference;
  }

  /**
   * `pairs` ([layer, head]) as model.run's `ablate`: the pairs themselves when zeroed, else { layer, head, mode,
   * reference } (the reference text, or its ids for a model without tokenizer.json).
   */
  ablateOptions(pairs = this.ablate) {
    if (this.ablateMode === 'zero') return pairs;
    const text = this.ablateReference.trim();
    const reference = !text ? undefined : this.model?.hasTokenizer ? text : { ids: text.split(/\s+/u).map(Number) };
    return pairs.map(([layer, head]) => ({ layer, head, mode: this.ablateMode, ...(reference ? { reference } : {}) }));
  }

  /** The ablation's mode and reference as one key: a change runs the ablated layers again. */
  #modeKey() {
    return this.ablateMode === 'zero' ? 'zero' : `${this.ablateMode}:${this.ablateReference.trim()}`;
  }

  /** The numbers edited (walkEdits.js's edits). */
  setEdits(edits) {
    this.edits = edits;
  }

  /** Opens head `head` of layer `layer` (the model view, the steps and the one-layer views follow). */
  openHead(layer, head) {
    this.selected = { layer, head };
    return this.selected;
  }

  /** The head is drawn in the steps as the page's state `state`. */
  showInSteps(state) {
    this.shown = state;
  }

  /** Whether the steps show the opened head: the page's sentence is still the walk's. */
  walking(sentence) {
    return Boolean(this.selected && this.shown && this.shown.sentence === sentence);
  }

  /**
   * Why the text cannot be run as it is, or null: a model without a tokenizer.json takes token ids only.
   * @returns {string | null}
   */
  inputProblem() {
    if (!this.model || this.model.hasTokenizer) return null;
    const words = this.text.trim().split(/\s+/u).filter(Boolean);
    const V = this.model.spec.vocabSize;
    // [MASK] (BERT) stands for the id typed beside (run/runInput.js's typedIds)
    if (!words.length || words.some((w) => !/^\d{1,9}$/u.test(w) && !/^\[mask\]$/iu.test(w)))
      return `This model has no tokenizer.json, so the page cannot split words into tokens: type token ids instead, whole numbers from 0 to ${V - 1} separated by spaces (for example 1 2 3).`;
    const over = words.find((w) => Number(w) >= V);
    return over ? `Token id ${over} is not in this model's vocabulary of ${V} (ids 0 to ${V - 1}).` : null;
  }

  /**
   * The run's input: the text, or the ids typed (no tokenizer.json), with one token masked (BERT: a token clicked, or
   * [MASK] typed); `key` names it (run/runInput.js).
   */
  input() {
    return runInput(this.text, this.model, this, this.maskId());
  }

  /** What a link (and Embed…) holds of this state: model, sentence (`ids`: token ids), head, heads off and edits. */
  link() {
    const { source: model, text, selected, ablate, edits, ablateMode } = this;
    const ablateReference = this.ablateReference.trim() || null;
    const ids = !this.model?.hasTokenizer;
    return {
      model,
      text,
      ids,
      layer: selected?.layer,
      head: selected?.head,
      ablate,
      edits,
      ablateMode,
      ablateReference,
    };
  }

  /**
   * Runs the model on the sentence with the ablations and edits (and once per sentence without them, `base`), from
   * the first layer they change (run/rerun.js), or with `start` (an edited layer run alone on the last run, with its
   * capture: tools/walk/headEdits.js) from the layer after it; in parts once the model has run (run/runParts.js).
   * The walked head's layer (`walked`, or -1) is captured when this run runs it, and kept for the walk.
   * @param {{ start?: { layer: number, result: object } | null, walked?: number }} how
   * @returns {Promise<{ result: object, base: object | null, layer: number, begin: boolean, runMs: number } | null>}
   *   null when a newer load, run or cancel overtook it; its own errors are thrown
   */
  async run({ start = null, walked = -1 } = {}) {
    const generation = this.begin();
    const model = this.model;
    const { input, key } = this.input();
    try {
      const t0 = performance.now();
      const signal = this.signal();
      const settings = { ablate: this.ablate.slice(), edits: this.edits.slice() };
      // The prediction reads one row of the logits: the last (GPT-2, LLaMA), or the [MASK]'s (BERT: all rows).
      const options = { topK: rm.TOP_K, ...settings, signal, logits: model.spec.choices.maskedLm || 'last' };
      const modeKey = this.#modeKey(); // a new mode runs the ablated layers again: the whole run, here
      const last = this.ran?.key === key && this.ran.model === model && this.ran.modeKey === modeKey ? this.ran : null;
      const begin = Boolean(last && start); // the edited layer's run holds for this sentence only
      const prior = begin ? mergeRun(last.result, start.result, start.layer) : last?.result;
      const layer = !last
        ? 0
        : begin
          ? start.layer + 1
          : Math.min(firstChangedLayer(last, settings) ?? Infinity, model.spec.numLayers - 1);
      const from = layer > 0 ? fromOptions(prior, layer, settings) : {};
      if (walked >= layer) from.capture = layerCapture(model.spec, walked);
      // In parts with a task between (run/runParts.js), once the model has run: its weights are read then (a first
      // run's reads stay one run, its cache written after it). On workers the layers compute there and this thread
      // waits for their messages between them: one run.
      const run = (o) => {
        const moded = { ...o, ablate: this.ablateOptions(o.ablate) };
        const parts = this.ran?.model === model && !model.workers;
        return parts ? runInParts(model, input, moded) : model.run(input, moded);
      };
      const result = mergeRun(prior, await run({ ...options, ...from }), layer);
      if (begin) result.captures = start.result.captures; // the edited layer's, the walk's
      const runMs = performance.now() - t0;
      const plain = !settings.ablate.length && !settings.edits.length;
      if (plain) this.base = { key, result };
      else if (this.base?.key !== key) this.base = { key, result: await run({ ...options, ablate: [], edits: [] }) };
      const base = plain ? null : this.base.result;
      if (!this.current(generation)) return null;
      this.ran = { model, key, modeKey, ...settings, result };
      if (this.masked < 0) this.lastIds = result.ids; // the ids a token clicked is masked in
      if (walked >= layer || (begin && walked === start.layer)) this.rememberLayer(walked, result);
      return { result, base, layer, begin, runMs };
    } catch (error) {
      if (!this.current(generation) || error?.code === 'ABORTED') return null;
      throw error;
    }
  }

  /**
   * Runs layer `layer` alone on the last run with its ablations and edits, capturing `capture`: model.run's result
   * (with the layer's attentions when asked: a run that the later layers' run continues keeps them).
   */
  runLayer(layer, capture, { attentions = false } = {}) {
    const { input } = this.input();
    const options = fromOptions(this.result, layer, { ablate: this.ablate, edits: this.edits }, true);
    const ablate = this.ablateOptions(options.ablate);
    return this.model.run(input, { ...options, ablate, capture, logits: false, attentions });
  }

  /** runLayer's result capturing every head, shared by the heads of a layer while the run and settings stay. */
  layerRun(layer) {
    const { result, ablate, edits } = this;
    const last = this.#layerRun;
    const same = last?.result === result && last.layer === layer && last.ablate === ablate && last.edits === edits;
    if (!same) {
      const run = this.runLayer(layer, layerCapture(this.model.spec, layer));
      run.catch(() => this.#layerRun?.run === run && (this.#layerRun = null)); // run again next time
      this.#layerRun = { result, ablate, edits, layer, run };
    }
    return this.#layerRun.run;
  }

  /** The capture of every head of layer `layer` made by the last run itself (`r`): the walk's. */
  rememberLayer(layer, r) {
    const { result, ablate, edits } = this;
    this.#layerRun = { result, ablate, edits, layer, run: Promise.resolve(r) };
  }

  /** Layer `layer`'s attention weights (asked of the model again once KEPT_LAYERS others were opened). */
  layerWeights(layer) {
    const known = this.#weights;
    let weights = known.get(layer);
    if (!weights) {
      weights = this.model.attentionWeights(layer);
      weights.catch(() => known.get(layer) === weights && known.delete(layer)); // asked again next time
    }
    known.delete(layer);
    known.set(layer, weights);
    for (const old of known.keys()) if (known.size > KEPT_LAYERS) known.delete(old);
    return weights;
  }
}
