// A page for the head view and the block view on a tiny random checkpoint of each family (tests/js/model/fixtures.js)
// run by attention-wasm/model in the browser: ?family=gpt2|bert|llama&layer=L. The numbers the views draw are left on
// window.harness for views.mjs to compare with.
import { loadModel } from '../../../../src/js/model/index.js';
import { BlockView } from '../../../../web/src/real-model/tools/layer/blockView.js';
import { HeadView } from '../../../../web/src/real-model/tools/layer/headView.js';
import { bertFixture, gpt2Fixture, llamaFixture } from '../../../js/model/fixtures.js';

const FIXTURES = {
  gpt2: () => gpt2Fixture({ d: 24, heads: 6, layers: 4, vocab: 40, seed: 21 }),
  bert: () => bertFixture({ seed: 22 }),
  llama: () => llamaFixture({ seed: 23 }),
};
const WORDS = ['The', 'cat', 'sat', 'on', 'the', 'mat', 'because', 'it', 'was', 'warm'];

const params = new URLSearchParams(location.search);
const family = params.get('family') ?? 'gpt2';
const layer = Number(params.get('layer') ?? 1);
const model = await loadModel(FIXTURES[family]().files);
const ids = WORDS.map((_, i) => (i * 7 + 3) % model.spec.vocabSize);
const result = await model.run({ ids }, { capture: [{ layer, head: 0 }] });

document.getElementById('harness-model').textContent =
  `${family}: ${model.spec.numLayers} layers, ${model.spec.numHeads} heads, d_model ${model.spec.dModel}`;
const head = new HeadView();
document.getElementById('head-view').append(head.element);
head.update({ weights: result.attentions[layer], tokens: WORDS });
const block = new BlockView();
document.getElementById('block-view').append(block.element);
block.update({
  family: model.family,
  spec: model.spec,
  layer,
  capture: result.captures[0],
  hiddenStates: result.hiddenStates,
  tokens: WORDS,
});
window.harness = {
  weights: Array.from(result.attentions[layer].data),
  shape: result.attentions[layer].shape,
  capture: Object.fromEntries(
    ['input', 'x', 'output', 'residual', 'mlpInput', 'mlpHidden', 'mlpOutput', 'hidden'].map((key) => [
      key,
      { data: Array.from(result.captures[0][key].data), shape: result.captures[0][key].shape },
    ]),
  ),
  layers: model.spec.numLayers,
};
document.body.dataset.ready = 'true';
