// One call's block of WebAssembly memory, for Attention, its prepared layers and the workers.
import { AttentionError, formatShape } from './errors.js';
import { DESCRIPTOR_SLOTS, DESCRIPTOR_SLOT_COUNT, MASK_KINDS } from './generated/abi.js';
import { Tensor, nonFiniteError } from './tensor.js';
import { MAX_CALL_BYTES } from './limits.js';
import { product } from './plan.js';

/** The AttentionError for a status string of the Embind layer ("CODE\tmessage"). */
export function statusError(status) {
  const tab = status.indexOf('\t');
  return new AttentionError(status.slice(0, tab), status.slice(tab + 1));
}

/**
 * Where each buffer of a plan's call goes in its one block of WebAssembly memory (offsets 16-byte aligned, in
 * the order call descriptor, inputs, mask, outputs, then the core's scratch), and the block's size.
 * @param {import('./plan.js').Plan} plan
 */
export function callLayout(plan) {
  let bytes = 0;
  const reserve = (count, elementBytes = 4) => {
    const offset = Math.ceil(bytes / 16) * 16;
    bytes = offset + count * elementBytes;
    return { offset, count, elementBytes };
  };
  const descriptor = reserve(DESCRIPTOR_SLOT_COUNT);
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
  const { dims, options, maskDims } = plan;
  const slots = new Int32Array(DESCRIPTOR_SLOT_COUNT);
  const relative = [];
  const put = (key, value, isAddress = false) => {
    const slot = DESCRIPTOR_SLOTS[key];
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
