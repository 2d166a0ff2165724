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

// A cell's hash is mix32(mix32(mix32(seed ^ hash(stream)) ^ row·φ) ^ column·c): the first part is the same for a
// whole matrix and the second for a whole row, so matrices compute them once (the numbers stay bit for bit).
const streamHash = (seed, stream) => mix32((seed >>> 0) ^ hashString(stream));
const rowHash = (streamH, row) => mix32(streamH ^ Math.imul(row + 1, 0x9e3779b1));
const columnSalt = (col) => Math.imul(col + 1, 0x85ebca77);
const SQRT3 = Math.sqrt(3);
const TWO_PI = 2 * Math.PI;

/** A cell's value from its hash (mean 0, variance 1). */
function valueOf(base, normal) {
  const u1 = toUnit(base);
  if (!normal) return SQRT3 * (2 * u1 - 1);
  const u2 = toUnit(mix32(base ^ 0x5bd1e995));
  return Math.sqrt(-2 * Math.log(u1)) * Math.cos(TWO_PI * u2);
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
  const base = mix32(rowHash(streamHash(seed, stream), row) ^ columnSalt(col));
  return valueOf(base, dist !== 'uniform');
}

/** One row of a seeded matrix from its row hash and column salts, times std, rounded to 1/factor. */
function fillRow(rowH, salts, normal, std, factor) {
  const row = [];
  if (normal) {
    for (let j = 0; j < salts.length; j++) {
      const base = mix32(rowH ^ salts[j]);
      const u2 = toUnit(mix32(base ^ 0x5bd1e995));
      const value = Math.sqrt(-2 * Math.log(toUnit(base))) * Math.cos(TWO_PI * u2);
      row.push(Math.round(std * value * factor) / factor || 0); // || 0: no −0
    }
  } else {
    for (let j = 0; j < salts.length; j++) {
      const value = SQRT3 * (2 * toUnit(mix32(rowH ^ salts[j])) - 1);
      row.push(Math.round(std * value * factor) / factor || 0);
    }
  }
  return row;
}

/**
 * Row `row` of a seeded random matrix (the same numbers as `randomMatrix` gives in that row).
 * @param {{ seed: number, stream: string, row?: number, cols: number, dist: 'normal' | 'uniform',
 *   std?: number, decimals?: number }} spec
 * @returns {number[]}
 */
export function randomRow({ seed, stream, row = 0, cols, dist, std = 1, decimals = 2 }) {
  const salts = Int32Array.from({ length: cols }, (_, j) => columnSalt(j));
  return fillRow(rowHash(streamHash(seed, stream), row), salts, dist !== 'uniform', std, 10 ** decimals);
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
  const normal = dist !== 'uniform';
  const streamH = streamHash(seed, stream);
  const salts = Int32Array.from({ length: cols }, (_, j) => columnSalt(colKey(j)));
  return Array.from({ length: rows }, (_, i) => fillRow(rowHash(streamH, i), salts, normal, std, factor));
}
