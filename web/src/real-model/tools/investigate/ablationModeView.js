// The ablation's mode beside the model view's "off" buttons: zero (the output set to 0), mean (its mean over the
// positions of this run, or of a reference prompt's) or resample (its output in a reference prompt's run, of the same
// length), and that prompt.
import { el, show } from '../../../shared/dom.js';

export class AblationModeView {
  /** @param {{ onChange: (mode: string, reference: string) => void }} handlers */
  constructor({ onChange }) {
    this.mode = el(
      'select',
      { id: 'model-ablate-mode' },
      el('option', { value: 'zero', text: 'zero: its output set to 0' }),
      el('option', { value: 'mean', text: 'mean: its output averaged over the positions' }),
      el('option', { value: 'resample', text: 'resample: its output on another prompt' }),
    );
    this.reference = el('input', {
      type: 'text',
      id: 'model-ablate-ref',
      autocomplete: 'off',
      spellcheck: false,
      size: 36,
    });
    this.refLabel = el(
      'label',
      { class: 'field inline', for: 'model-ablate-ref' },
      el('span', { text: 'Reference prompt' }),
      this.reference,
    );
    this.hint = el('span', { class: 'hint' });
    const changed = () => {
      this.#shown();
      onChange(this.mode.value, this.reference.value);
    };
    this.mode.addEventListener('change', changed);
    this.reference.addEventListener('change', changed);
    this.element = el(
      'div',
      { class: 'model-ablate-mode' },
      el(
        'label',
        { class: 'field inline', for: 'model-ablate-mode' },
        el('span', { text: 'A head switched off has' }),
        this.mode,
      ),
      this.refLabel,
      this.hint,
    );
    this.#shown();
  }

  #shown() {
    const mode = this.mode.value;
    show(this.refLabel, mode !== 'zero');
    this.hint.textContent =
      mode === 'mean'
        ? 'Empty: the mean over this sentence.'
        : mode === 'resample'
          ? 'The same number of tokens as the sentence.'
          : '';
  }

  /** Shows the session's mode and reference. */
  set(mode, reference) {
    this.mode.value = mode;
    this.reference.value = reference;
    this.#shown();
  }
}
