// The real model's one-layer views, below its model view: the head view of a layer (every head's lines between the
// tokens) and the block around attention (its steps with their sizes and numbers, and the residual stream's norm per
// layer). The layer is the one whose head was opened last, or the one chosen here. The block's numbers come from a
// capture of that layer (run alone, from its input), run only while the block is open.
import '../../../css/views.css'; // with this code only
import { fromOptions } from '../../run/rerun.js';
import { BlockView } from './blockView.js';
import { el } from '../../../shared/dom.js';
import { HeadView } from './headView.js';
import { afterNextPaint } from '../../../app/latency.js';
import {
  LAZY_CELLS,
  drawn,
  scheduleDraw,
  scheduleDrawAfterPaint,
  watchVisibility,
} from '../../../walk/renderScheduler.js';

export class RealModelViews {
  #run = null; // { model, result, labels, input, ablate }: the panel's last run
  #layer = 0;
  #generation = 0;
  #headNext = null; // the head view's next { weights, tokens }, drawn when near the screen or in idle time

  /** @param {HTMLElement} parent  where the views go (appended) */
  constructor(parent) {
    this.head = new HeadView({ label: 'Head view of the chosen layer' });
    this.block = new BlockView();
    this.layerField = el('select', {
      id: 'model-views-layer',
      on: { change: () => this.setLayer(Number(this.layerField.value)) },
    });
    this.note = el('p', { class: 'hint', attrs: { role: 'status' } });
    this.details = el(
      'details',
      { class: 'model-block' },
      el('summary', { text: 'The block around attention: this layer’s steps, their sizes and their numbers' }),
      this.note,
      this.block.element,
    );
    this.details.addEventListener('toggle', () => this.#drawBlock());
    this.title = el('h3', { id: 'model-layer-title', text: 'One layer: the head view and the block around attention' });
    this.element = el(
      'section',
      { class: 'model-views', hidden: true, attrs: { 'aria-labelledby': 'model-layer-title' } },
      this.title,
      el('label', { class: 'field', for: 'model-views-layer' }, el('span', { text: 'Layer' }), this.layerField),
      el('p', {
        class: 'hint',
        text: 'Lines go from each token (left) to the tokens it attends to (right), as opaque as the weight, one colour per head. Hover, focus or tap a token to keep its lines; the buttons pick the heads.',
      }),
      this.head.element,
      this.details,
    );
    parent.append(this.element);
    // The head view draws H·n² SVG lines (GPT-2 at 32 tokens: 6 000): away from the screen it waits, as a large grid.
    this.lazyHead = { element: this.head.element, visible: null, flush: () => this.#drawHead() };
    watchVisibility(this.lazyHead);
  }

  /**
   * Shows the panel's latest run: its attentions and hidden states, for the chosen layer.
   * @param {{ model: object, result: object, labels: string[], input: unknown, ablate: [number, number][],
   *   edits: object[] }} run
   */
  update(run) {
    this.#run = run;
    const layers = run.model.spec.numLayers;
    if (this.layerField.options.length !== layers) {
      const options = Array.from({ length: layers }, (_, l) => el('option', { value: String(l), text: String(l) }));
      this.layerField.replaceChildren(...options);
    }
    this.#layer = Math.min(this.#layer, layers - 1);
    this.element.hidden = false;
    this.#draw();
  }

  /** Hidden, with nothing kept of the last run (a model loaded, not run yet). */
  clear() {
    this.#run = null;
    this.#generation++; // a block being drawn is not drawn
    this.element.hidden = true;
  }

  /**
   * Follows a head opened in the steps: shows its layer, drawn after the head's own frame is painted (the views
   * are below the model view, where the head was clicked). @returns {{ layer: number, head: number }} the head
   */
  select(head) {
    // The same layer as drawn: nothing to draw again (an edit's steps, another head of the layer).
    if (head.layer !== this.#layer || this.layerField.value !== String(head.layer)) {
      this.#layer = head.layer;
      this.#draw(true);
    }
    return head;
  }

  /** Shows layer `layer` (from 0). */
  setLayer(layer) {
    this.#layer = layer;
    this.#draw();
  }

  #draw(afterPaint = false) {
    if (!this.#run) return;
    const { result, labels } = this.#run;
    this.layerField.value = String(this.#layer);
    this.#headNext = { weights: result.attentions[this.#layer], tokens: labels };
    // never at once away from the screen
    (afterPaint ? scheduleDrawAfterPaint : scheduleDraw)(this.lazyHead, LAZY_CELLS + 1);
    document.body.dataset.modelViewsLayer = String(this.#layer);
    if (afterPaint) afterNextPaint(() => this.#drawBlock());
    else this.#drawBlock();
  }

  #drawHead() {
    drawn(this.lazyHead);
    const next = this.#headNext;
    this.#headNext = null;
    if (next) this.head.update(next);
  }

  async #drawBlock() {
    if (!this.details.open || !this.#run) return;
    const generation = ++this.#generation;
    const { model, result, labels, input, ablate, edits } = this.#run;
    const layer = this.#layer;
    try {
      const capture = [{ layer, head: 0 }];
      // This layer alone, from its input in the panel's run (run/rerun.js).
      const options = { ...fromOptions(result, layer, { ablate, edits }, true), capture, logits: false };
      const r = await model.run(input, { ...options, attentions: false, hiddenStates: false });
      if (generation !== this.#generation) return;
      this.block.update({
        spec: model.spec,
        layer,
        capture: r.captures[0],
        hiddenStates: result.hiddenStates,
        normed: Boolean(model.spec.choices.finalNorm && result.logits), // its last hidden state after the final norm
        tokens: labels,
      });
      this.note.textContent = '';
      document.body.dataset.modelBlockLayer = String(layer);
    } catch (error) {
      if (generation === this.#generation) this.note.textContent = `This layer could not be run: ${error.message}`;
    }
  }
}
