// The real model's Investigate part: the logit lens, direct logit attribution, activation patching, head detector
// scores and the loss per token, on the session's model, sentence and heads switched off (the session's last run);
// each tab computed when shown and again after each run while shown, its numbers copied as CSV, JSON or NumPy, its
// figure downloaded as SVG or PNG, and the run downloaded as .npz. The instruments are attention-wasm/model's; the
// shaping is shared/instruments/'s (pure, for the elements too); the views draw. The tab chosen and its inputs are the
// page's link (link(), and a link's opened by setModel: app/link.js's inv rows).
import { readableToken } from '../../realModel.js';
import { runInParts } from '../../run/runParts.js';
import { attributionSummary, attributionTables, attributionView } from '../../../shared/instruments/attribution.js';
import { headMarks, scoreRows, scoresSummary, scoresTable } from '../../../shared/instruments/headScores.js';
import { lensGrid, lensTables, softmaxRow } from '../../../shared/instruments/lens.js';
import { lossRows, lossScale, lossTable } from '../../../shared/instruments/loss.js';
import { readTarget, readToken, targetText, tokenIndex } from '../../../shared/instruments/targets.js';
import { defaultCorrupted, fullRun, headScores, lensLogits, scoreIds } from './instruments.js';
import { CELL_ROWS, sweepBatchRows } from '../../../shared/instruments/patching.js';
import { AttributionView } from '../../../elements/instruments/attributionView.js';
import { InvestigateView } from './investigateView.js';
import { fillInputs } from './linkInputs.js';
import { LensView } from '../../../elements/instruments/lensView.js';
import { LossView } from '../../../elements/instruments/lossView.js';
import { PatchRunner } from '../../../elements/instruments/patchRunner.js';
import { PatchingView } from '../../../elements/instruments/patchingView.js';
import { ScoresView } from '../../../elements/instruments/scoresView.js';

/** The sweep's prompts' runs in parts of about this many ms: a task waits at most about this long. */
const PROMPT_PART_MS = 50;

const error = (e) => `${e.code ? `${e.code}: ` : ''}${e.message}`;

export class RealModelInvestigate {
  /**
   * @param {import('../../session.js').RealModelSession} session
   * @param {{ onHead: (layer: number, head: number) => void, onMarks: (marks: Map<string, object>) => void,
   *   onLink?: () => void }} handlers  onLink: the tab chosen or its inputs changed (the page's link follows)
   */
  constructor(session, { onHead, onMarks, onLink = () => {} }) {
    this.session = session;
    this.onMarks = onMarks;
    this.onLink = onLink;
    this.tab = null;
    this.chosen = null; // the tab a reader (or a link) chose: the link names it
    this.shown = {}; // tab → the run (and options) it was computed for
    this.tables = {}; // tab → its tables to copy
    this.count = 0; // each computation's number: an older one is not drawn
    this.views = {
      lens: new LensView({
        onPick: (position, id) => this.#follow(position, id),
        onToken: (text) => this.#followTyped(text),
      }),
      attribution: new AttributionView({
        onTarget: () => {
          this.#refresh();
          this.onLink();
        },
        onHead,
      }),
      patching: new PatchingView({
        onRun: () => {
          this.#sweep();
          this.onLink();
        },
        onCancel: () => this.patch.cancel(),
        onHead, // a head of the head outputs opens in the walk, as attribution's and the scores' do
      }),
      scores: new ScoresView({ onOptions: () => this.#refresh(), onHead }),
      loss: new LossView(),
    };
    this.patch = new PatchRunner(this.views.patching, (what, count) => {
      const data = document.body.dataset; // what the page's tests wait for
      if (what === 'cells') data.invSweepCells = String(count);
      else data.invSweeps = String(Number(data.invSweeps ?? 0) + 1);
    });
    this.view = new InvestigateView(this.views, {
      onTab: (key) => {
        this.chosen = key;
        this.show(key);
        this.onLink();
      },
      onNpz: () => this.#npz(),
      tables: (key) => (key === 'patching' ? this.patch.tables() : (this.tables[key] ?? [])),
      picture: (key, kind) => this.#picture(key, kind),
    });
  }

  get element() {
    return this.view.element;
  }

  /**
   * A model is loaded: everything of the last one is forgotten; it opens on the tab `link` names (its inputs filled
   * in: fillInputs), else the shipped model on the logit lens.
   * @param {object | null} link  app/link.js's investigate values (invTab, invTarget, …), or null
   */
  setModel(model, builtin, link = null) {
    this.patch.cancel();
    this.model = model;
    this.shown = {};
    this.tables = {};
    this.lens = { chosen: -1, position: -1 };
    this.index = null;
    this.marked = undefined;
    for (const view of Object.values(this.views)) view.clear();
    const text = this.session.text;
    this.views.patching.setPrompts(text, defaultCorrupted(text));
    const bert = model.spec.choices.maskedLm;
    const why =
      'BERT’s masked-LM head is not linear and it predicts no next token: attribution and loss are for decoders (GPT-2, the LLaMA family).';
    this.view.note('attribution', bert ? why : null);
    this.view.note('loss', bert ? why : null);
    this.chosen = link?.invTab ?? null;
    const tab = this.chosen ?? (builtin ? 'lens' : null);
    this.linked = link && fillInputs(this.views, tab, link); // the lens's, read once its run is drawn
    this.sweepLinked = tab === 'patching' && Boolean(link); // the sweeps the link shows, after the first run
    this.show(tab);
  }

  /** The link's part of Investigate: the tab chosen and its inputs (app/link.js's invTab, invTarget, …), or null. */
  link() {
    if (!this.chosen) return null;
    const typed = (value) => (value.trim() ? value : null);
    const { attribution, patching } = this.views;
    const text = this.session.text;
    const values = {
      lens: () => ({ invTarget: this.lens?.picked?.target, invPosition: this.lens?.picked?.position }),
      attribution: () => ({ invTarget: typed(attribution.values().a), invAgainst: typed(attribution.values().b) }),
      patching: () => {
        const { clean, corrupted, a, b, position } = patching.values();
        return {
          invTarget: typed(a),
          invAgainst: typed(b),
          invPosition: /^\s*\d{1,5}\s*$/u.test(position) ? Number(position) : null,
          invClean: clean === text ? null : clean,
          invCorrupted: corrupted === defaultCorrupted(text) ? null : corrupted,
        };
      },
    }[this.chosen]?.();
    return { invTab: this.chosen, ...values };
  }

  /** The vocabulary: a token's name as shown, and the lookup of tokens typed. */
  #name = (id) => readableToken(this.session.vocab[id] ?? String(id));
  #index() {
    this.index ??= tokenIndex(this.session.vocab);
    return this.index;
  }

  /** Shows tab `key` (null: none) and computes it for the last run. */
  show(key) {
    this.tab = key;
    this.view.select(key);
    this.view.say(''); // the last tab's line is not this one's
    this.#refresh();
  }

  /** A run was drawn: the tab shown follows it. */
  update() {
    const text = this.session.text;
    this.views.patching.follow(text, defaultCorrupted(text));
    // The model view's marks were of the sentence scored: another sentence, not scored while the tab is hidden, has none.
    if (this.marked !== undefined && this.marked !== text && this.tab !== 'scores') {
      this.marked = undefined;
      this.onMarks(new Map());
    }
    this.#refresh();
    if (this.sweepLinked) {
      this.sweepLinked = false;
      this.#sweep();
    }
  }

  /** What a tab's numbers depend on besides the run: its fields (a change event with nothing changed runs nothing). */
  #options(key) {
    const more = { attribution: () => this.views.attribution.values(), scores: () => this.views.scores.options() }[key];
    return JSON.stringify([more?.() ?? null, this.session.ablateMode, this.session.ablateReference]);
  }

  /** Computes the tab shown when its run or its options changed. */
  async #refresh() {
    const key = this.tab;
    const r = this.session.result;
    if (!key || !r || !this.model || key === 'patching') return;
    const options = this.#options(key);
    if (this.shown[key]?.r === r && this.shown[key].options === options) return;
    if (this.model.spec.choices.maskedLm && (key === 'attribution' || key === 'loss')) return;
    this.shown[key] = { r, options };
    const count = ++this.count;
    const t0 = performance.now();
    this.view.say('Computing…');
    try {
      const compute = {
        lens: () => this.#lens(r),
        attribution: () => this.#attribution(r),
        scores: () => this.#scores(r),
        loss: () => this.#loss(r),
      }[key];
      const finish = await compute();
      if (count !== this.count) return;
      const computed = finish() !== false;
      const name = key === 'scores' ? 'Head scores' : key[0].toUpperCase() + key.slice(1);
      this.view.say(computed ? `${name} computed in ${(performance.now() - t0).toFixed(0)} ms.` : '');
      document.body.dataset.invDrawn = `${key}:${Number(document.body.dataset.invDrawn?.split(':')[1] ?? 0) + 1}`;
    } catch (e) {
      if (count !== this.count) return;
      this.shown[key] = null;
      this.view.say(`This could not be computed: ${error(e)}`);
    }
  }

  /** The logit lens of run r: computed once per run; the token followed changes only the drawing. */
  async #lens(r) {
    const logits = await lensLogits(this.model, r);
    return () => {
      this.lensLogits = logits;
      const n = r.ids.length;
      if (this.lens.position < 0 || this.lens.position >= n || this.lens.run !== r) {
        this.lens = { chosen: -1, position: n - 1, run: r };
        this.view.note('lens', this.linked ? this.#lensLinked(n) : null);
        this.linked = null;
      }
      this.#drawLens();
    };
  }

  #drawLens() {
    const logits = this.lensLogits;
    const r = this.session.result;
    if (!logits || !r) return;
    const tokens = this.#tokens(r);
    const { position } = this.lens;
    if (this.lens.chosen < 0) this.lens.chosen = softmaxRow(logits.at(-1), position).id; // the prediction
    const grid = lensGrid(logits, { name: this.#name, chosen: this.lens.chosen, position });
    const chosenName = `“${this.#name(this.lens.chosen)}”`;
    this.views.lens.token.value = this.#name(this.lens.chosen).replace(/^␣/u, ' ');
    this.views.lens.draw(grid, { tokens, position, chosenName });
    this.tables.lens = [lensTables(grid, tokens, chosenName)];
  }

  /** The lens's token and position a link names, followed; what cannot be is said (the tab's note). */
  #lensLinked(n) {
    const { invTarget, invPosition } = this.linked;
    const problems = [];
    if (invPosition !== undefined && invPosition < n) this.lens.position = invPosition;
    else if (invPosition !== undefined)
      problems.push(
        `This link's invpos=${invPosition} is past the last token (positions 0 to ${n - 1}): the last is shown.`,
      );
    if (invTarget !== undefined) {
      const read = readToken(invTarget, this.#index(), this.model.spec.vocabSize);
      if ('problem' in read) problems.push(`This link's invtarget: ${read.problem} The prediction is followed.`);
      else this.lens.chosen = read.id;
    }
    const target = this.lens.chosen >= 0 ? invTarget : undefined;
    if (invPosition !== undefined || target !== undefined) this.lens.picked = { target, position: this.lens.position };
    return problems.join(' ') || null;
  }

  /** Token `id` as a link writes it: its name as shown (a leading ␣ a space) when it reads back as it, else the id. */
  #tokenText(id) {
    const name = this.#name(id).replace(/^␣/u, ' ');
    return readToken(name, this.#index(), this.model.spec.vocabSize).id === id ? name : String(id);
  }

  #follow(position, id) {
    this.lens = { ...this.lens, position, chosen: id };
    this.#drawLens();
    this.lens.picked = { target: this.#tokenText(id), position };
    this.view.note('lens', null);
    this.onLink();
  }

  #followTyped(text) {
    const read = readToken(text, this.#index(), this.model.spec.vocabSize);
    if ('problem' in read) return this.view.say(read.problem);
    this.lens.chosen = read.id;
    this.#drawLens();
    this.lens.picked = { target: text, position: this.lens.position };
    this.onLink();
  }

  /** Attribution of the predicted token (or the tokens typed) at the last position, with the heads switched off. */
  async #attribution(r) {
    const { a, b } = this.views.attribution.values();
    const read = readTarget(a, b, this.#index(), this.model.spec.vocabSize, r.next?.[0]?.id ?? 0);
    if ('problem' in read) {
      this.shown.attribution = null;
      return () => {
        this.views.attribution.clear(); // no grid of an earlier target under this one's problem
        this.views.attribution.say(read.problem);
        return false; // nothing computed: no "computed in"
      };
    }
    const { input } = this.session.input();
    const result = await this.model.attribute(input, { target: read.target, ablate: this.session.ablateOptions() });
    return () => {
      const view = attributionView(result);
      const name = targetText(read.target, this.#name);
      const what = `logit ${read.target.length > 1 ? 'difference ' : ''}${name}`;
      const edited = this.session.edits.length
        ? ' Your edits in the steps are not in it: model.attribute runs the checkpoint as it is, with the heads switched off.'
        : '';
      this.views.attribution.draw(view, `${attributionSummary(view, what)}${edited}`);
      const { grid, parts } = attributionTables(view, name);
      this.tables.attribution = [grid, parts];
    };
  }

  /** The three head detectors on the sentence or on random repeated tokens; marks on the model view. */
  async #scores(r) {
    const { which, ...options } = this.views.scores.options();
    const scores = await headScores(this.model, scoreIds(this.model, which, r.ids), options);
    return () => {
      const rows = scoreRows(scores);
      this.views.scores.draw(rows, `Highest: ${scoresSummary(rows)}.`);
      this.tables.scores = [scoresTable(rows)];
      this.onMarks(headMarks(rows));
      this.marked = which === 'sentence' ? this.session.text : undefined; // random repeats: any sentence's
    };
  }

  /** The loss per token of the sentence, with the heads switched off as they are. */
  async #loss() {
    const run = await fullRun(this.session, { loss: true });
    return () => {
      const tokens = this.#tokens(run);
      const rows = lossRows(tokens, run.loss.perToken);
      const off = this.session.ablate.length
        ? `with ${this.session.ablate.length} head${this.session.ablate.length > 1 ? 's' : ''} switched off (${this.session.ablateMode})`
        : '';
      this.views.loss.draw(rows, { first: tokens[0], mean: run.loss.mean, scale: lossScale(rows), changed: off });
      this.tables.loss = [lossTable(rows, run.loss.mean)];
    };
  }

  #tokens(r) {
    const raw = r.rawTokens ?? r.ids.map((id) => this.session.vocab[id] ?? String(id));
    return r.ids.map((_, i) => readableToken(raw[i], r.tokens?.[i]));
  }

  #sweep() {
    if (!this.model) return;
    const model = this.model;
    // A large model's prompts run in parts, as the page's other runs: a task between layers (runParts.js). A model
    // whose sweep needs no smaller batches (the shipped one) runs them whole: a break would only cost a frame.
    const large = sweepBatchRows(model.spec) < CELL_ROWS;
    const runPrompt = (input, options) => runInParts(model, input, options, { partMs: PROMPT_PART_MS });
    this.patch.run({ model, index: this.#index(), name: this.#name, runPrompt: large ? runPrompt : undefined });
  }

  /** Downloads tab `key`'s figure as drawn (the elements' pictures: instrumentPicture.js, loaded now). */
  async #picture(key, kind) {
    const name = key === 'scores' ? 'head-scores' : key;
    try {
      const [{ viewFigure, viewPicture }, { download }] = await Promise.all([
        import('../../../elements/instruments/instrumentPicture.js'),
        import('../../../elements/pictureDraw.js'),
      ]);
      const { family, numLayers, numHeads } = this.model.spec;
      const sub = `${family}, ${numLayers} layers of ${numHeads} heads (from 0) · “${this.session.text}”`;
      const figure = viewFigure(name, this.views[key], { sub });
      if (!figure) this.view.status.textContent = 'Nothing is drawn in this tab yet.';
      else await download(viewPicture(figure, kind), `${name}.${kind}`, document.body);
    } catch (e) {
      this.view.status.textContent = `The ${kind.toUpperCase()} could not be made: ${error(e)}`;
    }
  }

  /** Downloads the sentence's run (attentions, hidden states, logits, loss) as .npz: r.toNpz(). */
  async #npz() {
    const note = this.view.npzNote;
    if (!this.model) return;
    note.textContent = 'Running and writing…';
    try {
      const run = await fullRun(this.session, { loss: this.model.spec.choices.causal });
      const bytes = await run.toNpz();
      const url = URL.createObjectURL(new Blob([bytes], { type: 'application/octet-stream' }));
      const link = Object.assign(document.createElement('a'), { href: url, download: 'run.npz' });
      link.click();
      setTimeout(() => URL.revokeObjectURL(url), 1000);
      note.textContent = `run.npz: ${(bytes.length / 1e3).toFixed(0)} kB (numpy.load reads it).`;
    } catch (e) {
      note.textContent = `The run could not be written: ${error(e)}`;
    }
  }
}
