// Pins every generated number bit for bit: permalinks hold seeds, not numbers, so a faster generator must give
// exactly the values the first one gave. Each digest is FNV-1a over the float64 bits of all values it covers,
// computed with the original per-cell code (rng.js before the per-matrix/per-row hoisting).
import { describe, expect, it } from 'vitest';
import { generatedMatrix, INPUT_NAMES } from '../../../../web/src/shared/matrices.js';
import { embeddingRow, shuffleOrder } from '../../../../web/src/shared/positions.js';
import { cellValue, MAX_SEED, randomMatrix } from '../../../../web/src/shared/rng.js';
import { defaultState } from '../../../../web/src/shared/state.js';

function digest(values) {
  const bits = new Uint32Array(Float64Array.from(values).buffer);
  let h = 0x811c9dc5;
  for (const word of bits) {
    h ^= word;
    h = Math.imul(h, 0x01000193);
  }
  return [(h >>> 0).toString(16), values.length];
}

const SEEDS = [0, 1, 42, 12345, 0x9e3779b9, MAX_SEED];
const SHAPES = [
  [1, 1],
  [3, 7],
  [17, 64],
  [64, 5],
];
const DISTS = ['normal', 'uniform'];
const headKey = (c) => Math.floor(c / 6) * 64 + (c % 6);

describe('generated numbers stay bit-identical (permalinks hold seeds)', () => {
  it('raw cell values', () => {
    const values = [];
    for (const seed of SEEDS)
      for (const dist of DISTS)
        for (const stream of ['x', 'wq', 'embedding:time', ''])
          for (let i = 0; i < 9; i++) for (let j = 0; j < 70; j += 3) values.push(cellValue(seed, stream, i, j, dist));
    expect(digest(values)).toEqual(PINS.cells);
  });

  it('random matrices over seeds × shapes × distributions × std, decimals and column keys', () => {
    const values = [];
    for (const seed of SEEDS)
      for (const dist of DISTS)
        for (const [rows, cols] of SHAPES)
          for (const extra of [
            {},
            { std: 1 / Math.sqrt(768), decimals: 2 },
            { std: 0.5, decimals: 3 },
            { colKey: headKey },
          ])
            values.push(...randomMatrix({ seed, stream: 'wk', rows, cols, dist, ...extra }).flat());
    expect(digest(values)).toEqual(PINS.matrices);
  });

  it('embedding rows and shuffles', () => {
    const values = [];
    for (const seed of SEEDS)
      for (const dist of DISTS)
        for (const token of ['time', 'flies', '', 'é']) values.push(...embeddingRow(seed, dist, token, 37));
    for (const seed of SEEDS) for (let k = 0; k < 3; k++) values.push(...shuffleOrder(11, k, seed));
    expect(digest(values)).toEqual(PINS.positions);
  });

  it.each(DISTS)(
    'the input matrices of a GPT-2-size state (n 64, d_model 768, 12 heads), %s',
    (dist) => {
      const values = [];
      for (const [seed, embed] of [
        [42, 'token'],
        [7, 'row'],
      ]) {
        const state = { ...defaultState(), n: 64, dModel: 768, dK: 64, dV: 64, numHeads: 12, seed, dist, embed };
        for (const name of INPUT_NAMES) for (const row of generatedMatrix(state, name)) values.push(...row);
      }
      expect(digest(values)).toEqual(PINS[dist]);
    },
    60_000,
  ); // 4.8 M numbers: slow only on a busy machine
});

const PINS = {
  cells: ['debf4fae', 10368],
  matrices: ['213b6fb5', 68640],
  positions: ['b6282e5a', 1974],
  normal: ['9aa0dc6d', 4816896],
  uniform: ['e624d7e9', 4816896],
};
