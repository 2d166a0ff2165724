// What an element on a real model keeps between its computations (modelFigure.js): one declared object,
// element.modelFigure (base.js declares the field), made at its first computation. No DOM of its own.

/**
 * What an element keeps between its computations on a real model (element.modelFigure, made at its first one): every
 * field this file writes on the element is here.
 */
export class ModelFigureState {
  /** The loading bar (a <progress>), made once. */
  progress = null;
  /** The model's count of bytes read at a run's first event: its bar counts from there (it goes on run to run). */
  runStart = 0;
  /** The model's layers, for the progress text. */
  numLayers = 0;
  /** The last forward pass, { key, out }, reused while its inputs stay the same (a head picked). */
  run = null;
  /** The AbortController of the forward pass under way: a newer one aborts it. */
  abort = null;
  /** What the figure shows, { settings, spec, labels, causal }: figure.js exports it. */
  shown = null;
  /** Where the focus goes once the figure is drawn again (moveFocus), or null. */
  focusNext = null;
  /** The one head's heatmap (drawHead), kept from draw to draw, and its cells' description. */
  map = null;
  describe = null;
  /** With `view`: the instrument shown (instruments/instrumentFigure.js), { view: its view object, name }. */
  instrument = null;
}

/** The element's ModelFigureState. */
export const own = (element) => (element.modelFigure ??= new ModelFigureState());
