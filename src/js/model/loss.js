// model.run's `loss: true`: the next-token cross-entropy of each position (TransformerLens's lm_cross_entropy_loss
// unreduced, transformers' causal-LM loss per token): position i predicts token i + 1, and its loss is
// −log softmax(logits[i])[ids[i + 1]], in float64 from the float32 logits (the log-sum-exp from the row's maximum).

/**
 * @param {{ data: Float32Array, shape: number[] }} logits  [n, V], every row
 * @param {number[]} ids  the n tokens run
 * @returns {{ perToken: Float32Array, mean: number }}  perToken [n − 1]; mean their float64 mean (NaN for one token)
 */
export function nextTokenLoss(logits, ids) {
  const V = logits.shape[1];
  const perToken = new Float32Array(ids.length - 1);
  let sum = 0;
  for (let i = 0; i + 1 < ids.length; i++) {
    const row = logits.data.subarray(i * V, (i + 1) * V);
    let max = -Infinity;
    for (let v = 0; v < V; v++) if (row[v] > max) max = row[v];
    let total = 0;
    for (let v = 0; v < V; v++) total += Math.exp(row[v] - max);
    const loss = max + Math.log(total) - row[ids[i + 1]];
    perToken[i] = loss;
    sum += loss;
  }
  return { perToken, mean: sum / perToken.length };
}
