// <attention-explorer model="…">: the step-by-step walk of one head of a real model, with the numbers of its
// forward pass (the head's capture: attention-wasm/model's run with `capture`), read-only. The steps are named as
// the explorer's (`steps`): x, qkv, scores, scale, mask, softmax, output, wo; the others need the examples' model.
import { el } from '../shared/dom.js';
import { headName } from '../shared/counting.js';
import { HeatmapGrid } from './heatmapGrid.js';
import { MatrixTable } from './matrixTable.js';

/** The steps a real model's explorer shows by default, and those it can show. */
const DEFAULT_STEPS = ['x', 'qkv', 'scores', 'scale', 'softmax', 'output'];
const KNOWN = ['x', 'qkv', 'scores', 'scale', 'mask', 'softmax', 'output', 'wo'];

const dims = (count) => Array.from({ length: count }, (_, i) => String(i));
const para = (text) => el('p', { text });

/** Block `h` of a [H, rows, cols] Tensor as a table's view. */
function block(tensor, h, rowLabels, colLabels, precision) {
  const [, rows, cols] = tensor.shape;
  return {
    data: tensor.data.subarray(h * rows * cols, (h + 1) * rows * cols),
    rows,
    cols,
    rowLabels,
    colLabels,
    precision,
  };
}

/** A whole [rows, cols] Tensor as a table's view. */
const whole = (tensor, rowLabels, precision) => ({
  data: tensor.data,
  rows: tensor.shape[0],
  cols: tensor.shape[1],
  rowLabels,
  colLabels: dims(tensor.shape[1]),
  precision,
});

/** The steps named by `steps` (the default when null), and the names it cannot show here. */
export function modelSteps(text) {
  const words = (text ?? '').split(/[\s,]+/u).filter(Boolean);
  if (!words.length) return { steps: DEFAULT_STEPS, skipped: [] };
  return { steps: words.filter((w) => KNOWN.includes(w)), skipped: words.filter((w) => !KNOWN.includes(w)) };
}

/**
 * The sections of the walk for the head shown.
 * @returns {HTMLElement[]}
 */
export function drawModelSteps(element, { result, labels, causal, spec, settings }) {
  const { head: h, layer } = settings;
  const precisionText = element.getAttribute('precision');
  const precision = /^[0-7]$/u.test(precisionText?.trim() ?? '') ? Number(precisionText) : 3;
  const dK = result.q.shape[2];
  const table = (name, title, note, view, options = {}) => {
    const t = new MatrixTable({ name, title, note, ...options });
    t.update(view);
    return t.element;
  };
  const mark = (cells) => element.mark(cells); // `highlight`'s cells, on every query × key figure
  const keyed = (tensor, name, title, note, options) =>
    table(name, title, note, block(tensor, h, labels, labels, precision), {
      masked: (i, j) => causal && j > i,
      mark,
      ...options,
    });
  const where = headName(layer, h);
  const make = {
    x: () => [
      'The layer’s input: X',
      para(
        `Each token’s vector as it enters layer ${layer}, after the layer’s norm: what its heads read (d_model = ${spec.dModel}).`,
      ),
      table('x', 'X', 'rows: tokens', whole(result.x, labels, precision)),
    ],
    qkv: () => [
      `Queries, keys, values of ${where}`,
      para(
        `Q = X·W_q (+ b_q), K and V likewise: this head’s ${dK} columns of each, learned in training.${result.qRotated ? ' Then RoPE rotates pairs of columns of Q and K by position: the scores use the rotated ones.' : ''}`,
      ),
      [...['q', 'k', 'v'], ...(result.qRotated ? ['qRotated', 'kRotated'] : [])].map((m) =>
        table(
          m,
          { q: 'Q', k: 'K', v: 'V', qRotated: 'Q rotated', kRotated: 'K rotated' }[m],
          { q: 'queries', k: 'keys', v: 'values', qRotated: 'queries after RoPE', kRotated: 'keys after RoPE' }[m],
          block(result[m], h, labels, dims(dK), precision),
        ),
      ),
    ],
    scores: () => [
      'Scores: Q·Kᵀ',
      para('Each query row against each key: how well the token looking matches the token looked at.'),
      keyed(result.rawScores, 'rawScores', 'Q·Kᵀ', 'rows: queries · columns: keys'),
    ],
    scale: () => [
      `Scale: ÷ √d_k = ÷ √${dK}`,
      para('Dividing by √d_k keeps the scores’ spread the same whatever the head’s width.'),
      keyed(result.scaledScores, 'scaledScores', 'Q·Kᵀ / √d_k', 'rows: queries · columns: keys'),
    ],
    mask: () => [
      'Mask',
      para(
        causal
          ? 'This model is causal: a token sees itself and the tokens before it, so the later keys are −∞ before softmax.'
          : 'This model looks both ways: no key is masked.',
      ),
      keyed(result.scores, 'scores', 'scores softmax gets', '−∞: masked'),
    ],
    softmax: () => {
      const map = new HeatmapGrid({
        label: `Attention weights of ${where}`,
        describe: (i, j, v) =>
          `query “${labels[i]}” → key “${labels[j]}”: ${causal && j > i ? 'masked (a token does not look ahead)' : `weight ${v.toFixed(3)}`}`,
        mark,
      });
      const n = labels.length;
      map.update({ ...block(result.weights, h, labels, labels), rows: n, cols: n, blocked: (i, j) => causal && j > i });
      return [
        'Softmax: the attention weights',
        para('Each row of scores becomes weights from 0 to 1 that sum to 1: how much each key counts for that query.'),
        map.element,
        keyed(result.weights, 'weights', 'weights', 'each row sums to 1', { color: 'weights' }),
      ];
    },
    output: () => [
      'Output: weights · V',
      para('Each token’s output is the weighted sum of the value rows: what this head passes on.'),
      table('output', 'weights · V', `head ${h}’s output`, block(result.heads, h, labels, dims(dK), precision)),
    ],
    wo: () => [
      'All heads: concat · W_o',
      para(
        `The ${spec.numHeads} heads’ outputs side by side, projected back to d_model by W_o (+ b_o): what the layer adds to each token’s vector.`,
      ),
      table('concat', 'concat', 'every head’s output', whole(result.concat, labels, precision)),
      table('layerOutput', 'concat · W_o', 'the attention’s output', whole(result.output, labels, precision)),
    ],
  };
  const { steps, skipped } = modelSteps(element.getAttribute('steps'));
  const sections = steps.map((name, index) => {
    const [title, ...nodes] = make[name]();
    return el(
      'section',
      { class: 'step', dataset: { step: name }, attrs: { part: `step step-${name}` } },
      el('h3', {}, el('span', { class: 'num', text: String(index + 1) }), el('span', { text: title })),
      nodes.flat(),
    );
  });
  const note = skipped.length
    ? [
        el('p', {
          class: 'message',
          attrs: { part: 'message' },
          text: `steps: ${skipped.join(', ')} cannot be shown on a real model; the steps here are ${KNOWN.join(', ')}.`,
        }),
      ]
    : [];
  return [...note, ...sections];
}
