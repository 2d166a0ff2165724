import { beforeAll, describe, expect, it } from 'vitest';
import { createAttention } from '../../../../src/js/index.js';
import { EXAMPLES } from '../../../../web/src/shared/examples.js';
import { EXPERIMENT_DKS, runScalingExperiment } from '../../../../web/src/lessons/scaling/experiment.js';
import { meanRowEntropy, meanVariance } from '../../../../web/src/shared/stats.js';
import {
  attentionCall,
  averageHeads,
  columnBlock,
  headSlice,
  maskCell,
  scaleFor,
  scaleValue,
} from '../../../../web/src/shared/inputs.js';
import { currentMatrix } from '../../../../web/src/shared/matrices.js';
import { defaultState, withSizes } from '../../../../web/src/shared/state.js';

let attn;
beforeAll(async () => {
  attn = await createAttention();
});

const example = (id) => EXAMPLES.find((e) => e.id === id).state();

describe('from state to the library call', () => {
  it('scale: the library default at T = 1, 1/(T·√d_k) with scaling, 1/T without', () => {
    const s = defaultState();
    expect(scaleFor(s)).toBeUndefined();
    expect(scaleValue(s)).toBe(0.5);
    expect(scaleFor({ ...s, temperature: 2 })).toBe(0.25);
    expect(scaleFor({ ...s, scaling: false })).toBe(1);
    expect(scaleFor({ ...s, scaling: false, temperature: 0.5 })).toBe(2);
  });

  it('the 2×2 example gives the worked output', () => {
    const { x, weights, options } = attentionCall(example('worked'));
    const result = attn.selfAttention(x, weights, options);
    const expected = [1.6604769, 2.6604769, 2.3395231, 3.3395231];
    Array.from(result.output.data).forEach((v, i) => expect(v).toBeCloseTo(expected[i], 6));
    expect(result.weights.shape).toEqual([1, 2, 2]);
  });

  it('causal and clicked masks: blocked weights are 0 and rows still sum to 1', () => {
    const state = {
      ...example('causal'),
      mask: Array.from({ length: 6 }, (_, i) => Array.from({ length: 6 }, (_, j) => !(i === 3 && j === 0))),
    };
    const { x, weights, options } = attentionCall(state);
    const w = attn.selfAttention(x, weights, options).weights.data;
    for (let i = 0; i < 6; i++) {
      let sum = 0;
      for (let j = 0; j < 6; j++) {
        if (maskCell(state, i, j) !== 'open') expect(w[i * 6 + j]).toBe(0);
        sum += w[i * 6 + j];
      }
      expect(sum).toBeCloseTo(1, 5);
    }
    expect(maskCell(state, 0, 1)).toBe('causal');
    expect(maskCell(state, 3, 0)).toBe('blocked');
    expect(maskCell(state, 3, 1)).toBe('open');
  });

  it('W_q = W_k gives symmetric scores', () => {
    const { x, weights, options } = attentionCall(example('shared'));
    const raw = attn.selfAttention(x, weights, options).rawScores.data;
    for (let i = 0; i < 5; i++) for (let j = 0; j < 5; j++) expect(raw[i * 5 + j]).toBeCloseTo(raw[j * 5 + i], 5);
  });

  it('heads: per-head slices match running each head alone', () => {
    const state = example('heads');
    const result = attn.selfAttention(...Object.values(attentionCall(state)));
    const h = 2;
    const block = (name, width) => columnBlock(currentMatrix(state, name), h * width, width);
    const single = attn.selfAttention(currentMatrix(state, 'x'), {
      wq: block('wq', 4),
      wk: block('wk', 4),
      wv: block('wv', 4),
    });
    Array.from(headSlice(result.weights, h).data).forEach((v, i) => expect(v).toBeCloseTo(single.weights.data[i], 5));
    const average = averageHeads(result.weights);
    expect(average.shape).toEqual([5, 5]);
    let sum = 0;
    for (let j = 0; j < 5; j++) sum += average.data[j];
    expect(sum).toBeCloseTo(1, 5);
  });

  it('the largest sizes compute', () => {
    const state = withSizes(defaultState(), { n: 64, dModel: 64, dK: 64, dV: 64, numHeads: 1 });
    const result = attn.selfAttention(...Object.values(attentionCall(state)));
    expect(result.weights.shape).toEqual([1, 64, 64]);
  });
});

describe('the √d_k experiment', () => {
  it('variance grows like d_k unscaled and stays near 1 scaled; entropy falls without scaling', () => {
    const { rows, maxEntropy } = runScalingExperiment(attn, { seed: 1 });
    expect(rows.map((r) => r.dK)).toEqual(EXPERIMENT_DKS);
    expect(maxEntropy).toBe(4);
    for (const r of rows) {
      expect(r.varianceRaw / r.dK).toBeGreaterThan(0.6);
      expect(r.varianceRaw / r.dK).toBeLessThan(1.5);
      expect(r.varianceScaled).toBeGreaterThan(0.6);
      expect(r.varianceScaled).toBeLessThan(1.5);
      expect(r.entropyScaled).toBeGreaterThan(3);
    }
    expect(rows.at(-1).entropyRaw).toBeLessThan(1);
  });

  it('statistics helpers', () => {
    const stats = meanVariance([1, 2, 3, -Infinity]);
    expect(stats.mean).toBe(2);
    expect(stats.variance).toBeCloseTo(2 / 3, 12);
    expect(meanRowEntropy([0.5, 0.5, 1, 0, 0, 0], 2)).toBe(0.5);
    expect(meanRowEntropy([0, 0], 2)).toBeNaN();
  });
});
