// Grouped-query attention: the groups, the shared K and V, the memory counted, and the message for bad kv heads.
import { beforeAll, describe, expect, it } from 'vitest';
import { createAttention } from '../../../../src/js/index.js';
import { EXAMPLES, activeExample } from '../../../../web/src/shared/examples.js';
import { KNOWN_MODELS, cacheBytesPerToken, divisorsOf, gqaStep, gqaText } from '../../../../web/src/lessons/gqa/gqa.js';
import { decodeState, encodeState } from '../../../../web/src/shared/link.js';
import { LIMITS } from '../../../../web/src/shared/state.js';

let attn;
beforeAll(async () => {
  attn = await createAttention();
});

const gqa = () => EXAMPLES.find((e) => e.id === 'gqa').state();

describe('gqaStep', () => {
  it('gives heads 1-2 and 3-4 one K and V each; a head keeps its own weights', () => {
    const step = gqaStep(attn, gqa());
    expect(step.group).toEqual([0, 0, 1, 1]);
    expect(step.result.k.shape).toEqual([2, 5, 4]);
    expect(step.result.weights.shape).toEqual([4, 5, 5]);
    // Head 3 uses kv head 2: the same as full multi-head attention's head 2 keys, since W_k keeps its first blocks.
    const full = gqaStep(attn, { ...gqa(), kvHeads: null });
    expect(full.kvHeads).toBe(4);
    expect(Array.from(step.result.k.data.subarray(20, 40))).toEqual(Array.from(full.result.k.data.subarray(20, 40)));
    // Head 1 is unchanged (kv head 1 is its own); head 2 now uses head 1's keys, so its weights change.
    expect(step.result.weights.data.subarray(0, 25)).toEqual(full.result.weights.data.subarray(0, 25));
    expect(step.result.weights.data.subarray(25, 50)).not.toEqual(full.result.weights.data.subarray(25, 50));
    expect(step.memory).toEqual({ perToken: 16, perTokenFull: 32, total: 80, totalFull: 160, saving: 0.5 });
  });

  it('says what to change when kv heads does not divide heads, and names multi-query and multi-head', () => {
    expect(gqaStep(attn, { ...gqa(), kvHeads: 3 }).error).toBe(
      'kv heads = 3 does not divide heads = 4: each group must have the same number of query heads. Use one of 1, 2, 4, or change heads in the settings. Until then, every step computes ordinary multi-head attention (a K and V per head).',
    );
    expect(gqaStep(attn, { ...gqa(), kvHeads: 8 }).error).toMatch(/kv heads = 8 does not divide heads = 4/);
    expect(divisorsOf(12)).toEqual([1, 2, 3, 4, 6, 12]);
    expect(gqaText(gqa(), gqaStep(attn, { ...gqa(), kvHeads: 1 }))).toMatch(/^With one kv head, all 4 query heads/);
    expect(gqaText(gqa(), gqaStep(attn, { ...gqa(), kvHeads: null }))).toMatch(/ordinary multi-head attention/);
    expect(gqaText(gqa(), gqaStep(attn, gqa()))).toContain('= 80 numbers (320 bytes in float32) instead of');
  });

  it('counts the known models’ caches: 320 KiB against 2.5 MiB per token for LLaMA 2 70B', () => {
    expect(KNOWN_MODELS.map((m) => [cacheBytesPerToken(m), cacheBytesPerToken(m, m.heads)])).toEqual([
      [327680, 2621440],
      [131072, 524288],
    ]);
  });

  it('is in the link (a kv heads that does not divide is kept for the lesson to explain) and a named example', () => {
    const state = gqa();
    expect(encodeState(state)).toContain('&kvh=2');
    expect(activeExample(decodeState(`#${encodeState(state)}`).state)?.id).toBe('gqa');
    expect(decodeState('#h=4&dm=16&kvh=3').state.kvHeads).toBe(3);
    expect(decodeState('#kvh=0').warnings).toEqual([`kvh=0 is not a number of kv heads from 1 to ${LIMITS.numHeads}`]);
    expect(encodeState({ ...state, kvHeads: null })).not.toContain('kvh');
  });
});
