// The steps <attention-explorer> can show, named as the page's steps (#step-x, #step-qkv, …) and lessons, each
// a section whose matrices and texts come from the page's model and the result of attention-wasm.
import { attentionInput, columnBlock, headSlice, labelsFor, maskCell } from '../shared/inputs.js';
import {
  entropyText,
  explainOutputRow,
  headColumnsNote,
  headNote,
  headsText,
  kvHeadNote,
  kvSharedNote,
  projectionText,
  randomNote,
  scaleTexts,
  tokenCountNote,
} from '../shared/explanations.js';
import { currentMatrix, headBlock, headWidth, kvHeadsOf } from '../shared/matrices.js';
import { embeddingSourceText } from '../shared/provenance.js';
import { sinusoidalPositions } from '../shared/positions.js';
import { el } from '../shared/dom.js';
import { weightsView } from './heatmapGrid.js';
import { MORE_STEPS, lazyUpdate } from './moreSteps.js';

// The word-order and KV-cache lessons' model loads only with their steps, so a post without them stays small.
const wordOrderModel = () => import('../lessons/word-order/wordOrder.js');
const kvCacheModel = () => import('../lessons/kv-cache/kvCache.js');

const dims = (count) => Array.from({ length: count }, (_, i) => String(i));
const flat = (rows) => Float64Array.from(rows.flat());
const op = (text) => el('span', { class: 'op', text, attrs: { 'aria-hidden': 'true' } });
const para = (text = '') => el('p', { text });

/** A whole [rows, cols] matrix of number arrays, as a table's view. */
const rowsView = (rows, state, rowLabels, colLabels) => ({
  data: flat(rows),
  rows: rows.length,
  cols: rows[0].length,
  rowLabels,
  colLabels,
  precision: state.precision,
  raw: rows,
});

/** One head's [n, w] slice of a result tensor (k and v: its kv head's), as a table's view. */
const headView = (tensor, state, colLabels, index = state.head) => ({
  data: headSlice(tensor, index).data,
  rows: state.n,
  cols: colLabels.length,
  rowLabels: labelsFor(state),
  colLabels,
  precision: state.precision,
});

/**
 * Each step: its names (the first is the page's), a title, and make(ctx), which builds its section once and
 * returns the function that updates it. ctx: table(key, options), heatmap(key, options), edit, toggleMask,
 * shuffle, describe(matrix), readonly, hides(paragraph).
 */
export const STEPS = [
  {
    names: ['x', 'tokens', 'embeddings'],
    title: () => 'Tokens become vectors: X',
    make(ctx) {
      const x = ctx.table('x', { title: 'X', note: 'embeddings · rows: tokens', editable: true });
      const note = para();
      const intro = para();
      const lookup =
        'Each token becomes a row of d_model numbers, its embedding, looked up in a table: the same token always gets the same row.';
      return {
        nodes: [intro, note, x.element],
        update(state) {
          intro.textContent = `${lookup} ${embeddingSourceText(state)}`;
          note.textContent = tokenCountNote(state);
          x.update(rowsView(currentMatrix(state, 'x'), state, labelsFor(state), dims(state.dModel)));
        },
      };
    },
  },
  {
    names: ['positions', 'pos'],
    title: () => 'Positions: X + P',
    make(ctx) {
      const p = ctx.table('p', { title: 'P', note: 'sinusoidal positional encodings' });
      const sum = ctx.table('xp', { title: 'X + P', note: 'what attention gets' });
      const text = para();
      return {
        nodes: [text, el('div', { class: 'row' }, p.element, sum.element)],
        update(state) {
          text.textContent =
            'P[pos][2i] = sin(pos / 10000^(2i/d_model)), P[pos][2i+1] = cos(…): each position gets its own pattern of waves. ' +
            (state.positions
              ? 'Attention works on X + P, so it can tell positions apart.'
              : 'This figure has positions off (add the positions attribute), so attention gets X alone and does not see word order.');
          const labels = labelsFor(state);
          p.update(rowsView(sinusoidalPositions(state.n, state.dModel), state, labels, dims(state.dModel)));
          const input = state.positions ? attentionInput(state) : currentMatrix(state, 'x');
          sum.setTitle(state.positions ? 'X + P' : 'X (positions off)');
          sum.update(rowsView(input, state, labels, dims(state.dModel)));
        },
      };
    },
  },
  {
    names: ['qkv', 'projections'],
    title: (state) => `Queries, keys, values${headNote(state)}`,
    make(ctx) {
      const note = para();
      const rows = ['q', 'k', 'v'].map((letter) => {
        const w = ctx.table(`w${letter}`, { title: `W_${letter}`, note: 'weights', editable: true });
        const out = ctx.table(letter, {
          title: letter.toUpperCase(),
          note: { q: 'queries', k: 'keys', v: 'values' }[letter],
        });
        return { letter, w, out, node: el('div', { class: 'row' }, op('X ·'), w.element, op('='), out.element) };
      });
      return {
        nodes: [
          para('Q = X·W_q says what each token looks for, K = X·W_k what it offers, V = X·W_v what it passes on.'),
          note,
          rows.map((r) => r.node),
        ],
        update(state, result) {
          note.textContent = headColumnsNote(state, 'element');
          for (const { letter, w, out } of rows) {
            const name = `w${letter}`;
            const width = headWidth(state, name);
            const block = columnBlock(currentMatrix(state, name), headBlock(state, name) * width, width);
            // K and V of grouped-query attention: the kv head's, shared by its group of query heads
            const note = letter === 'q' ? headNote(state) : kvHeadNote(state);
            const sub = (text) => (letter === 'q' ? text : kvSharedNote(state, text));
            w.options.editable = !ctx.readonly && !(name === 'wk' && state.shareQK);
            w.setTitle(`W_${letter}${note}`, sub('weights'));
            w.update(rowsView(block, state, dims(state.dModel), dims(width)));
            out.setTitle(`${letter.toUpperCase()}${note}`, sub({ q: 'queries', k: 'keys', v: 'values' }[letter]));
            out.update(headView(result[letter], state, dims(width), headBlock(state, name)));
          }
        },
      };
    },
  },
  {
    names: ['scores', 'qk'],
    title: () => 'Compare every query with every key: QKᵀ',
    make(ctx) {
      const raw = ctx.table('rawScores', { title: 'QKᵀ', note: 'rows: queries · columns: keys' });
      return {
        nodes: [
          para('The score of query i and key j is the dot product qᵢ·kⱼ: large when they point the same way.'),
          raw.element,
        ],
        update: (state, result) => raw.update(headView(result.rawScores, state, labelsFor(state))),
      };
    },
  },
  {
    names: ['scale', 'scaling'],
    title: (state) => scaleTexts(state).title,
    make(ctx) {
      const text = para();
      const scaled = ctx.table('scaledScores', { title: 'scaled scores', note: 'QKᵀ × factor' });
      return {
        nodes: [text, scaled.element],
        update(state, result) {
          text.textContent = scaleTexts(state).text;
          scaled.update(headView(result.scaledScores, state, labelsFor(state)));
        },
      };
    },
  },
  {
    names: ['mask', 'masking'],
    title: () => 'Mask: + 0 where allowed, −∞ where blocked',
    make(ctx) {
      const mask = ctx.table('mask', {
        title: 'mask',
        note: ctx.readonly ? 'causal or given' : 'Enter or click: block / allow',
        color: 'none',
        onActivate: (i, j) => ctx.toggleMask(i, j),
      });
      const scores = ctx.table('scores', { title: 'masked scores', note: 'scaled scores + mask' });
      return {
        nodes: [
          para(
            'A blocked score becomes −∞, so its weight after softmax is exactly 0. The causal mask blocks every later key.',
          ),
          el('div', { class: 'row' }, mask.element, op('→'), scores.element),
        ],
        update(state, result) {
          const n = state.n;
          const additive = Float32Array.from({ length: n * n }, (_, k) =>
            maskCell(state, Math.floor(k / n), k % n) === 'open' ? 0 : -Infinity,
          );
          const labels = labelsFor(state);
          mask.update({ data: additive, rows: n, cols: n, rowLabels: labels, colLabels: labels, precision: 0 });
          scores.update(headView(result.scores, state, labels));
        },
      };
    },
  },
  {
    names: ['softmax', 'weights'],
    title: (state) => `Softmax: the attention weights${headNote(state)}`,
    make(ctx) {
      const weights = ctx.table('weights', {
        title: 'attention weights',
        note: 'each row sums to 1',
        color: 'weights',
        masked: (i, j) => maskCell(ctx.state, i, j) !== 'open',
      });
      const map = ctx.heatmap('heatmap', {
        label: 'Heatmap of the attention weights: rows are queries, columns are keys',
      });
      const entropy = el('p', { dataset: { note: 'entropy' } });
      const random = el('p', { dataset: { note: 'caveat' } });
      return {
        nodes: [
          para(
            'wᵢⱼ = e^sᵢⱼ / Σₖ e^sᵢₖ: positive, and each row sums to 1. Row i says how token i splits its attention.',
          ),
          weights.element,
          map.element,
          entropy,
          random,
        ],
        update(state, result) {
          const labels = labelsFor(state);
          weights.update(headView(result.weights, state, labels));
          map.update(weightsView(state, result.weights, state.head));
          entropy.textContent = entropyText(state, result);
          random.textContent = randomNote(state, result);
          entropy.hidden = ctx.hides('entropy');
          random.hidden = ctx.hides('caveat');
        },
      };
    },
  },
  {
    names: ['output', 'out'],
    title: () => 'Output = weights · V',
    make(ctx) {
      const explain = el('p', { class: 'readout', attrs: { part: 'readout', 'aria-live': 'polite' } });
      const v = ctx.table('vOut', { title: 'V', note: 'values' });
      const out = ctx.table('output', {
        title: 'output',
        note: 'one row per token',
        onActive: (cell) => {
          const { text, weights } = explainOutputRow(ctx.state, ctx.result, cell ? cell.i : null);
          explain.textContent = text;
          v.fadeRows(weights);
          out.highlightRow(cell ? cell.i : null);
        },
      });
      return {
        nodes: [explain, el('div', { class: 'row' }, op('weights ·'), v.element, op('='), out.element)],
        update(state, result) {
          explain.textContent = explainOutputRow(state, result, null).text;
          v.setTitle(`V${kvHeadNote(state)}`, kvSharedNote(state, 'values'));
          v.update(headView(result.v, state, dims(state.dV), headBlock(state, 'wv')));
          out.setTitle(state.numHeads > 1 ? 'head output' : 'output');
          out.update(headView(result.heads, state, dims(state.dV)));
        },
      };
    },
  },
  {
    names: ['heads', 'multi-head'],
    title: () => 'Heads side by side',
    make(ctx) {
      const text = para();
      const mount = el('div', { class: 'row' });
      const readout = el('p', { class: 'readout', attrs: { part: 'readout', 'aria-live': 'polite' } });
      return {
        nodes: [text, mount, readout],
        update(state, result) {
          text.textContent = headsText(state, 'element');
          const figures = [];
          for (let h = 0; h < (state.numHeads > 1 ? state.numHeads : 0); h++) {
            const map = ctx.heatmap(`head${h}`, { label: `Head ${h} attention weights`, readout, matrix: 'head' });
            map.update(weightsView(state, result.weights, h));
            const kv = kvHeadsOf(state) < state.numHeads ? ` · K, V ${headBlock(state, 'wk', h)}` : '';
            figures.push(el('div', { class: 'head-map' }, el('figcaption', { text: `head ${h}${kv}` }), map.element));
          }
          mount.replaceChildren(...figures);
        },
      };
    },
  },
  {
    names: ['wo', 'w_o', 'projection', 'output-projection'],
    title: () => "W_o: the layer's output",
    make(ctx) {
      const text = para();
      const concat = ctx.table('concat', { title: 'concatenated heads' });
      const wo = ctx.table('wo', { title: 'W_o', note: 'output projection', editable: true });
      const layer = ctx.table('layerOutput', { title: 'layer output', note: 'back to d_model columns' });
      return {
        nodes: [text, el('div', { class: 'row' }, concat.element, op('·'), wo.element, op('='), layer.element)],
        update(state, result) {
          const { n, numHeads: H, dV, dModel } = state;
          const labels = labelsFor(state);
          const cols = Array.from({ length: H * dV }, (_, c) =>
            H > 1 ? `h${Math.floor(c / dV)}·${c % dV}` : String(c),
          );
          text.textContent = projectionText(state);
          const view = (tensor, count) => ({
            data: tensor.data,
            rows: n,
            cols: count,
            rowLabels: labels,
            precision: state.precision,
          });
          concat.update({ ...view(result.concat, H * dV), colLabels: cols });
          wo.update(rowsView(currentMatrix(state, 'wo'), state, cols, dims(dModel)));
          layer.update({ ...view(result.output, dModel), colLabels: dims(dModel) });
        },
      };
    },
  },
  {
    names: ['order', 'word-order', 'shuffle'],
    title: () => 'Word order: attention alone does not see it',
    make(ctx) {
      const text = el('p', { class: 'readout', attrs: { 'aria-live': 'polite' } });
      const without = ctx.table('orderWithout', { title: 'change without P' });
      const withP = ctx.table('orderWith', { title: 'change with P' });
      const button = el('button', { type: 'button', text: 'Shuffle again', on: { click: () => ctx.shuffle() } });
      return {
        nodes: [button, text, el('div', { class: 'row' }, without.element, withP.element)],
        update: lazyUpdate(text, wordOrderModel, ({ wordOrderDemo, wordOrderText }, state, attn) => {
          const demo = wordOrderDemo(attn, state);
          text.textContent = wordOrderText(state, demo);
          without.update(rowsView(demo.cases[0].change, state, demo.labels, dims(state.dModel)));
          withP.update(rowsView(demo.cases[1].change, state, demo.labels, dims(state.dModel)));
        }),
      };
    },
  },
  {
    names: ['kv', 'kv-cache', 'cache'],
    title: () => 'The KV cache: one more token',
    make(ctx) {
      const text = para();
      const weights = ctx.table('kvWeights', { title: 'new token’s weights', color: 'weights' });
      const compare = ctx.table('kvCompare', { title: 'new row vs. full causal' });
      return {
        nodes: [text, el('div', { class: 'row' }, weights.element, compare.element)],
        update: lazyUpdate(text, kvCacheModel, ({ kvCacheStep, kvCacheText }, state, attn) => {
          const step = kvCacheStep(attn, state);
          text.textContent = kvCacheText(state, step);
          weights.element.hidden = compare.element.hidden = !step;
          if (!step) return;
          const w = headSlice(step.weights, state.head);
          weights.update({
            data: w.data,
            rows: 1,
            cols: state.n,
            rowLabels: [step.token],
            colLabels: labelsFor(state),
            precision: state.precision,
          });
          const width = step.output.length;
          compare.update({
            data: Float32Array.from([...step.output, ...step.fullRow]),
            rows: 2,
            cols: width,
            rowLabels: ['with cache', 'recomputed'],
            colLabels: dims(width),
            precision: state.precision,
          });
        }),
      };
    },
  },
  ...MORE_STEPS,
];

/** The steps shown when `steps` is not set: the page's walk from X to the output (and W_o with heads). */
export const DEFAULT_STEPS = ['x', 'qkv', 'scores', 'scale', 'softmax', 'output'];

/** Every name `steps` accepts. */
export const STEP_NAMES = STEPS.flatMap((step) => step.names);

/**
 * The steps a `steps` attribute names, in its order, with the names it does not know.
 * @returns {{ steps: object[], unknown: string[] }}
 */
export function chooseSteps(text) {
  const words = text === null ? DEFAULT_STEPS : text.split(/[\s,]+/u).filter(Boolean);
  const unknown = [];
  const chosen = [];
  for (const word of words) {
    const step = STEPS.find((s) => s.names.includes(word.toLowerCase()));
    if (!step) unknown.push(word);
    else if (!chosen.includes(step)) chosen.push(step);
  }
  return { steps: chosen.length ? chosen : STEPS.filter((s) => DEFAULT_STEPS.includes(s.names[0])), unknown };
}
