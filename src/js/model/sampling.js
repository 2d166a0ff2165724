// How generate() picks each token from the logits of the last position, in float64 and with a seeded generator, so
// that the same seed gives the same tokens in every engine (integer arithmetic and IEEE float64 only).

/**
 * mulberry32 (Tommy Ettinger's 32-bit generator): floats in [0, 1), each a 32-bit integer / 2³².
 * @param {number} seed  an integer in [0, 2³²)
 */
export function mulberry32(seed) {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** The id of the largest logit (the lowest id of a tie). */
export function argmax(row) {
  let best = 0;
  for (let id = 1; id < row.length; id++) if (row[id] > row[best]) best = id;
  return best;
}

/** The model's probability of `id`: softmax(row)[id], in float64. */
export function probabilityOf(row, id) {
  let max = -Infinity;
  for (const x of row) max = Math.max(max, x);
  let sum = 0;
  for (const x of row) sum += Math.exp(x - max);
  return Math.exp(row[id] - max) / sum;
}

/**
 * The next token. temperature 0: the argmax (topK, topP and the generator unused). Else, as Hugging Face's
 * sampling: the logits divided by the temperature, the topK largest kept (ties: the lower id first), the softmax
 * over them, then the fewest most probable whose probabilities sum to at least topP (topP 1: all); then one draw u of
 * `random` picks the first kept id, in increasing id order, whose cumulative probability exceeds u × their sum.
 * @param {Float32Array} row  the logits [vocab]
 * @param {{ temperature: number, topK: number | null, topP: number }} o
 * @param {() => number} random  floats in [0, 1)
 */
export function sample(row, { temperature, topK, topP }, random) {
  if (temperature === 0) return argmax(row);
  const V = row.length;
  let max = -Infinity;
  for (let id = 0; id < V; id++) if (row[id] > max) max = row[id];
  // (logit − max) / T ≤ 0: no overflow at any temperature
  const weight = (logit) => Math.exp((logit - max) / temperature);
  let kept = null; // the ids kept in increasing order, or null for all
  let count = topK === null ? V : Math.min(topK, V);
  if (count < V || topP < 1) {
    // the `count` largest logits, ascending (rank r: top[count − 1 − r]); numeric sorts, no comparator
    let top;
    if (count < V) {
      const kth = kthLargest(row, count);
      top = new Float32Array(count).fill(kth);
      let k = 0;
      for (let id = 0; id < V; id++) if (row[id] > kth) top[k++] = row[id];
      top.sort();
    } else {
      top = Float32Array.from(row).sort();
    }
    const largest = count;
    if (topP < 1) {
      let total = 0;
      for (const logit of top) total += weight(logit);
      let sum = 0;
      let nucleus = 0;
      while (nucleus < count && (nucleus === 0 || sum < topP * total)) sum += weight(top[largest - 1 - nucleus++]);
      count = nucleus;
    }
    if (count < V) {
      // every id above the count-th logit, and of the ids equal to it the lowest (ties rank by id)
      const threshold = top[largest - count];
      let ties = count;
      for (let id = 0; id < V; id++) if (row[id] > threshold) ties--;
      kept = new Uint32Array(count);
      let k = 0;
      for (let id = 0; id < V; id++) {
        if (row[id] > threshold || (row[id] === threshold && ties-- > 0)) kept[k++] = id;
      }
    }
  }
  const n = kept ? kept.length : V;
  const weights = new Float64Array(n);
  let total = 0;
  for (let i = 0; i < n; i++) total += weights[i] = weight(row[kept ? kept[i] : i]);
  const target = random() * total;
  let sum = 0;
  for (let i = 0; i < n; i++) {
    sum += weights[i];
    if (sum > target) return kept ? kept[i] : i;
  }
  return kept ? kept[n - 1] : n - 1; // rounding left u × total at the very end
}

/** The k-th largest of `values` (k from 1): quickselect on a copy, O(n) on average. */
function kthLargest(values, k) {
  const a = Float32Array.from(values);
  const target = a.length - k; // its index in ascending order
  let lo = 0;
  let hi = a.length - 1;
  while (lo < hi) {
    const pivot = a[(lo + hi) >> 1];
    let i = lo;
    let j = hi;
    while (i <= j) {
      while (a[i] < pivot) i++;
      while (a[j] > pivot) j--;
      if (i <= j) {
        [a[i], a[j]] = [a[j], a[i]];
        i++;
        j--;
      }
    }
    if (target <= j) hi = j;
    else if (target >= i) lo = i;
    else return a[target];
  }
  return a[target];
}
