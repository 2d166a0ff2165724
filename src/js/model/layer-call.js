// One transformer layer as two calls into the core: its attention (forward.h's layer_attention: x → residual), then
// its MLP (layer_mlp: residual → output). Each call's block of WebAssembly memory holds that half's weights (when
// they are read, not resident), activations and scratch only, so the largest call is the larger half, not the whole
// layer: a LLaMA-7B layer's 772 MiB of float32 weights are 256 MiB of attention and 516 MiB of MLP. Which weights
// each half reads comes from the core (abi.h's lists, model-abi.js): each call is given those only, read or resident
// alike. run() and the decode step (decode.js) run every layer through here; the results are bit for bit those of
// one call.
import { LAYER_ATTENTION_WEIGHTS, LAYER_MLP_WEIGHTS, NORM_PLACEMENTS } from '../generated/model-abi.js';
import { made, modelPlan } from './calls.js';
import { firstNonFinite } from '../scan.js';
import { nonFiniteError } from '../tensor.js';

/** Every weight slot of a layer (either half's): an input or an address that only the halves reading it are given. */
const LAYER_WEIGHTS = new Set([...Object.keys(LAYER_ATTENTION_WEIGHTS), ...Object.keys(LAYER_MLP_WEIGHTS)]);
// The steps that the MLP call writes; the attention call writes the others, and the residual that it hands over.
const MLP_STEPS = ['mlpInput', 'mlpHidden', 'mlpOutput', 'output'];

/** The weight slots a half reads (its list of abi.h) under a norm placement ('preNorm' | 'postNorm' | 'parallel'). */
export function halfWeights(list, placement) {
  const bit = 1 << NORM_PLACEMENTS[placement];
  return new Set(Object.keys(list).filter((slot) => list[slot] & bit));
}

/**
 * A half's share of a record of inputs or dims (by slot): the layer's weights it reads, and of the rest what
 * `other(key)` keeps.
 */
const share = (record, reads, other) =>
  Object.fromEntries(Object.entries(record).filter(([key]) => (LAYER_WEIGHTS.has(key) ? reads.has(key) : other(key))));

/**
 * The head mask of layer `layer` for the zero ablations among `ablate` (run-plan's entries, ablation.js: { layer, head,
 * mode }): an input [H] of 1s with 0 for each head switched off (forward.h's head_mask), or null when none of its heads
 * is. 'mean' and 'resample' ablations are rows of the edits input instead (forward-pass.js).
 */
export function headMask(ablate, layer, numHeads) {
  const zeroed = ablate.filter((a) => a.layer === layer && a.mode === 'zero');
  if (!zeroed.length) return null;
  const mask = new Float32Array(numHeads).fill(1);
  for (const { head } of zeroed) mask[head] = 0;
  return made(mask, [numHeads], 'ablate');
}

const pick = (from, keys, keep) =>
  Object.fromEntries(Object.entries(from).filter(([key]) => keys.includes(key) === keep));

/**
 * Runs one layer on n tokens as its two calls, through `run` (a plan's runner), and returns what one call would:
 * `outputs` by name (layerOutputs' shapes, or the decode step's), the residual only when asked for.
 * @param {object} layer  the layer call's parts: `inputs` (x, the layer's weights by slot, RoPE tables, head mask,
 *   edits), `dims` (modelDims, resident weights' addresses by slot, edit count, KV cache), `outputs`, `causal`, and
 *   `editedSteps`: the steps its edits change (edits.js's layerEdits), which the core's scratch depends on; with
 *   `mlp: false`, the attention call only (the attention's outputs and the residual, no `output`)
 */
export function runLayer(run, spec, n, { inputs, dims, outputs, causal, editedSteps = 0, mlp = true }) {
  const { placement } = spec.choices;
  const attentionReads = halfWeights(LAYER_ATTENTION_WEIGHTS, placement);
  const mlpReads = halfWeights(LAYER_MLP_WEIGHTS, placement);
  const all = () => true;
  const first = run(
    modelPlan(
      'modelAttention',
      share(dims, attentionReads, all),
      share(inputs, attentionReads, all),
      { ...pick(outputs, MLP_STEPS, false), residual: [n, spec.dModel] },
      { causal, editedSteps },
    ),
  );
  if (!mlp) {
    // weights read for the MLP that is not run (a batch of cells' last layer): scanned all the same, so that a NaN in
    // them is NON_FINITE whether the model keeps its weights (scanned when kept) or reads them
    for (const tensor of Object.values(share(inputs, mlpReads, () => false))) {
      const at = tensor.valuesChecked === false ? firstNonFinite(tensor.data, false) : -1;
      if (at >= 0) throw nonFiniteError(tensor, at);
    }
    return first;
  }
  // The MLP reads the residual sum, its weights and the edits (of its steps): no RoPE table, no head mask.
  const mlpInputs = share(inputs, mlpReads, (key) => key === 'edits');
  mlpInputs.x = made(first.residual.data, first.residual.shape, 'the residual sum');
  if (placement === 'parallel') mlpInputs.layerInput = inputs.x; // norm2 reads the layer's input
  const second = run(
    modelPlan('modelMlp', share(dims, mlpReads, all), mlpInputs, pick(outputs, MLP_STEPS, true), { editedSteps }),
  );
  const result = { ...first, ...second };
  if (!outputs.residual) delete result.residual;
  return result;
}
