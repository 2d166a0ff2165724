// A real model's run of many layers in parts, with a task between them: an input that arrives meanwhile (a key, a
// click) waits for one part, not for the whole run (GPT-2 small's 11 layers after an edit were one task of 110 ms).
// Each part starts at the layer where the last one stopped (model.run's `from`, with that layer's input: the last
// part's last hidden state, before any final norm), with the ablations, edits and captures of its own layers; only
// the last part computes the logits. The parts' results merged are one run's, bit for bit. No DOM: the panel calls it.
import { mergeRun } from './rerun.js';
import { taskBreak } from '../../shared/taskBreak.js';

/**
 * About how long one part takes, in ms (an input waits at most about this long; RAIL's 100 ms): after the first part
 * (one layer, timed), as many layers as fit, at least one. Each break lets the page paint (the progress bar).
 */
export const PART_MS = 100;

const layerOf = {
  capture: (c) => c?.layer,
  ablate: (entry) => (Array.isArray(entry) ? entry[0] : entry?.layer),
  edits: (edit) => edit?.layer,
};

/**
 * model.run(input, options) in parts of layers (options as model.run takes them; `from` and `layers` bound the
 * layers run). Options that name a layer outside those run go to model.run whole, which says what is wrong.
 * @param {{ partMs?: number, between?: () => Promise<void> }} [how]  between: the break between parts
 * @returns {Promise<object>} what model.run returns
 */
export async function runInParts(model, input, options = {}, { partMs = PART_MS, between = taskBreak } = {}) {
  const numLayers = model.spec.numLayers;
  const first = options.from?.layer ?? 0;
  const end = options.layers ?? numLayers;
  const outside = Object.entries(layerOf).some(([key, of]) =>
    (options[key] ?? []).some((item) => !(of(item) >= first && of(item) < end)),
  );
  if (outside || !Number.isInteger(first) || !Number.isInteger(end) || end - first < 2) {
    return model.run(input, options);
  }
  const parts = [];
  let hiddenState = options.from?.hiddenState;
  for (let start = first, size = 1; start < end;) {
    const stop = Math.min(end, start + size);
    const within = (item, of) => of(item) >= start && of(item) < stop;
    const own = Object.fromEntries(
      Object.entries(layerOf).map(([key, of]) => [key, (options[key] ?? []).filter((item) => within(item, of))]),
    );
    const t0 = performance.now();
    const result = await model.run(input, {
      ...options,
      ...own,
      from: start === first ? options.from : { layer: start, hiddenState },
      layers: stop === end ? options.layers : stop,
      logits: stop === end ? options.logits : false,
      hiddenStates: true, // the next part starts from the last
    });
    parts.push({ start, stop, result });
    hiddenState = result.hiddenStates[stop];
    size = Math.max(1, Math.floor(partMs / ((performance.now() - t0) / (stop - start))));
    start = stop;
    if (start < end) await between();
  }
  return merged(parts, options);
}

/** The parts' results as one run's: each layer's entries from the part that ran it (rerun.js's mergeRun). */
function merged(parts, options) {
  const result = parts.slice(1).reduce((run, part) => mergeRun(run, part.result, part.start), parts[0].result);
  if (options.hiddenStates === false) delete result.hiddenStates; // a copy: mergeRun made it (two parts or more)
  const taken = new Map(); // part → how many of its captures are taken
  result.captures = (options.capture ?? []).map(({ layer }) => {
    const part = parts.find((p) => layer >= p.start && layer < p.stop).result;
    const k = taken.get(part) ?? 0;
    taken.set(part, k + 1);
    return part.captures[k];
  });
  return result;
}
