// Designed heads: the hand-built X, W_q and W_k, and the check of each head's pattern, through the public API.
import { beforeAll, describe, expect, it } from 'vitest';
import { createAttention } from '../../../../src/js/index.js';
import { designedMatrix } from '../../../../web/src/lessons/designed-heads/designedHeads.js';
import {
  designedPatterns,
  designedSizeNote,
  expectedKeys,
} from '../../../../web/src/lessons/designed-heads/designedLesson.js';
import { EXAMPLES, activeExample } from '../../../../web/src/shared/examples.js';
import { attentionCall } from '../../../../web/src/shared/inputs.js';
import { currentMatrix } from '../../../../web/src/shared/matrices.js';
import { decodeState, encodeState } from '../../../../web/src/shared/link.js';

let attn;
beforeAll(async () => {
  attn = await createAttention();
});

const designed = () => EXAMPLES.find((e) => e.id === 'designed').state();
const run = (state) => {
  const call = attentionCall(state);
  return attn.selfAttention(call.x, call.weights, call.options);
};

describe('designed heads', () => {
  it('builds X from one word column and one position column per token', () => {
    const x = designedMatrix(designed(), 'x');
    expect(x).toHaveLength(8);
    // “the cat saw the dog chase the cat”: words the 0, cat 1, saw 2, dog 3, chase 4; positions in columns 8–15.
    expect(x.map((row) => row.indexOf(1))).toEqual([0, 1, 2, 0, 3, 4, 0, 1]);
    expect(x.map((row) => row.lastIndexOf(1))).toEqual([8, 9, 10, 11, 12, 13, 14, 15]);
    expect(x.flat().reduce((a, b) => a + b)).toBe(16);
  });

  it('gives each head the pattern it is designed for, in every row, with the weight near 1 where there is one key', () => {
    const state = designed();
    const patterns = designedPatterns(state, run(state).weights);
    expect(patterns.map((p) => [p.design.kind, p.holds, p.checked])).toEqual([
      ['previous', 8, 8],
      ['first', 8, 8],
      ['same', 5, 5],
      ['local', 8, 8],
    ]);
    expect(patterns[0].rows.map((r) => r.argmax)).toEqual([0, 0, 1, 2, 3, 4, 5, 6]);
    expect(patterns[1].rows.every((r) => r.argmax === 0 && r.weight > 0.98)).toBe(true);
    expect(patterns[2].rows.map((r) => r.expected)).toEqual([[3, 6], [7], null, [0, 6], null, null, [0, 3], [1]]);
    expect(patterns[3].rows[4].weight).toBeCloseTo(1 / 3, 2);
  });

  it('breaks a pattern when a weight is edited, and names the rows', () => {
    const state = designed();
    const wk = currentMatrix(state, 'wk').map((row) => row.slice());
    wk[11][3] = 0; // head 1: position 3 loses its key
    const patterns = designedPatterns({ ...state, wk }, run({ ...state, wk }).weights);
    expect(patterns[0].holds).toBe(7);
    expect(patterns[0].rows[4].ok).toBe(false);
    expect(patterns[1].holds).toBe(8);
  });

  it('keeps only the keys the causal mask allows', () => {
    const state = { ...designed(), causal: true };
    expect(expectedKeys(state, 'local', 3)).toEqual([2, 3]);
    expect(expectedKeys(state, 'same', 0)).toBeNull();
    expect(expectedKeys(state, 'same', 6)).toEqual([0, 3]);
    expect(designedPatterns(state, run(state).weights).every((p) => p.holds === p.checked)).toBe(true);
  });

  it('is in the link and is a named example; says when the sizes cannot hold the design', () => {
    const state = designed();
    expect(encodeState(state)).toContain('&design=1');
    const { state: back, warnings } = decodeState(`#${encodeState(state)}`);
    expect(warnings).toEqual([]);
    expect(activeExample(back)?.id).toBe('designed');
    expect(designedSizeNote(state)).toBe('');
    expect(designedSizeNote({ ...state, dK: 8 })).toContain('d_k ≥ d_model = 16 (now 8)');
    expect(designedSizeNote({ ...state, dModel: 8 })).toContain('raise d_model to 16');
  });
});
