// The settings while a real model's head is in the steps (main.js's app.modelHead): what still acts on the model
// (the sentence runs it again, "Head shown" opens another of its heads: controls.js sends them to the model) and what
// it does not take (its sizes, numbers, mask, scaling, temperature, W_k and positions are its own): those are
// disabled, with a note at the top of the inputs, and beside the positions' checkbox in step 1, that says why.
import { byId, el, show } from '../shared/dom.js';

/** The settings a real model's head does not take, beside the size fields and the distribution's radios. */
const MODEL_OWN = ['seed', 'new-seed', 'reset-numbers', 'paste-apply', 'causal', 'scaling', 'temperature', 'share-qk'];
const NOTE = 'model-head-note';

let note = null; // the note at the top of the inputs
let positionsReason = null; // beside "Add sinusoidal positional encodings P"

/** Places the note and the positions' reason (hidden until a model's head is shown). */
export function buildModelHold() {
  note = el('p', { id: NOTE, class: 'hint lesson-note', hidden: true, attrs: { role: 'status' } });
  byId('inputs-heading').after(note);
  positionsReason = el('p', { id: 'positions-reason', class: 'hint', hidden: true });
  byId('positions').closest('label').after(positionsReason);
}

/**
 * Disables the settings a real model's head does not take while `modelHead` ({ name }) is shown, each described by
 * the note; enables them again with null.
 * @param {{ name: string } | null} modelHead
 * @param {HTMLInputElement[]} sizeFields  the size inputs (controls.js makes them)
 */
export function holdForModel(modelHead, sizeFields) {
  if (!note) return;
  const held = Boolean(modelHead);
  const nodes = [
    ...sizeFields,
    ...MODEL_OWN.map(byId),
    ...document.querySelectorAll('input[name="dist"]'),
    byId('positions'),
  ];
  for (const node of nodes) {
    node.disabled = held;
    const ids = (node.getAttribute('aria-describedby') ?? '').split(' ').filter((id) => id && id !== NOTE);
    if (held) ids.push(NOTE);
    if (ids.length) node.setAttribute('aria-describedby', ids.join(' '));
    else node.removeAttribute('aria-describedby');
  }
  show(note, held);
  show(positionsReason, held);
  if (!held) return;
  note.textContent = `The steps show ${modelHead.name} as the model computes it. The sentence runs the model again, and “Head shown” opens another of its heads; its sizes, numbers, mask, scaling, temperature, W_k and positions are the model’s own, so those settings are off. Choose an example to use them again.`;
  positionsReason.textContent = `Off while the steps show ${modelHead.name}: its X already holds the model’s own positions (learned and added to the embeddings, or turned into q and k by RoPE inside attention).`;
}
