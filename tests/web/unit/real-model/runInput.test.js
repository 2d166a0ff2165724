// What the real model runs on, without the page: the text, or ids typed (no tokenizer.json) with BERT's [MASK] as the
// id given for it, and a token clicked masked.
import { describe, expect, it } from 'vitest';
import { knownMaskId, runInput, typedIds } from '../../../../web/src/real-model/run/runInput.js';

describe('real model: the input of a run', () => {
  it('reads ids typed, [MASK] as the id given (left out while unknown)', () => {
    expect(typedIds('12, 7 [MASK] 3 [mask]', 4)).toEqual([12, 7, 4, 3, 4]);
    expect(typedIds('12 [MASK] 3', -1)).toEqual([12, 3]);
    expect(typedIds('no ids', 4)).toEqual([]);
    expect(knownMaskId(30522)).toBe(103);
    expect(knownMaskId(28996)).toBe(103);
    expect(knownMaskId(19)).toBe(-1);
  });

  it('runs the text, the ids typed, or the last ids with a token masked', () => {
    const text = { hasTokenizer: true };
    const ids = { hasTokenizer: false };
    expect(runInput('the cat', text, { masked: -1, lastIds: [1, 2] }, 5)).toEqual({ input: 'the cat', key: 'the cat' });
    expect(runInput('1 [MASK] 3', ids, { masked: -1, lastIds: null }, 4)).toEqual({
      input: { ids: [1, 4, 3] },
      key: '1 [MASK] 3|4',
    });
    expect(runInput('1 2 3', ids, { masked: 0, lastIds: [1, 2, 3] }, 4).input).toEqual({ ids: [4, 2, 3] });
    expect(runInput('the cat', text, { masked: 1, lastIds: [7, 8] }, 5)).toEqual({
      input: { ids: [7, 5] },
      key: 'the cat|1|5',
    });
    // No [MASK] id known: a click masks nothing.
    expect(runInput('1 2', ids, { masked: 1, lastIds: [1, 2] }, -1).input).toEqual({ ids: [1, 2] });
  });
});
