// The KV cache: one more token attends to the cached keys and values of the earlier ones, through the public API.
import { attentionCall, labelsFor } from '../../shared/inputs.js';

/** [H, m, w] with one more row per head: the cache [H, m, w] and the new token's [H, 1, w] (H: kv heads for K, V). */
function appendRow(cache, fresh) {
  const [H, m, w] = cache.shape;
  const data = new Float32Array(H * (m + 1) * w);
  for (let h = 0; h < H; h++) {
    data.set(cache.data.subarray(h * m * w, (h + 1) * m * w), h * (m + 1) * w);
    data.set(fresh.data.subarray(h * w, (h + 1) * w), h * (m + 1) * w + m * w);
  }
  return { data, shape: [H, m + 1, w] };
}

/**
 * Generates the last token with a KV cache: the first n−1 tokens run on their own (what the model did before, and
 * what fills the cache with their K and V), the new token's q, k and v come from a run on its row alone, and its
 * one query row attends to the n cached keys with causal: 'bottom-right'. Compared with the last row of full causal
 * attention over all n tokens.
 *
 * | result     | shape          |
 * |------------|----------------|
 * | k, v       | [H_kv, n, d_k / d_v]  the cache, the new token's row last (H_kv = H unless grouped) |
 * | q          | [H, 1, d_k]    |
 * | weights    | [H, 1, n]      |
 * | output     | [H·d_v]        the new token's heads side by side |
 * | fullRow    | [H·d_v]        the last row of full causal attention |
 * @param {{ selfAttention: Function, scaledDotProductAttention: Function }} attn
 * @returns {object | null}  null with a single token (nothing to cache)
 */
export function kvCacheStep(attn, state) {
  const { n, dModel, numHeads: H, dV } = state;
  if (n < 2) return null;
  const call = attentionCall({ ...state, causal: true, mask: null });
  const options = { causal: true, returnSteps: true };
  if (call.options.scale !== undefined) options.scale = call.options.scale;
  const rows = (from, count) => ({
    data: call.x.data.subarray(from * dModel, (from + count) * dModel),
    shape: [count, dModel],
  });
  const full = attn.selfAttention(call.x, call.weights, options);
  const earlier = attn.selfAttention(rows(0, n - 1), call.weights, options);
  const fresh = attn.selfAttention(rows(n - 1, 1), call.weights, options);
  const k = appendRow(earlier.k, fresh.k);
  const v = appendRow(earlier.v, fresh.v);
  const sdpa = { causal: 'bottom-right' };
  if (options.scale !== undefined) sdpa.scale = options.scale;
  const step = attn.scaledDotProductAttention(fresh.q, k, v, sdpa);
  const output = step.output.data; // [H, 1, d_v] is the heads side by side already
  const fullRow = full.concat.data.slice((n - 1) * H * dV, n * H * dV);
  let largest = 0;
  for (let c = 0; c < H * dV; c++) largest = Math.max(largest, Math.abs(output[c] - fullRow[c]));
  return {
    token: labelsFor(state)[n - 1],
    k,
    v,
    q: fresh.q,
    weights: step.weights,
    output,
    fullRow,
    largest,
    identical: output.every((value, c) => Object.is(value, fullRow[c])),
    work: { withCache: H * n, recompute: H * n * n, rowsProjected: 1 },
  };
}

/** The KV step's explanation: what is cached, whether the rows agree, and the work saved. */
export function kvCacheText(state, step) {
  if (!step)
    return 'With one token the cache would hold zero tokens, so there is nothing to cache: type a sentence of at least two words, or raise n to 2 or more.';
  const { n, numHeads: H } = state;
  const agree = step.identical
    ? `The new output row equals the last row of full causal attention over all ${n} tokens bit for bit: every one of its ${step.output.length} float32 numbers is the same, to the last digit.`
    : `The new output row and the last row of full causal attention over all ${n} tokens differ by at most ${step.largest.toExponential(1)}: the cached K and V come from a run of ${n - 1} rows, and a product's sums can round a few numbers differently at another size. The attention on the same q, K and V gives the same bits.`;
  return (
    `${agree} Work: with the cache, ${quoteCount(step.work.withCache)} scores (${H} head${H > 1 ? 's' : ''} × ${n} keys) and one row of Q, K and V projected; ` +
    `recomputing everything, ${quoteCount(step.work.recompute)} scores (${H} × ${n} × ${n}, of which the causal mask keeps ${(H * n * (n + 1)) / 2}) and ${n} rows projected.`
  );
}

const quoteCount = (count) => count.toLocaleString('en');
