// The patching tab's runs: the two prompts read (their tokens, the same length or said why not), the metric's tokens
// (typed, or each prompt's top token), then the two sweeps, the residual stream's and the heads', drawn as each
// layer's cells come (model.patchSweep's onProgress), until done or Cancel (its AbortController).
import {
  SWEEPS,
  lengthProblem,
  promptOf,
  promptRun,
  promptTokens,
  restoringCells,
  sweepBatchRows,
  sweepGrid,
  sweepTable,
} from '../../shared/instruments/patching.js';
import { readTarget } from '../../shared/instruments/targets.js';

/**
 * The metric's position typed (from 0; empty: the last of `n` tokens), or why it is none.
 * @returns {{ at: number } | { problem: string }}
 */
export function metricPosition(text, n) {
  const typed = String(text ?? '').trim();
  if (!typed) return { at: n - 1 };
  if (/^\d{1,6}$/u.test(typed) && Number(typed) < n) return { at: Number(typed) };
  return { problem: `Position “${typed}” is not a position of the prompts: they count from 0 to ${n - 1}.` };
}

/** “− x” for x ≥ 0, “+ |x|” below: (m + 0.47), not (m − -0.47). */
const minus = (x) => (x < 0 ? `+ ${(-x).toFixed(2)}` : `− ${x.toFixed(2)}`);

export class PatchRunner {
  /**
   * @param {import('./patchingView.js').PatchingView} view
   * @param {(what: 'cells' | 'done', count?: number) => void} [notify]  told of each layer's cells and of sweeps done
   */
  constructor(view, notify = () => {}) {
    this.view = view;
    this.notify = notify;
    this.controller = null;
    this.byStep = {}; // step → its table to copy
    this.result = null; // { target, tokens, sweeps: { step: model.patchSweep's result } } of the last sweeps done
  }

  /** Stops the sweeps under way. */
  cancel() {
    this.controller?.abort();
  }

  /** The sweeps' tables to copy (none before any). */
  tables() {
    return SWEEPS.map(({ step }) => this.byStep[step]).filter(Boolean);
  }

  /**
   * Runs both sweeps on `model` with the view's prompts and tokens. The tokens typed are read by `resolve(a, b,
   * fallback)` when given (an element, without the vocabulary: async, as readTarget), else looked up in `index`. The
   * prompts run with `runPrompt(input, options)` when given (the page's run in parts), else model.run. With no token
   * typed, the pair is patchSweep's target 'top' (the sweep's own runs' top tokens): `named(target)` (async, an
   * element's) is awaited once the first sweep has said it, before its last draw.
   * @param {{ model: object, index?: Map<string, number>, name: (id: number) => string, resolve?: Function,
   *   named?: (target: number[]) => Promise<void>, runPrompt?: Function }} how
   */
  async run({ model, index, name, resolve, named, runPrompt }) {
    this.cancel();
    const controller = new AbortController();
    this.controller = controller;
    const { signal } = controller;
    const view = this.view;
    const values = view.values();
    view.setProblem(null);
    view.running(true);
    view.say('Reading the prompts…');
    view.clearGrids();
    this.byStep = {};
    try {
      const clean = promptOf(model, values.clean);
      const corrupted = promptOf(model, values.corrupted);
      const c = await promptTokens(model, clean, signal, runPrompt);
      const k = await promptTokens(model, corrupted, signal, runPrompt);
      const problem = lengthProblem(c.tokens, k.tokens);
      if (problem) return this.#stop(problem);
      const place = metricPosition(values.position, c.ids.length);
      if ('problem' in place) return this.#stop(place.problem);
      const { at } = place;
      const last = at === c.ids.length - 1;
      // By default each run's prediction there: at the last position its top token (the sweep's own runs', target
      // 'top'), before it the token that follows; b the corrupted run's unless it is the clean run's too (m: logit a).
      let target = 'top';
      if (!last || values.a || values.b) {
        let cTop = c.ids[at + 1]; // before the last position: the token that follows
        if (last && !values.a) cTop = (await promptRun(model, clean, signal, runPrompt)).top; // b typed alone
        const kTop = last ? null : k.ids[at + 1];
        const b = values.b || (values.a || kTop === cTop ? '' : String(kTop));
        const read = resolve
          ? await resolve(values.a, b, cTop)
          : readTarget(values.a, b, index, model.spec.vocabSize, cTop);
        if ('problem' in read) return this.#stop(read.problem);
        target = read.target;
      }
      let unnamed = target === 'top'; // the sweep's pair: `named` (an element's) reads its names once it is known
      const metric = () => target.map((id) => `logit(“${name(id)}”)`).join(' − ');
      const tokens = c.tokens;
      const t0 = performance.now();
      const sweeps = {};
      for (const { step, name: what } of SWEEPS) {
        const draw = (scores, done) => {
          const grid = sweepGrid(scores, step, tokens);
          const cells = restoringCells(grid, step);
          view.draw(step, grid, done ? `Restoring 30% or more: ${cells.length ? cells.join(', ') : 'no cell'}.` : '');
          this.byStep[step] = sweepTable(grid, step, metric());
          return grid;
        };
        view.say(`Patching the ${what}…`);
        sweeps[step] = await model.patchSweep({
          clean,
          corrupted,
          target,
          step,
          position: at,
          signal,
          batchRows: sweepBatchRows(model.spec), // no layer call of many rows as one long task
          onProgress: ({ scores, done, total, target: pair }) => {
            target = pair;
            draw(scores, false);
            view.say(`Patching the ${what}: ${done} of ${total} cells…`);
            this.notify('cells', done);
          },
        });
        target = sweeps[step].target;
        if (unnamed) await named?.(target);
        unnamed = false;
        draw(sweeps[step].scores, true);
      }
      const { clean: mClean, corrupted: mCorrupted } = sweeps.input;
      this.result = { target, tokens, sweeps };
      view.say(
        `m = ${metric()} at ${last ? 'the last token' : `position ${at} (“${tokens[at]}”)`}: ${mClean.toFixed(3)} on the clean prompt, ${mCorrupted.toFixed(3)} on the corrupted one; each cell is (m ${minus(mCorrupted)}) / (${mClean.toFixed(2)} ${minus(mCorrupted)}). Both sweeps took ${(performance.now() - t0).toFixed(0)} ms.`,
      );
      this.notify('done');
    } catch (error) {
      if (error?.code === 'ABORTED' && signal.aborted)
        view.say('Cancelled: the cells computed so far stay; Run the sweeps starts again.');
      else view.setProblem(`The sweeps could not run: ${error.code ? `${error.code}: ` : ''}${error.message}`);
    } finally {
      if (this.controller === controller) {
        this.controller = null;
        view.running(false);
      }
    }
  }

  #stop(problem) {
    this.view.setProblem(problem);
    this.view.say('');
  }
}
