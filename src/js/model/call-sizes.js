// TOO_LARGE before anything is read: every call a run, a generation or an instrument will make, built as the forward
// builds it (layer-call.js's two halves, the embeddings, the final norm, the LM head's first block, a batch of cells)
// but of shapes only, and sized as the call's runner sizes it (its block of inputs, outputs and the scratch the core
// reckons, _modelScratchBytes of src/core/model/scratch.h), through engine.checkCall. A weight stands for itself by
// its shape, or by an address when the model keeps its weights (resident.js): only whether a buffer is given counts
// for the scratch. So a 16 384-token prompt whose attention would not fit is refused before a byte is read or
// prefetched.
import { AttentionError, formatShape } from '../errors.js';
import { LAYER_STEPS } from '../generated/model-abi.js';
import { layerOutputs, modelDims, modelPlan } from './calls.js';
import { runLayer } from './layer-call.js';
import { layerEdits } from './edits.js';
import { patchEditRows } from './patches.js';
import { blockRows } from './resident.js';
import { positionIds } from './positions.js';

/** A tensor of a shape and no values: what callLayout and the scratch read of an input. */
const shaped = (shape, name) => ({ data: null, shape, name, allowNegativeInfinity: false, valuesChecked: true });
/** A kept tensor's address stands in for it (any non-zero value: the scratch reads whether it is given). */
const KEPT = 16;

/** A group of weights as a call gets it: addresses when the model keeps its weights, else inputs of their shapes. */
function weightsOf(engine, entries) {
  const inputs = {};
  const addresses = {};
  for (const entry of entries) {
    if (engine.resident) addresses[entry.slot] = KEPT;
    else inputs[entry.slot] = shaped(entry.shape, entry.name);
  }
  return { inputs, addresses };
}

/** A runner that sizes each plan (engine.checkCall throws TOO_LARGE, naming `what`) and gives outputs of their shapes. */
const sizer = (engine, what) => (plan) => {
  try {
    engine.checkCall(plan);
  } catch (error) {
    if (error?.code !== 'TOO_LARGE') throw error;
    const weights = plan.outputs.weights;
    const square = weights ? `; the attention weights alone are ${formatShape(weights)} floats` : '';
    throw new AttentionError('TOO_LARGE', `${what}: ${error.message}${square}`);
  }
  return Object.fromEntries(Object.entries(plan.outputs).map(([key, shape]) => [key, shaped(shape, key)]));
};

/** The RoPE tables' inputs for `rows` rows (calls.js's ropeInputs). */
const ropeShapes = (spec, rows) =>
  spec.rope
    ? { ropeCos: shaped([rows, spec.rope.dim / 2], 'rope.cos'), ropeSin: shaped([rows, spec.rope.dim / 2], 'rope.sin') }
    : {};

/** The embeddings' call for the tokens `ids` (model.js's embed: positions.js's ids, gathered when not in a row). */
export function checkEmbed(engine, ids) {
  const { spec, tensors } = engine;
  const d = spec.dModel;
  const n = ids.length;
  const { positions, types } = tensors.embeddings;
  const inputs = { x: shaped([n, d], tensors.embeddings.tokens.name) };
  const dims = modelDims(spec, n);
  const at = positions ? positionIds(spec.positions, ids) : [];
  const inRow = at.every((p, i) => p === at[0] + i);
  if (positions && engine.resident && inRow) dims.positionEmbeddings = KEPT;
  else if (positions) inputs.positionEmbeddings = shaped([n, d], positions.name);
  if (types) inputs.typeEmbeddings = shaped([n, d], types.name);
  const norm = weightsOf(engine, tensors.embedNorm);
  Object.assign(inputs, norm.inputs);
  sizer(
    engine,
    `the embeddings of ${n} tokens`,
  )(modelPlan('modelEmbed', { ...dims, ...norm.addresses }, inputs, { output: [n, d] }));
}

/** The final norm on `rows` rows, and (`logits`) the LM head's largest block (model.js's final and logits). */
export function checkHead(engine, rows, { norm = true, logits = true } = {}) {
  const { spec, tensors } = engine;
  const d = spec.dModel;
  const x = shaped([rows, d], 'the final hidden state');
  if (norm && tensors.final.length) {
    const weights = weightsOf(engine, tensors.final);
    const dims = { ...modelDims(spec, rows), ...weights.addresses };
    sizer(
      engine,
      `the final norm of ${rows} rows`,
    )(modelPlan('modelNorm', dims, { x, ...weights.inputs }, { output: [rows, d] }));
  }
  if (!logits || !tensors.head) return;
  const block = Math.min(blockRows(d), spec.vocabSize);
  const dims = { ...modelDims(spec, rows), dOut: block };
  const inputs = { x };
  if (engine.resident) dims.wHead = KEPT;
  else inputs.wHead = shaped([block, d], tensors.head.name);
  if (tensors.headBias && engine.resident) dims.bHead = KEPT;
  else if (tensors.headBias) inputs.bHead = shaped([block], tensors.headBias.name);
  sizer(engine, `the LM head on ${rows} rows`)(modelPlan('modelLogits', dims, inputs, { output: [rows, block] }));
}

/**
 * Layer l's two calls on n rows (layer-call.js's runLayer).
 * @param {{ outputs: object, editCount?: number, editedSteps?: number, headMask?: boolean, dims?: object,
 *   inputs?: object, causal: boolean, mlp?: boolean, what: string }} o  outputs: the call's (layerOutputs' and the
 *   hooks'); dims and inputs: more of them (a KV cache's, cells' and base run's)
 */
export function checkLayer(engine, l, n, o) {
  const { spec, tensors } = engine;
  const weights = weightsOf(engine, tensors.layers[l]);
  const inputs = { x: shaped([n, spec.dModel], `hiddenStates[${l}]`), ...weights.inputs, ...ropeShapes(spec, n) };
  if (o.headMask) inputs.headMask = shaped([spec.numHeads], 'ablate');
  if (o.editCount) inputs.edits = shaped([o.editCount, 5], 'edits');
  Object.assign(inputs, o.inputs);
  const dims = { ...modelDims(spec, n, l), ...weights.addresses, editCount: o.editCount ?? 0, ...o.dims };
  runLayer(sizer(engine, o.what), spec, n, {
    inputs,
    dims,
    outputs: o.outputs,
    causal: o.causal,
    editedSteps: o.editedSteps ?? 0,
    mlp: o.mlp ?? true,
  });
}

/** The rows of layer l's edits input a run plan gives (forward-pass.js): { count, steps }. */
function editSize(plan, l, spec) {
  const own = layerEdits(plan.edits, l, spec);
  const patched = patchEditRows(plan.patches, l, spec);
  let count = (own?.count ?? 0) + (patched?.count ?? 0);
  let steps = own?.steps ?? 0;
  for (const step of patched?.steps ?? []) steps |= 1 << LAYER_STEPS[step];
  const replaced = plan.ablate.filter((a) => a.layer === l && a.mode !== 'zero').length; // ablation.js's rows
  if (replaced) {
    count += replaced * plan.n * spec.headDim;
    steps |= 1 << LAYER_STEPS.headOutput;
  }
  return { count, steps };
}

/**
 * Every call of forwardPass(engine, plan, hooks) (forward-pass.js), sized before anything is read: the embeddings,
 * each layer's halves with its outputs (the hooks' too) and edits, the final norm and the LM head's first block.
 */
export function checkForward(engine, plan, hooks = {}) {
  const { spec, tensors } = engine;
  const { n, first } = plan;
  const what = (where) => `a run of ${n} tokens: ${where}`;
  if (!plan.from) checkEmbed(engine, plan.ids);
  for (let l = first; l < plan.layers; l++) {
    const capture = plan.capture.some((c) => c.layer === l);
    const outputs = { ...layerOutputs(spec, n, { weights: plan.attentions, capture }), ...hooks.outputs?.(l) };
    const { count, steps } = editSize(plan, l, spec);
    const headMask = plan.ablate.some((a) => a.layer === l && a.mode === 'zero');
    const o = { editCount: count, editedSteps: steps, headMask, causal: spec.choices.causal, what: what(`layer ${l}`) };
    checkLayer(engine, l, n, { ...o, outputs });
  }
  if (plan.layers < tensors.layers.length) return;
  const logits = (plan.logits !== false || plan.loss) && Boolean(tensors.head);
  const rows = plan.loss || !plan.logitRows ? n : plan.logitRows.length;
  checkHead(engine, n, { logits: false });
  if (logits) checkHead(engine, rows, { norm: false });
}

/**
 * The calls of cells.js's runCells for each batch, from layer `layer` on: batches of { first, count, edits } (rows of
 * its edits input at `layer`); `length` the base run's tokens; `attentions` and `outputs` as runCells takes them.
 */
export function checkCells(engine, batches, { layer, length = 0, attentions = false, outputs = true, what }) {
  const { spec } = engine;
  const { dModel: d, numHeads: H, numKvHeads: Hkv, headDim: dK, numLayers: L } = spec;
  for (const batch of batches) {
    const R = batch.reduce((sum, cell) => sum + cell.count, 0);
    const table = new Float32Array(batch.length * 2); // [count, 2]: first row in the batch, position (cells.js)
    let at = 0;
    batch.forEach((cell, c) => {
      table.set([at, cell.first], c * 2);
      at += cell.count;
    });
    const weightFloats = batch.reduce((sum, cell) => sum + H * cell.count * (cell.first + cell.count), 0);
    const editCount = batch.reduce((sum, cell) => sum + (cell.edits ?? 0), 0);
    const inputs = { cells: { ...shaped([batch.length, 2], 'cells'), data: table } };
    if (length) {
      inputs.baseK = shaped([Hkv * length * dK], "the base run's keys");
      inputs.baseV = shaped([Hkv * length * dK], "the base run's values");
    }
    const out = attentions ? { output: [R, d], weights: [weightFloats] } : { output: [R, d] };
    for (let l = layer; l < L; l++) {
      const edits = l === layer ? editCount : 0;
      const steps = edits ? batch.reduce((bits, cell) => bits | (cell.steps ?? 0), 0) : 0;
      checkLayer(engine, l, R, {
        inputs,
        dims: { cellCount: batch.length, baseLen: length },
        outputs: out,
        editCount: edits,
        editedSteps: steps,
        causal: true,
        mlp: outputs || l < L - 1,
        what: `${what}: a batch of ${R} rows at layer ${l}`,
      });
    }
  }
}

/**
 * generate()'s prefill (decode.js): the prompt's n tokens through every layer with a KV cache of `capacity` tokens,
 * its attention rows when `attentions`, its zero ablations as head masks; then the final norm and the LM head on one row.
 */
export function checkPrefill(engine, ids, capacity, { attentions, ablate }) {
  const { spec } = engine;
  const n = ids.length;
  const { numHeads: H, dModel: d } = spec;
  checkEmbed(engine, ids);
  const cache = { cacheK: KEPT, cacheV: KEPT, cachePast: 0, cacheCapacity: capacity };
  const outputs = attentions ? { output: [n, d], weights: [H, n, n] } : { output: [n, d] };
  for (let l = 0; l < spec.numLayers; l++) {
    const headMask = ablate.some((a) => a.layer === l);
    const what = `generate()'s prompt of ${n} tokens: layer ${l}`;
    checkLayer(engine, l, n, { outputs, headMask, dims: cache, causal: true, what });
  }
  checkHead(engine, 1);
}
