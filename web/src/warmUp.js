// The first change of each kind used to paint late (56–184 ms where the next ones took under 40): its code ran for
// the first time, unoptimised, and WebAssembly's kernels for that case were not yet compiled by the engine's optimising
// tier. Once the first numbers are on screen and the page is idle, each kind of change (the causal mask, a word typed,
// a number edited, another head) is rehearsed once: its numbers are computed apart and drawn, then the numbers shown
// are drawn again, in the same task, so that no frame ever shows the rehearsal. The page's state, link, result and
// prepared layer are not touched; a page test compares every number and picture with a page that did not rehearse.
import { typedSentence } from './controls.js';
import { typedCell } from './model/edits.js';
import { currentMatrix } from './model/matrices.js';

/**
 * The changes rehearsed, each a function of the state shown: the state after that change, or null where it does
 * not apply (or would change the sizes, which no reader's first change of that kind does).
 */
export const REHEARSALS = [
  (state) => ({ ...state, causal: !state.causal }),
  (state) => typedSentence(state, `${state.sentence.trimEnd()}z`).state ?? null,
  (state) => typedCell(state, 'x', 0, 0, String(currentMatrix(state, 'x')[0][0] + 0.5)).state ?? null,
  (state) => (state.numHeads > 1 ? { ...state, head: (state.head + 1) % state.numHeads } : null),
].map((change) => (state) => {
  const next = change(state);
  return next && next.n === state.n ? next : null;
});

/** How many idle periods a rehearsal waits for a quiet page (nothing focused, nothing pending) before it is dropped. */
const PATIENCE = 40;

const idle = (callback) =>
  (globalThis.requestIdleCallback ?? ((f) => setTimeout(() => f({ timeRemaining: () => 10, didTimeout: true }), 50)))(
    callback,
    { timeout: 2000 },
  );

/**
 * Rehearses each change of REHEARSALS once, one per idle period, from the page's settled state on. `rehearse(next)`
 * draws `next` and then the state shown (main.js), and returns false when the page is busy (then it waits for the
 * next idle period). Marks `data-warm` on the root element, "rehearsing" then "done", `data-rehearsed`, how many
 * ran (the page tests read them), and `data-rehearsal-ms`, the longest one's task (the bench reports it).
 * @param {() => object} current  the state shown
 * @param {(next: object) => boolean} rehearse
 */
export function warmUp(current, rehearse) {
  if (new URLSearchParams(location.search).has('nowarm')) return; // the page tests' page without rehearsals
  const root = document.documentElement;
  root.dataset.warm = 'rehearsing';
  let index = 0;
  let waited = 0;
  let done = 0;
  let longest = 0;
  const step = () => {
    // A reader typing in a field or a cell is left alone (a redraw would close a cell's editor).
    const typing = document.activeElement?.matches('input:not([type="checkbox"], [type="radio"]), textarea, select');
    const quiet = document.body.classList.contains('settled') && !typing;
    const next = quiet ? REHEARSALS[index](current()) : undefined;
    const started = performance.now();
    const ran = Boolean(next) && rehearse(next);
    if (ran) {
      root.dataset.rehearsed = String(++done);
      longest = Math.max(longest, performance.now() - started);
      root.dataset.rehearsalMs = longest.toFixed(1);
    }
    if ((quiet && (!next || ran)) || ++waited > PATIENCE) [index, waited] = [index + 1, 0];
    if (index < REHEARSALS.length) idle(step);
    else root.dataset.warm = 'done';
  };
  idle(step);
}
