// Statistics of a matrix's values that the texts quote: mean and variance, and the weights' mean row entropy.
// Apart from experiment.js, so that the elements, which quote them, load no experiment.

/** Mean and (population) variance of the finite values. */
export function meanVariance(data) {
  let count = 0;
  let sum = 0;
  let sumSquares = 0;
  for (const x of data) {
    if (!Number.isFinite(x)) continue;
    count++;
    sum += x;
    sumSquares += x * x;
  }
  if (count === 0) return { mean: NaN, variance: NaN };
  const mean = sum / count;
  return { mean, variance: Math.max(0, sumSquares / count - mean * mean) };
}

/**
 * The mean entropy of the rows of a weights matrix, in bits. A row spread evenly over m keys has log2(m) bits;
 * a row that puts all weight on one key has 0. Rows that are entirely masked (all zeros) are skipped.
 * @param {ArrayLike<number>} data  [rows, cols] row-major, or several such matrices one after another
 * @param {number} cols
 */
export function meanRowEntropy(data, cols) {
  let total = 0;
  let rows = 0;
  for (let start = 0; start + cols <= data.length; start += cols) {
    let entropy = 0;
    let mass = 0;
    for (let j = 0; j < cols; j++) {
      const p = data[start + j];
      mass += p;
      if (p > 0) entropy -= p * Math.log2(p);
    }
    if (mass > 0) {
      total += entropy;
      rows++;
    }
  }
  return rows ? total / rows : NaN;
}
