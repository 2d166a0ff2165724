// Seeded random numbers. Two kinds: a sequential generator (mulberry32) for experiments, and a counter-based
// one where every matrix cell has its own value, so resizing a matrix keeps the cells it already had.

/** The largest seed (seeds are unsigned 32-bit integers). */
export const MAX_SEED = 2 ** 32 - 1;

function mix32(h) {
  h ^= h >>> 16;
  h = Math.imul(h, 0x7feb352d);
  h ^= h >>> 15;
  h = Math.imul(h, 0x846ca68b);
  h ^= h >>> 16;
  return h >>> 0;
}

/** FNV-1a hash of a string, for naming random streams. */
export function hashString(text) {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  return h >>> 0;
}

const toUnit = (h) => ((h >>> 8) + 0.5) / 2 ** 24; // in (0, 1), never 0

/** A sequential generator: `uniform()` in (0, 1), `normal()` from N(0, 1). */
export function createRng(seed) {
  let a = seed >>> 0;
  let spare = null;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return (t ^ (t >>> 14)) >>> 0;
  };
  return {
    uniform: () => toUnit(next()),
    normal() {
      if (spare !== null) {
        const value = spare;
        spare = null;
        return value;
      }
      const r = Math.sqrt(-2 * Math.log(toUnit(next())));
      const theta = 2 * Math.PI * toUnit(next());
      spare = r * Math.sin(theta);
      return r * Math.cos(theta);
    },
  };
}

/**
 * The value of one cell of a seeded random matrix, with mean 0 and variance 1.
 * 'normal' draws from N(0, 1); 'uniform' from U(−√3, √3), which also has variance 1.
 * @param {number} seed
 * @param {string} stream  the matrix's name, e.g. "x" or "wq"
 * @param {number} row
 * @param {number} col
 * @param {'normal' | 'uniform'} dist
 */
export function cellValue(seed, stream, row, col, dist) {
  const base = mix32(
    mix32(mix32((seed >>> 0) ^ hashString(stream)) ^ Math.imul(row + 1, 0x9e3779b1)) ^ Math.imul(col + 1, 0x85ebca77),
  );
  const u1 = toUnit(base);
  if (dist === 'uniform') return Math.sqrt(3) * (2 * u1 - 1);
  const u2 = toUnit(mix32(base ^ 0x5bd1e995));
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(2 * Math.PI * u2);
}

/**
 * A seeded random matrix, rounded to `decimals` places so that it can be shown exactly.
 * @param {{ seed: number, stream: string, rows: number, cols: number, dist: 'normal' | 'uniform',
 *   std?: number, decimals?: number, colKey?: (col: number) => number }} spec
 *   colKey maps a column to the key its value is drawn from (heads keep their values when d_k changes).
 * @returns {number[][]}
 */
export function randomMatrix({ seed, stream, rows, cols, dist, std = 1, decimals = 2, colKey = (c) => c }) {
  const factor = 10 ** decimals;
  return Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => {
      const value = Math.round(std * cellValue(seed, stream, i, colKey(j), dist) * factor) / factor;
      return value === 0 ? 0 : value;
    }),
  );
}
