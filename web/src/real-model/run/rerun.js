// What a real model runs again after a change: only the layers from the first one the change touches. A run keeps
// every layer's input (hiddenStates), so the model starts there (model.run's `from`) and the earlier layers' results
// are the last run's. Pure: the session (session.js) calls the model.

/** The layers of `[layer, head]` pairs and edits ({ layer, … }), each list's entries keyed as text. */
const byLayer = (ablate, edits) => {
  const keys = new Map();
  const add = (layer, key) => keys.set(layer, [...(keys.get(layer) ?? []), key]);
  for (const [layer, head] of ablate) add(layer, `a${head}`);
  for (const edit of edits) add(edit.layer, JSON.stringify(edit));
  return keys;
};

/**
 * The first layer whose ablations or edits differ between the last run's settings and the next's ({ ablate, edits }
 * each), or null when none differs.
 */
export function firstChangedLayer(last, next) {
  const a = byLayer(last.ablate, last.edits);
  const b = byLayer(next.ablate, next.edits);
  const differ = [...new Set([...a.keys(), ...b.keys()])].filter(
    (layer) => (a.get(layer) ?? []).sort().join('|') !== (b.get(layer) ?? []).sort().join('|'),
  );
  return differ.length ? Math.min(...differ) : null;
}

/**
 * model.run's options for the layers from `layer`, started at the last run's input of that layer: the ablations
 * and edits of those layers only (the earlier ones are in that input already); with `alone`, of that layer only, and
 * the run stops after it (`layers`).
 * @param {{ hiddenStates: object[] }} last  a whole run's result (every hidden state)
 */
export function fromOptions(last, layer, { ablate, edits }, alone = false) {
  const runs = (l) => l === layer || (l > layer && !alone);
  return {
    from: { layer, hiddenState: last.hiddenStates[layer] },
    ablate: ablate.filter(([l]) => runs(l)),
    edits: edits.filter((edit) => runs(edit.layer)),
    ...(alone ? { layers: layer + 1 } : {}),
  };
}

/**
 * A run from `layer` (0: a whole run, as it is) completed with the last run's attentions and hidden states of the
 * layers before it (each list the run returned: without `attentions`, it has none).
 */
export function mergeRun(last, part, layer) {
  if (!layer) return part;
  const keep = (key) => part[key] && { [key]: [...last[key].slice(0, layer), ...part[key].slice(layer)] };
  return { ...part, ...keep('attentions'), ...keep('hiddenStates') };
}

/** Every head of layer `layer`, as model.run's `capture`. */
export const layerCapture = (spec, layer) => Array.from({ length: spec.numHeads }, (_, head) => ({ layer, head }));
