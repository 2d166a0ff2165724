// Connects the page: the state and its URL, attention-wasm for the numbers, the controls, the steps and the √d_k panel.
import { createAttention } from 'attention-wasm';
import { attentionCall } from './shared/inputs.js';
import './lessons/designed-heads/designedHeads.js'; // the designed heads' matrices, for matrices.js
import {
  computeCall,
  float32Call,
  lastProjection,
  onPreparedLayer,
  onlyScaleChanged,
  previewsTemperature,
  sameCall,
} from './app/attentionCalls.js';
import { ModelPanel } from './own-model/ownModelPanel.js';
import { previewWeights, setStale } from './app/preview.js';
import { SLOW_RENDER_MS, afterNextPaint, reportRender, watchInputs } from './app/latency.js';
import { decodeState, encodeState } from './shared/link.js';
import { cachedGenerated, restoreGenerated } from './shared/matrices.js';
import { buildControls, clearFieldErrors, editCell, syncControls, toggleMaskCell } from './app/controls.js';
import { scheduleExperiment } from './lessons/scaling/scalingPanel.js';
import { byId, el, setError } from './shared/dom.js';
import { gqaStep } from './lessons/gqa/gqa.js';
import { kvCacheStep } from './lessons/kv-cache/kvCache.js';
import { wordOrderDemo } from './lessons/word-order/wordOrder.js';
import { ropeStep } from './lessons/rope/ropeLesson.js';
import { RopeView } from './lessons/rope/ropeView.js';
import { DesignedView } from './lessons/designed-heads/designedView.js';
import { GqaView } from './lessons/gqa/gqaView.js';
import { CrossView } from './lessons/cross-attention/crossView.js';
import { KvView } from './lessons/kv-cache/kvView.js';
import { LazySection } from './walk/lazySection.js';
import { OrderView } from './lessons/word-order/orderView.js';
import { Steps } from './walk/stepsView.js';
import { setupEmbed } from './app/embed.js';
import { prepareNextSeed, takeResultAhead } from './app/seedAhead.js';
import { warmUp } from './app/warmUp.js';
import { rehearseEdit } from './app/editRehearsal.js';
import { setupRealModel } from './real-model/entry.js';
import { setupInstrumentLessons } from './app/instrumentLessons.js';

let state;
let attn = null;
let lastResult = null;
let lastCall = null;
let frameRequest = 0;
let slowRender = false;
let fullTimer = 0;
let lastState = null;
let fullNext = false;
let changedAt = null;
let hashTimer = 0;
let renderCount = 0;
let steps;
let orderView;
let lessons;
let designedView;
let pinned = null; // a real model's head in the steps: its state and the model's own numbers (real-model/panel.js)

/** What the controls, the steps and the √d_k panel read and change. */
const app = {
  get state() {
    return state;
  },
  get result() {
    return lastResult;
  },
  get attn() {
    return attn;
  },
  setState,
  /**
   * Shows a real model's head: `next` (its layer as the page's state) with the model's own `result` of it. `head`
   * says what the page's controls do to it (real-model/tools/walk/openHead.js): onEdit (a cell typed), onSentence
   * (a sentence typed in the settings), onHead (another head chosen), `name` ("L1H2 of gpt2"), and `link`: the
   * panel's link values of that head (model, text, layer, head, ablate, edits), which Embed… writes.
   */
  showModelHead(next, result, head = null) {
    pinned = { state: next, result, head };
    setState(next);
  },
  /** The real model's head while the steps show it (showModelHead's `head`), or null when they show an example. */
  get modelHead() {
    return pinned?.state === state ? pinned.head : null;
  },
  writeHash,
  loadHash,
  clearInvalid: (name) => steps.clearInvalid(name),
};

function setState(next, { from = null } = {}) {
  state = next;
  changedAt ??= performance.now();
  syncControls(state, from, app.modelHead);
  scheduleHash();
  scheduleRender();
}

function scheduleRender() {
  if (frameRequest) return;
  frameRequest = 1;
  // In the next animation frame, which then paints the result (a task instead would often run just after that
  // frame, and the result would wait for the one after: measured, 8–15 ms later at the default size). A redraw too
  // slow for the 50 ms budget anyway lets the input's own feedback be painted first (see latency.js).
  if (slowRender) afterNextPaint(render);
  else requestAnimationFrame(render);
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

function loadHash() {
  const { state: decoded, warnings, notes } = decodeState(location.hash);
  const warning = byId('link-warning');
  warning.replaceChildren(
    ...notes.map((note) => el('p', { class: 'link-note', text: note })),
    ...(warnings.length
      ? [
          el('strong', { text: 'Part of this link could not be read, so defaults were used there: ' }),
          el(
            'ul',
            {},
            warnings.slice(0, 8).map((w) => el('li', { text: w })),
          ),
        ]
      : []),
  );
  warning.hidden = !warnings.length && !notes.length;
  clearFieldErrors();
  steps.clearInvalid();
  setState(decoded);
}

/** Draws the weights of a temperature change only: WebAssembly's ms, or false when that failed (then the full update runs). */
function preview(call) {
  try {
    return previewWeights(attn, steps, state, lastResult, call);
  } catch {
    return false;
  }
}

/** Computes the state's attention with every step and draws it; the body's data-* attributes are the tests' hooks. */
function render() {
  frameRequest = 0;
  if (!attn) return;
  const scriptStart = performance.now();
  const started = changedAt ?? scriptStart;
  changedAt = null;
  const call = attentionCall(state);
  const t0 = performance.now();
  clearTimeout(fullTimer);
  // A temperature drag on a large layer: the weights now, the rest once the slider rests (preview.js).
  const full = fullNext;
  fullNext = false;
  const previewMs = !full && previewsTemperature(lastState, state) && onlyScaleChanged(call, lastCall) && preview(call);
  if (previewMs !== false) {
    fullTimer = setTimeout(() => {
      changedAt ??= performance.now();
      fullNext = true;
      scheduleRender();
    }, 150);
    slowRender = false; // a preview is quick: the next frame of a drag is drawn at once
    document.body.dataset.renders = String(++renderCount);
    document.body.dataset.updateMs = (performance.now() - started).toFixed(3);
    document.body.dataset.scriptMs = (performance.now() - scriptStart).toFixed(3);
    reportRender(byId('status-time'), { changedAt: started, computeMs: previewMs, preview: true });
    return;
  }
  let result = lastResult;
  try {
    // The same inputs (e.g. another head shown) keep the last result: nothing to recompute.
    if (pinned?.state === state) result = pinned.result;
    else if (!sameCall(call, lastCall)) {
      const single = float32Call(call);
      result = computeCall(attn, single, takeResultAhead(single)); // a new seed's result may be made ahead
    }
  } catch (error) {
    setError(
      byId('compute-error'),
      `This input could not be computed, so the last good result stays on screen: ${error.message}`,
    );
    return;
  }
  const computeMs = result === lastResult ? null : performance.now() - t0;
  setError(byId('compute-error'), null);
  lastResult = result;
  lastCall = call;
  lastState = state;
  drawAll(state, result);
  const totalMs = performance.now() - started;
  // The opening render is slow once (cold code, the whole page laid out): it says nothing of the next one.
  slowRender = renderCount > 0 && performance.now() - t0 > SLOW_RENDER_MS;
  renderCount++;
  for (const lesson of lessons) lesson.update(renderCount, state);
  document.body.dataset.renders = String(renderCount);
  document.body.dataset.computeMs = (computeMs ?? 0).toFixed(3);
  document.body.dataset.updateMs = totalMs.toFixed(3);
  document.body.dataset.scriptMs = (performance.now() - scriptStart).toFixed(3);
  const projection = computeMs === null ? null : lastProjection();
  document.body.dataset.projectedRows = String(projection?.ahead ? 0 : (projection?.rows ?? call.x.shape[0]));
  reportRender(byId('status-time'), { changedAt: started, computeMs, projection });
  scheduleExperiment(app);
  prepareNextSeed(state, pinned?.state === state);
  if (renderCount === 1) warmUp(() => state, rehearse, [() => rehearseEdit(steps.grids.x)]);
}

/** Draws a state and its result: the steps, the positions and the designed heads. */
function drawAll(shown, result) {
  steps.draw(shown, result);
  setStale(steps, false);
  orderView.drawPositions(shown);
  designedView.draw(shown, result);
}

/**
 * A rehearsal (warmUp.js): computes `next` on the prepared layer as a change would, draws it, then computes the state
 * shown again (the layer's rows and result arrays then hold exactly what they held: the same bits) and draws it, in
 * one task, so that no frame shows `next`. The state, the last result and call, the link, the status line and the
 * render count stay as they were. False while the page is busy with a change of its own or its layer is not ready.
 */
function rehearse(next) {
  // A change on its way, or a temperature preview on screen (whose full result is still to come), is left alone.
  if (!attn || !lastResult || frameRequest || changedAt !== null || state !== lastState) return false;
  const original = float32Call(lastCall);
  if (!onPreparedLayer(attn, original)) return false;
  const shown = { state, result: lastResult, matrices: cachedGenerated() };
  const call = attentionCall(next);
  // A temperature drag on a large layer draws a preview of the weights (render): so does its rehearsal.
  const previews = previewsTemperature(state, next) && onlyScaleChanged(call, lastCall);
  let result = lastResult;
  try {
    if (!previews && !sameCall(call, lastCall)) result = computeCall(attn, float32Call(call));
  } catch {
    return true; // nothing to rehearse: the page says why when the reader makes this change
  }
  // The grids' tooltips and masks read the app's state and result while they draw: they are `next`'s meanwhile.
  try {
    [state, lastResult] = [next, result];
    syncControls(next, null, app.modelHead);
    if (!previews || preview(call) === false) drawAll(next, result);
  } finally {
    [state, lastResult] = [shown.state, shown.result];
    restoreGenerated(shown.matrices); // the arrays of lastCall: the next change compares its inputs with them
    if (result !== shown.result) computeCall(attn, original);
    syncControls(state, null, app.modelHead);
    drawAll(state, lastResult);
  }
  return true;
}

function showLoadError(error) {
  const box = byId('load-error');
  box.replaceChildren(
    el('h2', { text: 'The WebAssembly module could not be loaded' }),
    el('p', { text: 'Nothing can be computed on this page without it. The browser reported:' }),
    el('p', { class: 'error-detail', text: String(error?.message ?? error) }),
    el('p', {
      text: 'If you host this page yourself, check that the .wasm files are served next to the JavaScript files (ideally with the application/wasm type), then reload.',
    }),
  );
  box.hidden = false;
  document.body.classList.add('failed');
  byId('status').textContent = 'WebAssembly module not loaded';
  document.body.dataset.loadFailed = 'true';
}

/** Builds the steps, the lessons' views and the controls, and reads the link. */
function buildPage() {
  steps = new Steps(app, {
    onEdit: (name, i, j, text) =>
      app.modelHead?.onEdit ? app.modelHead.onEdit(name, i, j, text) : editCell(app, name, i, j, text),
    onToggleMask: (i, j) => toggleMaskCell(app, i, j),
    onSelectHead: (head) => (app.modelHead ? app.modelHead.onHead(head) : setState({ ...state, head })),
  });
  orderView = new OrderView();
  designedView = new DesignedView(app, {
    onLoad: () => document.querySelector('#examples [data-example="designed"]').click(),
    onSelectHead: (head) => setState({ ...state, head }),
  });
  const kvView = new KvView();
  const ropeView = new RopeView(app);
  const gqaView = new GqaView(app);
  const crossView = new CrossView(app);
  lessons = [
    new LazySection(byId('step-order'), (s) => orderView.drawDemo(s, wordOrderDemo(attn, s))),
    new LazySection(byId('step-rope'), (s) => ropeView.draw(s, ropeStep(attn, s))),
    new LazySection(byId('step-kv'), (s) => kvView.draw(s, kvCacheStep(attn, s))),
    new LazySection(byId('step-gqa'), (s) => gqaView.draw(s, gqaStep(attn, s))),
    new LazySection(byId('step-cross'), (s) => crossView.draw(attn, s)),
  ];
  buildControls(app);
  setupEmbed(app);
  document.querySelector('.controls .settings-body').append(new ModelPanel(app).element); // folds with the settings
  loadHash();
  setupRealModel(app);
  setupInstrumentLessons();
}

async function start() {
  watchInputs();
  // The module loads before the page is built: each of its steps (the fetch's answer, the compile, the glue, the
  // instance) needs the main thread for a moment, which building the page would hold for 100–200 ms. The browser
  // paints the page's text meanwhile (first numbers sooner).
  let failure = null;
  try {
    attn = await createAttention();
  } catch (error) {
    failure = error;
  }
  buildPage();
  if (failure) {
    showLoadError(failure);
    return;
  }
  const status = byId('status');
  // The attention kernels are the project's own fused SIMD128 loops; Eigen only does the projections.
  const kernels = attn.kernelBackend ?? (attn.simd ? 'hand-fused SIMD128' : 'scalar');
  const simd = attn.simd
    ? `WebAssembly SIMD on · attention kernels: ${kernels} · projections: Eigen (${attn.instructionSets})`
    : `WebAssembly without SIMD (this browser lacks it): the scalar build · attention kernels: ${kernels}`;
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
