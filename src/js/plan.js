// Argument checking and shapes for every call: turns what users pass into a plan (validated tensors, the
// core's dimensions, the result shapes, the memory needed). Nothing here touches WebAssembly memory.
import { AttentionError, checkKeys, formatShape } from './errors.js';
import { checkRank, checkValues, toFloatTensor, toMask } from './tensor.js';
import { CAUSAL, KEY_PANEL, KEY_TILE, QUERY_BLOCK, VALUE_PANEL } from './generated/abi.js';

/** The most WebAssembly memory one call may use (inputs, results and scratch): 1 GiB. */
export const MAX_CALL_BYTES = 2 ** 30;

const CAUSAL_MODES = new Map([
  [false, CAUSAL.none], [true, CAUSAL.topLeft], ['top-left', CAUSAL.topLeft], ['bottom-right', CAUSAL.bottomRight],
]);

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

const SDPA_OPTIONS = ['scale', 'causal', 'mask', 'returnWeights', 'returnSteps'];
const PROJECTION_OPTIONS = SDPA_OPTIONS;
const WEIGHT_NAMES = ['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo', 'numHeads', 'numKvHeads'];

const STEP_NAMES = ['rawScores', 'scaledScores', 'scores'];

export const product = (shape) => shape.reduce((a, b) => a * b, 1);

/** The value when it is a plain object ({} for undefined); BAD_OPTION otherwise. */
export function plainObject(value, name) {
  if (value === undefined) return {};
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new AttentionError('BAD_OPTION', `${name} must be an object, got ${value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value}`);
  }
  return value;
}

/** Validates call options; `returnSteps` defaults differ between the low-level and the projection calls. */
function parseOptions(options, allowed, stepsByDefault) {
  const o = plainObject(options, 'options');
  checkKeys(o, allowed, 'option');
  const { scale, causal = false, mask, returnWeights = true } = o;
  if (scale !== undefined && (typeof scale !== 'number' || !Number.isFinite(scale))) {
    throw new AttentionError('BAD_OPTION', `scale must be a finite number (0 included), got ${String(scale)}`);
  }
  if (!CAUSAL_MODES.has(causal)) {
    throw new AttentionError('BAD_OPTION', `causal must be false, true, 'top-left' or 'bottom-right', got ${JSON.stringify(causal) ?? String(causal)}`);
  }
  for (const flag of ['returnWeights', 'returnSteps']) {
    if (o[flag] !== undefined && typeof o[flag] !== 'boolean') {
      throw new AttentionError('BAD_OPTION', `${flag} must be true or false, got ${String(o[flag])}`);
    }
  }
  if (o.returnSteps === true && !returnWeights) {
    throw new AttentionError('BAD_OPTION', 'returnSteps needs returnWeights: the steps are [L_q, L_k] matrices like the weights');
  }
  return {
    scale,
    causal: CAUSAL_MODES.get(causal),
    mask: mask === undefined || mask === null ? null : toMask(mask),
    returnWeights,
    returnSteps: returnWeights && (o.returnSteps ?? stepsByDefault),
  };
}

/**
 * Where each mask dimension lands among the core's [B, H, L_q, L_k], broadcasting from the right
 * against the weights' public shape (`axes`: its dimensions, each with its name and its core position).
 */
function maskDims(mask, axes) {
  const dims = [1, 1, 1, 1];
  const weightsShape = formatShape(axes.map((a) => a.size));
  const names = axes.map((a) => a.name).join(', ');
  const extra = mask.shape.length - axes.length;
  for (let i = 0; i < mask.shape.length; i++) {
    const size = mask.shape[i];
    const axis = axes[i - extra];
    if (!axis) {
      if (size === 1) continue;
      throw new AttentionError('MASK_DOES_NOT_BROADCAST', `mask has shape ${formatShape(mask.shape)} but the attention weights are ${weightsShape} (${names}): the mask has more dimensions than the weights and its extra dimension ${i} is ${size}, not 1`);
    }
    if (size !== 1 && size !== axis.size) {
      throw new AttentionError('MASK_DOES_NOT_BROADCAST', `mask has shape ${formatShape(mask.shape)} but the attention weights are ${weightsShape} (${names}): mask dimension ${i} is ${size}, which is neither 1 nor ${axis.name} (${axis.size})`);
    }
    dims[axis.core] = size;
  }
  return dims;
}

function positiveInteger(value, name, fallback) {
  if (value === undefined) return fallback;
  if (typeof value !== 'number' || !Number.isInteger(value) || value < 1) {
    throw new AttentionError('BAD_OPTION', `${name} must be a positive integer, got ${typeof value === 'string' ? JSON.stringify(value) : String(value)}`);
  }
  return value;
}

function mismatch(message) {
  return new AttentionError('SHAPE_MISMATCH', message);
}

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
 */

/**
 * Scans, in JS, the input values a plan left unchecked (Float32Array data, see toFloatTensor), for callers
 * that do not run the scan in WebAssembly memory: ParallelAttention, before it splits the inputs.
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
  const o = parseOptions(options, SDPA_OPTIONS, false);
  const layout = (rows, cols) => `[${rows}, ${cols}], [H, ${rows}, ${cols}] or [B, H, ${rows}, ${cols}]`;
  const Q = toFloatTensor(q, 'q');
  checkRank(Q, 'q', [2, 3, 4], layout('L_q', 'd_k'));
  const K = toFloatTensor(k, 'k');
  const V = toFloatTensor(v, 'v');
  const rank = Q.shape.length;
  for (const [T, name] of [[K, 'k'], [V, 'v']]) {
    if (T.shape.length !== rank) {
      throw new AttentionError('BAD_RANK', `${name} has shape ${formatShape(T.shape)} (rank ${T.shape.length}) but q has ${formatShape(Q.shape)} (rank ${rank}): q, k and v must have the same rank`);
    }
  }
  const [lenQ, dK] = Q.shape.slice(-2);
  const [lenK, dKofK] = K.shape.slice(-2);
  const [lenV, dV] = V.shape.slice(-2);
  const shapes = `(q is ${formatShape(Q.shape)}, k is ${formatShape(K.shape)}, v is ${formatShape(V.shape)})`;
  if (dKofK !== dK) throw mismatch(`k has ${dKofK} columns but q has ${dK}: q and k must share d_k ${shapes}`);
  if (lenV !== lenK) throw mismatch(`v has ${lenV} rows but k has ${lenK}: k and v must hold the same L_k keys ${shapes}`);
  const batch = rank === 4 ? Q.shape[0] : 1;
  const numHeads = rank >= 3 ? Q.shape[rank - 3] : 1;
  const numKvHeads = rank >= 3 ? K.shape[rank - 3] : 1;
  if (rank === 4) {
    for (const [T, name] of [[K, 'k'], [V, 'v']]) {
      if (T.shape[0] !== batch) throw mismatch(`${name} has batch ${T.shape[0]} but q has ${batch} ${shapes}`);
    }
  }
  if (rank >= 3) {
    if (V.shape[rank - 3] !== numKvHeads) throw mismatch(`v has ${V.shape[rank - 3]} heads but k has ${numKvHeads}: k and v must have the same heads ${shapes}`);
    if (numHeads % numKvHeads !== 0) {
      throw new AttentionError('HEADS_DO_NOT_DIVIDE', `k and v have ${numKvHeads} heads, which does not divide q's ${numHeads} heads ${shapes}`);
    }
  }
  const lead = Q.shape.slice(0, -2);
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
    kind: 'sdpa',
    dims: { batch, numHeads, numKvHeads, lenQ, lenK, dK, dV },
    inputs: { q: Q, k: K, v: V },
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
  if (context === undefined) throw new AttentionError('NOT_A_TENSOR', 'context must be a nested array of numbers or { data, shape }, got undefined');
  return planProjected(x, context, weights, options, false);
}

/** Plans multiHeadAttention(x, weights, options). @returns {Plan} */
export function planMultiHeadAttention(x, weights, options) {
  const w = plainObject(weights, 'weights');
  if (w.numHeads === undefined) throw new AttentionError('BAD_OPTION', 'multiHeadAttention needs weights.numHeads');
  return planProjected(x, undefined, w, options, true);
}

/** Self-, cross- and multi-head attention from inputs; `headed` keeps a head dimension in the results. */
function planProjected(x, context, weights, options, headed) {
  const o = parseOptions(options, PROJECTION_OPTIONS, true);
  const w = plainObject(weights, 'weights');
  checkKeys(w, WEIGHT_NAMES, 'weight');
  headed = headed || w.numHeads !== undefined;
  const numHeads = positiveInteger(w.numHeads, 'numHeads', 1);
  const numKvHeads = positiveInteger(w.numKvHeads, 'numKvHeads', numHeads);
  if (numHeads % numKvHeads !== 0) {
    throw new AttentionError('HEADS_DO_NOT_DIVIDE', `numKvHeads (${numKvHeads}) must divide numHeads (${numHeads})`);
  }

  const X = toFloatTensor(x, 'x');
  checkRank(X, 'x', [2, 3], '[L, d_model] or [B, L, d_model]');
  const C = context === undefined ? X : toFloatTensor(context, 'context');
  const xName = context === undefined ? 'x' : 'context';
  if (C.shape.length !== X.shape.length) {
    throw new AttentionError('BAD_RANK', `context has shape ${formatShape(C.shape)} but x has ${formatShape(X.shape)}: both must be [L, d] or both [B, L, d]`);
  }
  const hasBatch = X.shape.length === 3;
  const batch = hasBatch ? X.shape[0] : 1;
  if (hasBatch && C.shape[0] !== batch) throw mismatch(`context has batch ${C.shape[0]} but x has ${batch}`);
  const [lenQ, dModel] = X.shape.slice(-2);
  const [lenK, dContext] = C.shape.slice(-2);

  const matrix = (value, name) => {
    if (value === undefined) throw new AttentionError('NOT_A_TENSOR', `weights.${name} is missing`);
    const T = toFloatTensor(value, name);
    checkRank(T, name, [2], 'a matrix');
    return T;
  };
  const Wq = matrix(w.wq, 'wq');
  const Wk = matrix(w.wk, 'wk');
  const Wv = matrix(w.wv, 'wv');
  const Wo = w.wo === undefined ? null : matrix(w.wo, 'wo');
  const heads = numHeads === 1 ? '' : 'numHeads·';
  const kvHeads = numKvHeads === 1 ? '' : 'numKvHeads·';
  if (Wq.shape[0] !== dModel) throw mismatch(`wq has ${Wq.shape[0]} rows but x has ${dModel} columns: wq must be [d_model, ${heads}d_k] (x is ${formatShape(X.shape)}, wq is ${formatShape(Wq.shape)})`);
  for (const [T, name] of [[Wk, 'wk'], [Wv, 'wv']]) {
    if (T.shape[0] !== dContext) throw mismatch(`${name} has ${T.shape[0]} rows but ${xName} has ${dContext} columns: ${name} must be [d_${xName === 'x' ? 'model' : 'context'}, …] (${xName} is ${formatShape(C.shape)}, ${name} is ${formatShape(T.shape)})`);
  }
  for (const [T, name, count, countName] of [[Wq, 'wq', numHeads, 'numHeads'], [Wk, 'wk', numKvHeads, 'numKvHeads'], [Wv, 'wv', numKvHeads, 'numKvHeads']]) {
    if (T.shape[1] % count !== 0) {
      throw new AttentionError('HEADS_DO_NOT_DIVIDE', `${name} has ${T.shape[1]} columns, which ${countName} (${count}) does not divide: heads are equal column blocks`);
    }
  }
  const dK = Wq.shape[1] / numHeads;
  const dV = Wv.shape[1] / numKvHeads;
  if (Wk.shape[1] !== numKvHeads * dK) {
    throw mismatch(numHeads === 1 && numKvHeads === 1
      ? `wk has ${Wk.shape[1]} columns but wq has ${Wq.shape[1]}: wq and wk must share d_k (wq is ${formatShape(Wq.shape)}, wk is ${formatShape(Wk.shape)})`
      : `wk has ${Wk.shape[1]} columns but must have ${kvHeads}d_k = ${numKvHeads}·${dK} = ${numKvHeads * dK}, as wq has ${numHeads}·${dK} (wq is ${formatShape(Wq.shape)}, wk is ${formatShape(Wk.shape)})`);
  }
  if (Wo && Wo.shape[0] !== numHeads * dV) {
    throw mismatch(`wo has ${Wo.shape[0]} rows but the ${numHeads === 1 ? 'attention output has d_v' : `concatenated heads have ${heads}d_v = ${numHeads}·${dV}`} = ${numHeads * dV} columns (wv is ${formatShape(Wv.shape)}, wo is ${formatShape(Wo.shape)})`);
  }
  const bias = (value, name, W, wName) => {
    if (value === undefined) return null;
    const T = toFloatTensor(value, name);
    checkRank(T, name, [1], `a vector of ${W.shape[1]} values (the columns of ${wName})`);
    if (T.shape[0] !== W.shape[1]) throw mismatch(`${name} has ${T.shape[0]} values but ${wName} has ${W.shape[1]} columns (${wName} is ${formatShape(W.shape)})`);
    return T;
  };
  if (w.bo !== undefined && !Wo) throw new AttentionError('BAD_OPTION', 'weights.bo needs weights.wo');
  const inputs = {
    x: X, context: context === undefined ? null : C, wQ: Wq, wK: Wk, wV: Wv, wO: Wo,
    bQ: bias(w.bq, 'bq', Wq, 'wq'), bK: bias(w.bk, 'bk', Wk, 'wk'), bV: bias(w.bv, 'bv', Wv, 'wv'),
    bO: Wo ? bias(w.bo, 'bo', Wo, 'wo') : null,
  };

  const P = hasBatch ? [batch] : [];
  const perHead = (n) => (headed ? [...P, n] : P);
  const dOut = Wo ? Wo.shape[1] : 0;
  const square = [...perHead(numHeads), lenQ, lenK];
  const outputs = {
    q: [...perHead(numHeads), lenQ, dK],
    k: [...perHead(numKvHeads), lenK, dK],
    v: [...perHead(numKvHeads), lenK, dV],
  };
  if (o.returnSteps) for (const step of STEP_NAMES) outputs[step] = square;
  if (o.returnWeights) outputs.weights = square;
  if (headed) outputs.heads = [...P, numHeads, lenQ, dV];
  if (headed || Wo) outputs.concat = [...P, lenQ, numHeads * dV];
  outputs.output = [...P, lenQ, dOut || numHeads * dV];
  const axes = [
    ...(hasBatch ? [{ name: 'B', size: batch, core: 0 }] : []),
    ...(headed ? [{ name: 'H', size: numHeads, core: 1 }] : []),
    { name: 'L_q', size: lenQ, core: 2 },
    { name: 'L_k', size: lenK, core: 3 },
  ];
  // The core keeps its own per-head output when `heads` is not returned, and packs W_o.
  const scratchBytes = coreScratchBytes(lenQ, lenK, dK, dV, o.returnWeights)
    + (headed ? 0 : batch * lenQ * dV * 4) + (dOut ? outputProjectionScratchBytes(numHeads * dV, dOut) : 0);
  return {
    kind: 'projected',
    dims: { batch, lenQ, lenK, dModel, dContext, numHeads, numKvHeads, dK, dV, dOut },
    inputs,
    outputs,
    options: o,
    maskDims: o.mask ? maskDims(o.mask, axes) : [1, 1, 1, 1],
    scratchBytes,
    square,
  };
}
