// The model's calls into the core (model/forward.h through the Embind layer), as plans that the Attention's
// runner executes like any other call: one block of WebAssembly memory holding the call descriptor, the inputs (a
// layer's weights among them, scanned there for NaN and ±inf), the outputs and nothing else, freed when the call
// returns. So a layer's weights are in WebAssembly memory for that layer's call only.
import { AttentionError } from '../errors.js';
import { CALL_KINDS, CAUSAL, DESCRIPTOR_SLOTS, ROPE_STYLES } from '../generated/abi.js';
import {
  ACTIVATIONS,
  MODEL_SLOTS,
  MODEL_SLOT_COUNT,
  NORM_KINDS,
  NORM_PLACEMENTS,
  QKV_LAYOUTS,
  WEIGHT_LAYOUTS,
} from '../generated/model-abi.js';
import { callLayout, descriptorTemplate, floatBits, product } from '../plan.js';

// A model call's descriptor: the attention calls' slots, then the model's own (model-abi.js).
const SLOTS = { ...DESCRIPTOR_SLOTS, ...MODEL_SLOTS };

/** A tensor the JS layer made (activations, tables): nothing to scan. */
export const made = (data, shape, name) => ({ data, shape, name, allowNegativeInfinity: false, valuesChecked: true });

/** A layer call's RoPE inputs for n tokens: the cos and sin tables [n, rope.dim / 2] of rope.js's ropeTables. */
export const ropeInputs = (tables, n, spec) => ({
  ropeCos: made(tables.cos, [n, spec.rope.dim / 2], 'rope.cos'),
  ropeSin: made(tables.sin, [n, spec.rope.dim / 2], 'rope.sin'),
});

/** A tensor read from the checkpoint: scanned for NaN and ±inf in WebAssembly memory, named by its file's name. */
export const weight = (tensor, name) => ({
  data: tensor.data,
  shape: tensor.shape,
  name,
  allowNegativeInfinity: false,
  valuesChecked: false,
});

/** The descriptor's dims that every model call shares, for n tokens. */
export function modelDims(spec, n, layer = 0) {
  const { choices, rope } = spec;
  return {
    lenQ: n,
    lenK: n,
    dModel: spec.dModel,
    numHeads: spec.numHeads,
    numKvHeads: spec.numKvHeads,
    dK: spec.headDim,
    dV: spec.headDim,
    dFf: spec.dFf,
    normKind: NORM_KINDS[choices.norm],
    normPlacement: NORM_PLACEMENTS[choices.placement],
    activation: ACTIVATIONS[spec.activation],
    weightLayout: WEIGHT_LAYOUTS[choices.layout],
    qkvLayout: QKV_LAYOUTS[choices.qkvLayout],
    eps: floatBits(spec.eps),
    slidingWindow: spec.windows[layer] ?? 0,
    attentionScale: floatBits(spec.attentionScale),
    softcap: floatBits(spec.softcap),
    qkNormWhole: spec.qkNormWhole ? 1 : 0,
    embedScale: floatBits(spec.embedScale),
    finalSoftcap: floatBits(spec.finalSoftcap),
    ropeStyle: rope ? ROPE_STYLES.half : ROPE_STYLES.none,
    ropeDim: rope ? rope.dim : 0,
  };
}

/**
 * A plan of a model call (attention.js runs it as any plan, once modelScratchBytes has given its scratchBytes).
 * @param {'modelEmbed' | 'modelAttention' | 'modelMlp' | 'modelNorm' | 'modelLogits'} kind
 * @param {{ causal?: boolean, editedSteps?: number }} [options]  editedSteps: the steps the call's edits change, as
 *   bits 1 << LAYER_STEPS (edits.js's layerEdits)
 */
export function modelPlan(kind, dims, inputs, outputs, { causal = false, editedSteps = 0 } = {}) {
  return {
    kind,
    dims,
    inputs,
    outputs,
    options: { causal: causal ? CAUSAL.topLeft : CAUSAL.none, mask: null, returnWeights: false, returnSteps: false },
    maskDims: [1, 1, 1, 1],
    scratchBytes: 0,
    editedSteps,
    square: null,
    slotIndex: SLOTS,
    slotCount: MODEL_SLOT_COUNT,
  };
}

/**
 * The bytes a model call's core allocates for itself beyond its inputs and results, as the core reckons them
 * (src/core/model/scratch.h, through _modelScratchBytes): from the call's descriptor, written for it into a small
 * block of its own (only whether each buffer is given is read), and the steps its edits change. A batch of cells'
 * table (cells.js) is written beside it, the cells slot pointing at it: the cells' sizes count.
 */
export function modelScratchBytes(module, plan) {
  const { slots } = descriptorTemplate(plan, callLayout(plan));
  const table = plan.inputs.cells?.data;
  const bytes = slots.byteLength + (table ? table.byteLength : 0);
  const at = module._malloc(bytes);
  if (!at) throw new AttentionError('OUT_OF_MEMORY', 'WebAssembly memory could not grow for a call descriptor');
  try {
    if (table) {
      slots[SLOTS.cells] = at + slots.byteLength;
      module.HEAPF32.set(table, (at + slots.byteLength) / 4);
    }
    module.HEAP32.set(slots, at / 4);
    return module._modelScratchBytes(CALL_KINDS[plan.kind], at, plan.editedSteps);
  } finally {
    module._free(at);
  }
}

/** The shapes of a layer call's outputs: its output, the weights, and with `capture` every intermediate. */
export function layerOutputs(spec, n, { weights, capture }) {
  const { dModel: d, dFf: ff, numHeads: H, numKvHeads: Hkv, headDim: dK } = spec;
  const outputs = { output: [n, d] };
  if (weights || capture) outputs.weights = [H, n, n];
  if (!capture) return outputs;
  Object.assign(outputs, { normed: [n, d], q: [H, n, dK], k: [Hkv, n, dK], v: [Hkv, n, dK] });
  if (spec.rope) Object.assign(outputs, { qRotated: [H, n, dK], kRotated: [Hkv, n, dK] });
  Object.assign(outputs, {
    rawScores: [H, n, n],
    scaledScores: [H, n, n],
    scores: [H, n, n],
    heads: [H, n, dK],
    concat: [n, H * dK],
    attentionOutput: [n, d],
    residual: [n, d],
    mlpInput: [n, d],
    mlpHidden: [n, ff],
    mlpOutput: [n, d],
  });
  return outputs;
}

/** Bytes of a plan's outputs. */
export const outputBytes = (outputs) => Object.values(outputs).reduce((sum, shape) => sum + product(shape) * 4, 0);
