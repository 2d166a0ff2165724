// An instrument's numbers as text to paste: CSV with a header, JSON objects, NumPy with the names in comments
// (web/src/shared/instruments/table.js), each read back here.
import { describe, expect, it } from 'vitest';
import { exportTable, exportTables, gridTable, tokenColumns } from '../../../../../web/src/shared/instruments/table.js';

const table = {
  title: 'loss',
  labelName: 'prediction',
  columns: ['loss', 'p'],
  rows: [
    { label: 'the → cat, "big"', values: [0.1, 0.5] },
    { label: 'cat → sat', values: [NaN, 0.25] },
  ],
};

describe('instrument tables', () => {
  it('writes CSV with a header, quoting a label that needs it, NaN as empty', () => {
    expect(exportTable(table, 'csv')).toBe('prediction,loss,p\n"the → cat, ""big""",0.1,0.5\ncat → sat,,0.25\n');
  });

  it('writes JSON that parses back to one object per row (NaN as null)', () => {
    expect(JSON.parse(exportTable(table, 'json'))).toEqual([
      { prediction: 'the → cat, "big"', loss: 0.1, p: 0.5 },
      { prediction: 'cat → sat', loss: null, p: 0.25 },
    ]);
  });

  it('writes NumPy: the numbers in one float32 array, the names in comments', () => {
    const text = exportTable(table, 'numpy');
    expect(text).toMatch(
      /^# loss\n# columns: "loss", "p"\n# rows \(prediction\): "the → cat, \\"big\\"", "cat → sat"\n# not computed: 0\n/u,
    );
    expect(text).toMatch(/np\.array\(\[\[0\.1, 0\.5\],\n {10}\[0, 0\.25\]\], dtype=np\.float32\)\n$/u);
  });

  it('cuts a grid into rows, names columns by position and token, and joins several tables', () => {
    const grid = gridTable('g', 'layer', ['L0', 'L1'], ['0 a', '1 b'], [1, 2, 3, 4]);
    expect(grid.rows).toEqual([
      { label: 'L0', values: [1, 2] },
      { label: 'L1', values: [3, 4] },
    ]);
    expect(tokenColumns(['a', 'b'])).toEqual(['0 a', '1 b']);
    const both = JSON.parse(exportTables([grid, { ...grid, title: 'h' }], 'json'));
    expect(Object.keys(both)).toEqual(['g', 'h']);
    expect(exportTables([grid, { ...grid, title: 'h' }], 'csv')).toBe(
      '# g\nlayer,0 a,1 b\nL0,1,2\nL1,3,4\n\n# h\nlayer,0 a,1 b\nL0,1,2\nL1,3,4\n',
    );
    expect(() => exportTable(grid, 'xml')).toThrow(/unknown format/u);
  });
});
