// The "Real model" button beside the examples, and a link that names a model (?model=…): both load the real-model
// code (panel.js, attention-wasm/model and its WebAssembly) by import() only then, so the page's first
// load does not carry it.
import { byId, setError } from '../shared/dom.js';
import { readQuery } from '../app/link.js';

/** Loads the real-model code and opens its section, with the link's model, sentence, head and ablations. */
async function open(app, fromLink) {
  const section = byId('step-model');
  section.hidden = false;
  // The link's #… holds an example of its own (the page's links do; the documented ?model=… form not): read before
  // the page writes its own hash.
  const example = location.hash.length > 1;
  try {
    const { openRealModel, readModelLink } = await import('./panel.js');
    const link = fromLink
      ? { ...readModelLink(location.search), example }
      : { model: 'builtin', text: null, ablate: [] };
    // Opened by its button: the focus goes to the section (not left in the settings, dozens of Tabs before it), then
    // to the model's first control once it is loaded, unless the reader moved it meanwhile.
    const heading = section.querySelector('h2');
    if (!fromLink) {
      section.scrollIntoView({ block: 'start' });
      heading.tabIndex = -1;
      heading.focus({ preventScroll: true });
    }
    const panel = await openRealModel(app, link);
    if (!fromLink && document.activeElement === heading) panel.focusStart();
  } catch (error) {
    setError(
      byId('model-load-error'),
      `The real-model code could not be loaded: ${error?.message ?? error}. Reload the page to try again.`,
    );
  }
}

/** Wires the button, and opens the section at once when the link names a model. */
export function setupRealModel(app) {
  byId('real-model-button').addEventListener('click', () => open(app, false));
  if (readQuery(location.search).given.has('model')) open(app, true);
}
