// Tokens, then positions: the embedding table, the sinusoidal encodings, old links, and the word-order demo.
import { beforeAll, describe, expect, it } from 'vitest';
import { createAttention } from '../../../../src/js/index.js';
import { EXAMPLES } from '../../../../web/src/shared/examples.js';
import { attentionCall } from '../../../../web/src/shared/inputs.js';
import { currentMatrix } from '../../../../web/src/shared/matrices.js';
import { shuffleOrder, sinusoidalPositions } from '../../../../web/src/shared/positions.js';
import { randomMatrix } from '../../../../web/src/shared/rng.js';
import { decodeState, encodeState } from '../../../../web/src/shared/link.js';
import { defaultState } from '../../../../web/src/shared/state.js';
import { wordOrderDemo, wordOrderText } from '../../../../web/src/lessons/word-order/wordOrder.js';

let attn;
beforeAll(async () => {
  attn = await createAttention();
});

const causal = () => EXAMPLES.find((e) => e.id === 'causal').state();

describe('X = E[token]', () => {
  it('gives the same token the same row, and other text other numbers', () => {
    const x = currentMatrix(causal(), 'x'); // the cat sat on the mat
    expect(x[4]).toEqual(x[0]);
    expect(x[1]).not.toEqual(x[0]);
    const japanese = currentMatrix({ ...defaultState(), sentence: '時 は 矢 の よう' }, 'x');
    expect(japanese[0]).not.toEqual(currentMatrix(defaultState(), 'x')[0]);
    const moved = currentMatrix({ ...defaultState(), sentence: 'arrow an like flies time' }, 'x');
    expect(moved[0]).toEqual(currentMatrix(defaultState(), 'x')[4]);
  });

  it('a version 1 link opens as before: X by row number, the rest unchanged', () => {
    const { state, warnings } = decodeState('#v=1&s=the+cat+sat+on+the+mat&n=6&seed=7');
    expect(warnings).toEqual([]);
    expect(state.embed).toBe('row');
    const before = randomMatrix({ seed: 7, stream: 'x', rows: 6, cols: 8, dist: 'normal', std: 1 });
    expect(currentMatrix(state, 'x')).toEqual(before);
    expect(decodeState(`#${encodeState(defaultState())}`).state.embed).toBe('token');
  });
});

describe('sinusoidal positions', () => {
  it('follow sin(pos / 10000^(2i/d)) and cos for the odd dimensions', () => {
    const p = sinusoidalPositions(6, 8);
    expect(p[0]).toEqual([0, 1, 0, 1, 0, 1, 0, 1]);
    expect(p[3][4]).toBeCloseTo(Math.sin(3 / 100), 15); // 10000^(4/8) = 100
    expect(p[5][5]).toBeCloseTo(Math.cos(5 / 100), 15);
    expect(p[2][1]).toBeCloseTo(Math.cos(2), 15);
  });

  it('are added to X in the library call when on, and are in the link', () => {
    const state = { ...defaultState(), positions: true };
    const x = currentMatrix(state, 'x');
    const { data } = attentionCall(state).x;
    expect(data[1 * 8 + 0]).toBeCloseTo(x[1][0] + Math.sin(1), 12);
    expect(Array.from(attentionCall(defaultState()).x.data)).toEqual(x.flat());
    const back = decodeState(`#${encodeState({ ...state, shuffle: 3 })}`);
    expect(back.state).toMatchObject({ positions: true, shuffle: 3 });
    expect(decodeState('#pos=2&shuf=0').warnings).toHaveLength(2);
  });
});

describe('the word-order demo', () => {
  it('shuffles into a permutation that is not the identity', () => {
    for (const n of [2, 3, 6, 64]) {
      for (const k of [1, 2, 3]) {
        const perm = shuffleOrder(n, k, 42);
        expect([...perm].sort((a, b) => a - b)).toEqual(Array.from({ length: n }, (_, i) => i));
        expect(perm.some((p, i) => p !== i)).toBe(true);
      }
    }
  });

  it('without positions each output only moves with its token; with them the outputs change', () => {
    const state = EXAMPLES.find((e) => e.id === 'order').state();
    const demo = wordOrderDemo(attn, state);
    const [without, withPositions] = demo.cases;
    expect(without.largest).toBeLessThan(1e-5);
    expect(withPositions.largest).toBeGreaterThan(0.05);
    expect(demo.labels).toEqual(demo.perm.map((p) => ['the', 'cat', 'sat', 'on', 'the', 'mat'][p]));
    expect(wordOrderText(state, demo)).toMatch(
      /^Shuffled: “[a-z ]+”\. Without positions, each token's output only moves with its token: the largest change is \d\.\de-\d+, float32 rounding/u,
    );
    expect(wordOrderText({ ...state, causal: true }, demo)).toContain('The demo leaves out the mask');
  });
});
