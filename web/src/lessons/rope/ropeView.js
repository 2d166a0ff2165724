// Draws step 10, rotary position embeddings: the controls (theta, pairing style, shift), which dimensions pair up,
// the dials of q and k, and the shift test's scores with RoPE and with P side by side. The numbers come from
// ropeStep (lessons/rope/ropeLesson.js), through the public API's rope option.
import { GROUP_COLORS } from '../../shared/colors.js';
import { headNote } from '../../shared/explanations.js';
import { pairingText, ropeText } from './ropeLesson.js';
import { ROPE } from '../../shared/state.js';
import { byId, el, show } from '../../shared/dom.js';
import { MatrixGrid } from '../../walk/matrixGrid.js';
import { RopeDials } from './ropeDialsView.js';

/** How far the shift slider goes (a link may hold up to ROPE.maxShift). */
const SLIDER_SHIFT = 64;

const THETA_NOTES = { 10000: 'LLaMA 2, GPT-NeoX', 500000: 'LLaMA 3', 1000000: 'Qwen 2, Code Llama' };
const STYLE_LABELS = {
  half: 'half: i with i + d/2 (LLaMA, GPT-NeoX)',
  interleaved: 'interleaved: 2i with 2i + 1 (GPT-J)',
};

export class RopeView {
  /** @param {{ state: object, setState: Function }} app */
  constructor(app) {
    this.app = app;
    const set = (change) => app.setState({ ...app.state, ...change });
    this.theta = el(
      'select',
      { id: 'rope-theta', on: { change: () => set({ ropeTheta: Number(this.theta.value) }) } },
      ROPE.thetas.map((theta) =>
        el('option', {
          value: String(theta),
          text: `${theta.toLocaleString('en')}${THETA_NOTES[theta] ? ` (${THETA_NOTES[theta]})` : ''}`,
        }),
      ),
    );
    this.styles = ROPE.styles.map((style) =>
      el('input', { type: 'radio', name: 'rope-style', value: style, on: { change: () => set({ ropeStyle: style }) } }),
    );
    this.shift = el('input', {
      id: 'rope-shift',
      type: 'range',
      min: '0',
      max: String(SLIDER_SHIFT),
      step: '1',
      on: { input: () => set({ ropeShift: Number(this.shift.value) }) },
    });
    this.shiftValue = el('output', { attrs: { for: 'rope-shift' } });
    const controls = el(
      'div',
      { class: 'rope-controls' },
      el('label', { class: 'field', attrs: { for: 'rope-theta' } }, el('span', { text: 'θ (rope_theta)' }), this.theta),
      el(
        'fieldset',
        { class: 'rope-style' },
        el('legend', { text: 'Which dimensions pair up' }),
        this.styles.map((input, k) => el('label', {}, input, ` ${STYLE_LABELS[ROPE.styles[k]]}`)),
      ),
      el(
        'label',
        { class: 'field', attrs: { for: 'rope-shift' } },
        el('span', {}, 'Shift the whole sentence by s = ', this.shiftValue, ' positions'),
        this.shift,
      ),
    );
    this.pairing = el('p', { class: 'rope-note', id: 'rope-pairing' });
    this.dimsRow = el('div', { class: 'rope-dims', attrs: { 'aria-hidden': 'true' } });
    this.dials = new RopeDials();
    this.text = el('p', { class: 'explain', id: 'rope-text', attrs: { 'aria-live': 'polite' } });
    const grid = (name, title, note) => new MatrixGrid({ name, title, note, color: 'signed' });
    this.grids = {
      ropeScores0: grid('ropeScores0', 'RoPE, positions 0…', 'q·k after the rotation'),
      ropeScores: grid('ropeScores', 'RoPE, shifted by s', 'q·k after the rotation'),
      ropeChange: grid('ropeChange', 'change', 'shifted − unshifted'),
      sinScores0: grid('sinScores0', 'P added, positions 0…', 'q·k of X + P'),
      sinScores: grid('sinScores', 'P added, shifted by s', 'q·k of X + P'),
      sinChange: grid('sinChange', 'change', 'shifted − unshifted'),
    };
    const g = this.grids;
    this.body = el(
      'div',
      {},
      this.pairing,
      this.dimsRow,
      this.dials.element,
      this.text,
      el('div', { class: 'matrices' }, g.ropeScores0.element, g.ropeScores.element, g.ropeChange.element),
      el('div', { class: 'matrices' }, g.sinScores0.element, g.sinScores.element, g.sinChange.element),
    );
    this.error = el('p', { class: 'inline-error', attrs: { role: 'alert' } });
    byId('mount-rope').append(controls, this.error, this.body);
  }

  /** Sets the controls to the state (after a link or an example) without moving what the reader holds. */
  #sync(state) {
    if (this.theta.value !== String(state.ropeTheta)) this.theta.value = String(state.ropeTheta);
    for (const input of this.styles) input.checked = input.value === state.ropeStyle;
    // A link may hold a shift beyond the slider's end: the slider then reaches it.
    this.shift.max = String(Math.max(SLIDER_SHIFT, state.ropeShift));
    if (this.shift.value !== String(state.ropeShift)) this.shift.value = String(state.ropeShift);
    this.shiftValue.textContent = String(state.ropeShift);
  }

  /** Draws the step computed by ropeStep. */
  draw(state, step) {
    this.#sync(state);
    this.error.textContent = step.error ?? '';
    show(this.error, Boolean(step.error));
    show(this.body, !step.error);
    if (step.error) return;
    this.pairing.textContent = pairingText(step);
    this.#drawDims(state, step);
    this.dials.update(state, step);
    this.text.textContent = ropeText(state, step);
    const { n, precision } = state;
    const note = headNote(state);
    const labels = step.labels;
    const at = (from) => labels.map((label, t) => `${label} · ${from + t}`);
    const view = (data, rowLabels, colLabels, colorScale) => ({
      data,
      rows: n,
      cols: n,
      rowLabels,
      colLabels,
      precision,
      colorScale,
    });
    const g = this.grids;
    g.ropeScores.setTitle(`RoPE, shifted by s = ${step.shift}${note}`);
    g.sinScores.setTitle(`P added, shifted by s = ${step.shift}${note}`);
    g.ropeScores0.setTitle(`RoPE, positions 0…${n - 1}${note}`);
    g.sinScores0.setTitle(`P added, positions 0…${n - 1}${note}`);
    // The two changes on one colour scale, so that float32 rounding stays white next to a real change.
    const changeScale = Math.max(step.rope.largest, step.sinusoidal.largest) || 1;
    for (const [key, test] of [
      ['rope', step.rope],
      ['sin', step.sinusoidal],
    ]) {
      g[`${key}Scores0`].update(view(test.scores[0], at(0), at(0)));
      g[`${key}Scores`].update(view(test.scores[1], at(step.shift), at(step.shift)));
      g[`${key}Change`].update(view(test.change, labels, labels, changeScale));
    }
  }

  /** The dimensions of q and k in a row, each coloured by its pair: which ones turn together. */
  #drawDims(state, step) {
    const pairOf = new Map();
    step.pairs.forEach(([a, b], i) => {
      pairOf.set(a, i);
      pairOf.set(b, i);
    });
    const boxes = Array.from({ length: state.dK }, (_, d) => {
      const i = pairOf.get(d);
      const box = el(
        'span',
        { class: `rope-dim${i === undefined ? ' rope-unpaired' : ''}` },
        el('span', { text: String(d) }),
        el('small', { text: i === undefined ? '–' : `p${i}` }),
      );
      if (i !== undefined) box.style.setProperty('--pair', GROUP_COLORS[i % GROUP_COLORS.length]);
      return box;
    });
    this.dimsRow.replaceChildren(el('span', { class: 'rope-dims-label', text: 'd:' }), ...boxes);
  }
}
