// Numbers edited in a real model's head in the steps: each typed number becomes an edit of the model's run
// (walkEdits.js), the model runs again with every edit so far (and the ablations), and the walk, the model
// view, the one-layer views and the next token follow; "Reset edits" drops them all. An edit of the walk's own layer
// redraws the steps first, from that layer run alone, then the later layers run for the rest (#stepsFirst).
import { afterNextPaint } from '../../../app/latency.js';
import { typedCell } from '../../../shared/cellEdits.js';
import { firstChangedLayer, layerCapture } from '../../run/rerun.js';
import { walkEdit, withEdit } from './walkEdits.js';
import { el } from '../../../shared/dom.js';

export class RealModelEdits {
  /**
   * @param {{ session: import('../../session.js').RealModelSession, app: object, run: Function, openHead: Function,
   *   busyViews: () => HTMLElement[] }} panel  the state, the page, and the panel's run, head and views
   */
  constructor(panel) {
    this.panel = panel;
    this.session = panel.session;
    this.reset = el('button', {
      id: 'model-reset-edits',
      type: 'button',
      class: 'secondary small',
      hidden: true,
      text: 'Reset edits',
      on: { click: () => this.apply([]) },
    });
  }

  /**
   * The walk's edit handler for head `head` of layer `layer` (main.js calls it instead of editing the page's own
   * layer): the typed text is checked as any cell's, then the model runs again. @returns an error, or null
   */
  handler(layer) {
    return (name, i, j, text) => {
      const state = this.panel.app.state;
      const typed = typedCell(state, name, i, j, text);
      if (typed.error) return typed.error;
      const edit = walkEdit(state, layer, name, i, j, 0);
      edit.value = Math.fround(typed.state[name][i][edit.col]); // the number typedCell read
      this.apply(withEdit(this.session.edits, edit));
      return null;
    };
  }

  /** The reset button, shown while there are edits. */
  show() {
    this.reset.hidden = this.session.edits.length === 0;
  }

  /** Runs the model with `edits`, then shows the head in the steps again with them. */
  async apply(edits) {
    const panel = this.panel;
    this.session.setEdits(edits);
    this.show();
    const head = this.session.selected;
    if (head && (await this.#stepsFirst(head))) return;
    const drawn = await panel.run(); // from the first layer the edits change
    if (!head || !drawn) return;
    await new Promise((resolve) => afterNextPaint(resolve)); // the prediction painted first
    await panel.openHead(head.layer, head.head);
  }

  /**
   * An edit of the walked head's own layer, progressively: that layer runs alone from its input (the last run's,
   * which the edit does not change), capturing its heads, and the steps are drawn from it; once they are painted,
   * panel.run runs the later layers from its output and draws the model view, the prediction and the one-layer views
   * (marked as updating meanwhile). A change made meanwhile (another edit, an ablation, a new sentence) makes the
   * rest stale: it is not run, or not drawn (the panel's generation). Returns false where this does not apply (the
   * edits change an earlier layer, the last layer is walked, the walk shows another sentence): a whole run then.
   */
  async #stepsFirst(head) {
    const panel = this.panel;
    const session = this.session;
    const { model, ran } = session;
    const { key } = session.input();
    const settings = { ablate: session.ablate, edits: session.edits };
    const layer = head.layer;
    const same = ran?.model === model && ran.key === key;
    if (
      !session.walking(panel.app.state.sentence) ||
      !same ||
      layer >= model.spec.numLayers - 1 ||
      firstChangedLayer(ran, settings) !== layer
    ) {
      return false;
    }
    const generation = session.begin(); // a run under way, or an earlier edit's rest, is stale now
    session.signal(); // and aborted
    let done;
    const rest = { layer, done: new Promise((resolve) => (done = resolve)) };
    session.rest = rest; // openModelHead waits for it before it opens a head of another layer
    try {
      // The last run is ran's and the settings are the session's (checked above): its layer alone, from its input.
      const part = await session.runLayer(layer, layerCapture(model.spec, layer), { attentions: true });
      if (!session.current(generation)) return true;
      session.rememberLayer(layer, part); // the walk reads this run's capture of the layer
      this.updating(true);
      await panel.openHead(layer, head.head);
      rest.drawn = true; // the steps show the edit; the later layers do not yet (Cancel says so)
      // The steps painted first, and one frame more: the page's own figure (data-paint-ms, latency.js) is taken in a
      // task after the next frame; a long run before it would count in it.
      await new Promise((resolve) => afterNextPaint(() => afterNextPaint(resolve)));
      if (session.current(generation)) await panel.run({ layer, result: part });
      return true;
    } catch {
      return !session.current(generation); // not run: the whole run says why
    } finally {
      done();
      if (session.rest === rest) session.rest = null;
    }
  }

  /** Marks the model view, the prediction and the one-layer views as about to change (the later layers running). */
  updating(on) {
    for (const view of this.panel.busyViews()) {
      view.classList.toggle('updating', on);
      view.setAttribute('aria-busy', String(on));
    }
  }

  /** The walk's sentence on the edits, and the reset button shown while there are any. */
  text() {
    const count = this.session.edits.length;
    this.reset.hidden = count === 0;
    const now = count
      ? ` ${count} number${count > 1 ? 's' : ''} edited so far: every step, the later layers and the next token show the model run with ${count > 1 ? 'them' : 'it'}.`
      : '';
    return ` Edit a number of X or of a W: the model runs again with it, and the later layers, the model view and the next token follow.${now}`;
  }
}
