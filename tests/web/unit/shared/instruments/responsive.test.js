// The instruments' long computations in parts, so that a page answers its inputs meanwhile (issue 36 §3): the logit
// lens by parts of rows with task breaks between them gives model.unembed's logits of each whole residual, bit for
// bit; a sweep's prompts run in parts (the page's runInParts) give model.run's tokens and top token, and their tokens
// alone come from model.tokenize for text (no run) and from one layer's run for ids typed; a sweep's batchRows is
// sized by the model's layer.
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../../../src/js/model/index.js';
import { lensLogits } from '../../../../../web/src/shared/instruments/lens.js';
import { promptRun, promptTokens, sweepBatchRows } from '../../../../../web/src/shared/instruments/patching.js';
import { runInParts } from '../../../../../web/src/real-model/run/runParts.js';
import { gpt2Fixture } from '../../../../js/model/fixtures.js';
import { byteLevelTokenizer } from '../../../../js/model/tokenizers.js';

const MERGES = ['Ġ t', 'Ġt h', 'Ġth e', 'c a', 'ca t']; // ids 256 … 260

const ids = [3, 1, 4, 1, 5, 9, 2];

describe('the logit lens in parts', () => {
  it('gives each residual’s model.unembed, bit for bit, a row a part with a break before each', async () => {
    const model = await loadModel(gpt2Fixture({ layers: 3, seed: 41 }).files);
    const r = await model.run({ ids }, { hiddenStates: true });
    const last = r.hiddenStates.length - 1;
    const whole = [];
    for (let l = 0; l <= last; l++) whole.push(await model.unembed(r.hiddenStates[l], { norm: l < last }));
    let breaks = 0;
    const between = async () => breaks++;
    const { vocabSize: V, dModel: d } = model.spec;
    const parts = await lensLogits(model, r, undefined, { taskMs: 0, between, product: V * d });
    expect(parts.map((t) => t.shape)).toEqual(whole.map((t) => t.shape));
    expect(parts.map((t) => Array.from(t.data))).toEqual(whole.map((t) => Array.from(t.data)));
    expect(breaks).toBe(whole.length * ids.length); // one row a part
    // by default: one part a residual on a small model, and no break within 50 ms
    const plain = await lensLogits(model, r, undefined, { between: async () => expect.fail('a break') });
    expect(plain.map((t) => Array.from(t.data))).toEqual(whole.map((t) => Array.from(t.data)));
  });
});

describe('a sweep’s prompts', () => {
  it('run in parts give model.run’s tokens and top token', async () => {
    const model = await loadModel(gpt2Fixture({ layers: 4, seed: 42 }).files);
    let parts = 0;
    const inParts = (input, options) => {
      parts++;
      return runInParts(model, input, options, { partMs: 0 });
    };
    const got = await promptRun(model, { ids }, undefined, inParts);
    expect(parts).toBe(1);
    expect(got).toEqual(await promptRun(model, { ids }));
    const r = await model.run({ ids }, { logits: 'last', topK: 1 });
    expect(got.top).toBe(r.next[0].id);
  });
});

describe('a sweep’s prompts’ tokens', () => {
  it('of ids typed come from a run of one layer without the LM head: model.run’s ids and tokens', async () => {
    const model = await loadModel(gpt2Fixture({ layers: 4, seed: 42 }).files);
    const asked = [];
    const run = (input, options) => {
      asked.push(options);
      return model.run(input, options);
    };
    const got = await promptTokens(model, { ids }, undefined, run);
    expect(asked.map(({ layers, logits }) => ({ layers, logits }))).toEqual([{ layers: 1, logits: false }]);
    const r = await model.run({ ids });
    expect(got).toEqual({ ids: r.ids, tokens: r.tokens ?? r.ids.map(String) });
    await expect(promptTokens(model, { ids: [3, 99999] })).rejects.toMatchObject({ code: 'BAD_OPTION' });
  });

  it('of text come from model.tokenize, no layer run: the ids and tokens model.run(text) gives', async () => {
    const files = { ...gpt2Fixture({ vocab: 262, seed: 43 }).files, 'tokenizer.json': byteLevelTokenizer(MERGES) };
    const model = await loadModel(files);
    const run = () => expect.fail('a run to tokenize');
    const got = await promptTokens(model, 'cat the cat', undefined, run);
    expect(got).toEqual({ ids: [260, 258, 32, 260], tokens: ['cat', ' the', ' ', 'cat'] });
    expect(model.bytesRead).toBe(0);
    const r = await model.run('cat the cat');
    expect(got).toEqual({ ids: r.ids, tokens: r.tokens });
    expect(await promptTokens(model, '', undefined, run)).toEqual({ ids: [], tokens: [] }); // lengthProblem says so
  });
});

describe('sweepBatchRows', () => {
  const gpt2Small = { dModel: 768, numHeads: 12, numKvHeads: 12, headDim: 64, dFf: 3072, activation: 'geluTanh' };
  it('cuts GPT-2 small’s batches to about 3.4e8 multiply-adds a layer call; a small model keeps 96', () => {
    expect(sweepBatchRows(gpt2Small)).toBe(48); // 3.4e8 / (768 × (2 × 768 + 2 × 768 + 2 × 3072))
    // a gated MLP has three matrices, fewer key-value heads two smaller ones
    const gated = { ...gpt2Small, numKvHeads: 4, activation: 'siluGated' };
    expect(sweepBatchRows(gated)).toBe(Math.floor(3.4e8 / (768 * (2 * 768 + 2 * 256 + 3 * 3072))));
    expect(sweepBatchRows({ ...gpt2Small, dModel: 32, headDim: 8, numHeads: 4, numKvHeads: 4, dFf: 128 })).toBe(96);
    expect(sweepBatchRows({ ...gpt2Small, dModel: 8192, dFf: 28672, headDim: 128, numHeads: 64 })).toBe(1);
  });
});
