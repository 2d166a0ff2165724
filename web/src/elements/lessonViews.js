// The views of the page's later lessons in <attention-explorer> (designed heads, grouped-query attention,
// cross-attention, why a score is what it is), loaded with the lessons' model only by an explorer that shows one of
// them (moreSteps.js). Their numbers come from the page's one table of lessons (lessons/registry.js), through the
// public API; here they are only drawn.
import { labelsFor } from '../shared/inputs.js';
import { lessonStep } from '../lessons/registry.js';
import { notDesignedText } from '../shared/provenance.js';
import { weightLines, scoreTermLines } from '../shared/whyScore.js';
import { el } from '../shared/dom.js';
import { weightsView } from './heatmapGrid.js';

const para = (text = '') => el('p', { text });

/**
 * A lesson drawn as one heatmap per head of the weights its compute returns, with its text.
 * @param {string} id  the lesson's id in lessons/registry.js
 * @param {(step: object, state: object) => { weights: object, cols?: string[], caption: (h: number) => string }} pick
 * @param {(state: object, step: object) => string} describe  the lesson's words
 */
function headsLesson(id, pick, describe) {
  return (ctx) => {
    const text = para();
    const mount = el('div', { class: 'row' });
    const readout = el('p', { class: 'readout', attrs: { part: 'readout', 'aria-live': 'polite' } });
    function draw(state, attn) {
      const step = lessonStep(id).compute(attn, state);
      if (step.error) {
        text.textContent = step.error;
        mount.replaceChildren();
        return;
      }
      text.textContent = describe(state, step);
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
    return { nodes: [text, mount, readout], update: (state, _result, attn) => draw(state, attn) };
  };
}

const designedWords = (state, step) => {
  const lines = step.patterns.map(
    ({ head, design, holds, checked }) =>
      `Head ${head}, ${design.title}: ${holds} of ${checked} rows have their largest weight where the design puts it.`,
  );
  const intro = state.design
    ? 'X, W_q and W_k are built by hand, so each head shows a pattern trained models are known for.'
    : `${notDesignedText(state)} Use example="designed" to see the patterns.`;
  return [intro, ...lines, step.note].filter(Boolean).join(' ');
};

/** Each later lesson's make(ctx), by its step's name. */
export const MAKERS = {
  'designed-heads': headsLesson(
    'designed-heads',
    (step) => ({ weights: step.result.weights, caption: (h) => `head ${h}: ${step.patterns[h].design.title}` }),
    designedWords,
  ),
  gqa: headsLesson(
    'gqa',
    (step) => ({ weights: step.result.weights, caption: (h) => `head ${h} · K, V ${step.group[h]}` }),
    (state, step) => lessonStep('gqa').text(state, step),
  ),
  'cross-attention': headsLesson(
    'cross-attention',
    (step) => ({ weights: step.result.weights, cols: step.keys, caption: (h) => `head ${h}: queries × keys` }),
    (state, step) => lessonStep('cross-attention').text(state, step),
  ),
  'why-score'(ctx) {
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
};
