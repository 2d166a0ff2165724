// Without a rehearsal, the first change of each kind paints late (56–184 ms where the next ones take under 40): its
// code runs for the first time, unoptimised, and WebAssembly's kernels for that case are not yet compiled by the
// engine's optimising tier. Once the first numbers are on screen and the page is idle, each kind of change (the causal
// mask, a word typed, a number edited, another head, the temperature) is rehearsed: computed on the prepared layer and drawn, then the
// state shown computed and drawn again, in the same task, so that no frame ever shows the rehearsal. The page's
// state, link, result and prepared layer are as they were; a page test compares every number and picture with a page
// that did not rehearse. A view's own first-use code (a number's editor and zoomed block) is rehearsed on a copy of
// the view that is not on the page (editRehearsal.js).
import { typedSentence } from './controls.js';
import { typedCell } from '../shared/cellEdits.js';
import { readQuery } from './link.js';
import { currentMatrix } from '../shared/matrices.js';
import { LIMITS } from '../shared/state.js';

/** The temperature one step of the slider (0.05) away: up, or down at the top. */
const nextTemperature = (t) => Math.round((t + (t + 0.05 <= LIMITS.temperatureMax ? 0.05 : -0.05)) * 100) / 100;

/**
 * The changes rehearsed, each a function of the state shown: the state after that change, or null where it does
 * not apply (or would change the sizes, which no reader's first change of that kind does).
 */
const CHANGES = [
  (state) => ({ ...state, causal: !state.causal }),
  (state) => typedSentence(state, `${state.sentence.trimEnd()}z`).state ?? null,
  (state) => typedCell(state, 'x', 0, 0, String(currentMatrix(state, 'x')[0][0] + 0.5)).state ?? null,
  (state) => (state.numHeads > 1 ? { ...state, head: (state.head + 1) % state.numHeads } : null),
  (state) => ({ ...state, temperature: nextTemperature(state.temperature) }),
].map((change) => {
  // The same state gets the same changed state in every round: its copies of X and their float32 and flat forms are
  // made once (the caches key on the arrays), so that later rounds leave little garbage for the reader's first click.
  const made = new WeakMap();
  return (state) => {
    if (!made.has(state)) {
      const next = change(state);
      made.set(state, next && next.n === state.n ? next : null);
    }
    return made.get(state);
  };
});

/**
 * Each change is rehearsed in 3 rounds (every kind once, then again): after one round the first real edit at GPT-2
 * size still ran its drawing at about twice a later edit's script time (the engine had not optimised it yet), after
 * three about the same (measured at 390 px: 12–17 ms against 13–43 ms after one round, later edits 10–14 ms).
 */
const ROUNDS = 3;

/** How many idle periods a rehearsal waits for a quiet page (nothing focused, nothing pending) before it is dropped. */
const PATIENCE = 40;

const idle = (callback) =>
  (globalThis.requestIdleCallback ?? ((f) => setTimeout(() => f({ timeRemaining: () => 10, didTimeout: true }), 50)))(
    callback,
    { timeout: 2000 },
  );

/**
 * Rehearses each change of CHANGES and each of `views` once per round, one per idle period, from the page's settled
 * state on. `rehearse(next)` draws `next` and then the state shown (main.js), and returns false when the page is busy
 * (then it waits for the next idle period); a view's rehearsal (e.g. editRehearsal.js) returns true when it ran,
 * null when it does not apply. Marks `data-warm` on the root element, "rehearsing" then "done", `data-rehearsed`,
 * how many ran (the page tests read them), and `data-rehearsal-ms`, the longest one's task (the bench reports it).
 * @param {() => object} current  the state shown
 * @param {(next: object) => boolean} rehearse
 * @param {(() => boolean | null)[]} [views]  rehearsals of a view's own code, run on views that are not on the page
 */
export function warmUp(current, rehearse, views = []) {
  if (readQuery(location.search).values.nowarm) return; // the page tests' page without rehearsals
  const round = [
    ...CHANGES.map((change) => () => {
      const next = change(current());
      return next && rehearse(next);
    }),
    ...views,
  ];
  const rehearsals = Array.from({ length: ROUNDS }, () => round).flat();
  const root = document.documentElement;
  root.dataset.warm = 'rehearsing';
  let index = 0;
  let waited = 0;
  let done = 0;
  let longest = 0;
  const step = () => {
    // A reader typing in a field or a cell is left alone (a redraw would close a cell's editor), and so is one
    // reading a cell's tooltip (an editor's rehearsal hides it).
    const typing = document.activeElement?.matches('input:not([type="checkbox"], [type="radio"]), textarea, select');
    const reading = document.querySelector('.tooltip:not([hidden])');
    const quiet = document.body.classList.contains('settled') && !typing && !reading;
    const started = performance.now();
    const ran = quiet ? rehearsals[index]() : false; // null: does not apply
    if (ran) {
      root.dataset.rehearsed = String(++done);
      longest = Math.max(longest, performance.now() - started);
      root.dataset.rehearsalMs = longest.toFixed(1);
    }
    if ((quiet && ran !== false) || ++waited > PATIENCE) [index, waited] = [index + 1, 0];
    if (index < rehearsals.length) idle(step);
    else root.dataset.warm = 'done';
  };
  idle(step);
}
