// Doing only the work a change needs: flat copies of the page's nested matrices made once per matrix (a matrix
// that did not change is the same array, so its copy is reused). What the page alone needs on top (whether two
// calls are the same, float32 copies, temperature previews) is in calls.js, which the elements do not load.

const flat64 = new WeakMap();
const tensors = new WeakMap();
const blocks = new WeakMap();

export function cached(cache, rows, make) {
  let value = cache.get(rows);
  if (value === undefined) {
    value = make();
    cache.set(rows, value);
  }
  return value;
}

/** The rows of a matrix as one Float64Array (the exact numbers, for display), made once per matrix. */
export function flatRows(rows) {
  return cached(flat64, rows, () => flatten(rows));
}

/** Rows of equal length as one Float64Array (rows.flat() is many times slower on large matrices). */
export function flatten(rows) {
  const cols = rows.length ? rows[0].length : 0;
  const out = new Float64Array(rows.length * cols);
  for (let i = 0; i < rows.length; i++) out.set(rows[i], i * cols);
  return out;
}

/** Hands in `flat`, flatten(rows) made elsewhere (a worker): flatRows and tensorOf then use it. */
export function keepFlat(rows, flat) {
  flat64.set(rows, flat);
}

/** The matrix as `{ data, shape }` for attention-wasm (exact float64 numbers), made once per matrix. */
export function tensorOf(rows) {
  return cached(tensors, rows, () => ({ data: flatRows(rows), shape: [rows.length, rows[0].length] }));
}

/** Columns [from, from + width) of a nested matrix, as rows and as flat data; made once per matrix and block. */
export function columnBlockOf(rows, from, width) {
  const byBlock = cached(blocks, rows, () => new Map());
  const key = `${from}|${width}`;
  let block = byBlock.get(key);
  if (!block) {
    const part = rows.map((row) => row.slice(from, from + width));
    block = { rows: part, data: flatten(part) };
    byBlock.set(key, block);
  }
  return block;
}
