// One transformer layer as two calls into the core: its attention (forward.h's layer_attention: x → residual), then
// its MLP (layer_mlp: residual → output). Each call's block of WebAssembly memory holds that half's weights (when
// they are read, not resident), activations and scratch only, so the largest call is the larger half, not the whole
// layer: a LLaMA-7B layer's 772 MiB of float32 weights are 256 MiB of attention and 516 MiB of MLP. run() and the
// decode step (decode.js) run every layer through here; the results are bit for bit those of one call.
import { made, modelPlan } from './calls.js';

// The weights (by slot) that the MLP call reads; every other input is the attention call's. With post-norm (BERT),
// the norm before the MLP is norm1: both calls read it.
const MLP_WEIGHTS = ['norm2Weight', 'norm2Bias', 'wUp', 'bUp', 'wGate', 'bGate', 'wDown', 'bDown'];
const POST_NORM_WEIGHTS = ['norm1Weight', 'norm1Bias'];
// The steps that the MLP call writes; the attention call writes the others, and the residual that it hands over.
const MLP_STEPS = ['mlpInput', 'mlpHidden', 'mlpOutput', 'output'];

/** The bytes the attention call's core allocates at most for its own activations (the size check's share of it). */
export function attentionScratchBytes(spec, n) {
  const { dModel: d, numHeads: H, numKvHeads: Hkv, headDim: dK } = spec;
  return (n * ((H + 2 * Hkv) * dK * 3 + 4 * d) + H * n * n + n * n + 2 * (n + 8) * dK) * 4;
}

/** The bytes the MLP call's core allocates at most: its norm's output, the MLP's hidden (and gate) rows, its output. */
export const mlpScratchBytes = (spec, n) => n * (2 * spec.dModel + 2 * spec.dFf) * 4;

const pick = (from, keys, keep) =>
  Object.fromEntries(Object.entries(from).filter(([key]) => keys.includes(key) === keep));

/**
 * Runs one layer on n tokens as its two calls, through `run` (a plan's runner), and returns what one call would:
 * `outputs` by name (layerOutputs' shapes, or the decode step's), the residual only when asked for.
 * @param {object} layer  the layer call's parts: `inputs` (x, the layer's weights by slot, RoPE tables, head mask,
 *   edits), `dims` (modelDims, resident weights' addresses, edit count, KV cache), `outputs`, `causal`, and
 *   `scratchBytes`: what the attention call allocates beyond attentionScratchBytes (edits, a KV cache's scores)
 */
export function runLayer(run, spec, n, { inputs, dims, outputs, causal, scratchBytes = 0 }) {
  const mlpWeights = spec.choices.placement === 'postNorm' ? [...MLP_WEIGHTS, ...POST_NORM_WEIGHTS] : MLP_WEIGHTS;
  const first = run(
    modelPlan(
      'modelAttention',
      dims,
      pick(inputs, MLP_WEIGHTS, false),
      { ...pick(outputs, MLP_STEPS, false), residual: [n, spec.dModel] },
      { causal, scratchBytes: attentionScratchBytes(spec, n) + scratchBytes },
    ),
  );
  const mlpInputs = pick(inputs, mlpWeights, true);
  mlpInputs.x = made(first.residual.data, first.residual.shape, 'the residual sum');
  if (inputs.edits) mlpInputs.edits = inputs.edits;
  const second = run(
    modelPlan('modelMlp', dims, mlpInputs, pick(outputs, MLP_STEPS, true), {
      scratchBytes: mlpScratchBytes(spec, n),
    }),
  );
  const result = { ...first, ...second };
  if (!outputs.residual) delete result.residual;
  return result;
}
