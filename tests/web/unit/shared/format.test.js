import { describe, expect, it } from 'vitest';
import { exportMatrix, float32Text, formatMs, formatShape, formatValue } from '../../../../web/src/shared/format.js';
import { parseMatrix } from '../../../../web/src/shared/parse.js';
import { shortLabel, tokenLabels, tokenize } from '../../../../web/src/shared/tokens.js';

describe('formatValue', () => {
  it('uses the precision, writes −∞ and never "-0.000"', () => {
    expect(formatValue(1.23456, 3)).toBe('1.235');
    expect(formatValue(-0.0001, 3)).toBe('0.000');
    expect(formatValue(-0, 0)).toBe('0');
    expect(formatValue(-Infinity, 3)).toBe('-∞');
    expect(formatValue(NaN, 2)).toBe('NaN');
    expect(formatValue(2.3395228385925293, 6)).toBe('2.339523');
  });

  it('formats durations', () => {
    expect(formatMs(0.123)).toBe('0.12 ms');
    expect(formatMs(4.56)).toBe('4.6 ms');
    expect(formatMs(45.6)).toBe('46 ms');
  });
});

describe('float32Text', () => {
  it('writes the shortest text that reads back as the same float32', () => {
    expect(float32Text(Math.fround(0.1))).toBe('0.1');
    expect(float32Text(Math.fround(1.6604769229888916))).toBe('1.6604769');
    expect(float32Text(1e-7)).toBe('1e-7');
    for (const v of [Math.PI, -2.5e-20, 3.4e38, 123456.789])
      expect(Math.fround(Number(float32Text(v)))).toBe(Math.fround(v));
  });
});

describe('exportMatrix', () => {
  const rows = [
    [Math.fround(0.1), -2],
    [-Infinity, 3.5],
  ];

  it('writes NumPy with aligned rows and -np.inf', () => {
    expect(exportMatrix(rows, 'numpy')).toBe('np.array([[0.1, -2],\n          [-np.inf, 3.5]], dtype=np.float32)\n');
  });

  it("writes JSON with -1e999 for −∞: valid JSON that JSON.parse (and Python's json) read back as −∞", () => {
    const text = exportMatrix(rows, 'json');
    expect(text).toContain('[-1e999, 3.5]');
    expect(JSON.parse(text)).toEqual([
      [0.1, -2],
      [-Infinity, 3.5],
    ]);
    expect(JSON.parse(exportMatrix([[Infinity]], 'json'))).toEqual([[Infinity]]);
  });

  it('writes CSV with -inf', () => {
    expect(exportMatrix(rows, 'csv')).toBe('0.1,-2\n-inf,3.5\n');
  });

  it('what it writes (finite values) reads back with parseMatrix', () => {
    const m = [
      [1.5, -0.25, 1e-5],
      [3, 4, 5],
    ];
    for (const format of ['numpy', 'json', 'csv']) {
      const text = exportMatrix(m, format).replace(/^np\.array\(|, dtype=np\.float32\)\n$/gu, '');
      expect(parseMatrix(text)).toEqual(m);
    }
  });

  it('rejects unknown formats', () => {
    expect(() => exportMatrix(rows, 'xml')).toThrow(/unknown format/);
  });

  it('formatShape writes [rows, cols]', () => {
    expect(formatShape([5, 4])).toBe('[5, 4]');
  });
});

describe('tokens', () => {
  it('splits at whitespace and keeps punctuation with its word', () => {
    expect(tokenize('  time flies\tlike an\narrow. ')).toEqual(['time', 'flies', 'like', 'an', 'arrow.']);
    expect(tokenize('<img src=x onerror=alert(1)>')).toEqual(['<img', 'src=x', 'onerror=alert(1)>']);
    expect(tokenize('   ')).toEqual([]);
  });

  it('labels extra positions #n', () => {
    expect(tokenLabels(['a', 'b'], 4)).toEqual(['a', 'b', '#3', '#4']);
    expect(tokenLabels(['a', 'b', 'c'], 2)).toEqual(['a', 'b']);
  });

  it('shortens long labels by characters, emoji included', () => {
    expect(shortLabel('extraordinarily', 8)).toBe('extraor…');
    expect(shortLabel('🙂🙂🙂🙂', 3)).toBe('🙂🙂…');
    expect(shortLabel('short', 8)).toBe('short');
  });
});
