// Matrices made elsewhere (the page's seed-ahead worker) are handed in by key: used only for the state they were
// made for, and their flat copies are the ones the page would make.
import { describe, expect, test } from 'vitest';
import { generatedMatrix, generationKey, prepareGenerated } from '../../../../web/src/shared/matrices.js';
import { adoptFlat, float32Call } from '../../../../web/src/app/attentionCalls.js';
import { flatRows, flatten, tensorOf } from '../../../../web/src/shared/reuse.js';
import { embeddingRow } from '../../../../web/src/shared/positions.js';
import { defaultState } from '../../../../web/src/shared/state.js';

describe('prepared matrices', () => {
  test('flatten gives rows.flat() as a Float64Array', () => {
    const rows = [
      [1.5, -2, 0.25],
      [3, 4e-7, -0],
    ];
    expect(flatten(rows)).toEqual(Float64Array.from(rows.flat()));
    expect(flatten([])).toEqual(new Float64Array(0));
  });

  test('a matrix handed in for a state is what generatedMatrix returns for that state only', () => {
    const state = { ...defaultState(), seed: 777, dModel: 16, numHeads: 2 };
    const made = generatedMatrix(state, 'wq').map((row) => row.slice());
    const own = generatedMatrix({ ...state, seed: 778 }, 'wq').map((row) => row.slice()); // now the cached one
    prepareGenerated('wq', generationKey(state, 'wq'), made);
    expect(generatedMatrix(state, 'wq')).toBe(made);
    // Another seed is not that matrix.
    prepareGenerated('wv', generationKey(state, 'wv'), made);
    expect(generatedMatrix({ ...state, seed: 778 }, 'wv')).not.toBe(made);
    expect(generatedMatrix({ ...state, seed: 778 }, 'wq')).toEqual(own);
  });

  test('a matrix handed in takes the place of the one cached for the same state (the worker hands in fresh arrays)', () => {
    const state = { ...defaultState(), seed: 4242, dModel: 16, numHeads: 2 };
    const cached = generatedMatrix(state, 'wk');
    const copy = cached.map((row) => row.slice());
    prepareGenerated('wk', generationKey(state, 'wk'), copy);
    expect(generatedMatrix(state, 'wk')).toBe(copy);
    expect(generatedMatrix(state, 'wk')).toBe(copy); // and is the cached one from then on
  });

  test('flat copies handed in are the ones the call uses', () => {
    const rows = [
      [0.1, 0.2],
      [0.3, 0.4],
    ];
    const flat = flatten(rows);
    const single = Float32Array.from(flat);
    adoptFlat(rows, flat, single);
    expect(flatRows(rows)).toBe(flat);
    const call = float32Call({ x: tensorOf(rows), weights: {}, options: {} });
    expect(call.x.data).toBe(single);
  });

  test("X after a word typed is each token's embedding row, as made afresh", () => {
    const state = { ...defaultState(), seed: 99, dModel: 32 };
    const before = generatedMatrix(state, 'x');
    const typed = { ...state, sentence: 'time flies like an arrowz' };
    const after = generatedMatrix(typed, 'x');
    expect(after.slice(0, 4)).toEqual(before.slice(0, 4));
    ['time', 'flies', 'like', 'an', 'arrowz'].forEach((token, i) =>
      expect(after[i]).toEqual(embeddingRow(99, 'normal', token, 32)),
    );
    // Another seed or width makes its rows again.
    const other = generatedMatrix({ ...typed, seed: 100 }, 'x');
    expect(other[0]).toEqual(embeddingRow(100, 'normal', 'time', 32));
    expect(other[0]).not.toEqual(after[0]);
  });
});
