// Generation on the real model, on the page: model.generate()'s steps taken one at a time (Step) or all (Run, with
// Stop), each drawn with its query row against the KV cache; the settings in the link (gen=…), never the tokens.
// Any new sentence, model or settings aborts the iterator through its signal and frees its cache.
import * as gen from './generation.js';
import { headsText } from '../../realModel.js';
import { GenerateView, tokenName } from './generateView.js';

export class RealModelGenerate {
  /** @param {import('../../session.js').RealModelSession} session  the sentence (or ids), its key and the vocabulary */
  constructor(session) {
    this.session = session;
    this.model = null;
    this.steps = [];
    this.shown = -1;
    this.iterator = null;
    this.controller = null;
    this.stopping = false;
    this.busy = null; // the iterator of the advance() in progress
    this.key = null; // what the generation started from (#key)
    this.ablated = []; // the heads switched off in it
    this.view = new GenerateView({
      onStep: () => this.advance(1),
      onRun: () => this.advance(Infinity),
      onStop: () => (this.stopping = true),
      onSettings: () => this.#settingsChanged(),
      onHead: () => this.#redraw(),
    });
    this.view.onPick = (s) => {
      this.shown = s;
      this.#redraw();
    };
  }

  get element() {
    return this.view.element;
  }

  /** A model is loaded: decoders generate, BERT says why it does not; a link's settings are filled in. */
  setModel(model, settings = null) {
    this.model = model;
    const decoder = model.spec.choices.causal;
    this.view.setModel(
      model.spec,
      decoder
        ? null
        : 'Generation continues a text from left to right, which a decoder (GPT-2, the LLaMA family) does; BERT reads the whole sentence at once and guesses masked words instead (above).',
    );
    if (settings) this.view.setValues(settings);
    this.reset();
  }

  /** The settings as the form holds them (checked). */
  settings() {
    return gen.readSettings(this.view.values());
  }

  /** Aborts the generation in progress (its signal, then its iterator, which frees the cache) and empties it. */
  reset(text = '') {
    this.controller?.abort();
    this.controller = null;
    const iterator = this.iterator;
    this.iterator = this.busy = null;
    iterator?.return().catch(() => {}); // a step in flight ends with ABORTED; the cache is freed either way
    this.steps = [];
    this.shown = -1;
    this.stopping = false;
    this.view.clear();
    this.view.running(false);
    this.view.say(text);
  }

  /** Takes `count` more steps (Infinity: to the end, or until Stop), drawing each one. */
  async advance(count) {
    if (!this.model || this.busy) return;
    if (this.steps.at(-1)?.finish) this.reset(); // a finished generation starts again
    this.busy = true; // this call's, until it ends or a reset
    if (!this.iterator) {
      this.controller = new AbortController();
      const settings = this.settings();
      this.view.setValues(settings);
      const { input } = this.session.input();
      const ablate = this.session.ablate.slice(); // the heads switched off in the model view, at every step
      this.key = this.#key();
      this.ablated = ablate;
      try {
        this.iterator = this.model.generate(input, gen.generateOptions(settings, this.controller.signal, ablate));
      } catch (error) {
        this.busy = null;
        return this.view.say(`The generation could not start: ${error.code ? `${error.code}: ` : ''}${error.message}`);
      }
      this.settingsUsed = settings;
    }
    const iterator = this.iterator;
    this.busy = iterator;
    this.stopping = false;
    this.view.running(true);
    try {
      for (let k = 0; k < count && !this.stopping; k++) {
        const t0 = performance.now();
        const { value, done } = await iterator.next();
        this.stepMs = performance.now() - t0;
        if (iterator !== this.iterator) return; // reset meanwhile
        if (done) break;
        this.steps.push(value);
        this.shown = this.steps.length - 1;
        this.#redraw();
        if (value.finish) break;
        await new Promise((resolve) => setTimeout(resolve, 0)); // paint each step, let Stop in
      }
      const last = this.steps.at(-1);
      this.view.running(false);
      this.view.say(
        `${this.steps.length} token${this.steps.length === 1 ? '' : 's'} generated, ${gen.settingsText(this.settingsUsed)}${this.ablated.length ? `, with ${headsText(this.ablated)} switched off` : ', every head on'}; the last step took ${this.stepMs.toFixed(0)} ms${last?.finish ? ' (Step or Run starts again).' : '; Step or Run for more.'}`,
      );
      document.body.dataset.genSteps = String(this.steps.length);
    } catch (error) {
      if (iterator !== this.iterator || error?.code === 'ABORTED') return;
      this.view.running(false);
      this.view.say(`The generation stopped: ${error.code ? `${error.code}: ` : ''}${error.message}`);
    } finally {
      if (this.busy === iterator) this.busy = null;
    }
  }

  /** What a generation starts from: the sentence (or mask) and the heads switched off. */
  #key() {
    return JSON.stringify([this.session.input().key, this.session.ablate]);
  }

  /** The panel runs its sentence again: a generation of another sentence, mask or heads off is cancelled. */
  follow() {
    if (this.#key() === this.key || !(this.iterator || this.steps.length)) return;
    const [sentence] = JSON.parse(this.key);
    this.reset(
      sentence === this.session.input().key
        ? 'The heads switched off changed: Step or Run generates with them.'
        : 'The sentence changed: Step or Run generates from the new one.',
    );
  }

  /** Runs a link's generation to its end (the settings reproduce the same tokens). */
  replay() {
    return this.advance(Infinity);
  }

  /** Shows a head chosen elsewhere (the model view) in the step's row. */
  setHead(layer, head) {
    this.view.setHead(layer, head);
    this.#redraw();
  }

  #settingsChanged() {
    this.reset('The settings changed: Step or Run starts a new generation.');
    this.#writeLink();
  }

  #redraw() {
    if (this.shown >= 0) this.view.draw(this.steps, this.shown, tokenName(this.session.vocab), this.ablated);
    this.#writeLink();
  }

  /** The settings in the query string beside the model's parameters (the tokens follow from them). */
  #writeLink() {
    const search = gen.writeGenerateLink(location.search, this.steps.length ? this.settingsUsed : null);
    if (search !== location.search) history.replaceState(null, '', `${search}${location.hash}`);
  }
}
