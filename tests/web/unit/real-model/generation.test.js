// Generation on the real model, without the page (web/src/real-model/tools/generate/generation.js): the settings read from a form or a
// link and kept in range, the link written and read back, generate()'s options, and a step's row against the cache.
import { describe, expect, it } from 'vitest';
import {
  GENERATE_DEFAULTS,
  generateOptions,
  readGenerateLink,
  readSettings,
  stepRow,
  writeGenerateLink,
} from '../../../../web/src/real-model/tools/generate/generation.js';
import { readModelLink } from '../../../../web/src/real-model/realModel.js';

const SAMPLED = { maxNewTokens: 6, temperature: 1.2, topK: 20, topP: 0.9, seed: 7 };

describe('generation settings', () => {
  it('reads a form’s strings, and keeps each setting in range or at its default', () => {
    expect(readSettings({ maxNewTokens: '6', temperature: '1.2', topK: '20', topP: '0.9', seed: '7' })).toEqual(
      SAMPLED,
    );
    expect(readSettings({})).toEqual(GENERATE_DEFAULTS);
    const bad = readSettings({ maxNewTokens: '0', temperature: '-1', topK: '2.5', topP: '0', seed: String(2 ** 32) });
    expect(bad).toEqual(GENERATE_DEFAULTS);
    expect(readSettings({ maxNewTokens: '1e9', temperature: 'x', topP: '1.5', seed: ' ' })).toEqual(GENERATE_DEFAULTS);
  });

  it('a link holds the settings and keeps the page’s other parameters; readModelLink carries them', () => {
    const search = writeGenerateLink('?model=builtin&text=a%20b', SAMPLED);
    expect(new URLSearchParams(search).get('model')).toBe('builtin');
    expect(readGenerateLink(search)).toEqual(SAMPLED);
    expect(readModelLink(search).generate).toEqual(SAMPLED);
    expect(readModelLink('?model=builtin').generate).toBeUndefined();
    expect(writeGenerateLink(search, null)).toBe('?model=builtin&text=a+b');
  });

  it('generate()’s options: top-k 0 is left out; the alternatives and the signal are passed', () => {
    const signal = new AbortController().signal;
    expect(generateOptions(GENERATE_DEFAULTS, signal)).toEqual({
      maxNewTokens: 8,
      temperature: 0,
      topP: 1,
      seed: 0,
      next: 5,
      signal,
    });
    expect(generateOptions(SAMPLED, signal).topK).toBe(20);
    expect(generateOptions(GENERATE_DEFAULTS, signal, [[1, 2]]).ablate).toEqual([[1, 2]]); // the heads switched off
    expect(generateOptions(GENERATE_DEFAULTS, signal, [])).not.toHaveProperty('ablate');
  });
});

describe('a step’s row against the KV cache', () => {
  const attentions = (n) => [{ shape: [2, 1, n], data: Float32Array.from({ length: 2 * n }, (_, i) => i / 10) }];
  it('the prefill computes every key; a later step reads all but the newest from the cache', () => {
    expect(stepRow({ step: 0, attentions: attentions(3) }, 0, 1)).toEqual({
      weights: [0.30000001192092896, 0.4000000059604645, 0.5],
      fresh: [true, true, true],
      query: 2,
    });
    expect(stepRow({ step: 2, attentions: attentions(3) }, 0, 0).fresh).toEqual([false, false, true]);
  });
});
