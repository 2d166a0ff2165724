// The pieces of model.run's results: the rows of the LM head asked for, one head's steps cut out of its layer's, and
// the top-k of the last position.
import { Tensor } from '../tensor.js';

/** Rows `rows` of h [n, d], as a call's input [rows.length, d]; h itself when rows is null. */
export function pickRows(h, rows) {
  if (!rows) return h;
  const d = h.shape[1];
  const data = new Float32Array(rows.length * d);
  rows.forEach((row, i) => data.set(h.data.subarray(row * d, (row + 1) * d), i * d));
  return new Tensor(data, [rows.length, d]);
}

/** Block `index` of a [blocks, …] tensor, as a Tensor of `shape`. */
const block = (tensor, index, shape) => {
  const size = shape.reduce((a, b) => a * b, 1);
  return new Tensor(tensor.data.slice(index * size, (index + 1) * size), shape);
};

/**
 * One head's steps and its layer's, named as selfAttention names them where they mean the same.
 *
 * | key                                         | shape          | what                                      |
 * |---------------------------------------------|----------------|-------------------------------------------|
 * | input                                       | [n, d]         | the layer's input (hiddenStates[layer])   |
 * | x                                           | [n, d]         | attention's input (after the norm)        |
 * | q, qRotated                                 | [n, d_k]       | this head's query (after RoPE)            |
 * | k, kRotated, v                              | [n, d_k]       | its key-value head's (GQA: shared)        |
 * | rawScores, scaledScores, scores, weights    | [n, n]         | as selfAttention's                        |
 * | headOutput                                  | [n, d_k]       | the head's output (as ablated, patched)   |
 * | headResult                                  | [n, d]         | headOutput · W_O[rows of this head], no bias |
 * | concat                                      | [n, H·d_k]     | every head's output side by side          |
 * | output                                      | [n, d]         | concat·W_o + b_o                          |
 * | residual, mlpInput, mlpHidden, mlpOutput    | [n, d] …       | x + output, the MLP's input, its activation [n, d_ff], its output |
 * | hidden                                      | [n, d]         | the layer's output                        |
 */
export function sliceCapture(result, layer, head, spec) {
  const [, n] = result.weights.shape;
  const dK = spec.headDim;
  const kv = Math.floor(head / (spec.numHeads / spec.numKvHeads));
  const steps = { layer, head, input: result.input, x: result.normed };
  steps.q = block(result.q, head, [n, dK]);
  if (result.qRotated) steps.qRotated = block(result.qRotated, head, [n, dK]);
  steps.k = block(result.k, kv, [n, dK]);
  if (result.kRotated) steps.kRotated = block(result.kRotated, kv, [n, dK]);
  steps.v = block(result.v, kv, [n, dK]);
  for (const key of ['rawScores', 'scaledScores', 'scores', 'weights']) steps[key] = block(result[key], head, [n, n]);
  steps.headOutput = block(result.heads, head, [n, dK]);
  steps.headResult = result.headResults.get(head);
  Object.assign(steps, {
    concat: result.concat,
    output: result.attentionOutput,
    residual: result.residual,
    mlpInput: result.mlpInput,
    mlpHidden: result.mlpHidden,
    mlpOutput: result.mlpOutput,
    hidden: result.output,
  });
  return steps;
}

/** The k most probable next tokens after the last position: [{ id, p, logit, token? }], p from a float64 softmax. */
export function topK(logits, k, tokenizer) {
  const [n, V] = logits.shape;
  const row = logits.data.subarray((n - 1) * V, n * V);
  // One indexed pass for the maximum and the k best (the k-th best's logit as the bar), one for the softmax's sum: a
  // run calls this once, so it runs mostly unoptimised, where for...of over 50 257 logits three times took 5–10 ms.
  let max = -Infinity;
  const best = [];
  let bar = -Infinity;
  for (let id = 0; id < V; id++) {
    const logit = row[id];
    if (logit > max) max = logit;
    if (best.length < k || logit > bar) {
      best.push({ id, logit });
      best.sort((a, b) => b.logit - a.logit || a.id - b.id);
      if (best.length > k) best.pop();
      bar = best.length < k ? -Infinity : best[best.length - 1].logit;
    }
  }
  let sum = 0;
  for (let id = 0; id < V; id++) sum += Math.exp(row[id] - max);
  const token = (id) => (tokenizer ? { token: tokenizer.readable(id) } : {});
  return best.map(({ id, logit }) => ({ id, p: Math.exp(logit - max) / sum, logit, ...token(id) }));
}
