// model.attribute(input, { target, position }): direct logit attribution, TransformerLens's residual decomposition
// (decompose_resid / stack_head_results with apply_ln_to_stack, logit_attrs) with the final norm's scale frozen at its
// value on the actual residual. At `position`, the final residual x (the last layer's output, before the final norm)
// is the sum of the embeddings (token + position), each head's result (headOutput · its rows of W_O, no bias), each
// layer's attention output bias and each MLP's output. Each part c contributes
//   LayerNorm: ((c − mean(c)) / s) · (γ ⊙ u)     s = sqrt(var(x) + eps)
//   RMSNorm:   (c / s) · (γ ⊙ u)                  s = sqrt(mean(x²) + eps)
// with γ the final norm's weight and u the LM head's row of a (or row a − row b); the norm's bias gives
// finalBias = β · u (plus the LM head's bias of a − b, where it has one). The parts sum to the logit (difference) of
// the run, within float32 rounding. Sums in float64, from the forward's float32 values.
//
// Gemma's RMSNorm scales by (1 + γ). A norm of the attention's output inside the residual branch (Gemma 2's and 3's
// post_attention_layernorm, OLMo-2's) has its scale frozen the same way, at its value on that layer's output a = Σ
// head results + bias: each head's part is its result · γ_post / s_a (so the heads' parts sum to the normed output).
// The MLP's output is taken after its own post norm. With a final logit softcap (Gemma 2's tanh(l / c)·c), the parts
// sum to the logit before the cap (`total` is that logit; the run's is tanh(total / c)·c): the cap is not linear.
import { readRecord } from '../read.js';
import { Tensor } from '../tensor.js';
import { headResultRows, outputMatrix } from './head-result.js';
import { logitMetric, plainPlan, readPosition, readTarget, requireLinearHead } from './instrument-options.js';
import { runForward } from './run.js';

/**
 * In place: the heads' results [H, d] and the bias [d] (or null) of one position times γ_post / s_a, the scale of the
 * RMSNorm of their sum a frozen at its value: their sum becomes the normed attention output.
 */
function freezePostNorm(heads, bias, gamma, d, eps) {
  const a = new Float64Array(d);
  for (let i = 0; i < heads.length; i++) a[i % d] += heads[i];
  if (bias) bias.forEach((v, e) => (a[e] += v));
  const s = Math.sqrt(a.reduce((sum, v) => sum + v * v, 0) / d + eps);
  for (let i = 0; i < heads.length; i++) heads[i] *= gamma[i % d] / s;
  if (bias) bias.forEach((v, e) => (bias[e] = (v * gamma[e]) / s));
}

/** A weight of a group (`{ inputs, addresses }`) as float64 values: read, or viewed where it is kept. */
function values(group, slot, entries, heap, size) {
  if (group.inputs[slot]) return Float64Array.from(group.inputs[slot].data);
  if (!group.addresses[slot]) return null;
  const at = group.addresses[slot] / 4;
  const length = size ?? entries.find((e) => e.slot === slot).shape.reduce((a, b) => a * b, 1);
  return Float64Array.from(heap().subarray(at, at + length));
}

/**
 * model.attribute(input, { target, position, ablate?, signal? }).
 *
 * | result       | shape                                                              |
 * |--------------|--------------------------------------------------------------------|
 * | total        | number: the logit (difference) the run computes (before a final softcap) |
 * | embeddings   | number: the token (+ position) embeddings' part                     |
 * | heads        | Tensor [L, H]: each head's result's part                            |
 * | attnBiases   | Float32Array(L): each attention output bias's part                  |
 * | mlps         | Float32Array(L): each MLP output's part                             |
 * | finalBias    | number: the final norm's bias (and an LM-head bias) part            |
 * @param {object} engine  the model's parts (model.js)
 * @param {{ target: number[], position?: number, ablate?: unknown[], signal?: AbortSignal }} options
 * @returns {Promise<{ total: number, embeddings: number, heads: Tensor, attnBiases: Float32Array,
 *   mlps: Float32Array, finalBias: number }>}  heads [L, H]; attnBiases and mlps [L]
 */
export async function attribute(engine, input, options) {
  const { spec, tensors } = engine;
  const o = readRecord(options, 'attribute options', ['target', 'position', 'ablate', 'signal'], 'option');
  requireLinearHead(engine, 'attribute');
  const target = readTarget(o.target, spec, 'attribute');
  const plan = plainPlan(input, engine, { signal: o.signal, ablate: o.ablate });
  const position = readPosition(o.position, plan.n, 'attribute');
  Object.assign(plan, { logits: [position], logitRows: [position] });
  const { numLayers: L, numHeads: H, headDim: dK, dModel: d } = spec;
  const parts = []; // per layer: { heads: Float64Array [H, d], bias: Float64Array [d] | null, mlp: Float64Array [d] }
  const plusOne = spec.choices.norm === 'rmsNormPlusOne'; // Gemma's x̂ · (1 + γ)
  const gain = (w) => (plusOne ? w.map((v) => 1 + v) : w);
  const pass = await runForward(engine, plan, {
    outputWeights: true, // W_O, b_O and a post norm: read here on the workers' path (forward-pass.js)
    outputs: () => ({ heads: [H, plan.n, dK], mlpOutput: [plan.n, d] }),
    layer: (l, result, weights) => {
      const W = outputMatrix(weights, weights.entries, engine.heap);
      const heads = new Float64Array(H * d);
      for (let h = 0; h < H; h++) heads.set(headResultRows(result.heads, h, W, spec, [position]), h * d);
      const bias = values(weights, 'bO', weights.entries, engine.heap, d);
      const mlp = Float64Array.from(result.mlpOutput.data.subarray(position * d, (position + 1) * d));
      const post = values(weights, 'attentionPostNorm', weights.entries, engine.heap, d);
      if (post) freezePostNorm(heads, bias, gain(post), d, spec.eps);
      parts[l] = { heads, bias, mlp };
    },
  });
  // the final norm's weight and bias, and the LM head's rows of the target
  const ctx = { signal: engine.signal(plan.signal) };
  const norm = await engine.group('final', tensors.final, ctx);
  const gamma = values(norm, 'norm1Weight', tensors.final, engine.heap);
  const beta = values(norm, 'norm1Bias', tensors.final, engine.heap);
  const row = async (id) => Float64Array.from(await engine.rows(tensors.head, [id, id + 1], ctx));
  const [a, b] = target;
  const u = await row(a);
  if (b !== undefined) (await row(b)).forEach((v, e) => (u[e] -= v));
  let headBias = 0;
  if (tensors.headBias) {
    const bias = await engine.group('headBias', [tensors.headBias], ctx);
    const all = values(bias, 'bHead', [tensors.headBias], engine.heap);
    headBias = all[a] - (b === undefined ? 0 : all[b]);
  }
  // the scale s of the final norm on the actual residual x at `position`
  const x = pass.last.data.subarray(position * d, (position + 1) * d);
  const layerNorm = spec.choices.norm === 'layerNorm';
  const meanOf = (c) => (layerNorm ? c.reduce((sum, v) => sum + v, 0) / d : 0);
  const m = meanOf(x);
  const s = Math.sqrt(x.reduce((sum, v) => sum + (v - m) ** 2, 0) / d + spec.eps);
  const g = gain(gamma).map((w, e) => w * u[e]); // γ ⊙ u
  const gSum = g.reduce((sum, v) => sum + v, 0);
  const part = (c) => {
    let dot = 0;
    for (let e = 0; e < d; e++) dot += c[e] * g[e];
    return (dot - meanOf(c) * gSum) / s;
  };
  const heads = new Float32Array(L * H);
  const attnBiases = new Float32Array(L);
  const mlps = new Float32Array(L);
  parts.forEach(({ heads: results, bias, mlp }, l) => {
    for (let h = 0; h < H; h++) heads[l * H + h] = part(results.subarray(h * d, (h + 1) * d));
    attnBiases[l] = bias ? part(bias) : 0;
    mlps[l] = part(mlp);
  });
  const embeddings = pass.hiddenStates[0].data.subarray(position * d, (position + 1) * d);
  // with a final softcap: the logit before it, from the final hidden state (the cap is not linear)
  const final = pass.final?.data.subarray(position * d, (position + 1) * d);
  const beforeCap = spec.finalSoftcap > 0 ? final.reduce((sum, v, e) => sum + v * u[e], headBias) : null;
  return {
    total: beforeCap ?? logitMetric(pass.logits, target),
    embeddings: part(embeddings),
    heads: new Tensor(heads, [L, H]),
    attnBiases,
    mlps,
    finalBias: (beta ? beta.reduce((sum, v, e) => sum + v * u[e], 0) : 0) + headBias,
  };
}
