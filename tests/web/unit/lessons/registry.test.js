// The table of lesson steps that the page and the embeddable elements share.
import { readFileSync } from 'node:fs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createAttention } from '../../../../src/js/index.js';
import { EXAMPLES } from '../../../../web/src/shared/examples.js';
import { LESSON_STEPS, lessonStep } from '../../../../web/src/lessons/registry.js';

let attn;
beforeAll(async () => {
  attn = await createAttention();
});

const html = readFileSync(new URL('../../../../web/index.html', import.meta.url), 'utf8');

describe('LESSON_STEPS', () => {
  it('has unique ids, each with a section of the page and a named example', () => {
    const ids = LESSON_STEPS.map((step) => step.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids).toEqual(expect.arrayContaining(['kv-cache', 'cross-attention', 'designed-heads', 'gqa']));
    for (const step of LESSON_STEPS) {
      expect(html).toContain(`id="${step.section}"`);
      expect(EXAMPLES.map((e) => e.id)).toContain(step.example);
    }
  });

  it('computes each step from its example through the API, with its text where it has one', () => {
    for (const step of LESSON_STEPS) {
      const state = EXAMPLES.find((e) => e.id === step.example).state();
      const numbers = step.compute(attn, state);
      expect(numbers, step.id).toBeTypeOf('object');
      expect(numbers.error, step.id).toBeUndefined();
      if (step.text) expect(step.text(state, numbers).length, step.id).toBeGreaterThan(40);
    }
    expect(
      lessonStep('designed-heads').compute(attn, EXAMPLES.find((e) => e.id === 'designed').state()).patterns,
    ).toHaveLength(4);
    expect(lessonStep('nope')).toBeUndefined();
  });
});
