import { describe, expect, it } from 'vitest';
import { cellValue, createRng, hashString, randomMatrix } from '../../../../web/src/shared/rng.js';

const moments = (values) => {
  const mean = values.reduce((a, b) => a + b, 0) / values.length;
  const variance = values.reduce((a, b) => a + (b - mean) ** 2, 0) / values.length;
  return { mean, variance };
};

describe('seeded random numbers', () => {
  it('the same seed gives the same numbers; another seed other numbers', () => {
    const a = randomMatrix({ seed: 42, stream: 'x', rows: 5, cols: 8, dist: 'normal' });
    expect(randomMatrix({ seed: 42, stream: 'x', rows: 5, cols: 8, dist: 'normal' })).toEqual(a);
    expect(randomMatrix({ seed: 43, stream: 'x', rows: 5, cols: 8, dist: 'normal' })).not.toEqual(a);
    expect(randomMatrix({ seed: 42, stream: 'wq', rows: 5, cols: 8, dist: 'normal' })).not.toEqual(a);
  });

  it('pins the default example so permalinks stay valid across versions', () => {
    expect(randomMatrix({ seed: 42, stream: 'x', rows: 1, cols: 4, dist: 'normal' })).toEqual([
      [0.87, -0.68, 1.08, -0.89],
    ]);
    expect(hashString('x')).toBe(0xfd0c5087);
  });

  it('keeps each cell when the matrix grows', () => {
    const small = randomMatrix({ seed: 1, stream: 'x', rows: 3, cols: 2, dist: 'uniform' });
    const big = randomMatrix({ seed: 1, stream: 'x', rows: 6, cols: 5, dist: 'uniform' });
    expect(big.slice(0, 3).map((row) => row.slice(0, 2))).toEqual(small);
  });

  it('rounds to the requested decimals and scales by std', () => {
    const m = randomMatrix({ seed: 3, stream: 'wq', rows: 20, cols: 20, dist: 'normal', std: 0.5, decimals: 2 });
    for (const v of m.flat()) expect(Math.round(v * 100) / 100).toBe(v);
    expect(moments(m.flat()).variance).toBeGreaterThan(0.15);
    expect(moments(m.flat()).variance).toBeLessThan(0.35);
  });

  it.each(['normal', 'uniform'])('%s cells have mean 0 and variance 1', (dist) => {
    const values = [];
    for (let i = 0; i < 200; i++) for (let j = 0; j < 100; j++) values.push(cellValue(9, 's', i, j, dist));
    const { mean, variance } = moments(values);
    expect(Math.abs(mean)).toBeLessThan(0.03);
    expect(Math.abs(variance - 1)).toBeLessThan(0.04);
    if (dist === 'uniform') expect(Math.max(...values.map(Math.abs))).toBeLessThanOrEqual(Math.sqrt(3));
  });

  it('the sequential generator is deterministic and normal', () => {
    const a = createRng(5);
    const b = createRng(5);
    const values = Array.from({ length: 20000 }, () => a.normal());
    expect(Array.from({ length: 20000 }, () => b.normal())).toEqual(values);
    const { mean, variance } = moments(values);
    expect(Math.abs(mean)).toBeLessThan(0.03);
    expect(Math.abs(variance - 1)).toBeLessThan(0.04);
    const u = createRng(1);
    for (let i = 0; i < 1000; i++) {
      const x = u.uniform();
      expect(x).toBeGreaterThan(0);
      expect(x).toBeLessThan(1);
    }
  });
});
