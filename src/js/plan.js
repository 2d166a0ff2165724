// The plan of every call: what users pass, read once (convert.js) and checked (validate.js), with the core's
// dimensions, the result shapes and the memory needed, and where it goes in that memory (callLayout, Workspace).
import { AttentionError, formatShape } from './errors.js';
import { checkHeld, readFloatTensor } from './convert.js';
import { readRecord } from './read.js';
import { readOutRecord, resolveOut } from './out.js';
import {
  SPECS,
  checkAttentionShapes,
  checkHeadCounts,
  checkProjectedShapes,
  maskDims,
  parseOptions,
  readProjectedInputs,
} from './validate.js';
import {
  DESCRIPTOR_SLOTS,
  DESCRIPTOR_SLOT_COUNT,
  KEY_PANEL,
  KEY_TILE,
  MASK_KINDS,
  QUERY_BLOCK,
  VALUE_PANEL,
} from './generated/abi.js';
import { Tensor, nonFiniteError } from './tensor.js';
import { readRope, ropePlan } from './rope.js';
import { WEIGHT_OPTIONS, readWeightOptions, withWeightOptions } from './weight-options.js';

import { MAX_CALL_BYTES } from './limits.js';

export { MAX_CALL_BYTES };

/**
 * Bytes the core allocates for itself in one attention call (sdpa_scratch_floats in abi.h): its packed copy of
 * one head's keys and values (rounded up to whole panels), and without weights one tile of scores.
 * tests/js/abi.test.js checks it against the built module.
 */
export function coreScratchBytes(lenQ, lenK, dK, dV, returnWeights) {
  const packed = roundUp(lenK, KEY_PANEL) * dK + roundUp(dV, VALUE_PANEL) * lenK;
  return (packed + (returnWeights ? 0 : Math.min(lenQ, QUERY_BLOCK) * Math.min(lenK, KEY_TILE))) * 4;
}

const roundUp = (n, multiple) => Math.ceil(n / multiple) * multiple;

const SDPA_OPTIONS = ['scale', 'causal', 'mask', 'softcap', 'window', 'returnWeights', 'returnSteps', 'rope', 'out'];
const PROJECTION_OPTIONS = SDPA_OPTIONS;
const WEIGHT_NAMES = ['wq', 'wk', 'wv', 'wo', 'bq', 'bk', 'bv', 'bo', 'numHeads', 'numKvHeads', 'rope'].concat(
  WEIGHT_OPTIONS,
  'qkNorm',
);

const STEP_NAMES = ['rawScores', 'scaledScores', 'scores'];

export const product = (shape) => shape.reduce((a, b) => a * b, 1);

const bits = new Int32Array(1);
const asFloat = new Float32Array(bits.buffer);

/** The int32 bits of a float32, for the descriptor's float slots (scale, softcap, eps). */
export function floatBits(x) {
  asFloat[0] = x;
  return bits[0];
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
 * @property {Record<string, number>} [slotIndex]  a model call's descriptor slots (model-abi.js); else DESCRIPTOR_SLOTS
 * @property {number} [slotCount]  its slot count; else DESCRIPTOR_SLOT_COUNT
 * @property {Record<string, {array: Float32Array, view: Float32Array}> | null} [out]  the caller's arrays for
 *   results (options.out, out.js), or null/absent: new arrays
 */

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
  const rope = ropePlan(o.rope, lenQ, lenK, dK);
  if (o.rope) Object.assign(outputs, { qRotated: inputs.q.shape.slice(), kRotated: inputs.k.shape.slice() });
  return {
    out: resolveOut(outRecord, outputs, [inputs.q, inputs.k, inputs.v, o.mask]),
    kind: 'sdpa',
    dims: { ...dims, ...rope.dims },
    inputs: { ...inputs, ...rope.inputs },
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
  // rope, scale, softcap, window: a checkpoint layer's own (attentionWeightsFrom's), used unless the options give them
  const carried = readWeightOptions(w);
  const headed = multiHead || w.numHeads !== undefined;
  return { w, ...checkHeadCounts(w), headed, rope: readRope(w.rope), carried };
}

/**
 * The plan of a projected call once every argument is read: its inputs (x, context, wQ, …, bO), readWeights'
 * head counts, the options; `read` lists the tensors read from the caller for this call (checkHeld's).
 */
export function planProjectedInputs(inputs, { numHeads, numKvHeads, headed, rope, carried }, given, outRecord, read) {
  const o = withWeightOptions(given.rope || !rope ? given : { ...given, rope }, carried);
  if (o.rope && inputs.context) {
    throw new AttentionError(
      'BAD_OPTION',
      'rope applies to self-attention and scaledDotProductAttention, not crossAttention',
    );
  }
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
  const rope = ropePlan(o.rope, lenQ, lenK, dK);
  if (o.rope) Object.assign(outputs, { qRotated: outputs.q, kRotated: outputs.k });
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
  // The core keeps its own per-head output when `heads` is not returned; its products (gemm.h) allocate nothing.
  const scratchBytes = coreScratchBytes(lenQ, lenK, dK, dV, o.returnWeights) + (headed ? 0 : batch * lenQ * dV * 4);
  return {
    kind: 'projected',
    dims: {
      batch,
      lenQ,
      lenK,
      dModel: dims.dModel,
      dContext: dims.dContext,
      numHeads,
      numKvHeads,
      dK,
      dV,
      dOut,
      ...rope.dims,
    },
    inputs: { ...inputs, ...rope.inputs },
    outputs,
    options: o,
    maskDims: o.mask ? maskDims(o.mask, axes) : [1, 1, 1, 1],
    scratchBytes,
    square,
  };
}

/** The AttentionError for a status string of the Embind layer ("CODE\tmessage"). */
export function statusError(status) {
  const tab = status.indexOf('\t');
  return new AttentionError(status.slice(0, tab), status.slice(tab + 1));
}

/**
 * Where each buffer of a plan's call goes in its one block of WebAssembly memory (offsets 16-byte aligned, in
 * the order call descriptor, inputs, mask, outputs, then the core's scratch), and the block's size.
 * @param {Plan} plan
 */
export function callLayout(plan) {
  let bytes = 0;
  const reserve = (count, elementBytes = 4) => {
    const offset = Math.ceil(bytes / 16) * 16;
    bytes = offset + count * elementBytes;
    return { offset, count, elementBytes };
  };
  const descriptor = reserve(plan.slotCount ?? DESCRIPTOR_SLOT_COUNT); // a model call's plan has more slots
  const inputs = Object.entries(plan.inputs)
    .filter(([, tensor]) => tensor)
    .map(([key, tensor]) => [key, tensor, reserve(product(tensor.shape))]);
  const mask = plan.options.mask;
  const maskRegion = mask ? reserve(mask.data.length, mask.kind === 'boolean' ? 1 : 4) : null;
  const outputs = Object.entries(plan.outputs).map(([key, shape]) => [key, shape, reserve(product(shape))]);
  return { descriptor, inputs, maskRegion, outputs, totalBytes: bytes + plan.scratchBytes };
}

/**
 * Throws TOO_LARGE when a plan's call would take more than MAX_CALL_BYTES of WebAssembly memory; the message
 * names the public shapes. Runs before anything is allocated or copied.
 * @returns {number} the bytes the call takes
 */
export function checkCallBytes(plan, totalBytes = callLayout(plan).totalBytes) {
  if (totalBytes > MAX_CALL_BYTES) {
    const square =
      plan.options.returnWeights && plan.square
        ? `; the [L_q, L_k] matrices alone are ${formatShape(plan.square)} floats each, so pass returnWeights: false to skip them`
        : '';
    throw new AttentionError(
      'TOO_LARGE',
      `this call needs ${(totalBytes / 2 ** 20).toFixed(1)} MiB of WebAssembly memory, over the limit of ${MAX_CALL_BYTES / 2 ** 20} MiB (MAX_CALL_BYTES)${square}`,
    );
  }
  return totalBytes;
}

/**
 * A plan's call descriptor (abi.h) as its DESCRIPTOR_SLOT_COUNT slots, every one 0 but the plan's dimensions, flags
 * and buffers; the buffers' addresses are offsets in the call's block, their slots listed in `relative`. Made once per
 * layout (a prepared call reuses its layout's), then written at every call by Workspace#writeDescriptor.
 */
export function descriptorTemplate(plan, layout) {
  const { dims, options, maskDims, slotIndex = DESCRIPTOR_SLOTS } = plan;
  const slots = new Int32Array(plan.slotCount ?? DESCRIPTOR_SLOT_COUNT);
  const relative = [];
  const put = (key, value, isAddress = false) => {
    const slot = slotIndex[key];
    if (slot === undefined) throw new AttentionError('INTERNAL', `the call descriptor has no slot '${key}'`);
    if (Array.isArray(value)) slots.set(value, slot);
    else slots[slot] = value;
    if (isAddress) relative.push(slot);
  };
  for (const [key, value] of Object.entries(dims)) put(key, value);
  for (const [key, , region] of layout.inputs) put(key, region.offset, true);
  if (options.mask) {
    put('maskKind', MASK_KINDS[options.mask.kind]);
    put('mask', layout.maskRegion.offset, true);
    put('maskDims', maskDims);
  }
  for (const [key, , region] of layout.outputs) put(key, region.offset, true);
  put('hasScale', options.scale === undefined ? 0 : 1);
  put('causal', options.causal);
  // the attention calls' softcap and window (a model call's are in its dims)
  if (options.softcap !== undefined) put('softcap', floatBits(options.softcap));
  if (options.window !== undefined) put('window', options.window);
  return { slots, relative };
}

/** One call's block of WebAssembly memory, laid out by callLayout. */
export class Workspace {
  constructor(module, totalBytes) {
    this.module = module;
    // malloc gives 8-byte alignment; 16 makes SIMD loads, and so the results, independent of where it lands.
    this.allocation = module._malloc(totalBytes + 16);
    if (!this.allocation)
      throw new AttentionError(
        'OUT_OF_MEMORY',
        `WebAssembly memory could not grow by ${(totalBytes / 2 ** 20).toFixed(1)} MiB`,
      );
    this.base = Math.ceil(this.allocation / 16) * 16;
  }

  address(region) {
    return region ? this.base + region.offset : 0;
  }

  // The heap views are read again at every use: memory may have grown since the last one.
  write(region, data) {
    const heap = region.elementBytes === 1 ? this.module.HEAPU8 : this.module.HEAPF32;
    heap.set(data, this.address(region) / region.elementBytes);
  }

  /** Writes a call descriptor (abi.h) from descriptorTemplate's slots, its addresses moved to this block. */
  writeDescriptor(region, { slots, relative }, scale) {
    const start = this.address(region) / 4;
    const heap = this.module.HEAP32;
    heap.set(slots, start);
    for (const slot of relative) heap[start + slot] += this.base;
    if (scale !== undefined) this.module.HEAPF32[start + DESCRIPTOR_SLOTS.scale] = scale;
  }

  /** A result as a Tensor: into `target` (the caller's array of options.out) when given, else a new array. */
  read(region, shape, target) {
    const start = this.address(region) / 4;
    if (!target) return new Tensor(this.module.HEAPF32.slice(start, start + region.count), shape);
    target.view.set(this.module.HEAPF32.subarray(start, start + region.count));
    return new Tensor(target.array, shape);
  }

  free() {
    if (this.allocation) this.module._free(this.allocation);
    this.allocation = 0;
    this.base = 0;
  }
}

/** Scans a tensor the plan left unchecked (Float32Array data) where it was copied to: NON_FINITE, as a call. */
export function checkValues(module, tensor, address) {
  if (tensor.valuesChecked !== false) return;
  const index = module._findNonFinite(address, tensor.data.length, tensor.allowNegativeInfinity);
  if (index >= 0) throw nonFiniteError(tensor, index);
}
