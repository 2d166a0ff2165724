// Wires the page: state ⇄ controls and URL, attention-wasm for the numbers, grids and heatmaps to draw them.
import { createAttention } from 'attention-wasm';
import { EXAMPLES } from './model/examples.js';
import { runScalingExperiment, meanRowEntropy, meanVariance, EXPERIMENT_DKS } from './model/experiment.js';
import { formatMs, formatShape, formatValue } from './model/format.js';
import { attentionCall, averageHeads, columnBlock, headSlice, labelsFor, maskCell, scaleValue } from './model/inputs.js';
import { INPUT_NAMES, INPUT_TITLES, currentMatrix, headWidth } from './model/matrices.js';
import { parseMatrix, parseNumber } from './model/parse.js';
import { MAX_SEED } from './model/rng.js';
import { LIMITS, SIZE_NAMES, checkSizes, decodeState, encodeState, withSizes } from './model/state.js';
import { tokenize } from './model/tokens.js';
import { lineChart } from './view/chart.js';
import { byId, el, show } from './view/dom.js';
import { Heatmap, downloadCanvas, heatmapPicture, weightsLegend } from './view/heatmap.js';
import { MatrixGrid } from './view/matrixGrid.js';

const MAX_TYPED = 1e6;

let state;
let attn = null;
let lastResult = null;
let frameRequest = 0;
let changedAt = null;
let hashTimer = 0;
let experimentTimer = 0;
let experimentSeed = null;
let renderCount = 0;
let hoveredOutputRow = null;

const quote = (label) => `“${label}”`;
const shortNumber = (value) => String(Number(value.toPrecision(4)));
const dims = (count, prefix = '') => Array.from({ length: count }, (_, i) => `${prefix}${i}`);

function setError(node, message) {
  node.textContent = message ?? '';
  show(node, Boolean(message));
}


function setState(next, { from = null } = {}) {
  state = next;
  changedAt ??= performance.now();
  syncControls(from);
  scheduleHash();
  scheduleRender();
}

function scheduleRender() {
  if (!frameRequest) frameRequest = requestAnimationFrame(render);
}

function scheduleHash() {
  clearTimeout(hashTimer);
  hashTimer = setTimeout(writeHash, 250);
}

function writeHash() {
  clearTimeout(hashTimer);
  const hash = `#${encodeState(state)}`;
  if (location.hash !== hash) history.replaceState(null, '', hash);
}


const grids = {};

function cellName(name, i, j) {
  const labels = labelsFor(state);
  if (name === 'x') return `X, row ${quote(labels[i])}, column ${j}`;
  return `${INPUT_TITLES[name]}, row ${i}, column ${j}`;
}

function editInput(name, i, j, text) {
  const value = parseNumber(text);
  const shown = text.length > 20 ? `${text.slice(0, 20)}…` : text;
  if (value === null) return `${cellName(name, i, j)}: ${quote(shown)} is not a number. The last good value is still used; type a number like 0.5 or -1e-3, or press Escape.`;
  if (Math.abs(value) > MAX_TYPED) return `${cellName(name, i, j)}: ${shown} is too large; use numbers from -1000000 to 1000000.`;
  const target = name === 'wk' && state.shareQK ? 'wq' : name;
  const matrix = currentMatrix(state, target).map((row) => row.slice());
  const col = name === 'x' ? j : state.head * headWidth(state, name) + j;
  matrix[i][col] = value;
  setState({ ...state, [target]: matrix });
  return null;
}

function describeInput(name) {
  return (i, j, value) => {
    const labels = labelsFor(state);
    if (name === 'x') return [`token ${quote(labels[i])}`, `embedding dimension ${j}: ${formatValue(value, state.precision)}`];
    const out = name === 'wv' ? 'd_v' : 'd_k';
    return [`${INPUT_TITLES[name]} row ${i}, column ${j}`, `from embedding dimension ${i} to ${out} dimension ${j}: ${formatValue(value, state.precision)}`];
  };
}

function describeVector(letter, matrixName) {
  return (i, j, value) => {
    const labels = labelsFor(state);
    return [`${letter} of ${quote(labels[i])}, dimension ${j}`, `${formatValue(value, state.precision)} = row ${quote(labels[i])} of X · column ${j} of ${matrixName}`];
  };
}

function describePair(what) {
  return (i, j, value) => {
    const labels = labelsFor(state);
    return [`query ${quote(labels[i])} → key ${quote(labels[j])}`, what(i, j, value)];
  };
}

function hoverPair(cell) {
  grids.q.highlightRow(cell ? cell.i : null);
  grids.k.highlightRow(cell ? cell.j : null);
  heatmap.setHighlight(cell ? { i: cell.i, j: cell.j } : null);
}

function hoverOutput(cell) {
  const i = cell ? cell.i : null;
  hoveredOutputRow = i;
  grids.weights.highlightRow(i);
  grids.output.highlightRow(i);
  heatmap.setHighlight(i === null ? null : { i });
  explainOutput();
}

function explainOutput() {
  const node = byId('output-explain');
  const i = hoveredOutputRow;
  if (i === null || !lastResult || i >= state.n) {
    grids.vOut.emphasizeRows(null);
    node.textContent = 'Hover over a row of the output (or move to it with the keyboard) to see how it is made.';
    return;
  }
  const labels = labelsFor(state);
  const weights = headSlice(lastResult.weights, state.head);
  const row = Array.from(weights.data.subarray(i * state.n, (i + 1) * state.n));
  grids.vOut.emphasizeRows(row);
  const terms = row.map((w, j) => ({ w, j })).filter(({ w }) => w > 0).sort((a, b) => b.w - a.w);
  if (terms.length === 0) {
    node.textContent = `output(${quote(labels[i])}) = 0: every key is masked for this query, so it attends to nothing.`;
    return;
  }
  const shown = terms.slice(0, 4).map(({ w, j }) => `${formatValue(w, 2)} × v(${quote(labels[j])})`);
  const rest = terms.length > 4 ? ` + ${terms.length - 4} smaller term${terms.length > 5 ? 's' : ''}` : '';
  node.textContent = `output(${quote(labels[i])}) = ${shown.join(' + ')}${rest}. The faded rows of V contribute little.`;
}

function maskRender(i, j) {
  const kind = maskCell(state, i, j);
  if (kind === 'open') return { text: '0', cls: 'mask-open' };
  return { text: '-∞', cls: kind === 'causal' ? 'mask-causal' : 'mask-blocked' };
}

function toggleMask(i, j) {
  const message = byId('mask-message');
  if (maskCell(state, i, j) === 'causal') {
    setError(message, `Query ${quote(labelsFor(state)[i])} cannot see key ${quote(labelsFor(state)[j])} because of the causal mask (it comes later). Switch “Causal mask” off to change this cell.`);
    return;
  }
  setError(message, null);
  const mask = state.mask ? state.mask.map((row) => row.slice()) : Array.from({ length: state.n }, () => new Array(state.n).fill(true));
  mask[i][j] = !mask[i][j];
  setState({ ...state, mask: mask.every((row) => row.every(Boolean)) ? null : mask });
}

let heatmap;

function createGrids() {
  const signed = { color: 'signed' };
  grids.x = new MatrixGrid({ name: 'x', title: 'X', note: 'embeddings · rows: tokens', ...signed, editable: true, onEdit: (i, j, t) => editInput('x', i, j, t), describe: describeInput('x') });
  for (const name of ['wq', 'wk', 'wv']) {
    grids[name] = new MatrixGrid({ name, title: INPUT_TITLES[name], note: 'weights · editable', ...signed, editable: true, onEdit: (i, j, t) => editInput(name, i, j, t), describe: describeInput(name) });
  }
  grids.q = new MatrixGrid({ name: 'q', title: 'Q', note: 'queries', ...signed, describe: describeVector('query', 'W_q') });
  grids.k = new MatrixGrid({ name: 'k', title: 'K', note: 'keys', ...signed, describe: describeVector('key', 'W_k') });
  grids.v = new MatrixGrid({ name: 'v', title: 'V', note: 'values', ...signed, describe: describeVector('value', 'W_v') });
  grids.raw = new MatrixGrid({ name: 'rawScores', title: 'QKᵀ', note: 'rows: queries · columns: keys', ...signed, onHover: hoverPair, describe: describePair((i, j, v) => `q·k = ${formatValue(v, state.precision)}`) });
  grids.scaled = new MatrixGrid({
    name: 'scaledScores', title: 'scaled scores', note: 'QKᵀ × factor', ...signed, onHover: hoverPair,
    describe: describePair((i, j, v) => `${formatValue(lastHead('rawScores', i, j), state.precision)} × ${shortNumber(scaleValue(state))} = ${formatValue(v, state.precision)}`),
  });
  grids.mask = new MatrixGrid({
    name: 'mask', title: 'mask', note: 'click to block / allow', render: maskRender, onActivate: toggleMask, onHover: hoverPair,
    describe: describePair((i, j) => ({ open: 'allowed: + 0 (click to block)', blocked: 'blocked: + −∞ (click to allow)', causal: 'blocked by the causal mask: a later token' })[maskCell(state, i, j)]),
  });
  grids.scores = new MatrixGrid({ name: 'scores', title: 'masked scores', note: 'scaled scores + mask', ...signed, onHover: hoverPair, describe: describePair((i, j, v) => (v === -Infinity ? 'blocked: −∞, its weight will be 0' : `score ${formatValue(v, state.precision)}`)) });
  grids.weights = new MatrixGrid({
    name: 'weights', title: 'attention weights', note: 'softmax of each row · rows sum to 1', color: 'weights', onHover: hoverPair,
    masked: (i, j) => maskCell(state, i, j) !== 'open',
    describe: describePair((i, j, v) => (maskCell(state, i, j) !== 'open'
      ? 'masked: weight 0, nothing is taken from this key'
      : `weight ${formatValue(v, state.precision)}: ${quote(labelsFor(state)[i])} takes ${formatValue(v * 100, 1)}% of its output from ${quote(labelsFor(state)[j])}`)),
  });
  grids.vOut = new MatrixGrid({ name: 'vOut', title: 'V', note: 'values', ...signed, describe: describeVector('value', 'W_v') });
  grids.output = new MatrixGrid({
    name: 'output', title: 'output', note: 'one row per token', ...signed, onHover: hoverOutput,
    describe: (i, j, v) => [`output of ${quote(labelsFor(state)[i])}, dimension ${j}`, `${formatValue(v, state.precision)} = Σ weight × value`],
  });
  grids.concat = new MatrixGrid({ name: 'concat', title: 'concatenated heads', note: 'head outputs side by side', ...signed, describe: (i, j, v) => [`token ${quote(labelsFor(state)[i])}, column ${j}`, formatValue(v, state.precision)] });

  const op = (text) => el('span', { class: 'op', text, attrs: { 'aria-hidden': 'true' } });
  byId('mount-x').append(grids.x.element);
  byId('mount-q').append(op('X ·'), grids.wq.element, op('='), grids.q.element);
  byId('mount-k').append(op('X ·'), grids.wk.element, op('='), grids.k.element);
  byId('mount-v').append(op('X ·'), grids.wv.element, op('='), grids.v.element);
  byId('mount-raw').append(grids.raw.element);
  byId('mount-scaled').append(grids.scaled.element);
  byId('mount-mask').append(op('+'), grids.mask.element, op('='), grids.scores.element);
  byId('mount-weights').append(grids.weights.element);
  byId('mount-output').append(op('weights ·'), grids.vOut.element, op('='), grids.output.element);
  byId('mount-concat').append(grids.concat.element);

  heatmap = new Heatmap({
    label: 'Heatmap of the attention weights: rows are queries, columns are keys',
    labels: true,
    onHover: hoverPair,
    describe: describePair((i, j, w) => (maskCell(state, i, j) === 'open' ? `weight ${formatValue(w, state.precision)}` : 'masked: weight 0')),
  });
  byId('mount-heatmap').append(heatmap.element);
  byId('mount-legend').append(weightsLegend());
}

function lastHead(step, i, j) {
  if (!lastResult) return NaN;
  return headSlice(lastResult[step], state.head).data[i * state.n + j];
}


const headViews = [];

function headFigure(index) {
  const isAverage = index === -1;
  const map = new Heatmap({
    label: isAverage ? 'Average of the heads' : `Head ${index + 1} attention weights`,
    describe: describePair((i, j, w) => `${isAverage ? 'average ' : ''}weight ${formatValue(w, state.precision)}`),
  });
  const caption = isAverage
    ? el('figcaption', { class: 'head-caption', text: 'average' })
    : el('figcaption', {}, el('button', { type: 'button', class: 'head-button', text: `head ${index + 1}`, attrs: { 'aria-label': `Show head ${index + 1} in the steps` }, on: { click: () => setState({ ...state, head: index }) } }));
  const figure = el('figure', { class: `head-figure${isAverage ? ' average' : ''}` }, caption, map.element);
  return { figure, map };
}

function drawHeads(result) {
  const mount = byId('mount-heads');
  const text = byId('heads-text');
  const H = state.numHeads;
  show(grids.concat.element, H > 1);
  if (H === 1) {
    mount.replaceChildren();
    headViews.length = 0;
    text.textContent = 'This example has one head. With several heads (try the “4 heads” example or set heads above), each head has its own W_q, W_k and W_v blocks and so its own attention pattern; their outputs are put side by side. They appear here next to each other, with their average.';
    return;
  }
  text.textContent = `${H} heads, each with d_k = ${state.dK} and d_v = ${state.dV}. Each head attends in its own way; click a head to follow it through the steps above. The heads' outputs are concatenated into one [${state.n}, ${H * state.dV}] matrix. A transformer then multiplies it by W_o; that last step is left out here so you see the heads directly.`;
  if (headViews.length !== H + 1) {
    headViews.length = 0;
    for (let h = 0; h < H; h++) headViews.push(headFigure(h));
    headViews.push(headFigure(-1));
    mount.replaceChildren(...headViews.map((v) => v.figure), el('div', { class: 'heads-legend' }, weightsLegend()));
  }
  const blocked = (i, j) => maskCell(state, i, j) !== 'open';
  for (let h = 0; h < H; h++) {
    const { data } = headSlice(result.weights, h);
    headViews[h].map.update({ data, rows: state.n, cols: state.n, blocked });
    headViews[h].figure.classList.toggle('selected', h === state.head);
    headViews[h].figure.querySelector('button').setAttribute('aria-pressed', String(h === state.head));
  }
  headViews[H].map.update({ ...averageHeads(result.weights), rows: state.n, cols: state.n, blocked });
}


function draw(result) {
  const labels = labelsFor(state);
  const { n, dModel, dK, dV, numHeads: H, head: h, precision } = state;
  const headNote = H > 1 ? ` (head ${h + 1} of ${H})` : '';
  const flat = (rows) => Float64Array.from(rows.flat());

  const x = currentMatrix(state, 'x');
  grids.x.update({ data: flat(x), rows: n, cols: dModel, rowLabels: labels, colLabels: dims(dModel), precision, raw: x });
  for (const name of ['wq', 'wk', 'wv']) {
    const width = headWidth(state, name);
    const block = columnBlock(currentMatrix(state, name), h * width, width);
    grids[name].options.editable = !(name === 'wk' && state.shareQK);
    grids[name].setTitle(`${INPUT_TITLES[name]}${headNote}`, name === 'wk' && state.shareQK ? 'same as W_q (W_k = W_q is on)' : 'weights · editable');
    grids[name].update({ data: flat(block), rows: dModel, cols: width, rowLabels: dims(dModel), colLabels: dims(width), precision, raw: block });
  }
  const perHead = (grid, tensor, title, colLabels) => {
    grid.setTitle(`${title}${headNote}`);
    grid.update({ data: headSlice(tensor, h).data, rows: n, cols: colLabels.length, rowLabels: labels, colLabels, precision });
  };
  perHead(grids.q, result.q, 'Q', dims(dK));
  perHead(grids.k, result.k, 'K', dims(dK));
  perHead(grids.v, result.v, 'V', dims(dV));
  perHead(grids.raw, result.rawScores, 'QKᵀ', labels);
  perHead(grids.scaled, result.scaledScores, 'scaled scores', labels);
  const additiveMask = Float32Array.from({ length: n * n }, (_, k) => (maskCell(state, Math.floor(k / n), k % n) === 'open' ? 0 : -Infinity));
  grids.mask.update({ data: additiveMask, rows: n, cols: n, rowLabels: labels, colLabels: labels, precision });
  perHead(grids.scores, result.scores, 'masked scores', labels);
  perHead(grids.weights, result.weights, 'attention weights', labels);
  perHead(grids.vOut, result.v, 'V', dims(dV));
  perHead(grids.output, result.heads, H > 1 ? 'head output' : 'output', dims(dV));
  if (H > 1) {
    grids.concat.update({ data: result.concat.data, rows: n, cols: H * dV, rowLabels: labels, colLabels: Array.from({ length: H * dV }, (_, c) => `h${Math.floor(c / dV) + 1}·${c % dV}`), precision });
  }

  const weights = headSlice(result.weights, h);
  const blocked = (i, j) => maskCell(state, i, j) !== 'open';
  heatmap.update({ data: weights.data, rows: n, cols: n, blocked, rowLabels: labels, colLabels: labels });
  byId('heatmap-caption').textContent = `${formatShape([n, n])}${headNote}`;
  drawHeads(result);
  drawTexts(result);
  explainOutput();
}

function drawTexts(result) {
  const { dK, temperature: T, scaling, n } = state;
  const factor = shortNumber(scaleValue(state));
  const root = `√${dK} = ${shortNumber(Math.sqrt(dK))}`;
  byId('scale-title').textContent = scaling ? (T === 1 ? 'Scale: ÷ √d_k' : 'Scale: ÷ (T·√d_k)') : (T === 1 ? 'Scale: off' : 'Scale: ÷ T');
  byId('scale-formula').textContent = scaling ? `1/(T·√d_k) = ${factor}` : `1/T = ${factor}`;
  byId('scale-text').textContent = scaling
    ? `d_k = ${dK}, so every score is divided by ${root}${T === 1 ? '' : ` and by the temperature T = ${T}`}: multiplied by ${factor}. `
      + 'This keeps the scores near variance 1 whatever d_k is (see “Why divide by √d_k?” at the bottom). '
      + 'attention-wasm gets this factor as its scale option.'
    : `Scaling is off, so the scores are only divided by the temperature T = ${T} (multiplied by ${factor}). `
      + 'Switch “Divide the scores by √d_k” back on and compare the weights: without it, larger d_k gives sharper, more one-hot rows.';
  const weights = headSlice(result.weights, state.head);
  const entropy = meanRowEntropy(weights.data, n);
  byId('entropy-text').textContent = Number.isFinite(entropy)
    ? `How spread out are the rows? Their mean entropy is ${formatValue(entropy, 2)} bits. A row spread evenly over all ${n} keys has log₂${n} = ${formatValue(Math.log2(n), 2)} bits; a row on a single key has 0.`
    : 'Every row is fully masked, so no row has weights.';
  const raw = meanVariance(headSlice(result.rawScores, state.head).data).variance;
  const scaled = meanVariance(headSlice(result.scaledScores, state.head).data).variance;
  byId('why-text').textContent = `In your example (d_k = ${dK}, ${n} tokens): the variance of QKᵀ is ${formatValue(raw, 2)}, and ${formatValue(scaled, 2)} after scaling. With so few numbers these are rough, but they follow the curves.`;
  const headsNote = byId('qkv-heads-note');
  headsNote.textContent = state.numHeads > 1
    ? `Showing head ${state.head + 1} of ${state.numHeads}: the W's below are its blocks of columns (${state.head * dK}–${(state.head + 1) * dK - 1} of W_q and W_k, ${state.head * state.dV}–${(state.head + 1) * state.dV - 1} of W_v). Choose the head in the settings or below the steps.`
    : '';
  show(headsNote, state.numHeads > 1);
}

function render() {
  frameRequest = 0;
  if (!attn) return;
  const started = changedAt ?? performance.now();
  changedAt = null;
  const call = attentionCall(state);
  const t0 = performance.now();
  let result;
  try {
    result = attn.selfAttention(call.x, call.weights, call.options);
  } catch (error) {
    setError(byId('compute-error'), `This input could not be computed, so the last good result stays on screen: ${error.message}`);
    return;
  }
  const computeMs = performance.now() - t0;
  setError(byId('compute-error'), null);
  lastResult = result;
  draw(result);
  const totalMs = performance.now() - started;
  renderCount++;
  document.body.dataset.renders = String(renderCount);
  document.body.dataset.computeMs = computeMs.toFixed(3);
  document.body.dataset.updateMs = totalMs.toFixed(3);
  byId('status-time').textContent = `last update ${formatMs(totalMs)}, of which WebAssembly ${formatMs(computeMs)}`;
  scheduleExperiment();
}


function scheduleExperiment() {
  if (experimentSeed === state.seed) return;
  clearTimeout(experimentTimer);
  experimentTimer = setTimeout(runExperiment, 120);
}

function runExperiment() {
  experimentSeed = state.seed;
  const { rows, maxEntropy, length } = runScalingExperiment(attn, { seed: state.seed });
  const xs = rows.map((r) => r.dK);
  const marker = { x: state.dK, text: `your d_k = ${state.dK}` };
  const variance = lineChart({
    label: 'Variance of the scores against d_k: unscaled it grows like d_k, scaled it stays near 1',
    xs,
    series: [
      { name: 'QKᵀ unscaled', values: rows.map((r) => r.varianceRaw), cls: 'series-raw' },
      { name: 'QKᵀ ÷ √d_k', values: rows.map((r) => r.varianceScaled), cls: 'series-scaled' },
    ],
    xLabel: 'd_k',
    yLabel: 'variance of the scores',
    yScale: 'log2',
    yRange: [0.25, 512],
    yTicks: [0.25, 1, 4, 16, 64, 256],
    marker: EXPERIMENT_DKS.includes(state.dK) ? marker : undefined,
  });
  const entropy = lineChart({
    label: 'Mean entropy of the softmax rows against d_k: unscaled it falls towards 0, scaled it stays high',
    xs,
    series: [
      { name: 'softmax(QKᵀ)', values: rows.map((r) => r.entropyRaw), cls: 'series-raw' },
      { name: 'softmax(QKᵀ ÷ √d_k)', values: rows.map((r) => r.entropyScaled), cls: 'series-scaled' },
    ],
    xLabel: 'd_k',
    yLabel: 'row entropy (bits)',
    yScale: 'linear',
    yRange: [0, Math.ceil(maxEntropy)],
    yTicks: [0, 1, 2, 3, 4].filter((t) => t <= Math.ceil(maxEntropy)),
    guide: { y: maxEntropy, text: `even over ${length} keys: ${maxEntropy} bits` },
  });
  const legend = el('p', { class: 'chart-legend' },
    el('span', { class: 'key series-raw' }), 'without scaling ', el('span', { class: 'key series-scaled' }), 'divided by √d_k');
  const at8 = rows.find((r) => r.dK === 8);
  const summary = el('p', { class: 'hint', text: `At d_k = 8: variance ${formatValue(at8.varianceRaw, 1)} unscaled against ${formatValue(at8.varianceScaled, 2)} scaled; row entropy ${formatValue(at8.entropyRaw, 2)} bits against ${formatValue(at8.entropyScaled, 2)}. Seed ${state.seed}.` });
  byId('mount-charts').replaceChildren(
    el('figure', { class: 'chart-box' }, el('figcaption', { text: 'Variance of the scores' }), variance),
    el('figure', { class: 'chart-box' }, el('figcaption', { text: 'How spread out the softmax rows are' }), entropy),
    legend,
    summary);
}


const sizeInputs = {};

function buildControls() {
  const examples = byId('examples');
  for (const example of EXAMPLES) {
    examples.append(el('button', {
      type: 'button',
      class: 'example',
      text: example.title,
      dataset: { example: example.id },
      on: {
        click: () => {
          clearFieldErrors();
          for (const grid of Object.values(grids)) grid.clearInvalid();
          byId('example-about').textContent = example.about;
          setState(example.state());
        },
      },
    }));
  }

  const sizes = byId('sizes');
  for (const [key, label] of Object.entries(SIZE_NAMES)) {
    const input = el('input', { id: `size-${key}`, type: 'number', min: 1, max: LIMITS[key], step: 1, inputMode: 'numeric', on: { input: readSizes } });
    sizeInputs[key] = input;
    sizes.append(el('label', { class: 'field', htmlFor: input.id }, el('span', { text: label }), input));
  }

  byId('sentence').addEventListener('input', (event) => {
    const sentence = event.target.value;
    const tokens = tokenize(sentence);
    const error = byId('sentence-error');
    if (tokens.length === 0) return setError(error, 'Type at least one word: each word is a token.');
    if (tokens.length > LIMITS.n) return setError(error, `This sentence has ${tokens.length} tokens; the page takes at most ${LIMITS.n}.`);
    setError(error, null);
    const next = tokens.length === state.n ? { ...state } : withSizes(state, { ...currentSizes(), n: tokens.length });
    setState({ ...next, sentence }, { from: event.target });
  });

  byId('seed').addEventListener('input', (event) => {
    const value = event.target.value.trim();
    const seed = /^\d{1,10}$/u.test(value) ? Number(value) : NaN;
    if (!(seed >= 0 && seed <= MAX_SEED)) return setError(byId('seed-error'), `The seed must be a whole number from 0 to ${MAX_SEED}.`);
    setError(byId('seed-error'), null);
    setState(redrawn({ ...state, seed }), { from: event.target });
  });
  byId('new-seed').addEventListener('click', () => {
    setError(byId('seed-error'), null);
    setState(redrawn({ ...state, seed: Math.floor(Math.random() * 100000) }));
  });
  for (const radio of document.querySelectorAll('input[name="dist"]')) {
    radio.addEventListener('change', () => setState(redrawn({ ...state, dist: radio.value })));
  }
  byId('reset-numbers').addEventListener('click', () => setState(redrawn({ ...state })));

  byId('causal').addEventListener('change', (e) => {
    setError(byId('mask-message'), null);
    setState({ ...state, causal: e.target.checked });
  });
  byId('scaling').addEventListener('change', (e) => setState({ ...state, scaling: e.target.checked }));
  byId('temperature').addEventListener('input', (e) => {
    const t = Math.round(Number(e.target.value) * 100) / 100;
    setState({ ...state, temperature: Math.min(LIMITS.temperatureMax, Math.max(LIMITS.temperatureMin, t)) }, { from: e.target });
  });
  byId('share-qk').addEventListener('change', (e) => setState({ ...state, shareQK: e.target.checked, wk: null }));
  byId('head').addEventListener('change', (e) => setState({ ...state, head: Number(e.target.value) }));
  byId('clear-mask').addEventListener('click', () => {
    setError(byId('mask-message'), null);
    setState({ ...state, mask: null });
  });

  const precision = byId('precision');
  for (let p = 0; p <= LIMITS.precision; p++) precision.append(el('option', { value: String(p), text: String(p) }));
  precision.addEventListener('change', () => setState({ ...state, precision: Number(precision.value) }));

  byId('paste-apply').addEventListener('click', applyPaste);
  byId('copy-link').addEventListener('click', copyLink);
  byId('download-png').addEventListener('click', downloadPng);
  window.addEventListener('hashchange', () => {
    if (location.hash === `#${encodeState(state)}`) return;
    loadHash();
  });
}

/** The state with every matrix drawn again from the seed (typed numbers dropped). */
function redrawn(next) {
  for (const grid of Object.values(grids)) grid.clearInvalid();
  return { ...next, x: null, wq: null, wk: null, wv: null };
}

function currentSizes() {
  return { n: state.n, dModel: state.dModel, dK: state.dK, dV: state.dV, numHeads: state.numHeads };
}

function readSizes(event) {
  const sizes = {};
  for (const [key, input] of Object.entries(sizeInputs)) {
    sizes[key] = /^\d+$/u.test(input.value.trim()) ? Number(input.value) : NaN;
  }
  const errors = checkSizes(sizes);
  for (const [key, input] of Object.entries(sizeInputs)) input.setAttribute('aria-invalid', String(Boolean(errors[key])));
  const messages = Object.values(errors);
  setError(byId('sizes-error'), messages.length ? `${messages.join('. ')}. The last good sizes are still used.` : null);
  if (messages.length) return;
  const same = Object.keys(sizes).every((key) => sizes[key] === state[key]);
  if (!same) setState(withSizes(state, sizes), { from: event?.target });
}

function clearFieldErrors() {
  for (const id of ['sentence-error', 'sizes-error', 'seed-error', 'paste-error', 'mask-message']) setError(byId(id), null);
  for (const input of Object.values(sizeInputs)) input.setAttribute('aria-invalid', 'false');
}

function syncControls(from) {
  const set = (node, property, value) => {
    if (node !== from && node !== document.activeElement && node[property] !== value) node[property] = value;
  };
  set(byId('sentence'), 'value', state.sentence);
  for (const [key, input] of Object.entries(sizeInputs)) {
    if (input !== from && input.getAttribute('aria-invalid') !== 'true') set(input, 'value', String(state[key]));
  }
  set(byId('seed'), 'value', String(state.seed));
  for (const radio of document.querySelectorAll('input[name="dist"]')) radio.checked = radio.value === state.dist;
  byId('causal').checked = state.causal;
  byId('scaling').checked = state.scaling;
  set(byId('temperature'), 'value', String(state.temperature));
  byId('temperature-value').textContent = String(state.temperature);
  byId('share-qk').checked = state.shareQK;
  byId('precision').value = String(state.precision);
  const head = byId('head');
  if (head.options.length !== state.numHeads) {
    head.replaceChildren(...Array.from({ length: state.numHeads }, (_, h) => el('option', { value: String(h), text: `head ${h + 1}` })));
  }
  head.value = String(state.head);
  show(byId('head-field'), state.numHeads > 1);
  show(byId('clear-mask'), Boolean(state.mask));
  show(byId('reset-numbers'), INPUT_NAMES.some((name) => state[name]));
  byId('paste-target').querySelector('option[value="wk"]').disabled = state.shareQK;
}

function applyPaste() {
  const error = byId('paste-error');
  const done = byId('paste-done');
  done.textContent = '';
  const target = byId('paste-target').value;
  let matrix;
  try {
    matrix = parseMatrix(byId('paste-text').value);
  } catch (e) {
    return setError(error, `${e.message}. Nothing was changed.`);
  }
  const [rows, cols] = [matrix.length, matrix[0].length];
  const big = matrix.flat().find((v) => Math.abs(v) > MAX_TYPED);
  if (big !== undefined) return setError(error, `${big} is too large; use numbers from -1000000 to 1000000. Nothing was changed.`);
  const sizes = currentSizes();
  const title = INPUT_TITLES[target];
  if (target === 'x') {
    sizes.n = rows;
    sizes.dModel = cols;
  } else {
    if (rows !== state.dModel) {
      return setError(error, `${title} needs d_model = ${state.dModel} rows (one per embedding dimension), but this matrix has ${rows}. Change d_model, or paste X first. Nothing was changed.`);
    }
    if (cols % state.numHeads !== 0) {
      return setError(error, `${title} has ${cols} columns, which ${state.numHeads} heads cannot share equally. Nothing was changed.`);
    }
    sizes[target === 'wv' ? 'dV' : 'dK'] = cols / state.numHeads;
  }
  const errors = Object.values(checkSizes(sizes));
  if (errors.length) return setError(error, `This ${rows}×${cols} matrix does not fit: ${errors.join('; ')}. Nothing was changed.`);
  setError(error, null);
  const next = withSizes(state, sizes);
  next[target === 'wk' && state.shareQK ? 'wq' : target] = matrix;
  grids[target].clearInvalid();
  done.textContent = `Pasted a ${rows}×${cols} matrix into ${title}.`;
  setState(next);
}

async function copyLink() {
  writeHash();
  const status = byId('link-status');
  try {
    await navigator.clipboard.writeText(location.href);
    status.textContent = 'Link copied. Anyone who opens it sees this exact example.';
  } catch {
    const field = el('input', { type: 'text', readOnly: true, value: location.href, class: 'link-field', attrs: { 'aria-label': 'Link to this example' } });
    status.replaceChildren('Copy this link:', field);
    field.focus();
    field.select();
  }
}

function downloadPng() {
  if (!lastResult) return;
  const labels = labelsFor(state);
  const weights = headSlice(lastResult.weights, state.head);
  const title = `Attention weights${state.numHeads > 1 ? `, head ${state.head + 1}` : ''}: ${state.sentence.slice(0, 60)}`;
  const picture = heatmapPicture({
    data: weights.data, rows: state.n, cols: state.n, rowLabels: labels, colLabels: labels, title, precision: state.precision,
    blocked: (i, j) => maskCell(state, i, j) !== 'open',
  });
  downloadCanvas(picture, 'attention-weights.png');
}

function loadHash() {
  const { state: decoded, warnings } = decodeState(location.hash);
  const warning = byId('link-warning');
  if (warnings.length) {
    warning.replaceChildren(
      el('strong', { text: 'Part of this link could not be read, so defaults were used there: ' }),
      el('ul', {}, warnings.slice(0, 8).map((w) => el('li', { text: w }))),
    );
    warning.hidden = false;
  } else warning.hidden = true;
  clearFieldErrors();
  for (const grid of Object.values(grids)) grid.clearInvalid();
  setState(decoded);
}


function showLoadError(error) {
  const box = byId('load-error');
  box.replaceChildren(
    el('h2', { text: 'The WebAssembly module could not be loaded' }),
    el('p', { text: 'Nothing can be computed on this page without it. The browser reported:' }),
    el('p', { class: 'error-detail', text: String(error?.message ?? error) }),
    el('p', { text: 'If you host this page yourself, check that the .wasm files are served next to the JavaScript files (ideally with the application/wasm type), then reload.' }),
  );
  box.hidden = false;
  document.body.classList.add('failed');
  byId('status').textContent = 'WebAssembly module not loaded';
  document.body.dataset.loadFailed = 'true';
}

async function start() {
  createGrids();
  buildControls();
  loadHash();
  try {
    attn = await createAttention();
  } catch (error) {
    showLoadError(error);
    return;
  }
  const status = byId('status');
  const simd = attn.simd
    ? `WebAssembly SIMD on · Eigen uses ${attn.instructionSets}`
    : 'WebAssembly without SIMD (this browser lacks it): the scalar build';
  status.replaceChildren(
    el('span', { class: `badge ${attn.simd ? 'on' : 'off'}`, text: attn.simd ? 'SIMD' : 'scalar' }),
    el('span', { class: 'status-text', text: simd }),
    el('span', { class: 'status-time', id: 'status-time' }),
  );
  changedAt = performance.now();
  scheduleRender();
  document.body.dataset.ready = 'true';
}

start();
