// The page's run of a real model in parts (web/src/real-model/run/runParts.js): the parts' results merged are one
// model.run's, bit for bit (every attention, hidden state, capture, logit and next token), with ablations, edits
// and captures in several parts, from a layer or from the tokens, for GPT-2, LLaMA (GQA, RoPE) and BERT; the page's
// thread is given back between the parts; options naming a layer outside the run get model.run's own error.
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../../src/js/model/index.js';
import { runInParts } from '../../../../web/src/real-model/run/runParts.js';
import { bertFixture, gpt2Fixture, llamaFixture } from '../../../js/model/fixtures.js';

const FAMILIES = [
  ['GPT-2', () => gpt2Fixture({ layers: 5, seed: 31 }), { step: 'q', head: 1 }, 'last'],
  ['LLaMA (GQA 4/2, RoPE)', () => llamaFixture({ layers: 5, seed: 32 }), { step: 'kRotated', head: 3 }, 'last'],
  ['BERT', () => bertFixture({ layers: 5, seed: 33 }), { step: 'scores', head: 0 }, true],
];
const ids = [3, 1, 4, 1, 5, 9, 2];
const bits = (tensor) => (tensor === null ? null : Array.from(tensor.data));

/** Expects two results of model.run to hold the same bits. */
function expectSame(got, want) {
  expect(got.ids).toEqual(want.ids);
  expect(got.attentions.map(bits)).toEqual(want.attentions.map(bits));
  expect(got.hiddenStates.map(bits)).toEqual(want.hiddenStates.map(bits));
  expect(got.captures).toHaveLength(want.captures.length);
  got.captures.forEach((capture, k) => {
    expect([capture.layer, capture.head]).toEqual([want.captures[k].layer, want.captures[k].head]);
    for (const key of ['x', 'q', 'k', 'weights', 'headOutput', 'output', 'mlpHidden', 'hidden'])
      expect(bits(capture[key])).toEqual(bits(want.captures[k][key]));
  });
  expect(bits(got.logits)).toEqual(bits(want.logits));
  expect(got.next).toEqual(want.next);
}

describe.each(FAMILIES)('runInParts on %s', (_, make, edited, logits) => {
  it('equals one run, bit for bit, a layer per part and as the time allows, from the tokens or from a layer', async () => {
    const model = await loadModel(make().files);
    const edit = { ...edited, layer: 3, row: ids.length - 1, col: 1, value: 0.625 };
    const options = {
      ablate: [
        [1, 0],
        [4, 1],
      ],
      edits: [edit],
      // out of layer order, two in one layer: the merged captures keep the order asked
      capture: [
        { layer: 4, head: 0 },
        { layer: 1, head: 1 },
        { layer: 4, head: 1 },
      ],
      logits,
      topK: 3,
    };
    const whole = await model.run({ ids }, options);
    for (const partMs of [0, 1e9]) {
      let breaks = 0;
      const between = async () => void breaks++;
      expectSame(await runInParts(model, { ids }, options, { partMs, between }), whole);
      expect(breaks).toBe(partMs ? 1 : 4); // the first part is one layer, timed; then one part of the rest
    }
    const from = { layer: 2, hiddenState: whole.hiddenStates[2] };
    const later = { ...options, ablate: [[4, 1]], capture: [{ layer: 3, head: 1 }], from };
    const want = await model.run({ ids }, later);
    const got = await runInParts(model, { ids }, later, { partMs: 0, between: async () => {} });
    expect(got.attentions.slice(0, 2)).toEqual([null, null]);
    expectSame(got, want);
  });
});

describe('runInParts', () => {
  it('gives the thread back between the parts: a task queued before the run runs before it ends', async () => {
    const model = await loadModel(gpt2Fixture({ layers: 4, seed: 34 }).files);
    await model.run({ ids }); // its module and weights ready: a run is then one task unless it breaks
    const order = [];
    const channel = new MessageChannel(); // a task, as an input's would be
    channel.port1.onmessage = () => order.push('task');
    const run = runInParts(model, { ids }, {}, { partMs: 0 }).then(() => order.push('run'));
    channel.port2.postMessage(null);
    await run;
    channel.port1.close();
    expect(order).toEqual(['task', 'run']);
  });

  it('stops at `layers`, keeps hiddenStates: false and attentions: false, and leaves bad options to model.run', async () => {
    const model = await loadModel(gpt2Fixture({ layers: 4, seed: 35 }).files);
    const between = async () => {};
    const firstThree = await model.run({ ids }, { layers: 3, hiddenStates: false });
    const parts = await runInParts(model, { ids }, { layers: 3, hiddenStates: false }, { partMs: 0, between });
    expect(parts.hiddenStates).toBeUndefined();
    expect(parts.attentions.map(bits)).toEqual(firstThree.attentions.map(bits));
    expect(parts.logits).toBeNull();
    const plain = await model.run({ ids }, { attentions: false });
    const without = await runInParts(model, { ids }, { attentions: false }, { partMs: 0, between });
    expect(without.attentions).toBeUndefined();
    expect(without.hiddenStates.map(bits)).toEqual(plain.hiddenStates.map(bits));
    expect(bits(without.logits)).toEqual(bits(plain.logits));
    for (const bad of [{ capture: [{ layer: 7, head: 0 }] }, { ablate: [[-1, 0]] }, { layers: 3, ablate: [[3, 0]] }]) {
      await expect(runInParts(model, { ids }, bad, { partMs: 0, between })).rejects.toMatchObject({
        code: 'BAD_OPTION',
      });
    }
  });
});
