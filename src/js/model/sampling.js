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
  for (const x of row) max = Math.max(max, x);
  // (logit − max) / T ≤ 0: no overflow at any temperature
  const weights = Float64Array.from(row, (x) => Math.exp((x - max) / temperature));
  let kept = null; // ids kept, or null for all
  if ((topK !== null && topK < V) || topP < 1) {
    const order = Uint32Array.from({ length: V }, (_, id) => id).sort((a, b) => row[b] - row[a] || a - b);
    kept = order.subarray(0, topK === null ? V : Math.min(topK, V));
    if (topP < 1) {
      let total = 0;
      for (const id of kept) total += weights[id];
      let sum = 0;
      let count = 0;
      while (count < kept.length && (count === 0 || sum < topP * total)) sum += weights[kept[count++]];
      kept = kept.subarray(0, count);
    }
    kept = Uint32Array.from(kept).sort();
  }
  let total = 0;
  if (kept) for (const id of kept) total += weights[id];
  else for (const w of weights) total += w;
  const target = random() * total;
  let sum = 0;
  const ids = kept ?? weights.keys();
  let last = 0;
  for (const id of ids) {
    sum += weights[id];
    last = id;
    if (sum > target) return id;
  }
  return last; // rounding left u × total at the very end
}
