// A real model's head opened in the page's steps: its layer run alone, from that layer's input in the last run
// (model.run's `from` and `layers`: the session's layerRun), capturing every head of it, and its weights from the
// model itself (the session's layerWeights: model.attentionWeights, WebAssembly memory when the model keeps them,
// never a second read of the files).
import { headName } from '../../../shared/counting.js';
import * as rm from '../../realModel.js';
import { captureResult, walkSizes, walkState } from './modelWalk.js';
import { editedWeights } from './walkEdits.js';

/**
 * Opens head `head` of layer `layer` in the page's steps, with the model's own numbers of that layer. From a link
 * (`fromLink`) only while the steps still show the link's walk (the same sentence): a link made after another
 * example was chosen keeps that example.
 * @param {import('../../panel.js').RealModelPanel} panel  its session, views, app and messages
 */
export async function openModelHead(panel, layer, head, fromLink = false) {
  const session = panel.session;
  if (!session.model || !session.result) return;
  const spec = session.model.spec;
  const { errors } = walkSizes(spec, session.result.ids.length);
  if (errors.length)
    return panel.ui.walk(
      `This layer is larger than the page's steps take (${errors.join('; ')}); the model view and the prediction still show it.`,
    );
  if (session.rest && session.rest.layer !== layer) await session.rest.done; // an edit's later layers, still running
  const generation = session.generation;
  try {
    const [r, read] = await Promise.all([session.layerRun(layer), session.layerWeights(layer)]);
    if (!session.current(generation)) return;
    const weights = editedWeights(read, session.edits, layer); // the weights the model ran with
    const rawTokens = r.rawTokens ?? r.ids.map((id) => session.vocab[id] ?? String(id));
    const tokens = (r.tokens ?? rawTokens).map((t, i) => rm.readableToken(rawTokens[i], t).replace(/^␣/, ''));
    const name = session.source === 'builtin' ? 'the shipped induction model' : 'this model';
    const state = walkState(panel.app.state, { x: r.captures[0].x, weights, tokens, head, spec, name });
    const selected = session.openHead(layer, head);
    panel.views.select(selected); // the one-layer views follow the head opened
    panel.generator.setHead(layer, head);
    panel.view.select(selected);
    if (fromLink && panel.app.state.sentence !== state.sentence) {
      panel.ui.walk(
        `${headName(layer, head)} was chosen when this link was made; the steps show the link's own example. Its button opens it there.`,
      );
      return panel.writeLink();
    }
    session.showInSteps(state);
    // What the page's controls do to it: a cell typed is an edit, a sentence typed runs the model, a head chosen opens
    // it; and its link values, which Embed… writes.
    panel.app.showModelHead(state, captureResult(r.captures, spec), {
      name: `${headName(layer, head)} of ${session.model.family}`,
      onEdit: panel.editing.handler(layer),
      onSentence: (text) => panel.typed(text),
      onHead: (other) => panel.openHead(layer, other),
      link: panel.linkValues(),
    });
    panel.rope.draw(r.captures[head], { layer, head, labels: state.sentence.split(' ') });
    const rope = r.captures[head].qRotated
      ? ' Its q and k are rotated by position (RoPE) inside the model: steps 3 to 6 show the scores of the rotated q and k, step 2 the q and k before the rotation.'
      : '';
    const off = session.ablate.some(([l, h]) => l === layer && h === head)
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
