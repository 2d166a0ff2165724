// The plan of every call: what users pass, read once (convert.js) and checked (validate.js), with the core's
// dimensions, the result shapes and the memory needed. Nothing here touches WebAssembly memory.
import { AttentionError } from './errors.js';
import { checkHeld, readFloatTensor } from './convert.js';
import { readRecord } from './read.js';
import { readOutRecord, resolveOut } from './out.js';
import { checkValues } from './tensor.js';
import {
  SPECS,
  checkAttentionShapes,
  checkHeadCounts,
  checkProjectedShapes,
  maskDims,
  parseOptions,
  readProjectedInputs,
} from './validate.js';
import { CAUSAL, KEY_PANEL, KEY_TILE, QUERY_BLOCK, VALUE_PANEL } from './generated/abi.js';

export { MAX_CALL_BYTES } from './limits.js';

/**
 * Bytes the core allocates for itself in one attention call (sdpa_scratch_floats in abi.h): its packed copy of
 * one head's keys and values (rounded up to whole panels), and without weights one tile of scores.
 * tests/js/abi.test.js checks it against the built module.
 */
export function coreScratchBytes(lenQ, lenK, dK, dV, returnWeights) {
  const packed = roundUp(lenK, KEY_PANEL) * dK + roundUp(dV, VALUE_PANEL) * lenK;
  return (packed + (returnWeights ? 0 : Math.min(lenQ, QUERY_BLOCK) * Math.min(lenK, KEY_TILE))) * 4;
}

/** Bytes of the core's packed copy of W_o in output_projection (output_projection_scratch_floats in abi.h). */
export function outputProjectionScratchBytes(width, dOut) {
  return width * roundUp(dOut, VALUE_PANEL) * 4;
}

const roundUp = (n, multiple) => Math.ceil(n / multiple) * multiple;

const SDPA_OPTIONS = ['scale', 'causal', 'mask', 'returnWeights', 'returnSteps', 'out'];
const PROJECTION_OPTIONS = SDPA_OPTIONS;
const WEIGHT_NAMES = ['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo', 'numHeads', 'numKvHeads'];

const STEP_NAMES = ['rawScores', 'scaledScores', 'scores'];

export const product = (shape) => shape.reduce((a, b) => a * b, 1);

/**
 * @typedef {object} Plan
 * @property {'sdpa' | 'projected' | 'outputProjection'} kind  which core entry point runs it
 * @property {object} dims      the core's dimensions (AttentionDims or ProjectionDims, in camelCase)
 * @property {object} inputs    validated tensors by the core's buffer names (null = absent)
 * @property {Record<string, number[]>} outputs  result shapes by name, in the order they are returned
 * @property {object} options   parsed options (scale, causal as 0/1/2, mask, returnWeights, returnSteps)
 * @property {number[]} maskDims  the mask's size along the core's [B, H, L_q, L_k] (1 = broadcast)
 * @property {number} scratchBytes  memory the core allocates for itself
 * @property {number[]} square  the public shape of the weights
 * @property {Record<string, {array: Float32Array, view: Float32Array}> | null} [out]  the caller's arrays for
 *   results (options.out, out.js), or null/absent: new arrays
 */

/**
 * Scans, in JS, the input values a plan left unchecked (typed-array data, see FloatInput), for callers that do
 * not run the scan in WebAssembly memory: ParallelAttention, before it splits the inputs.
 */
export function checkPlanValues(plan) {
  for (const tensor of Object.values(plan.inputs)) if (tensor) checkValues(tensor);
  if (plan.options.mask) checkValues(plan.options.mask);
}

/**
 * Plans the output projection alone, output = concat·wo (+ bo), for the workers of ParallelAttention: its
 * tensors ({ data, shape }) were validated by the calling thread's plan. @returns {Plan}
 */
export function planOutputProjection(concat, wo, bo) {
  const [rows, width] = concat.shape;
  const dOut = wo.shape[1];
  return {
    kind: 'outputProjection',
    dims: { rows, width, dOut },
    inputs: { concat, wO: wo, bO: bo },
    outputs: { output: [rows, dOut] },
    options: { causal: CAUSAL.none, mask: null, returnWeights: false, returnSteps: false },
    maskDims: [1, 1, 1, 1],
    scratchBytes: outputProjectionScratchBytes(width, dOut),
    square: null,
  };
}

/** Plans scaledDotProductAttention(q, k, v, options). @returns {Plan} */
export function planScaledDotProduct(q, k, v, options) {
  const record = readRecord(options, 'options', SDPA_OPTIONS, 'option');
  const outRecord = readOutRecord(record.out);
  const o = parseOptions(record, false);
  const inputs = { q: readFloatTensor(q, SPECS.q), k: readFloatTensor(k, SPECS.k), v: readFloatTensor(v, SPECS.v) };
  // Every argument is read: from here on, no code of the caller's runs until the results are returned.
  checkHeld([inputs.q, inputs.k, inputs.v, o.mask]);
  const dims = checkAttentionShapes(inputs.q, inputs.k, inputs.v);
  const { batch, numHeads, lenQ, lenK, dK, dV } = dims;
  const rank = inputs.q.shape.length;
  const lead = inputs.q.shape.slice(0, -2);
  const axes = [
    ...(rank === 4 ? [{ name: 'B', size: batch, core: 0 }] : []),
    ...(rank >= 3 ? [{ name: 'H', size: numHeads, core: 1 }] : []),
    { name: 'L_q', size: lenQ, core: 2 },
    { name: 'L_k', size: lenK, core: 3 },
  ];
  const square = [...lead, lenQ, lenK];
  const outputs = { output: [...lead, lenQ, dV] };
  if (o.returnWeights) outputs.weights = square;
  if (o.returnSteps) for (const step of STEP_NAMES) outputs[step] = square;
  return {
    out: resolveOut(outRecord, outputs, [inputs.q, inputs.k, inputs.v, o.mask]),
    kind: 'sdpa',
    dims,
    inputs,
    outputs,
    options: o,
    maskDims: o.mask ? maskDims(o.mask, axes) : [1, 1, 1, 1],
    scratchBytes: coreScratchBytes(lenQ, lenK, dK, dV, o.returnWeights),
    square,
  };
}

/** Plans selfAttention(x, weights, options). @returns {Plan} */
export function planSelfAttention(x, weights, options) {
  return planProjected(x, undefined, weights, options, false);
}

/** Plans crossAttention(x, context, weights, options). @returns {Plan} */
export function planCrossAttention(x, context, weights, options) {
  if (context === undefined)
    throw new AttentionError(
      'NOT_A_TENSOR',
      'context must be a nested array of numbers or { data, shape }, got undefined',
    );
  return planProjected(x, context, weights, options, false);
}

/** Plans multiHeadAttention(x, weights, options). @returns {Plan} */
export function planMultiHeadAttention(x, weights, options) {
  return planProjected(x, undefined, weights, options, true);
}

/** Self-, cross- and multi-head attention from inputs; `multiHead` needs numHeads and keeps a head dimension. */
function planProjected(x, context, weights, options, multiHead) {
  const { o, outRecord } = readProjectedOptions(options);
  const heads = readWeights(weights, multiHead);
  const inputs = readProjectedInputs(x, context, heads.w);
  return planProjectedInputs(inputs, heads, o, outRecord, Object.values(inputs));
}

/** A projected call's options, read as every call reads them: { o: parseOptions', outRecord: readOutRecord's }. */
export function readProjectedOptions(options) {
  const record = readRecord(options, 'options', PROJECTION_OPTIONS, 'option');
  const outRecord = readOutRecord(record.out);
  return { o: parseOptions(record, true), outRecord };
}

/**
 * A weights record's own properties, read once: { w, numHeads, numKvHeads, headed } (`headed`: the results keep
 * a head dimension, as with numHeads; `multiHead` requires it).
 */
export function readWeights(weights, multiHead) {
  const w = readRecord(weights, 'weights', WEIGHT_NAMES, 'weight');
  if (multiHead && w.numHeads === undefined)
    throw new AttentionError('BAD_OPTION', 'multiHeadAttention needs weights.numHeads');
  return { w, ...checkHeadCounts(w), headed: multiHead || w.numHeads !== undefined };
}

/**
 * The plan of a projected call once every argument is read: its inputs (x, context, wQ, …, bO), readWeights'
 * head counts, the options; `read` lists the tensors read from the caller for this call (checkHeld's).
 */
export function planProjectedInputs(inputs, { numHeads, numKvHeads, headed }, o, outRecord, read) {
  // Every argument is read: from here on, no code of the caller's runs until the results are returned.
  checkHeld([...read, o.mask]);
  const dims = { ...checkProjectedShapes(inputs, numHeads, numKvHeads), numHeads, numKvHeads };
  const plan = projectedPlan(dims, inputs, o, headed);
  plan.out = resolveOut(outRecord, plan.outputs, [...Object.values(inputs), o.mask]);
  return plan;
}

/** The plan of a projected call from its checked dimensions; `headed` keeps a head dimension in the results. */
function projectedPlan(dims, inputs, o, headed) {
  const { batch, lenQ, lenK, numHeads, numKvHeads, dK, dV, dOut } = dims;
  const hasBatch = inputs.x.shape.length === 3;
  const P = hasBatch ? [batch] : [];
  const perHead = (n) => (headed ? [...P, n] : P);
  const square = [...perHead(numHeads), lenQ, lenK];
  const outputs = {
    q: [...perHead(numHeads), lenQ, dK],
    k: [...perHead(numKvHeads), lenK, dK],
    v: [...perHead(numKvHeads), lenK, dV],
  };
  if (o.returnSteps) for (const step of STEP_NAMES) outputs[step] = square;
  if (o.returnWeights) outputs.weights = square;
  if (headed) outputs.heads = [...P, numHeads, lenQ, dV];
  if (headed || dOut) outputs.concat = [...P, lenQ, numHeads * dV];
  outputs.output = [...P, lenQ, dOut || numHeads * dV];
  const axes = [
    ...(hasBatch ? [{ name: 'B', size: batch, core: 0 }] : []),
    ...(headed ? [{ name: 'H', size: numHeads, core: 1 }] : []),
    { name: 'L_q', size: lenQ, core: 2 },
    { name: 'L_k', size: lenK, core: 3 },
  ];
  // The core keeps its own per-head output when `heads` is not returned, and packs W_o.
  const scratchBytes =
    coreScratchBytes(lenQ, lenK, dK, dV, o.returnWeights) +
    (headed ? 0 : batch * lenQ * dV * 4) +
    (dOut ? outputProjectionScratchBytes(numHeads * dV, dOut) : 0);
  return {
    kind: 'projected',
    dims: { batch, lenQ, lenK, dModel: dims.dModel, dContext: dims.dContext, numHeads, numKvHeads, dK, dV, dOut },
    inputs,
    outputs,
    options: o,
    maskDims: o.mask ? maskDims(o.mask, axes) : [1, 1, 1, 1],
    scratchBytes,
    square,
  };
}
