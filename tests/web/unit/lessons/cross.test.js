// Cross-attention: queries from the sentence, keys and values from the second sentence, through crossAttention.
import { beforeAll, describe, expect, it } from 'vitest';
import { createAttention } from '../../../../src/js/index.js';
import { crossStep, crossText, sourceInput } from '../../../../web/src/lessons/cross-attention/cross.js';
import { EXAMPLES, activeExample } from '../../../../web/src/shared/examples.js';
import { embeddingRow } from '../../../../web/src/shared/positions.js';
import { decodeState, encodeState } from '../../../../web/src/shared/link.js';
import { DEFAULT_SOURCE, defaultState } from '../../../../web/src/shared/state.js';

let attn;
beforeAll(async () => {
  attn = await createAttention();
});

const cross = () => EXAMPLES.find((e) => e.id === 'cross').state();

describe('crossStep', () => {
  it('gives L_q × L_k weights whose rows sum to 1, from the second sentence’s embeddings', () => {
    const step = crossStep(attn, cross());
    expect(step.keys).toEqual(['le', 'chat', 'est', 'assis', 'sur', 'le', 'tapis']);
    expect(step.result.weights.shape).toEqual([1, 6, 7]);
    expect(step.result.output.shape).toEqual([6, 8]);
    const w = step.result.weights.toArray()[0];
    for (const row of w) expect(row.reduce((a, b) => a + b)).toBeCloseTo(1, 6);
    // The two “le” are the same embedding, so every query weighs them the same.
    for (const row of w) expect(row[0]).toBe(row[5]);
    expect(step.context[1]).toEqual(embeddingRow(7, 'normal', 'chat', 8));
    expect(crossText(cross(), step)).toContain('the weights are 6 × 7, not square');
  });

  it('adds positions to the second sentence when they are on, and says so for an empty one', () => {
    const withP = sourceInput({ ...cross(), positions: true });
    expect(withP[0][1]).toBeCloseTo(embeddingRow(7, 'normal', 'le', 8)[1] + 1, 12); // cos(0) = 1
    expect(crossStep(attn, { ...cross(), source: ' \t ' }).error).toMatch(/^The second sentence has no tokens/);
    expect(crossText(cross(), { error: 'x' })).toBe('');
  });

  it('is in the link only when it differs from the default, and is a named example', () => {
    expect(encodeState(defaultState())).not.toContain('src=');
    expect(defaultState().source).toBe(DEFAULT_SOURCE);
    const link = encodeState(cross());
    expect(link).toContain('&src=le+chat+est+assis+sur+le+tapis');
    expect(activeExample(decodeState(`#${link}`).state)?.id).toBe('cross');
    expect(decodeState(`#src=${'a'.repeat(2001)}`).warnings[0]).toMatch(/^src=a+… is longer than 2000 characters/);
  });
});
