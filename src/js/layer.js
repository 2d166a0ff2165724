// A self-attention layer prepared once for its weights (Attention#prepareSelfAttention): the weights stay in
// WebAssembly memory, and so do the last x and its q, k and v; a call copies in and projects again only the
// groups of PROJECTION_ROWS rows of x that changed (the core's stale_blocks), then attends and projects out as
// selfAttention does, with the same bits. For a page that redraws after every edit of one token, or a tutorial's
// live figure: one changed row of a GPT-2-sized layer projects 4 rows instead of all of them.
import { AttentionError } from './errors.js';
import { CALL_KINDS, DESCRIPTOR_SLOTS, PROJECTION_ROWS } from './generated/abi.js';
import {
  Workspace,
  callLayout,
  checkCallBytes,
  checkValues,
  descriptorTemplate,
  planProjectedInputs,
  product,
  readProjectedOptions,
  readWeights,
  statusError,
} from './plan.js';
import { SPECS, readWeightTensors } from './validate.js';
import { readFloatTensor } from './convert.js';
import { checkOutHeld } from './out.js';

const KEPT = ['q', 'k', 'v']; // results that stay in the layer's memory between calls

// A layer dropped without free() gives its memory back when it is collected.
const unfreed = new FinalizationRegistry((blocks) => freeBlocks(blocks));

function freeBlocks(blocks) {
  blocks.weights?.free();
  blocks.rows?.free();
  blocks.weights = blocks.rows = null;
}

const freedError = () =>
  new AttentionError('TERMINATED', 'this prepared layer was freed: prepare a new one with prepareSelfAttention');

/**
 * Regions of a block kept between calls: each [key, count, elementBytes] at a 16-byte aligned offset, as callLayout's
 * reserve places a call's (a copy: sharing it from attention.js cost the elements' budget more than it has left).
 */
function residentLayout(entries) {
  let bytes = 0;
  const regions = {};
  for (const [key, count, elementBytes = 4] of entries) {
    const offset = Math.ceil(bytes / 16) * 16;
    regions[key] = { offset, count, elementBytes };
    bytes = offset + count * elementBytes;
  }
  return { regions, bytes };
}

/**
 * A prepared layer's weights, read and checked as selfAttention reads them (the same code, with its errors) and
 * copied into a block of their own: { weights, block, regions }. `weights` keeps only what was copied: the head
 * counts and each tensor's name and shape (wQ, …, bO; null = absent), never the caller's objects or arrays.
 */
function residentWeights(module, weightsGiven) {
  const heads = readWeights(weightsGiven, false);
  const tensors = readWeightTensors(heads.w);
  const dModel = tensors.wQ.shape[0];
  // A one-row x checks the weights against each other as every call would.
  const x = { data: new Float32Array(dModel), shape: [1, dModel] };
  // (causal: a window the weights carry is checked against each call's causal, not here)
  const probe = planRun(x, { ...heads, tensors }, { causal: true }, Object.values(tensors));
  checkCallBytes(probe);
  const present = Object.entries(tensors).filter(([, tensor]) => tensor);
  const { regions, bytes } = residentLayout(present.map(([key, tensor]) => [key, tensor.data.length]));
  const block = new Workspace(module, bytes);
  try {
    for (const [key, tensor] of present) {
      block.write(regions[key], tensor.data);
      checkValues(module, tensor, block.address(regions[key]));
    }
  } catch (error) {
    block.free();
    throw error;
  }
  const copied = (tensor) => tensor && { name: tensor.name, shape: tensor.shape };
  const kept = Object.fromEntries(Object.entries(tensors).map(([key, tensor]) => [key, copied(tensor)]));
  const { numHeads, numKvHeads, headed, rope, carried } = heads;
  return { weights: { tensors: kept, numHeads, numKvHeads, headed, rope, carried }, block, regions };
}

/**
 * The plan of selfAttention(x, weights, options), read by selfAttention's own code, with weights as residentWeights
 * read them once ({ tensors, numHeads, numKvHeads, headed }); `read`: tensors read from the caller besides x.
 */
function planRun(x, weights, options, read = []) {
  const { o, outRecord } = readProjectedOptions(options);
  const X = readFloatTensor(x, SPECS.x);
  return planProjectedInputs({ x: X, context: null, ...weights.tensors }, weights, o, outRecord, [X, ...read]);
}

export class SelfAttentionLayer {
  #module;
  #weights; // residentWeights': the head counts and the weights' names and shapes, for the plans of later calls
  #blocks = { weights: null, rows: null }; // the Workspaces of the weights and of #rows
  #weightRegions;
  #rows = null; // { block, regions, key, batch, groups, lenQ, dModel, given }: x, q, k, v, stale flags of a shape
  #valid = false; // whether #rows' q, k and v are the projections of its x

  /** Rows of x whose q, k and v the last call projected (whole groups of PROJECTION_ROWS rows). */
  projectedRows = 0;

  /** @internal use Attention#prepareSelfAttention */
  constructor(module, weightsGiven) {
    const { weights, block, regions } = residentWeights(module, weightsGiven);
    this.#module = module;
    this.#weights = weights;
    this.#blocks.weights = block;
    this.#weightRegions = regions;
    unfreed.register(this, this.#blocks, this);
    this.run = this.run.bind(this);
    this.free = this.free.bind(this);
  }

  /**
   * selfAttention(x, weights, options) with the prepared weights: the same results, bit for bit. Only the
   * groups of PROJECTION_ROWS rows of x that differ from the last call's x are projected again.
   *
   * | argument | shape                           | result                     |
   * |----------|---------------------------------|----------------------------|
   * | x        | [L, d_model] or [B, L, d_model] | as selfAttention's results |
   */
  run(x, options) {
    const weightBlock = this.#blocks.weights;
    if (!weightBlock) throw freedError();
    const plan = planRun(x, this.#weights, options);
    const X = plan.inputs.x;
    checkCallBytes(plan); // the limit of the same call to selfAttention
    const rows = this.#rowsFor(plan);
    this.#copyChangedRows(rows, X);
    const perCall = {
      ...plan,
      inputs: { ropeCos: plan.inputs.ropeCos, ropeSin: plan.inputs.ropeSin }, // the rest stays in the layer's blocks
      outputs: Object.fromEntries(Object.entries(plan.outputs).filter(([key]) => !KEPT.includes(key))),
    };
    const layout = callLayout(perCall);
    const workspace = new Workspace(this.#module, layout.totalBytes);
    this.#valid = false; // until the call below succeeds: its q, k and v may be half written
    try {
      checkValues(this.#module, X, rows.block.address(rows.regions.x));
      for (const [, tensor, region] of layout.inputs) workspace.write(region, tensor.data); // the rope's tables
      const mask = plan.options.mask;
      if (mask) {
        workspace.write(layout.maskRegion, mask.data);
        checkValues(this.#module, mask, workspace.address(layout.maskRegion));
      }
      workspace.writeDescriptor(layout.descriptor, descriptorTemplate(perCall, layout), plan.options.scale);
      const slots = this.#module.HEAP32;
      const at = workspace.address(layout.descriptor) / 4;
      for (const [key, region] of Object.entries(this.#weightRegions))
        slots[at + DESCRIPTOR_SLOTS[key]] = weightBlock.address(region);
      for (const key of ['x', ...KEPT, 'staleBlocks'])
        slots[at + DESCRIPTOR_SLOTS[key]] = rows.block.address(rows.regions[key]);
      const status = this.#module._call(CALL_KINDS.projected, workspace.address(layout.descriptor));
      if (status) throw statusError(status);
      this.#valid = true;
      this.projectedRows = this.#projectedRows(rows);
      checkOutHeld(plan.out); // before the first result is written: a failed call writes nothing
      const result = {};
      for (const [key, shape] of Object.entries(plan.outputs)) {
        const kept = KEPT.includes(key);
        const region = kept ? rows.regions[key] : layout.outputs.find(([name]) => name === key)[2];
        result[key] = (kept ? rows.block : workspace).read(region, shape.slice(), plan.out?.[key]);
      }
      return result;
    } finally {
      workspace.free();
    }
  }

  /** Releases the layer's WebAssembly memory; later calls throw TERMINATED. */
  free() {
    freeBlocks(this.#blocks);
    unfreed.unregister(this);
    this.#rows = null;
    this.#valid = false;
  }

  /** The resident block for this plan's shape of x, made anew (every row stale) when the shape changed. */
  #rowsFor(plan) {
    const { batch, lenQ, dModel } = plan.dims;
    const key = `${batch}:${lenQ}`;
    if (this.#rows?.key === key) return this.#rows;
    this.#blocks.rows?.free();
    this.#blocks.rows = this.#rows = null;
    this.#valid = false;
    const groups = Math.ceil(lenQ / PROJECTION_ROWS);
    const counts = KEPT.map((name) => [name, product(plan.outputs[name])]);
    const { regions, bytes } = residentLayout([
      ['x', batch * lenQ * dModel],
      ...counts,
      ['staleBlocks', batch * groups, 1],
    ]);
    const block = new Workspace(this.#module, bytes);
    this.#blocks.rows = block;
    const given = new Float32Array(batch * lenQ * dModel); // this call's x as float32 (#copyChangedRows)
    this.#rows = { block, regions, key, batch, groups, lenQ, dModel, given: new Uint32Array(given.buffer) };
    return this.#rows;
  }

  /**
   * Copies into the layer's x the groups of rows that differ from it (bit for bit) and flags them stale; every group
   * when the kept projections are not valid. x's values are read once, rounded to float32 as selfAttention's copy
   * into WebAssembly memory rounds them (a Float64Array's too), and compared as float32 bits.
   */
  #copyChangedRows(rows, X) {
    const { block, regions, batch, groups, lenQ, dModel, given } = rows;
    new Float32Array(given.buffer).set(X.data);
    const heap = new Uint32Array(this.#module.HEAPU8.buffer);
    const base = block.address(regions.x) / 4;
    const flags = this.#module.HEAPU8;
    const flagBase = block.address(regions.staleBlocks);
    for (let g = 0; g < batch * groups; g++) {
      const b = Math.floor(g / groups);
      const r0 = b * lenQ + (g % groups) * PROJECTION_ROWS;
      const r1 = Math.min(b * lenQ + lenQ, r0 + PROJECTION_ROWS);
      let changed = !this.#valid;
      for (let i = r0 * dModel; !changed && i < r1 * dModel; i++) changed = heap[base + i] !== given[i];
      flags[flagBase + g] = changed ? 1 : 0;
      if (!changed) continue;
      heap.set(given.subarray(r0 * dModel, r1 * dModel), base + r0 * dModel);
    }
  }

  /** The rows in the groups the core flagged as projected (it may project more groups than were stale). */
  #projectedRows({ block, regions, batch, groups, lenQ }) {
    const flags = this.#module.HEAPU8;
    const flagBase = block.address(regions.staleBlocks);
    let count = 0;
    for (let g = 0; g < batch * groups; g++) {
      if (flags[flagBase + g]) count += Math.min(PROJECTION_ROWS, lenQ - (g % groups) * PROJECTION_ROWS);
    }
    return count;
  }
}
