// Why a score is what it is: the dot product term by term, and a weight as e^s over the row's sum.
import { beforeAll, describe, expect, it } from 'vitest';
import { createAttention } from '../../../../src/js/index.js';
import { EXAMPLES } from '../../../../web/src/shared/examples.js';
import { attentionCall } from '../../../../web/src/shared/inputs.js';
import { defaultState } from '../../../../web/src/shared/state.js';
import { cellTooltip } from '../../../../web/src/shared/tooltips.js';
import { SHOWN_TERMS, dotTerms, scoreTermLines, weightLines } from '../../../../web/src/shared/whyScore.js';

let attn;
beforeAll(async () => {
  attn = await createAttention();
});

const run = (state) => {
  const call = attentionCall(state);
  return attn.selfAttention(call.x, call.weights, call.options);
};
const worked = () => EXAMPLES.find((e) => e.id === 'worked').state();

describe('dotTerms', () => {
  it('orders the products by magnitude, largest first, keeping t', () => {
    expect(dotTerms([1, -3, 2, 0.5], [1, 1, -1, 2]).map((term) => [term.t, term.product])).toEqual([
      [1, -3],
      [2, -2],
      [0, 1],
      [3, 1],
    ]);
  });
});

describe('scoreTermLines', () => {
  it('writes out q·k of the worked example term by term', () => {
    const state = worked();
    expect(scoreTermLines(state, run(state), 0, 0)).toEqual([
      'q·k = Σ_t q_t·k_t over d_k = 2 terms, largest first:',
      't=0: 1.000000 × 1.000000 = +1.000000',
      't=1: 0.000000 × 0.000000 = +0.000000',
      'sum: q·k = 1.000000',
    ]);
  });

  it(`lists ${SHOWN_TERMS} terms and sums the rest; the terms add up to the library's score`, () => {
    const state = { ...defaultState(), dModel: 16, dK: 10, precision: 7 };
    const result = run(state);
    const lines = scoreTermLines(state, result, 1, 3);
    expect(lines).toHaveLength(1 + SHOWN_TERMS + 2);
    expect(lines[SHOWN_TERMS + 1]).toMatch(/^4 smaller terms: [+−]\d/);
    const products = lines
      .slice(1, SHOWN_TERMS + 2)
      .map((line) => Number(line.split(/= |: /u).at(-1).replace('−', '-')));
    const magnitudes = products.slice(0, SHOWN_TERMS).map(Math.abs);
    expect(magnitudes).toEqual([...magnitudes].sort((a, b) => b - a));
    const total = products.reduce((a, b) => a + b);
    expect(total).toBeCloseTo(result.rawScores.data[1 * 5 + 3], 5);
    expect(lines.at(-1)).toBe(`sum: q·k = ${result.rawScores.data[8].toFixed(7)}`);
  });
});

describe('weightLines', () => {
  it('gives a weight as e^s over the row sum, equal to the library’s weight', () => {
    const state = worked();
    const result = run(state);
    expect(weightLines(state, result, 0, 1)).toEqual([
      'w = e^s / Σ e^s over the row (s = scaled scores):',
      'e^0.00 / (e^0.71 + e^0.00)',
      '= 1 / 3.028 = 0.330238',
    ]);
  });

  it('shows blocked keys as 0, and divides by e^max when a score is large', () => {
    const causal = { ...defaultState(), causal: true };
    const result = run(causal);
    expect(weightLines(causal, result, 1, 3)).toEqual(['blocked: e^(−∞) = 0, so the weight is 0']);
    expect(weightLines(causal, result, 1, 0)[1]).toMatch(/; 3 blocked keys add e\^\(−∞\) = 0$/u);
    const hot = {
      ...worked(),
      x: [
        [30, 0],
        [0, 30],
      ],
    };
    expect(weightLines(hot, run(hot), 0, 0).slice(1)).toEqual([
      'e^(636.40−636.40) / (e^(636.40−636.40) + e^(0.00−636.40))',
      '= 1 / 1 = 1.000000',
    ]);
  });

  it('is what the score and weight cells’ tooltips add, by mouse or keyboard alike', () => {
    const state = worked();
    const result = run(state);
    expect(cellTooltip(state, result, 'rawScores', 0, 0, 1).slice(2)).toEqual(scoreTermLines(state, result, 0, 0));
    expect(cellTooltip(state, result, 'weights', 0, 1, 0.33).slice(2)).toEqual(weightLines(state, result, 0, 1));
    expect(cellTooltip(state, result, 'heatmap', 0, 1, 0.33).slice(2)).toEqual(weightLines(state, result, 0, 1));
    expect(cellTooltip(state, null, 'weights', 0, 1, 0.33)).toHaveLength(2);
  });
});
