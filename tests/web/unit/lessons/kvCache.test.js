// The KV cache step: the new token's row through the cache against full causal attention, and the work counted.
import { beforeAll, describe, expect, it } from 'vitest';
import { createAttention } from '../../../../src/js/index.js';
import { EXAMPLES } from '../../../../web/src/shared/examples.js';
import { kvCacheStep, kvCacheText } from '../../../../web/src/lessons/kv-cache/kvCache.js';
import { defaultState } from '../../../../web/src/shared/state.js';

let attn;
beforeAll(async () => {
  attn = await createAttention();
});

describe('kvCacheStep', () => {
  it('gives the last row of full causal attention bit for bit on the KV cache example, and counts the work', () => {
    const state = EXAMPLES.find((e) => e.id === 'kv').state();
    const step = kvCacheStep(attn, state);
    expect(step.identical).toBe(true);
    expect(step.k.shape).toEqual([2, 6, 4]);
    expect(step.weights.shape).toEqual([2, 1, 6]);
    expect(step.work).toEqual({ withCache: 12, recompute: 72, rowsProjected: 1 });
    expect(kvCacheText(state, step)).toMatch(
      /^The new output row equals the last row of full causal attention over all 6 tokens bit for bit: every one of its 8 float32 numbers/u,
    );
    expect(kvCacheText(state, step)).toContain('12 scores (2 heads × 6 keys)');
    expect(kvCacheText(state, step)).toContain('72 scores (2 × 6 × 6, of which the causal mask keeps 42)');
  });

  it('runs causal whatever the setting, keeps the temperature, and has nothing to cache with one token', () => {
    const state = {
      ...defaultState(),
      causal: false,
      temperature: 2,
      mask: [
        [true, false, true, true, true],
        [true, true, true, true, true],
        [true, true, true, true, true],
        [true, true, true, true, true],
        [true, true, true, true, true],
      ],
    };
    const step = kvCacheStep(attn, state);
    expect(step.identical).toBe(true);
    expect(kvCacheStep(attn, { ...defaultState(), sentence: 'one', n: 1 })).toBeNull();
    expect(kvCacheText(defaultState(), null)).toMatch(/nothing to cache/u);
  });

  it('says by how much the rows differ when the projections round differently at another size', () => {
    const sentence = Array.from({ length: 64 }, (_, i) => `w${i}`).join(' ');
    const state = { ...defaultState(), sentence, n: 64, dModel: 64, dK: 16, dV: 16, numHeads: 4 };
    const step = kvCacheStep(attn, state);
    expect(step.largest).toBeLessThan(1e-5);
    if (!step.identical) expect(kvCacheText(state, step)).toMatch(/differ by at most \d\.\de-\d+/u);
  });
});
