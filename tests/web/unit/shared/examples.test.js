// The examples panel: which preset the state still is, and what the panel says once it was edited.
import { describe, expect, it } from 'vitest';
import { EXAMPLES, activeExample, exampleAbout } from '../../../../web/src/shared/examples.js';
import { wrapText } from '../../../../web/src/shared/format.js';

describe('activeExample', () => {
  it('recognizes every preset, also with other decimals or another head followed', () => {
    for (const example of EXAMPLES) {
      expect(activeExample(example.state())?.id).toBe(example.id);
      expect(activeExample({ ...example.state(), precision: 1 })?.id).toBe(example.id);
    }
    const heads = EXAMPLES.find((e) => e.id === 'heads').state();
    expect(activeExample({ ...heads, head: 2 })?.id).toBe('heads');
  });

  it('lets go once the sentence, a number or a setting changes, and the description says so', () => {
    const sentence = EXAMPLES[0].state();
    for (const edited of [
      { ...sentence, sentence: 'time flies like a banana' },
      { ...sentence, causal: true },
      { ...sentence, seed: 1 },
    ]) {
      expect(activeExample(edited)).toBeNull();
      expect(exampleAbout(edited)).toMatch(/^Your own example/u);
    }
    expect(exampleAbout(sentence)).toBe(EXAMPLES[0].about);
  });

  it("the 2×2 text explains float32 against NumPy's float64", () => {
    const about = EXAMPLES.find((e) => e.id === 'worked').about;
    expect(about).toContain('2.3395231');
    expect(about).toContain('float64');
    expect(about).toContain('2.3395228');
  });
});

describe('wrapText', () => {
  const measure = (text) => text.length * 10;
  it('breaks at spaces and keeps every character', () => {
    const text = 'Attention weights, head 1: time flies like an arrow and fruit flies like a banana';
    const lines = wrapText(text, 200, measure);
    expect(lines.every((line) => measure(line) <= 200)).toBe(true);
    expect(lines.join(' ')).toBe(text);
    expect(lines.length).toBeGreaterThan(3);
  });

  it('breaks a word wider than the line inside it', () => {
    expect(wrapText('ab abcdefghij', 40, measure)).toEqual(['ab', 'abcd', 'efgh', 'ij']);
    expect(wrapText('', 40, measure)).toEqual(['']);
  });
});
