// The page's later lessons as steps of <attention-explorer>: designed heads, grouped-query attention,
// cross-attention and why a score is what it is. Their views (lessonViews.js) and the lessons' own model load only
// for an explorer that shows one of them, so that a post without them stays small.
import { el } from '../shared/dom.js';

/**
 * A step's update that first loads its lesson's model: `draw(model, state, attn)` runs for the latest update only,
 * and a failure to load or draw is said in `text`, never thrown into the host page.
 * @param {HTMLElement} text  where a failure is said
 * @param {() => Promise<object>} load  the dynamic import of the model
 * @param {(model: object, state: object, attn: object) => void} draw
 */
export function lazyUpdate(text, load, draw) {
  let runs = 0;
  return (state, _result, attn) => {
    const run = ++runs;
    load()
      .then((model) => run === runs && draw(model, state, attn))
      .catch((error) => {
        text.textContent = `This lesson could not be shown: ${error?.message ?? error}`;
      });
  };
}

/** A later lesson's make(ctx): a section that fills itself once lessonViews.js is loaded (a failure is said in it). */
function later(name) {
  return (ctx) => {
    const mount = el('div');
    let made = null;
    let waiting = null;
    import('./lessonViews.js')
      .then(({ MAKERS }) => {
        made = MAKERS[name](ctx);
        mount.replaceChildren(...made.nodes.flat(Infinity));
        if (waiting) made.update(...waiting);
      })
      .catch((error) => {
        mount.textContent = `This lesson could not be shown: ${error?.message ?? error}`;
      });
    return { nodes: [mount], update: (...args) => (made ? made.update(...args) : (waiting = args)) };
  };
}

/** The steps of the later lessons, in the form of steps.js's STEPS. */
export const MORE_STEPS = [
  { names: ['designed-heads', 'designed'], title: () => 'Heads with meaning: designed heads' },
  { names: ['gqa', 'grouped-query'], title: () => 'Grouped-query attention' },
  { names: ['cross-attention', 'cross'], title: () => 'Cross-attention: one sentence asks, another answers' },
  { names: ['why-score', 'why'], title: () => 'Why a score is what it is' },
].map((step) => ({ ...step, make: later(step.names[0]) }));
