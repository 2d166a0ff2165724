// A real model's head opened in the page's steps: its layer run alone, from that layer's input in the panel's last
// run (model.run's `from` and `layers`), capturing every head of it, and its weights from the model itself
// (model.attentionWeights: WebAssembly memory when the model keeps them, never a second read of the files).
import { headName } from '../../../shared/counting.js';
import * as rm from '../../realModel.js';
import { captureResult, walkSizes, walkState } from './modelWalk.js';
import { fromOptions } from '../../run/rerun.js';
import { editedWeights } from './walkEdits.js';

const weightsOf = new WeakMap(); // model → Map(layer → Promise of its attention weights, unedited), newest last
// The layers whose weights are kept: copying them out again is a few ms, and a large model's layer is tens of MB.
const KEPT_LAYERS = 2;

/** Layer `layer`'s attention weights of `model` (asked of the model again once KEPT_LAYERS others were opened). */
function layerWeights(model, layer) {
  if (!weightsOf.has(model)) weightsOf.set(model, new Map());
  const known = weightsOf.get(model);
  let weights = known.get(layer);
  if (!weights) {
    weights = model.attentionWeights(layer);
    weights.catch(() => known.get(layer) === weights && known.delete(layer)); // asked again next time
  }
  known.delete(layer);
  known.set(layer, weights);
  for (const old of known.keys()) if (known.size > KEPT_LAYERS) known.delete(old);
  return weights;
}

/**
 * Runs layer `layer` alone on the panel's last run with its ablations and edits, capturing `capture`: model.run's
 * result (with the layer's attentions when asked: a run that the later layers' run continues keeps them).
 */
export function runLayer(panel, layer, capture, { attentions = false } = {}) {
  const { input } = panel.input();
  const options = fromOptions(panel.result, layer, { ablate: panel.ablate, edits: panel.edits }, true);
  return panel.model.run(input, { ...options, capture, logits: false, attentions });
}

let last = null; // { result, ablate, edits, layer, run }: the last layer run, which another head of it reuses

/** runLayer's result, shared by the heads of a layer while the panel's run, ablations and edits stay the same. */
function layerRun(panel, layer, capture) {
  const { result, ablate, edits } = panel;
  const same = last?.result === result && last.layer === layer && last.ablate === ablate && last.edits === edits;
  if (!same) {
    const run = runLayer(panel, layer, capture);
    run.catch(() => last?.run === run && (last = null)); // run again next time
    last = { result, ablate, edits, layer, run };
  }
  return last.run;
}

/** The capture of every head of layer `layer` made by the panel's own run (`r`, now panel.result): the walk's. */
export function rememberLayer(panel, layer, r) {
  last = { result: panel.result, ablate: panel.ablate, edits: panel.edits, layer, run: Promise.resolve(r) };
}

/** Every head of layer `layer`, as model.run's `capture`. */
export const layerCapture = (spec, layer) => Array.from({ length: spec.numHeads }, (_, head) => ({ layer, head }));

/**
 * Opens head `head` of layer `layer` in the page's steps, with the model's own numbers of that layer. From a link
 * (`fromLink`) only while the steps still show the link's walk (the same sentence): a link made after another
 * example was chosen keeps that example.
 */
export async function openModelHead(panel, layer, head, fromLink = false) {
  if (!panel.model || !panel.result) return;
  const model = panel.model;
  const spec = model.spec;
  const { errors } = walkSizes(spec, panel.result.ids.length);
  if (errors.length)
    return panel.ui.walk(
      `This layer is larger than the page's steps take (${errors.join('; ')}); the model view and the prediction still show it.`,
    );
  if (panel.rest && panel.rest.layer !== layer) await panel.rest.done; // an edit's later layers, still running
  const generation = panel.generation;
  try {
    const [r, read] = await Promise.all([
      layerRun(panel, layer, layerCapture(spec, layer)),
      layerWeights(model, layer),
    ]);
    if (generation !== panel.generation) return;
    const weights = editedWeights(read, panel.edits, layer); // the weights the model ran with
    const rawTokens = r.rawTokens ?? r.ids.map((id) => panel.vocab[id] ?? String(id));
    const tokens = (r.tokens ?? rawTokens).map((t, i) => rm.readableToken(rawTokens[i], t).replace(/^␣/, ''));
    const name = panel.source === 'builtin' ? 'the shipped induction model' : 'this model';
    const state = walkState(panel.app.state, { x: r.captures[0].x, weights, tokens, head, spec, name });
    panel.selected = panel.views.select({ layer, head }); // the one-layer views follow the head opened
    panel.generator.setHead(layer, head);
    panel.view.select(panel.selected);
    if (fromLink && panel.app.state.sentence !== state.sentence) {
      panel.ui.walk(
        `${headName(layer, head)} was chosen when this link was made; the steps show the link's own example. Its button opens it there.`,
      );
      return panel.writeLink();
    }
    panel.shown = state;
    panel.app.showModelHead(state, captureResult(r.captures, spec), panel.editing.handler(layer), panel.linkValues());
    panel.rope.draw(r.captures[head], { layer, head, labels: state.sentence.split(' ') });
    const rope = r.captures[head].qRotated
      ? ' Its q and k are rotated by position (RoPE) inside the model: steps 3 to 6 show the scores of the rotated q and k, step 2 the q and k before the rotation.'
      : '';
    const off = panel.ablate.some(([l, h]) => l === layer && h === head)
      ? ' It is switched off: its weights are computed as the steps show them, but its output is zeroed before W_o, so nothing it reads reaches the later layers.'
      : '';
    panel.ui.walk(
      `${headName(layer, head)} (layer ${layer} head ${head}) is in the steps below: X is the layer's ${state.modelLayer.normed ? 'normed input' : 'input'}, and every step shows the model's own numbers.${off}${rope}${panel.editing.text()}`,
    );
    panel.writeLink();
  } catch (error) {
    panel.ui.walk(`This head could not be opened in the steps: ${error.message}`);
  }
}
