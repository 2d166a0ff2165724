import { describe, expect, it } from 'vitest';
import { MatrixParseError, parseMatrix, parseNumber } from '../../../../web/src/shared/parse.js';

const fails = (text, pattern) => {
  let error;
  try {
    parseMatrix(text);
  } catch (e) {
    error = e;
  }
  expect(error).toBeInstanceOf(MatrixParseError);
  expect(error.message).toMatch(pattern);
  return error;
};

describe('parseNumber', () => {
  it.each([
    ['1', 1],
    ['-0.5', -0.5],
    ['.5', 0.5],
    ['2.', 2],
    ['+3', 3],
    ['1e-3', 0.001],
    ['-1.5E+02', -150],
    ['  7  ', 7],
    ['\u22120.25', -0.25],
  ])('reads %j', (text, value) => expect(parseNumber(text)).toBe(value));

  it.each(['', 'abc', '1,5', '1e', 'e5', '--1', 'NaN', 'inf', '-Infinity', '0x10', '1e999', '1 2', '.'])(
    'rejects %j',
    (text) => expect(parseNumber(text)).toBeNull(),
  );
});

describe('parseMatrix: NumPy and PyTorch print-outs', () => {
  it('reads the print-out of the issue, with its newline', () => {
    expect(parseMatrix('[[0.1 0.2]\n [0.3 0.4]]')).toEqual([
      [0.1, 0.2],
      [0.3, 0.4],
    ]);
  });

  it('reads array(…, dtype=float32) with trailing dots', () => {
    expect(parseMatrix('array([[1., 2.],\n       [3., 4.]], dtype=float32)')).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });

  it('reads scientific notation as NumPy prints it', () => {
    const text = '[[ 1.2345e-03 -4.5000e+02  6.0000e+00]\n [ 3.0000e+00  7.1000e-01 -2.0000e-05]]';
    expect(parseMatrix(text)).toEqual([
      [0.0012345, -450, 6],
      [3, 0.71, -0.00002],
    ]);
  });

  it('reads np.array(...) and tensor(...) with keyword arguments', () => {
    expect(parseMatrix('np.array([[1, 2], [3, 4]])')).toEqual([
      [1, 2],
      [3, 4],
    ]);
    expect(parseMatrix('tensor([[0.5000, -1.2500],\n        [2.0000,  0.0000]], requires_grad=True)')).toEqual([
      [0.5, -1.25],
      [2, 0],
    ]);
  });

  it('reads a print-out whose long rows wrap onto several lines', () => {
    const text = '[[ 0.1  0.2  0.3\n   0.4]\n [ 0.5  0.6  0.7\n   0.8]]';
    expect(parseMatrix(text)).toEqual([
      [0.1, 0.2, 0.3, 0.4],
      [0.5, 0.6, 0.7, 0.8],
    ]);
  });

  it('makes a single bracketed row a 1×m matrix', () => {
    expect(parseMatrix('[1 2 3]')).toEqual([[1, 2, 3]]);
  });

  it('explains a shortened print-out', () => {
    fails('[[0.1 0.2 ... 0.9]\n [0.3 0.4 ... 0.8]]', /shortened.*threshold/);
  });
});

describe('parseMatrix: JSON, CSV, TSV and whitespace', () => {
  it('reads JSON', () => {
    expect(parseMatrix('[[1, 2.5], [-3, 4e2]]')).toEqual([
      [1, 2.5],
      [-3, 400],
    ]);
  });

  it('reads CSV with blank lines, CRLF and a trailing comma', () => {
    expect(parseMatrix('1,2,3,\r\n\r\n4,5,6,\r\n')).toEqual([
      [1, 2, 3],
      [4, 5, 6],
    ]);
  });

  it('reads TSV copied from a spreadsheet', () => {
    expect(parseMatrix('0.1\t-0.2\n0.3\t0.4')).toEqual([
      [0.1, -0.2],
      [0.3, 0.4],
    ]);
  });

  it('reads whitespace-separated values with uneven spacing', () => {
    expect(parseMatrix('  1   2\n3 4  ')).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });

  it('reads semicolon-separated values and skips # comments', () => {
    expect(parseMatrix('# weights\n1;2\n3;4')).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });

  it('reads a single number as a 1×1 matrix', () => {
    expect(parseMatrix('42')).toEqual([[42]]);
  });
});

describe('parseMatrix: errors name the place', () => {
  it('rejects ragged bracketed rows, naming the row', () => {
    fails('[[1, 2, 3], [4, 5]]', /row 2 has 2 values but row 1 has 3/);
  });

  it('rejects ragged lines, naming the line', () => {
    const error = fails('1 2 3\n4 5 6\n\n7 8', /line 4 has 2 values but line 1 has 3/);
    expect(error.message).toContain('line 4');
  });

  it('names the line and column of a word among numbers', () => {
    const error = fails('1, 2\n3, abc', /line 2, column 2: “abc” is not a number/);
    expect(error.line).toBe(2);
    expect(error.column).toBe(2);
  });

  it('names the position inside a bracketed print-out', () => {
    fails('[[1 2]\n [3 x]]', /line 2, column 5: “x” is not a number/);
  });

  it('rejects inf and nan', () => {
    fails('[[1, inf]]', /not finite/);
    fails('1 nan', /not finite/);
  });

  it('rejects numbers beyond double range', () => {
    fails('1e999', /too large/);
  });

  it('rejects empty input', () => {
    fails('   \n  ', /nothing to read/);
  });

  it('rejects 3-D arrays', () => {
    fails('[[[1, 2]], [[3, 4]]]', /3-D/);
  });

  it('rejects unclosed and stray brackets', () => {
    fails('[[1, 2], [3, 4]', /not closed/);
    fails('[[1, 2]] 5', /after the closing bracket/);
    fails('1 2 ]', /bracket/);
    fails('[]', /empty/);
  });

  it('rejects a header line', () => {
    fails('a,b\n1,2', /line 1, column 1: “a” is not a number/);
  });

  it('rejects text that is not text', () => {
    expect(() => parseMatrix(undefined)).toThrow(MatrixParseError);
  });

  it('cuts long bad tokens in messages', () => {
    const error = fails(`1 ${'y'.repeat(500)}`, /…/);
    expect(error.message.length).toBeLessThan(120);
  });
});
