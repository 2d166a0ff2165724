// The page's later lessons as steps of <attention-explorer>: designed heads, grouped-query attention,
// cross-attention and why a score is what it is. Their numbers come from the page's one table of lessons
// (model/lessonSteps.js), through the public API; here they are only drawn.
import { labelsFor } from '../model/inputs.js';
import { notDesignedText } from '../model/provenance.js';
import { weightLines, scoreTermLines } from '../model/whyScore.js';
import { el } from '../view/dom.js';
import { weightsView } from './heatmapGrid.js';

const para = (text = '') => el('p', { text });

// The lessons' own model (cross-attention, grouped-query, designed heads) is loaded only by an explorer that shows
// one of them, so that a page without them stays small.
const lessons = () => import('../model/lessonSteps.js');

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

/**
 * A lesson drawn as one heatmap per head of the weights its compute returns, with its text.
 * @param {string} id  the lesson's id in model/lessonSteps.js
 * @param {(step: object, state: object) => { weights: object, cols?: string[], caption: (h: number) => string }} pick
 * @param {(state: object, step: object, lessonStep: Function) => string} describe  the lesson's words
 */
function headsLesson(id, pick, describe) {
  return (ctx) => {
    const text = para();
    const mount = el('div', { class: 'row' });
    const readout = el('p', { class: 'readout', attrs: { part: 'readout', 'aria-live': 'polite' } });
    function draw(lessonStep, state, attn) {
      const step = lessonStep(id).compute(attn, state);
      if (step.error) {
        text.textContent = step.error;
        mount.replaceChildren();
        return;
      }
      text.textContent = describe(state, step, lessonStep);
      const { weights, cols, caption } = pick(step, state);
      const figures = [];
      for (let h = 0; h < weights.shape[0]; h++) {
        const map = ctx.heatmap(`${id}${h}`, { label: caption(h), readout, matrix: 'head' });
        const view = weightsView(state, weights, h);
        if (cols) Object.assign(view, { cols: cols.length, colLabels: cols, blocked: undefined });
        map.update(view);
        figures.push(el('div', { class: 'head-map' }, el('figcaption', { text: caption(h) }), map.element));
      }
      mount.replaceChildren(...figures);
    }
    return {
      nodes: [text, mount, readout],
      update: lazyUpdate(text, lessons, ({ lessonStep }, state, attn) => draw(lessonStep, state, attn)),
    };
  };
}

const designedWords = (state, step) => {
  const lines = step.patterns.map(
    ({ head, design, holds, checked }) =>
      `Head ${head + 1}, ${design.title}: ${holds} of ${checked} rows have their largest weight where the design puts it.`,
  );
  const intro = state.design
    ? 'X, W_q and W_k are built by hand, so each head shows a pattern trained models are known for.'
    : `${notDesignedText(state)} Use example="designed" to see the patterns.`;
  return [intro, ...lines, step.note].filter(Boolean).join(' ');
};

/** The steps of the later lessons, in the form of steps.js's STEPS. */
export const MORE_STEPS = [
  {
    names: ['designed-heads', 'designed'],
    title: () => 'Heads with meaning: designed heads',
    make: headsLesson(
      'designed-heads',
      (step) => ({ weights: step.result.weights, caption: (h) => `head ${h + 1}: ${step.patterns[h].design.title}` }),
      designedWords,
    ),
  },
  {
    names: ['gqa', 'grouped-query'],
    title: () => 'Grouped-query attention',
    make: headsLesson(
      'gqa',
      (step) => ({ weights: step.result.weights, caption: (h) => `head ${h + 1} · K, V ${step.group[h] + 1}` }),
      (state, step, lessonStep) => lessonStep('gqa').text(state, step),
    ),
  },
  {
    names: ['cross-attention', 'cross'],
    title: () => 'Cross-attention: one sentence asks, another answers',
    make: headsLesson(
      'cross-attention',
      (step) => ({ weights: step.result.weights, cols: step.keys, caption: (h) => `head ${h + 1}: queries × keys` }),
      (state, step, lessonStep) => lessonStep('cross-attention').text(state, step),
    ),
  },
  {
    names: ['why-score', 'why'],
    title: () => 'Why a score is what it is',
    make(ctx) {
      const explain = el('p', { class: 'readout', attrs: { part: 'readout', 'aria-live': 'polite' } });
      const hint = 'Hover over (or move to) a score or a weight to see it term by term.';
      const show = (lines) => (cell) => {
        explain.textContent = cell ? lines(ctx.state, ctx.result, cell.i, cell.j).join(' · ') : hint;
      };
      const scores = ctx.table('whyScores', { title: 'QKᵀ', onActive: show(scoreTermLines) });
      const weights = ctx.table('whyWeights', { title: 'weights', color: 'weights', onActive: show(weightLines) });
      return {
        nodes: [explain, el('div', { class: 'row' }, scores.element, weights.element)],
        update(state, result) {
          explain.textContent = hint;
          const labels = labelsFor(state);
          const view = (tensor) => ({ ...weightsView(state, tensor, state.head), precision: state.precision });
          scores.update({ ...view(result.rawScores), rowLabels: labels });
          weights.update(view(result.weights));
        },
      };
    },
  },
];
