// What a head writes into the residual stream: its output z [n, d_k] times its rows of W_O ([d_k, d_model] of the
// [H·d_k, d_model] matrix, as [in, out]), without W_O's bias: TransformerLens's hook_result. Computed in JS, in
// float64 sums, from W_O as the checkpoint stores it (the layer call's input, or its resident copy).

/**
 * Layer l's W_O as stored, from the layer's weights for its call (`weights.inputs.wO`, edited or read) or its
 * resident copy (`weights.addresses.wO`, viewed in `heap()` now: read it before memory can grow again).
 * @returns {Float32Array}  [H·d_k, d_model] (layout 'inOut') or [d_model, H·d_k] ('outIn')
 */
export function outputMatrix(weights, entries, heap) {
  if (weights.inputs.wO) return weights.inputs.wO.data;
  const entry = entries.find((e) => e.slot === 'wO');
  const at = weights.addresses.wO / 4;
  return heap().subarray(at, at + entry.shape[0] * entry.shape[1]);
}

/**
 * Rows `rows` of head `head`'s result: heads [H, n, d_k] (a layer's heads' outputs) times W_O's rows of that head.
 * @param {{ data: Float32Array, shape: number[] }} heads  [H, n, d_k]
 * @param {Float32Array} W  outputMatrix's
 * @returns {Float64Array}  [rows.length, d_model]
 */
export function headResultRows(heads, head, W, spec, rows) {
  const [H, n, dK] = heads.shape;
  const d = spec.dModel;
  const out = new Float64Array(rows.length * d);
  const z = heads.data;
  rows.forEach((row, i) => {
    const at = (head * n + row) * dK;
    const y = out.subarray(i * d, (i + 1) * d);
    if (spec.choices.layout === 'inOut') {
      for (let c = 0; c < dK; c++) {
        const zc = z[at + c];
        const w = (head * dK + c) * d;
        for (let o = 0; o < d; o++) y[o] += zc * W[w + o];
      }
    } else {
      const width = H * dK;
      for (let o = 0; o < d; o++) {
        let sum = 0;
        const w = o * width + head * dK;
        for (let c = 0; c < dK; c++) sum += z[at + c] * W[w + c];
        y[o] = sum;
      }
    }
  });
  return out;
}
