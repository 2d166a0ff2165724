// The "Why divide by √d_k?" panel: runs the scaling experiment when the seed changes and draws its two charts.
import { EXPERIMENT_DKS, runScalingExperiment } from './experiment.js';
import { scalingSummary } from './scalingText.js';
import { lineChart } from './chartView.js';
import { byId, el } from '../../shared/dom.js';

let experimentTimer = 0;
let drawnKey = null;
let experiment = null;
let firstNumbers = 'waiting'; // then 'shown': the first run waits until the page's first numbers are on screen

/**
 * Runs the experiment again shortly when the seed changed, and redraws the charts when the seed or d_k changed
 * (the marker and the summary follow d_k). The first time, it waits two frames more: the frame that shows the page's
 * first numbers, and the one after it (first numbers sooner: the experiment takes 40–150 ms).
 * @param {{ attn: object, state: object }} app  read when the experiment runs
 */
export function scheduleExperiment(app) {
  if (drawnKey === `${app.state.seed}|${app.state.dK}`) return;
  clearTimeout(experimentTimer);
  if (firstNumbers !== 'shown') {
    if (firstNumbers === 'waiting') {
      firstNumbers = 'frames';
      requestAnimationFrame(() =>
        requestAnimationFrame(() => {
          firstNumbers = 'shown';
          scheduleExperiment(app);
        }),
      );
    }
    return;
  }
  experimentTimer = setTimeout(() => runExperiment(app.attn, app.state), 120);
}

function runExperiment(attn, state) {
  drawnKey = `${state.seed}|${state.dK}`;
  if (experiment?.seed !== state.seed)
    experiment = { seed: state.seed, ...runScalingExperiment(attn, { seed: state.seed }) };
  const { rows, maxEntropy, length } = experiment;
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
  const legend = el(
    'p',
    { class: 'chart-legend' },
    el('span', { class: 'key series-raw' }),
    'without scaling ',
    el('span', { class: 'key series-scaled' }),
    'divided by √d_k',
  );
  const summary = el('p', { class: 'hint', text: scalingSummary(rows, state.seed, state.dK) });
  byId('mount-charts').replaceChildren(
    el('figure', { class: 'chart-box' }, el('figcaption', { text: 'Variance of the scores' }), variance),
    el('figure', { class: 'chart-box' }, el('figcaption', { text: 'How spread out the softmax rows are' }), entropy),
    legend,
    summary,
  );
}
