// Numbers edited in a real model's head in the steps: each typed number becomes an edit of the model's run
// (model/walkEdits.js), the model runs again with every edit so far (and the ablations), and the walk, the model
// view, the one-layer views and the next token follow; "Reset edits" drops them all.
import { afterNextPaint } from './latency.js';
import { typedCell } from './model/edits.js';
import { walkEdit, withEdit } from './model/walkEdits.js';
import { el } from './view/dom.js';

export class RealModelEdits {
  /** @param {{ app: object, edits: object[], selected: object | null, run: Function, openHead: Function }} panel */
  constructor(panel) {
    this.panel = panel;
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
      this.apply(withEdit(this.panel.edits, edit));
      return null;
    };
  }

  /** Sets the edits the next run uses (the reset button shown while there are any). */
  use(edits) {
    this.panel.edits = edits;
    this.reset.hidden = edits.length === 0;
  }

  /** Runs the model with `edits`, then shows the head in the steps again with them. */
  async apply(edits) {
    const panel = this.panel;
    this.use(edits);
    const head = panel.selected;
    const drawn = await panel.run(); // from the first layer the edits change
    if (!head || !drawn) return;
    await new Promise((resolve) => afterNextPaint(resolve)); // the prediction painted first
    await panel.openHead(head.layer, head.head);
  }

  /** The walk's sentence on the edits, and the reset button shown while there are any. */
  text() {
    const count = this.panel.edits.length;
    this.reset.hidden = count === 0;
    const now = count
      ? ` ${count} number${count > 1 ? 's' : ''} edited so far: every step, the later layers and the next token show the model run with ${count > 1 ? 'them' : 'it'}.`
      : '';
    return ` Edit a number of X or of a W: the model runs again with it, and the later layers, the model view and the next token follow.${now}`;
  }
}
