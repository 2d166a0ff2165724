// Typed cells, pasted matrices and mask clicks: the state they make, or the message that refuses them.
import { describe, expect, it } from 'vitest';
import { pastedMatrix, sizesOf, toggledMask, typedCell } from '../../../../web/src/shared/cellEdits.js';
import { currentMatrix } from '../../../../web/src/shared/matrices.js';
import { defaultState, withSizes } from '../../../../web/src/shared/state.js';

describe('typedCell', () => {
  it('puts the number into X at the cell', () => {
    const { state } = typedCell(defaultState(), 'x', 1, 2, '0.5');
    expect(state.x[1][2]).toBe(0.5);
    expect(state.x[0]).toEqual(currentMatrix(defaultState(), 'x')[0]);
  });

  it('writes into the shown head’s block of columns, and into W_q while W_k = W_q', () => {
    const base = { ...withSizes(defaultState(), { ...sizesOf(defaultState()), numHeads: 2 }), head: 1 };
    expect(typedCell(base, 'wv', 0, 1, '7').state.wv[0][5]).toBe(7);
    const shared = { ...base, shareQK: true };
    const { state } = typedCell(shared, 'wk', 2, 3, '-1e-3');
    expect(state.wq[2][7]).toBe(-0.001);
    expect(state.wk).toBeNull();
  });

  it('refuses text that is not a number, naming the cell and cutting long text', () => {
    expect(typedCell(defaultState(), 'x', 1, 2, 'abc')).toEqual({
      error:
        'X, row “flies”, column 2: “abc” is not a number. The last good value is still used; type a number like 0.5 or -1e-3, or press Escape.',
    });
    expect(typedCell(defaultState(), 'wq', 3, 0, 'x'.repeat(30)).error).toMatch(
      /^W_q, row 3, column 0: “x{20}…” is not a number\./u,
    );
  });

  it('refuses numbers beyond a million', () => {
    expect(typedCell(defaultState(), 'wv', 0, 0, '2e6')).toEqual({
      error: 'W_v, row 0, column 0: 2e6 is too large; use numbers from -1000000 to 1000000.',
    });
    expect(typedCell(defaultState(), 'wv', 0, 0, '-1000000').state.wv[0][0]).toBe(-1e6);
  });
});

describe('pastedMatrix', () => {
  it('a pasted X sets n and d_model', () => {
    const paste = pastedMatrix(defaultState(), 'x', '1 2 3\n4 5 6');
    expect(paste.message).toBe('Pasted a 2×3 matrix into X.');
    expect(paste.state).toMatchObject({
      n: 2,
      dModel: 3,
      x: [
        [1, 2, 3],
        [4, 5, 6],
      ],
    });
  });

  it('a pasted W sets d_k or d_v per head', () => {
    const rows = Array.from({ length: 8 }, () => '1 2 3 4 5 6').join('\n');
    const heads = withSizes(defaultState(), { ...sizesOf(defaultState()), numHeads: 2 });
    expect(pastedMatrix(heads, 'wv', rows).state).toMatchObject({ dV: 3, numHeads: 2 });
    expect(pastedMatrix(heads, 'wk', rows).state).toMatchObject({ dK: 3 });
  });

  it('refuses a W with the wrong number of rows, or columns the heads cannot share', () => {
    expect(pastedMatrix(defaultState(), 'wq', '1 2\n3 4').error).toBe(
      'W_q needs d_model = 8 rows (one per embedding dimension), but this matrix has 2. Change d_model, or paste X first. Nothing was changed.',
    );
    const heads = withSizes(defaultState(), { ...sizesOf(defaultState()), numHeads: 2 });
    expect(pastedMatrix(heads, 'wv', Array.from({ length: 8 }, () => '1 2 3').join('\n')).error).toBe(
      'W_v has 3 columns, which 2 heads cannot share equally. Nothing was changed.',
    );
  });

  it('refuses text that does not parse, huge numbers and sizes over the limits', () => {
    expect(pastedMatrix(defaultState(), 'x', '').error).toMatch(/\. Nothing was changed\.$/u);
    expect(pastedMatrix(defaultState(), 'x', '1 2e7').error).toBe(
      '20000000 is too large; use numbers from -1000000 to 1000000. Nothing was changed.',
    );
    const wide = Array.from({ length: 1025 }, () => '1').join(' ');
    expect(pastedMatrix(defaultState(), 'x', wide).error).toMatch(
      /^This 1×1025 matrix does not fit: .*d_model.*\. Nothing was changed\.$/u,
    );
  });
});

describe('toggledMask', () => {
  it('blocks a cell, and clicking it again allows everything (no mask)', () => {
    const once = toggledMask(defaultState(), 2, 0).state;
    expect(once.mask[2]).toEqual([false, true, true, true, true]);
    expect(once.mask.flat().filter((allowed) => !allowed)).toHaveLength(1);
    expect(toggledMask(once, 2, 0).state.mask).toBeNull();
  });

  it('refuses a cell the causal mask blocks', () => {
    expect(toggledMask({ ...defaultState(), causal: true }, 0, 4)).toEqual({
      error:
        'Query “time” cannot see key “arrow” because of the causal mask (it comes later). Switch “Causal mask” off to change this cell.',
    });
  });
});
