// The page's explanations and tooltips, checked on results of the real library for the "2×2 by hand" example
// (scores [[1, 0], [0, 1]] ÷ √2, weights softmax(0.7071, 0) = [0.6698, 0.3302]) and the default sentence.
import { beforeAll, describe, expect, it } from 'vitest';
import { createAttention } from '../../../../src/js/index.js';
import { EXAMPLES } from '../../../../web/src/shared/examples.js';
import { attentionCall } from '../../../../web/src/shared/inputs.js';
import {
  OUTPUT_HINT,
  causalCellMessage,
  entropyText,
  explainOutputRow,
  headColumnsNote,
  headsText,
  kvHeadNote,
  kvSharedNote,
  projectionText,
  randomNote,
  scaleTexts,
  tokenCountNote,
} from '../../../../web/src/shared/explanations.js';
import { scalingSummary, varianceText } from '../../../../web/src/lessons/scaling/scalingText.js';
import { generatedMatrix } from '../../../../web/src/shared/matrices.js';
import { embeddingSourceText, sourcesText } from '../../../../web/src/shared/provenance.js';
import { defaultState } from '../../../../web/src/shared/state.js';
import { tokenWord } from '../../../../web/src/shared/tokens.js';
import { cellName, cellTooltip } from '../../../../web/src/shared/tooltips.js';

let attn;
beforeAll(async () => {
  attn = await createAttention();
});

const worked = () => EXAMPLES.find((e) => e.id === 'worked').state();
const run = (state) => {
  const call = attentionCall(state);
  return attn.selfAttention(call.x, call.weights, call.options);
};

describe('explainOutputRow', () => {
  it('names the tokens of an output row by weight, largest first', () => {
    const state = worked();
    const result = run(state);
    const a = explainOutputRow(state, result, 0);
    expect(a.text).toBe('output(“A”) = 0.67 × v(“A”) + 0.33 × v(“B”). The faded rows of V contribute little.');
    expect(a.weights[0]).toBeCloseTo(0.669762, 5);
    expect(a.weights[1]).toBeCloseTo(0.330238, 5);
    expect(explainOutputRow(state, result, 1).text).toBe(
      'output(“B”) = 0.67 × v(“B”) + 0.33 × v(“A”). The faded rows of V contribute little.',
    );
  });

  it('under a causal mask, the first token takes all of its own value and later rows count the small terms', () => {
    const state = { ...defaultState(), causal: true };
    const result = run(state);
    expect(explainOutputRow(state, result, 0).text).toBe(
      'output(“time”) = 1.00 × v(“time”). The faded rows of V contribute little.',
    );
    const last = explainOutputRow(state, result, 4);
    expect(last.text).toMatch(
      /^output\(“arrow”\) = (\d\.\d\d × v\(“[a-z]+”\) \+ ){3}\d\.\d\d × v\(“[a-z]+”\) \+ 1 smaller term\./u,
    );
    const named = [...last.text.matchAll(/v\(“([a-z]+)”\)/gu)].map((m) => m[1]);
    const byWeight = last.weights
      .map((w, j) => [w, j])
      .sort((p, q) => q[0] - p[0])
      .map(([, j]) => state.sentence.split(' ')[j]);
    expect(named).toEqual(byWeight.slice(0, 4));
  });

  it('says when every key of a row is masked', () => {
    const state = {
      ...worked(),
      mask: [
        [false, false],
        [true, true],
      ],
    };
    expect(explainOutputRow(state, run(state), 0).text).toBe(
      'output(“A”) = 0: every key is masked for this query, so it attends to nothing.',
    );
  });

  it('asks for a hover while no row is chosen, or before any result', () => {
    const state = worked();
    expect(explainOutputRow(state, run(state), null)).toEqual({ text: OUTPUT_HINT, weights: null });
    expect(explainOutputRow(state, null, 0)).toEqual({ text: OUTPUT_HINT, weights: null });
    expect(explainOutputRow(state, run(state), 2).weights).toBeNull();
  });
});

describe('cellTooltip', () => {
  it('shows how a scaled score is made from the raw score and the factor', () => {
    const state = worked();
    const result = run(state);
    const scaled = result.scaledScores.data[0];
    expect(cellTooltip(state, result, 'scaledScores', 0, 0, scaled).slice(0, 2)).toEqual([
      'query “A” → key “A”',
      '1.000000 × 0.7071 = 0.707107',
    ]);
    expect(cellTooltip(state, result, 'rawScores', 0, 1, result.rawScores.data[1]).slice(0, 2)).toEqual([
      'query “A” → key “B”',
      'q·k = 0.000000',
    ]);
  });

  it('takes the raw score of the same query and key for a scaled score', () => {
    const state = defaultState();
    const result = run(state);
    const [, line] = cellTooltip(state, result, 'scaledScores', 0, 3, result.scaledScores.data[3]);
    const [raw, factor, scaled] = line.split(/ × | = /u).map(Number);
    expect(factor).toBe(0.5);
    expect(raw).toBeCloseTo(result.rawScores.data[3], 3); // row 0, column 3: query “time”, key “an”
    expect(Math.abs(result.rawScores.data[3] - result.rawScores.data[15])).toBeGreaterThan(0.01);
    expect(scaled).toBeCloseTo(raw * 0.5, 2);
  });

  it('gives a weight as the share of the output taken from the key', () => {
    const state = worked();
    const result = run(state);
    expect(cellTooltip(state, result, 'weights', 0, 1, result.weights.data[1]).slice(0, 2)).toEqual([
      'query “A” → key “B”',
      'weight 0.330238: “A” takes 33.0% of its output from “B”',
    ]);
    expect(cellTooltip(state, result, 'heatmap', 1, 1, result.weights.data[3]).slice(0, 2)).toEqual([
      'query “B” → key “B”',
      'weight 0.669762',
    ]);
  });

  it('says which mask blocks a pair', () => {
    const state = {
      ...defaultState(),
      causal: true,
      mask: Array.from({ length: 5 }, (_, i) => [i !== 3, true, true, true, true]),
    };
    expect(cellTooltip(state, null, 'mask', 1, 3, -Infinity)).toEqual([
      'query “flies” → key “an”',
      'blocked by the causal mask: a later token',
    ]);
    expect(cellTooltip(state, null, 'mask', 3, 0, -Infinity)).toEqual([
      'query “an” → key “time”',
      'blocked: + −∞ (click to allow)',
    ]);
    expect(cellTooltip(state, null, 'mask', 3, 1, 0)).toEqual([
      'query “an” → key “flies”',
      'allowed: + 0 (click to block)',
    ]);
    expect(cellTooltip(state, null, 'weights', 1, 3, 0)).toEqual([
      'query “flies” → key “an”',
      'masked: weight 0, nothing is taken from this key',
    ]);
    expect(cellTooltip(state, null, 'heatmap', 1, 3, 0)[1]).toBe('masked: weight 0');
    expect(cellTooltip(state, null, 'scores', 1, 3, -Infinity)[1]).toBe('blocked: −∞, its weight will be 0');
  });

  it('names the token and dimension of inputs and projections', () => {
    const state = defaultState();
    expect(cellTooltip(state, null, 'x', 1, 2, 0.12345)).toEqual(['token “flies”', 'embedding dimension 2: 0.123']);
    expect(cellTooltip(state, null, 'wv', 7, 3, -1)).toEqual([
      'W_v row 7, column 3',
      'from embedding dimension 7 to d_v dimension 3: -1.000',
    ]);
    expect(cellTooltip(state, null, 'wk', 0, 1, 2)[1]).toBe('from embedding dimension 0 to d_k dimension 1: 2.000');
    expect(cellTooltip(state, null, 'k', 4, 0, 0.5)).toEqual([
      'key of “arrow”, dimension 0',
      '0.500 = row “arrow” of X · column 0 of W_k',
    ]);
    expect(cellTooltip(state, null, 'vOut', 2, 1, 1)[0]).toBe('value of “like”, dimension 1');
    expect(cellTooltip(state, null, 'output', 0, 3, 1.5)).toEqual([
      'output of “time”, dimension 3',
      '1.500 = Σ weight × value',
    ]);
    expect(cellTooltip(state, null, 'average', 0, 0, 0.25)[1]).toBe('average weight 0.250');
    expect(() => cellTooltip(state, null, 'nothing', 0, 0, 0)).toThrow(/nothing/u);
  });

  it('names an input cell by token for X and by index for a W', () => {
    expect(cellName(defaultState(), 'x', 4, 1)).toBe('X, row “arrow”, column 1');
    expect(cellName(defaultState(), 'wq', 4, 1)).toBe('W_q, row 4, column 1');
  });
});

describe('the step texts', () => {
  it('explain the scale factor for d_k, the temperature and scaling off', () => {
    expect(scaleTexts(worked())).toMatchObject({ title: 'Scale: ÷ √d_k', formula: '1/(T·√d_k) = 0.7071' });
    expect(scaleTexts(worked()).text).toMatch(
      /^d_k = 2, so every score is divided by √2 = 1\.414: multiplied by 0\.7071\. /u,
    );
    const hot = scaleTexts({ ...defaultState(), temperature: 2 });
    expect(hot).toMatchObject({ title: 'Scale: ÷ (T·√d_k)', formula: '1/(T·√d_k) = 0.25' });
    expect(hot.text).toContain('divided by √4 = 2 and by the temperature T = 2: multiplied by 0.25.');
    const off = scaleTexts({ ...defaultState(), scaling: false, temperature: 0.5 });
    expect(off).toMatchObject({ title: 'Scale: ÷ T', formula: '1/T = 2' });
    expect(off.text).toMatch(
      /^Scaling is off, so the scores are only divided by the temperature T = 0\.5 \(multiplied by 2\)\./u,
    );
    expect(scaleTexts({ ...defaultState(), scaling: false }).title).toBe('Scale: off');
  });

  it('claim variance 1 only at T = 1, and say that temperature is not standard attention', () => {
    expect(scaleTexts(defaultState()).text).toContain('This keeps the scores near variance 1');
    expect(scaleTexts(defaultState()).text).not.toContain('temperature');
    const cold = scaleTexts({ ...defaultState(), temperature: 0.2 }).text;
    expect(cold).not.toContain('This keeps the scores near variance 1');
    expect(cold).toContain('Dividing by √d_k alone would keep the scores near variance 1');
    expect(cold).toContain('not part of standard attention');
    expect(cold).toContain('their variance is about 25 times');
    expect(scaleTexts({ ...defaultState(), scaling: false }).text).toMatch(
      /^Scaling is off, so the scores are used as they are/u,
    );
  });

  it('give the mean row entropy against the even spread', () => {
    const state = worked();
    // −(0.6698·log2 0.6698 + 0.3302·log2 0.3302) = 0.915 bits; even over 2 keys: 1 bit.
    expect(entropyText(state, run(state))).toBe(
      'How spread out are the rows? Their mean entropy is 0.92 bits. A row spread evenly over all 2 keys has log₂2 = 1.00 bits; a row on a single key has 0.',
    );
    const masked = {
      ...state,
      mask: [
        [false, false],
        [false, false],
      ],
    };
    expect(entropyText(masked, run(masked))).toBe('Every row is fully masked, so no row has weights.');
  });

  it('give the variance of the scores before and after scaling', () => {
    const state = worked();
    // QKᵀ = I: variance 0.25; ÷ √2 halves it.
    expect(varianceText(state, run(state))).toMatch(
      /^In your example \(d_k = 2, 2 tokens\): the variance of QKᵀ is 0\.25, and 0\.1[23] after scaling\./u,
    );
  });

  it('do not speak of scaling when it is off', () => {
    const off = { ...worked(), scaling: false };
    const text = varianceText(off, run(off));
    expect(text).toMatch(
      /^In your example \(d_k = 2, 2 tokens\): the variance of QKᵀ is 0\.25\. Scaling is off, so the scores keep this variance/u,
    );
    expect(text).not.toContain('after scaling');
    const hot = { ...worked(), scaling: false, temperature: 2 };
    expect(varianceText(hot, run(hot))).toMatch(/is 0\.25, and 0\.06 after dividing by T = 2 only/u);
  });

  it('say that random weights mean nothing yet, naming the largest weight, and fall silent once all are typed', () => {
    const state = defaultState();
    const result = run(state);
    const text = randomNote(state, result);
    expect(text).toMatch(
      /^X, W_q and W_k are random numbers from seed 42, not trained weights, so this pattern means nothing yet: that “\S+” gives 0\.\d\d of its attention to /u,
    );
    const w = Array.from(result.weights.data);
    expect(text).toContain(`gives ${Math.max(...w).toFixed(2)} of its attention`);
    expect(randomNote(worked(), run(worked()))).toBe('');
    const typedX = {
      ...state,
      x: [
        [1, 0, 0, 0, 0, 0, 0, 0],
        [0, 1, 0, 0, 0, 0, 0, 0],
        [0, 0, 1, 0, 0, 0, 0, 0],
        [0, 0, 0, 1, 0, 0, 0, 0],
        [0, 0, 0, 0, 1, 0, 0, 0],
      ],
    };
    expect(randomNote(typedX, run(typedX))).toMatch(/^W_q and W_k are random numbers/u);
  });

  it('call chance only what is chance: a single open key and the W_q = W_k diagonal are forced', () => {
    const causal = EXAMPLES.find((e) => e.id === 'causal').state();
    const text = randomNote(causal, run(causal));
    expect(text).not.toMatch(/1\.00 of its attention to itself is chance/u);
    expect(text).toMatch(
      /is chance\. Not chance: under the causal mask the first token, “the”, can only attend to itself/u,
    );
    // The chance example is the largest weight of a row with a choice: never row 0 here.
    expect(text).not.toMatch(/that “the” gives 1\.00/u);
    const shared = EXAMPLES.find((e) => e.id === 'shared').state();
    const sharedText = randomNote(shared, run(shared));
    expect(sharedText).not.toMatch(/of its attention to itself is chance/u);
    expect(sharedText).toMatch(/each token's score with itself is q·q = \|q\|²/u);
    expect(sharedText).toMatch(/here \d of 5 rows look most at themselves/u);
    const masked = {
      ...defaultState(),
      mask: defaultState()
        .sentence.split(' ')
        .map((_, i) => [1, 0, 1, 1, 1].map((v, j) => i !== 1 || j === 3)),
    };
    expect(randomNote(masked, run(masked))).toMatch(/the mask leaves “flies” a single key, “an”/u);
  });

  it('say where the numbers came from: the seed, edits, numbers given, the designed heads or a file', () => {
    const state = defaultState();
    expect(embeddingSourceText(state)).toBe(
      'Here the table is random from the seed; a trained model learns it. X = E[token] says nothing about where a token stands.',
    );
    const x = generatedMatrix(state, 'x').map((row) => row.slice());
    x[0][0] = 9;
    expect(embeddingSourceText({ ...state, x })).toMatch(/random from the seed, with 1 number changed by hand/u);
    expect(embeddingSourceText(worked())).toMatch(/^Here X holds numbers typed, pasted or given/u);
    const file = { ...state, x, wq: x, wo: generatedMatrix(state, 'wo'), fromFile: true };
    expect(embeddingSourceText(file)).toMatch(/^Here X is read from your model's file/u);
    expect(projectionText(file)).toMatch(/Here W_o is read from your model's file;/u);
    expect(projectionText(state)).toMatch(/Here W_o is random from seed 42;/u);
    expect(sourcesText(file, ['x', 'wq', 'wk'])).toBe(
      "X and W_q are read from your model's file; W_k is random from seed 42",
    );
    const designed = EXAMPLES.find((e) => e.id === 'designed').state();
    expect(embeddingSourceText(designed)).toMatch(/built by hand for the designed heads/u);
  });

  it('show grouped-query attention in every step: the kv head of the head shown, and who shares it', () => {
    const gqa = { ...EXAMPLES.find((e) => e.id === 'gqa').state(), head: 2 };
    expect(attentionCall(gqa).weights).toMatchObject({ numHeads: 4, numKvHeads: 2 });
    expect(attentionCall(gqa).weights.wk.shape).toEqual([16, 8]);
    expect(kvHeadNote(gqa)).toBe(' (kv head 1)');
    expect(kvSharedNote(gqa, 'keys')).toBe('shared by heads 2 and 3 · keys');
    expect(kvSharedNote({ ...gqa, kvHeads: null }, 'keys')).toBe('keys');
    expect(headColumnsNote(gqa)).toMatch(
      /\(8–11 of W_q; 4–7 of W_k and 4–7 of W_v, the block of kv head 1, which heads 2 and 3 share/u,
    );
    const odd = { ...gqa, kvHeads: 3 };
    expect(attentionCall(odd).weights.numKvHeads).toBeUndefined();
    expect(headColumnsNote(odd)).toMatch(
      /kv heads = 3 does not divide the 4 heads, so every step computes ordinary multi-head attention/u,
    );
    expect(tokenWord('▁the', 't0')).toBe('the');
    expect(tokenWord('Ġcat', 't1')).toBe('cat');
    expect(tokenWord('▁', 't2')).toBe('t2');
  });

  it('name the words a too-small n leaves out', () => {
    expect(tokenCountNote(defaultState())).toBe('');
    expect(tokenCountNote({ ...defaultState(), n: 3 })).toBe(
      "n = 3 is smaller than the sentence's 5 words, so only the first 3 are tokens: “an”, “arrow” are left out. Raise n to 5 to use them all.",
    );
    expect(tokenCountNote({ ...defaultState(), n: 4 })).toContain('“arrow” is left out');
  });

  it('name the head and its blocks of columns', () => {
    const state = { ...defaultState(), dModel: 16, numHeads: 4, head: 2, dV: 3 };
    expect(headColumnsNote(state)).toMatch(
      /^Showing head 2 of 4: the W's below are its blocks of columns \(8–11 of W_q and W_k, 6–8 of W_v\)\./u,
    );
    expect(headColumnsNote(defaultState())).toBe('');
    expect(headsText(state)).toMatch(
      /^4 heads, each with d_k = 4 and d_v = 3\. .* concatenated into one \[5, 12\] matrix\./u,
    );
    expect(headsText(defaultState())).toMatch(/^This example has one head\./u);
    expect(headsText(state)).toContain('the blocks are random, so the heads differ only by chance');
    expect(headsText(state)).not.toMatch(/\blearns its own pattern;/u);
  });

  it('say why a causally masked cell cannot be clicked', () => {
    expect(causalCellMessage(defaultState(), 0, 2)).toBe(
      'Query “time” cannot see key “like” because of the causal mask (it comes later). Switch “Causal mask” off to change this cell.',
    );
  });

  it('sum up the √d_k experiment at d_k = 8', () => {
    const rows = [
      { dK: 4, varianceRaw: 4, varianceScaled: 1, entropyRaw: 3, entropyScaled: 3.5 },
      { dK: 8, varianceRaw: 7.96, varianceScaled: 0.995, entropyRaw: 2.004, entropyScaled: 3.61 },
    ];
    expect(scalingSummary(rows, 42)).toBe(
      'At d_k = 8: variance 8.0 unscaled against 0.99 scaled; row entropy 2.00 bits against 3.61. Seed 42.',
    );
    expect(scalingSummary(rows, 42, 4)).toMatch(/^At d_k = 4: variance 4\.0 unscaled/u);
    expect(scalingSummary(rows, 42, 5)).toMatch(/^At d_k = 4 \(the experiment's d_k nearest to your 5\): /u);
  });
});
