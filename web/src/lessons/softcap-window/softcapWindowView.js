// Draws step 15, softcapping and sliding windows: the window and cap sliders, a global layer's weights beside a
// sliding-window layer's, and the scores and weights before and after the cap. The numbers come from
// softcapWindowStep (softcapWindow.js), through the public API's `window` and `softcap` options.
import { headNote } from '../../shared/explanations.js';
import { modelPair, realModelText, softcapText, windowText } from './softcapText.js';
import { SLIDING } from '../../shared/state.js';
import { byId, el, show } from '../../shared/dom.js';
import { MatrixGrid } from '../../walk/matrixGrid.js';

/** A labelled range input with its value beside the label. */
function slider(id, label, { min, max, step }, onInput) {
  const input = el('input', { id, type: 'range', min: String(min), max: String(max), step: String(step) });
  input.addEventListener('input', () => onInput(Number(input.value)));
  const value = el('output', { attrs: { for: id } });
  const field = el('label', { class: 'field softcap-field', attrs: { for: id } }, el('span', {}, label, value), input);
  return { input, value, field };
}

export class SoftcapWindowView {
  /** @param {{ state: object, setState: Function }} app */
  constructor(app) {
    const set = (change) => app.setState({ ...app.state, ...change });
    this.window = slider(
      'sliding-window',
      'Window w (keys a sliding query sees) = ',
      { min: 1, max: 8, step: 1 },
      (w) => set({ slidingWindow: w }),
    );
    this.cap = slider(
      'softcap',
      'Softcap c = ',
      { min: SLIDING.minSoftcap, max: SLIDING.maxSoftcap, step: SLIDING.softcapStep },
      (c) => set({ softcap: c }),
    );
    this.model = el('p', { class: 'explain', id: 'softcap-model', attrs: { 'aria-live': 'polite' } });
    this.windowText = el('p', { class: 'explain', id: 'window-text', attrs: { 'aria-live': 'polite' } });
    this.capText = el('p', { class: 'explain', id: 'softcap-text', attrs: { 'aria-live': 'polite' } });
    this.masked = { global: () => false, sliding: () => false, causal: () => false };
    const grid = (name, title, note, color, masked) =>
      new MatrixGrid({ name, title, note, color, masked: (i, j) => this.masked[masked](i, j) });
    this.grids = {
      swGlobal: grid('swGlobal', 'global layer', 'causal: keys 0…i', 'weights', 'global'),
      swSliding: grid('swSliding', 'sliding layer', 'the last w keys', 'weights', 'sliding'),
      capScaled: grid('capScaled', 'scaled scores s', 'before the cap', 'signed', 'causal'),
      capScores: grid('capScores', 'capped scores', 'tanh(s / c)·c, then the mask', 'signed', 'causal'),
      capBefore: grid('capBefore', 'weights without a cap', 'softmax of s', 'weights', 'causal'),
      capAfter: grid('capAfter', 'weights with the cap', 'softmax of the capped scores', 'weights', 'causal'),
    };
    const g = this.grids;
    this.modelGrids = {
      sliding: new MatrixGrid({
        name: 'modelSliding',
        title: 'sliding layer',
        color: 'weights',
        masked: (i, j) => this.masked.model(i, j),
      }),
      global: new MatrixGrid({ name: 'modelGlobal', title: 'global layer', color: 'weights', masked: (i, j) => j > i }),
    };
    this.masked.model = () => false;
    this.modelLayers = el(
      'div',
      { class: 'matrices' },
      this.modelGrids.sliding.element,
      this.modelGrids.global.element,
    );
    this.open = null;
    show(this.model, false);
    show(this.modelLayers, false);
    byId('mount-softcap').append(
      this.model,
      this.modelLayers,
      this.window.field,
      this.windowText,
      el('div', { class: 'matrices' }, g.swGlobal.element, g.swSliding.element),
      this.cap.field,
      this.capText,
      el('div', { class: 'matrices' }, g.capScaled.element, g.capScores.element),
      el('div', { class: 'matrices' }, g.capBefore.element, g.capAfter.element),
    );
  }

  /** Says which layers of the open real model slide and its cap ({ spec, name }, or null when none is open). */
  showModel(model) {
    this.open = model;
    const text = realModelText(model);
    this.model.textContent = text ?? '';
    show(this.model, Boolean(text));
    show(this.modelLayers, false); // until its first run
  }

  /**
   * Draws the open model's first sliding layer beside a global one, head 0, from its run's attentions (the Real model
   * section's run: `attentions` [H, n, n] per layer, `labels` its tokens); nothing for a model without both kinds.
   */
  showModelRun({ attentions, labels }) {
    const pair = this.open && modelPair(this.open.spec, attentions);
    show(this.modelLayers, Boolean(pair));
    if (!pair) return;
    const { n, sliding, global } = pair;
    this.masked.model = (i, j) => j > i || j <= i - sliding.window;
    const view = (data) => ({ data, rows: n, cols: n, rowLabels: labels, colLabels: labels, precision: 3 });
    this.modelGrids.sliding.setTitle(
      `L${sliding.layer}H0, sliding (w = ${sliding.window})`,
      'the open model, its sentence',
    );
    this.modelGrids.global.setTitle(`L${global.layer}H0, global`, 'the open model, its sentence');
    this.modelGrids.sliding.update(view(sliding.data));
    this.modelGrids.global.update(view(global.data));
  }

  /** Sets the sliders to the state (after a link or an example) without moving what the reader holds. */
  #sync(state) {
    const { input, value } = this.window;
    input.max = String(Math.max(state.n, state.slidingWindow));
    if (input.value !== String(state.slidingWindow)) input.value = String(state.slidingWindow);
    value.textContent = String(state.slidingWindow);
    if (this.cap.input.value !== String(state.softcap)) this.cap.input.value = String(state.softcap);
    this.cap.value.textContent = String(state.softcap);
  }

  /** Draws the step computed by softcapWindowStep. */
  draw(state, step) {
    this.#sync(state);
    const { n, precision } = state;
    const w = step.window;
    this.masked.global = (i, j) => j > i;
    this.masked.sliding = (i, j) => j > i || j <= i - w;
    this.masked.causal = (i, j) => j > i;
    this.windowText.textContent = windowText(state, step);
    this.capText.textContent = softcapText(state, step);
    const note = headNote(state);
    const g = this.grids;
    g.swGlobal.setTitle(`global layer${note}`, `causal: keys 0…i · ${step.scores.global} scores`);
    g.swSliding.setTitle(`sliding layer, w = ${w}${note}`, `keys i − ${w - 1}…i · ${step.scores.sliding} scores`);
    g.capScores.setTitle(
      `capped scores, c = ${step.softcap}`,
      `tanh(s / ${step.softcap})·${step.softcap}, then the mask`,
    );
    const view = (rows, colorScale) => ({
      data: rows.flat(),
      rows: n,
      cols: n,
      rowLabels: step.labels,
      colLabels: step.labels,
      precision,
      colorScale,
    });
    // The capped scores on the scaled scores' colour scale: the cap shows as colours fading.
    const scale = Math.abs(step.largest.value) || 1;
    g.swGlobal.update(view(step.globalWeights));
    g.swSliding.update(view(step.slidingWeights));
    g.capScaled.update(view(step.scaled, scale));
    g.capScores.update(view(step.capped, scale));
    g.capBefore.update(view(step.globalWeights));
    g.capAfter.update(view(step.cappedWeights));
  }
}
