// Each instrument of an element (instrumentFigure.js): computed on the shared model (its calls queued), shaped by
// shared/instruments/ and drawn by the page's views (this folder). Each returns { view, result } (result: the numbers
// shown, for element.result) or { problem }; patching also returns `after`, its sweeps filling the grids in. What a
// reader types in a view's fields is read as tokens (tokenNames.js), never as markup. A head clicked (attribution,
// patching's head outputs, head-scores) calls ctx.heads.onHead (instrumentFigure.js: the headselect event).
import { headNames } from '../../shared/counting.js';
import { attributionSummary, attributionView } from '../../shared/instruments/attribution.js';
import { allHeadScores, repeatedSequences, scoreRows, scoresSummary } from '../../shared/instruments/headScores.js';
import { lensGrid, lensLogits, softmaxRow } from '../../shared/instruments/lens.js';
import { lossRows, lossScale } from '../../shared/instruments/loss.js';
import { targetText } from '../../shared/instruments/targets.js';
import { label } from '../modelFigure.js';
import { DEFAULT_SENTENCE } from '../modelSettings.js';
import { AttributionView } from './attributionView.js';
import { DEFAULT_CORRUPTED } from './instrumentSettings.js';
import { LensView } from './lensView.js';
import { LossView } from './lossView.js';
import { PatchRunner } from './patchRunner.js';
import { PatchingView } from './patchingView.js';
import { ScoresView } from './scoresView.js';
import { readTokenText, tokenNames } from './tokenNames.js';

const tokensOf = (r) => (r.tokens ?? r.ids.map(String)).map(label);

/** The position asked for (`position`, from 0), else the last; one past the tokens is said and the last used. */
function positionOf({ instrument, problems }, n) {
  const { position } = instrument;
  if (position === null) return n - 1;
  if (position < n) return position;
  problems.push(
    `position="${position}" is past the last token (positions count from 0 to ${n - 1}), so the last is shown`,
  );
  return n - 1;
}

/** Token a (typed, else `fallback`) and, when typed, b: the target of an attribution or a sweep. */
async function targetOf({ model }, aText, bText, fallback) {
  const a = aText.trim() ? readTokenText(model, aText, 'target') : { id: fallback };
  if ('problem' in a) return a;
  if (!bText.trim()) return { target: [a.id] };
  const b = readTokenText(model, bText, 'against');
  if ('problem' in b) return b;
  if (b.id === a.id) return { problem: 'target and against are the same token: their difference is 0 everywhere' };
  return { target: [a.id, b.id] };
}

async function lens(ctx) {
  const { shared, model, input, settings, instrument, signal } = ctx;
  const options = { hiddenStates: true, attentions: false, logits: 'last', topK: 1, ablate: settings.ablate, signal };
  const r = await shared.run(input, options);
  const logits = await shared.call((m) => lensLogits(m, r, signal));
  const tokens = tokensOf(r);
  const shown = { position: positionOf(ctx, r.ids.length), chosen: softmaxRow(logits.at(-1), r.ids.length - 1).id };
  if (instrument.target !== null) {
    const read = readTokenText(model, instrument.target, 'target');
    if ('problem' in read) ctx.problems.push(`${read.problem}; the prediction is followed`);
    else shown.chosen = read.id;
  }
  const tops = lensGrid(logits, { name: String, chosen: -1, position: -1 }).rows.flatMap((row) =>
    row.cells.map((c) => c.id),
  );
  const result = {};
  const draw = async () => {
    const name = await tokenNames(shared, model, [...tops, shown.chosen]);
    const grid = lensGrid(logits, { name, chosen: shown.chosen, position: shown.position });
    view.draw(grid, { tokens, position: shown.position, chosenName: `“${name(shown.chosen)}”` });
    view.token.value = name(shown.chosen).replace(/·/gu, ' ');
    Object.assign(result, { grid, ...shown });
  };
  const view = new LensView({
    onPick: (position, id) => {
      Object.assign(shown, { position, chosen: id });
      draw();
    },
    onToken: async (text) => {
      const read = readTokenText(model, text, 'the token followed');
      if ('problem' in read) view.caption.textContent = read.problem;
      else {
        shown.chosen = read.id;
        draw();
      }
    },
  });
  await draw();
  return { view, result };
}

async function attribution(ctx) {
  const { shared, model, input, settings, instrument, run } = ctx;
  const position = instrument.position === null ? undefined : positionOf(ctx, run.ids.length);
  const result = {};
  const compute = async () => {
    const { a, b } = view.values();
    // The predicted token at the position attributed: the run's next token at the last one.
    let fallback = run.next[0].id;
    if (position !== undefined && position < run.ids.length - 1) fallback = run.ids[position + 1];
    const read = await targetOf(ctx, a, b, fallback);
    if ('problem' in read) {
      view.clear(); // no grid of an earlier target under this one's problem (as the page)
      return view.say(read.problem);
    }
    const options = { target: read.target, ablate: settings.ablate, ...(position === undefined ? {} : { position }) };
    const attributed = await shared.call((m) => m.attribute(input, options));
    const name = await tokenNames(shared, model, read.target);
    const shaped = attributionView(attributed);
    const what = `logit ${read.target.length > 1 ? 'difference ' : ''}${targetText(read.target, name)}`;
    view.draw(shaped, attributionSummary(shaped, what));
    Object.assign(result, { target: read.target, attribution: attributed, shaped }); // `view` stays the view's name
  };
  const view = new AttributionView({
    onTarget: () => compute().catch((e) => view.say(e?.message ?? String(e))),
    ...ctx.heads,
  });
  view.a.input.value = instrument.target ?? '';
  view.b.input.value = instrument.against ?? '';
  await compute();
  if (!result.target) ctx.problems.push(view.summary.textContent);
  return { view, result };
}

async function patching(ctx) {
  const { shared, model, settings, instrument } = ctx;
  const clean = settings.ids ? settings.ids.join(' ') : (settings.sentence ?? DEFAULT_SENTENCE);
  const corrupted = instrument.corrupted ?? (clean === DEFAULT_SENTENCE ? DEFAULT_CORRUPTED : null);
  if (corrupted === null)
    return {
      problem:
        'view="patching" compares two prompts: give the corrupted one as corrupted="…" (as many tokens as the sentence)',
    };
  // The runner's model: the shared one's calls queued, ids typed when the element was given ids.
  const queued = {
    spec: model.spec,
    hasTokenizer: model.hasTokenizer && !settings.ids,
    run: (input, options) => shared.run(input, options),
    tokenize: (text) => model.tokenize(text), // the tokenizer alone: nothing to queue
    patchSweep: (options) => shared.call((m) => m.patchSweep(options)),
  };
  let name = String;
  const resolve = async (aText, bText, fallback) => {
    const read = await targetOf(ctx, aText, bText, fallback);
    if ('target' in read) name = await tokenNames(shared, model, read.target);
    return read;
  };
  const named = async (target) => {
    name = await tokenNames(shared, model, target);
  };
  const view = new PatchingView({
    onRun: () => {
      ctx.element.showMessage(ctx.problems); // a reader's run: its problems are said beside the fields
      runner.run({ model: queued, name: (id) => name(id), resolve, named });
    },
    onCancel: () => runner.cancel(),
    ...ctx.heads,
  });
  const runner = new PatchRunner(view);
  view.setPrompts(clean, corrupted);
  view.a.value = instrument.target ?? '';
  view.b.value = instrument.against ?? '';
  view.position.value = instrument.position === null ? '' : String(instrument.position);
  const result = {};
  const after = async () => {
    await runner.run({ model: queued, name: (id) => name(id), resolve, named });
    // The attributes' prompts cannot be compared: said as the element's message (once, not beside the fields too).
    if (!view.problem.hidden) {
      ctx.element.showMessage([...ctx.problems, view.problem.textContent], 'The sweeps cannot run:');
      view.setProblem(null);
    }
    Object.assign(result, runner.result ?? {});
  };
  return { view, result, after };
}

async function headScores(ctx) {
  const { shared, spec, run } = ctx;
  const result = {};
  const compute = async () => {
    const { which, ...options } = view.options();
    const ids = which === 'repeated' ? repeatedSequences(spec.vocabSize) : run.ids;
    const scores = await shared.call((m) => allHeadScores(m, ids, options));
    const rows = scoreRows(scores);
    view.draw(rows, `Highest: ${scoresSummary(rows)}.`);
    Object.assign(result, { scores, rows });
  };
  const view = new ScoresView({ onOptions: () => compute(), ...ctx.heads });
  await compute();
  return { view, result };
}

async function loss({ shared, input, settings, signal }) {
  const r = await shared.run(input, {
    loss: true,
    ablate: settings.ablate,
    attentions: false,
    hiddenStates: false,
    signal,
  });
  const tokens = tokensOf(r);
  const rows = lossRows(tokens, r.loss.perToken);
  const off = settings.ablate.length ? `with ${headNames(settings.ablate)} switched off` : 'with every head on';
  const view = new LossView({ ablated: off });
  view.draw(rows, { first: tokens[0], mean: r.loss.mean, scale: lossScale(rows), changed: '' });
  return { view, result: { rows, mean: r.loss.mean } };
}

/** Each view's computation, by the name `view` gives it. */
export const COMPUTE = { lens, attribution, patching, 'head-scores': headScores, loss };
