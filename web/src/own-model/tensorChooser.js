// "Use your own model" for a file whose layout is not known: one labelled select per role (X, W_q, W_k, W_v, W_o,
// the model's attention probabilities), each listing the file's tensors with their shapes, and whether the weights
// are stored [out, in]. A weight left unchosen comes from the page's seed; X must be chosen.
import { SLOT_TITLES } from './modelFile.js';
import { el } from '../shared/dom.js';

/** The roles the chooser offers, in order. */
export const CHOOSER_ROLES = ['x', 'wq', 'wk', 'wv', 'wo', 'attentions'];
const WEIGHTS = new Set(['wq', 'wk', 'wv', 'wo']);
const NONE = {
  x: 'choose a tensor',
  wq: 'none: the seed’s W_q',
  wk: 'none: the seed’s W_k',
  wv: 'none: the seed’s W_v',
  wo: 'none: the seed’s W_o',
  attentions: 'none: nothing to compare',
};

let chooserCount = 0;

export class TensorChooser {
  /** @param {() => void} onChange  called when a role or the transpose box changes */
  constructor(onChange) {
    const id = `mp-choose-${++chooserCount}`;
    this.selects = {};
    const fields = CHOOSER_ROLES.map((role) => {
      const select = el('select', { id: `${id}-${role}`, on: { change: onChange } });
      this.selects[role] = select;
      const title = role === 'x' ? SLOT_TITLES.x : `${SLOT_TITLES[role]} (optional)`;
      return el('label', { class: 'field', attrs: { for: select.id } }, el('span', { text: title }), select);
    });
    this.transpose = el('input', { type: 'checkbox', id: `${id}-transpose`, on: { change: onChange } });
    this.element = el(
      'fieldset',
      { class: 'mp-chooser' },
      el('legend', { text: 'Choose each tensor' }),
      el('p', {
        class: 'hint',
        text: 'The names of this file match no known layout. Say which tensor is which: weights are read [d_model, heads·d] (attention-wasm’s [in, out]), X [n, d_model].',
      }),
      fields,
      el(
        'label',
        { class: 'check', attrs: { for: this.transpose.id } },
        this.transpose,
        ' The weights are stored [out, in] (PyTorch Linear): transpose them',
      ),
    );
    this.element.hidden = true;
  }

  /**
   * Lists the file's tensors in every select, keeping each choice that still names a tensor, else `guess`.
   * @param {{ name: string, shape: number[] }[]} tensors
   * @param {Record<string, { name: string }>} guess  the slots guessed from the names (X, the attentions)
   */
  setTensors(tensors, guess) {
    for (const role of CHOOSER_ROLES) {
      const select = this.selects[role];
      const kept = tensors.some((t) => t.name === select.value) ? select.value : (guess[role]?.name ?? '');
      select.replaceChildren(
        el('option', { value: '', text: NONE[role] }),
        ...tensors.map((t) => el('option', { value: t.name, text: `${t.name} [${t.shape.join(', ')}]` })),
      );
      select.value = kept;
    }
  }

  /** The slots chosen: `{ x: { name }, wq: { name, transpose? }, … }`, without the roles left at none. */
  slots() {
    const slots = {};
    for (const role of CHOOSER_ROLES) {
      const name = this.selects[role].value;
      if (!name) continue;
      slots[role] = WEIGHTS.has(role) && this.transpose.checked ? { name, transpose: true } : { name };
    }
    return slots;
  }
}
