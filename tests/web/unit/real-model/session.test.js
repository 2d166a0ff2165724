// The real model's page state (web/src/real-model/session.js): its transitions (a model loaded, a sentence typed, a
// token masked, heads switched off, a head opened, a cancel) and its runs on tiny checkpoints run by
// attention-wasm/model: from the first layer changed, the run with every head on made once per sentence, a run
// overtaken by a newer one never recorded, and the caches of one layer's run and weights.
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../../src/js/model/index.js';
import { RealModelSession } from '../../../../web/src/real-model/session.js';
import { bertFixture, gpt2Fixture, llamaFixture } from '../../../js/model/fixtures.js';
import { byteLevelTokenizer, wordPieceTokenizer } from '../../../js/model/tokenizers.js';

const bits = (tensor) => Array.from(tensor.data);

/** A tiny GPT-2 with a byte-level tokenizer (words in), 3 layers of 2 heads. */
const gpt2 = () =>
  loadModel({ ...gpt2Fixture({ vocab: 262, layers: 3, seed: 5 }).files, 'tokenizer.json': byteLevelTokenizer([]) });

/** The model with its runs and weight reads counted: each run's options, in order. */
function counted(model) {
  const runs = [];
  const weights = [];
  const run = model.run.bind(model);
  const attentionWeights = model.attentionWeights.bind(model);
  model.run = (input, options) => {
    runs.push(options);
    return run(input, options);
  };
  model.attentionWeights = (layer) => {
    weights.push(layer);
    return attentionWeights(layer);
  };
  return { model, runs, weights };
}

describe('RealModelSession: transitions', () => {
  it('a model loaded takes its link (heads and edits of its own layers), replaces the one before and forgets its state', async () => {
    const session = new RealModelSession();
    session.opening({
      model: 'files',
      text: 'a cat',
      ablate: [
        [1, 1],
        [3, 0], // no layer 3
        [0, 2], // no head 2
      ],
      edits: [
        { layer: 2, step: 'wq', row: 0, col: 0, value: 1 },
        { layer: 7, step: 'x', row: 0, col: 0, value: 1 },
      ],
    });
    expect(session.text).toBe('a cat');
    const first = await gpt2();
    const { link, counts } = session.loaded(first, { source: 'files', files: new Map() });
    expect(link.text).toBe('a cat');
    expect(counts.message).toMatch(/ablate=3.0, ablate=0.2, which this model does not have/u); // said, left out
    expect(session.ablate).toEqual([[1, 1]]);
    expect(session.edits.map((e) => e.layer)).toEqual([2]);
    expect(session.pending).toBeNull();
    await session.run();
    session.openHead(1, 0);
    session.showInSteps({ sentence: 'a cat' });
    expect(session.walking('a cat')).toBe(true);
    expect(session.walking('another')).toBe(false);

    // The same source read the same way keeps its sentence; the old model is disposed, its runs and head forgotten.
    const second = await gpt2();
    expect(session.loaded(second, { source: 'files', files: new Map() }).link).toBeNull();
    expect(session.text).toBe('a cat');
    expect([session.ablate, session.edits, session.ran, session.selected, session.shown]).toEqual([
      [],
      [],
      null,
      null,
      null,
    ]);
    await expect(first.run('a')).rejects.toThrow(/disposed/u);

    // A model without a tokenizer.json after one with: its own default ids, not the words it cannot read.
    const llama = await loadModel(llamaFixture().files);
    session.loaded(llama, { source: 'files', files: new Map() });
    expect(session.text).toBe('1 2 3 4 5 6');
    expect(session.inputProblem()).toBeNull();
    session.setText('the cat');
    expect(session.inputProblem()).toMatch(/no tokenizer\.json.*token ids/u);
    session.setText(`1 ${llama.spec.vocabSize}`);
    expect(session.inputProblem()).toMatch(new RegExp(`Token id ${llama.spec.vocabSize} is not in`, 'u'));
    session.setText('3 1 4');
    expect(session.input().input).toEqual({ ids: [3, 1, 4] });
    session.setText('3 [MASK] 4'); // [MASK] among ids stands for the id typed beside (a BERT folder without tokenizer)
    expect(session.inputProblem()).toBeNull();
    session.setTypedMask(7);
    expect(session.input().input).toEqual({ ids: [3, 7, 4] });
  });

  it('a sentence typed drops the mask and X’s edits; a token masked (BERT) runs its ids with [MASK]', async () => {
    const words = ['the', 'cat', 'sat', 'on', 'mat', '##s', 'dog', '.', 'a'];
    const model = await loadModel({ ...bertFixture({ vocab: 19 }).files, 'tokenizer.json': wordPieceTokenizer(words) });
    const session = new RealModelSession();
    session.loaded(model, { source: 'files', files: new Map() });
    session.setVocab(['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', ...words]);
    session.setText('the cat sat');
    expect(session.toggleMask(2)).toBe(true);
    expect(session.input().input).toBe('the cat sat'); // no ids yet to mask
    session.masked = -1;
    await session.run();
    expect(session.toggleMask(2)).toBe(true);
    const ids = session.lastIds.slice();
    ids[2] = 4;
    expect(session.input()).toEqual({ input: { ids }, key: 'the cat sat|2|4' });
    expect(session.toggleMask(2)).toBe(true);
    expect(session.masked).toBe(-1);
    session.setEdits([
      { layer: 0, step: 'x', row: 0, col: 0, value: 1 },
      { layer: 0, step: 'wk', row: 0, col: 0, value: 1 },
    ]);
    session.toggleMask(1);
    session.setText('the dog');
    expect(session.masked).toBe(-1);
    expect(session.edits.map((e) => e.step)).toEqual(['wk']);
    session.setVocab(['the']);
    expect(session.toggleMask(0)).toBe(false); // no [MASK] in the vocabulary
    expect(session.link()).toEqual({
      model: 'files',
      text: 'the dog',
      ids: false,
      layer: undefined,
      head: undefined,
      ablate: [],
      edits: session.edits,
      ablateMode: 'zero',
      ablateReference: null,
    });
  });
});

describe('RealModelSession: runs', () => {
  it('runs again from the first layer changed, with the run with every head on made once per sentence', async () => {
    const { model, runs } = counted(await gpt2());
    const session = new RealModelSession();
    session.loaded(model, { source: 'files', files: new Map() });
    session.setText('cat the cat');
    const plain = await session.run();
    expect(plain.layer).toBe(0);
    expect(plain.base).toBeNull();
    expect(runs).toHaveLength(1);

    session.setAblate([[2, 1]]);
    const ablated = await session.run();
    expect(ablated.layer).toBe(2);
    expect(runs.at(-1).from.layer).toBe(2);
    expect(runs).toHaveLength(2); // the base is the plain run of this sentence: not run again
    expect(ablated.base).toBe(plain.result);
    const whole = await model.run('cat the cat', { ablate: [[2, 1]], logits: 'last' });
    expect(bits(ablated.result.logits)).toEqual(bits(whole.logits));
    expect(ablated.result.hiddenStates.map(bits)).toEqual(whole.hiddenStates.map(bits));
    expect(session.result).toBe(ablated.result);

    // Another sentence with a head off: a whole run (in parts, once the model has run), and its own base once.
    session.setText('the cat');
    const other = await session.run();
    expect(other.layer).toBe(0);
    const [off, on] = await Promise.all([
      model.run('the cat', { ablate: [[2, 1]], logits: 'last' }),
      model.run('the cat', { logits: 'last' }),
    ]);
    expect(bits(other.result.logits)).toEqual(bits(off.logits));
    expect(bits(other.base.logits)).toEqual(bits(on.logits));
  });

  it('an ablation mode (mean, resample with its reference) runs the ablated heads so, again whole when it changes', async () => {
    const { model, runs } = counted(await gpt2());
    const session = new RealModelSession();
    session.loaded(model, { source: 'files', files: new Map() });
    session.setText('cat the cat');
    session.setAblate([[1, 0]]);
    await session.run();
    session.setAblateMode('mean');
    expect(session.ablateOptions()).toEqual([{ layer: 1, head: 0, mode: 'mean' }]);
    const mean = await session.run();
    expect(mean.layer).toBe(0); // the mode changed: no earlier run of this mode to start from
    const whole = await model.run('cat the cat', { ablate: [{ layer: 1, head: 0, mode: 'mean' }], logits: 'last' });
    expect(bits(mean.result.logits)).toEqual(bits(whole.logits));
    session.setAblateMode('resample', ' the cat cat ');
    expect(session.ablateOptions()).toEqual([{ layer: 1, head: 0, mode: 'resample', reference: 'the cat cat' }]);
    const resampled = await session.run();
    const reference = await model.run('cat the cat', {
      ablate: [{ layer: 1, head: 0, mode: 'resample', reference: 'the cat cat' }],
      logits: 'last',
    });
    expect(bits(resampled.result.logits)).toEqual(bits(reference.logits));
    expect(runs.at(-1).ablate).toEqual([{ layer: 1, head: 0, mode: 'resample', reference: 'the cat cat' }]);
    expect(session.link()).toMatchObject({ ablateMode: 'resample', ablateReference: 'the cat cat' });
  });

  it('a run overtaken by a newer one (or a cancel) resolves null and records nothing', async () => {
    const session = new RealModelSession();
    session.loaded(await gpt2(), { source: 'files', files: new Map() });
    session.setText('cat');
    const first = session.run();
    const second = session.run();
    expect(await first).toBeNull();
    const drawn = await second;
    expect(session.result).toBe(drawn.result);
    session.setText('the cat');
    const cancelled = session.run();
    expect(session.cancel()).toBeNull();
    expect(await cancelled).toBeNull();
    expect(session.result).toBe(drawn.result);
    session.rest = { layer: 1, drawn: true };
    expect(session.cancel()).toBe(1); // an edit's steps drawn, its later layers not
  });

  it('the walked layer is captured by the run that runs it, and its heads reuse that capture', async () => {
    const { model, runs } = counted(await gpt2());
    const session = new RealModelSession();
    session.loaded(model, { source: 'files', files: new Map() });
    session.setText('cat the cat');
    await session.run({ walked: 1 });
    expect(runs[0].capture).toEqual([
      { layer: 1, head: 0 },
      { layer: 1, head: 1 },
    ]);
    const layer = await session.layerRun(1);
    expect(runs).toHaveLength(1);
    expect(layer.captures).toHaveLength(2);
    // Another layer runs alone, from the last run's input of it, once for its heads.
    const two = await session.layerRun(2);
    expect(await session.layerRun(2)).toBe(two);
    expect(runs).toHaveLength(2);
    expect(runs[1]).toMatchObject({ from: { layer: 2 }, layers: 3, logits: false });
    const whole = await model.run('cat the cat', { capture: [{ layer: 2, head: 1 }] });
    expect(bits(two.captures[1].weights)).toEqual(bits(whole.captures[0].weights));
    // A change of the heads switched off makes it stale.
    session.setAblate([[0, 0]]);
    await session.layerRun(2);
    expect(runs).toHaveLength(4);
  });

  it('keeps the attention weights of the last two layers opened', async () => {
    const { model, weights } = counted(await gpt2());
    const session = new RealModelSession();
    session.loaded(model, { source: 'files', files: new Map() });
    const zero = await session.layerWeights(0);
    await session.layerWeights(1);
    expect(await session.layerWeights(0)).toBe(zero);
    await session.layerWeights(2); // layer 1 is the oldest now
    await session.layerWeights(0);
    await session.layerWeights(1);
    expect(weights).toEqual([0, 1, 2, 1]);
  });
});
