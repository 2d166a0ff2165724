// The pieces of ParallelAttention (parallel.js) that move a split scaledDotProductAttention's data: each worker's
// copies of its (batch, head) pairs, the buffers reused across calls, the whole result arrays prepared while the
// workers compute, the parts put back in place, and a worker's NaN/±inf report named in the whole tensor.
import { Tensor, elementName, valueError } from './tensor.js';
import { NON_FINITE_AT } from './pool.js';
import { product } from './plan.js';

/** A result's array: the caller's (options.out), written through its plain view, or a new one. */
export const resultArray = (plan, key, length) => plan.out?.[key]?.view ?? new Float32Array(length);

/** The Tensor of a result assembled in the caller's array (options.out) when it gave one, else in `data`. */
export const resultTensor = (plan, key, data, shape) => new Tensor(plan.out?.[key]?.array ?? data, shape);

/** Copies data[from, to) into `out` at `at`; a plan's data is always a typed array (convert.js). */
export function copyRange(out, at, data, from, to) {
  out.set(data.subarray(from, to), at);
}

/** Copies the given row blocks of `data` (each `width` long) into a new array of `Type` [blocks, width]. */
export function gather(data, blocks, width, Type = Float32Array, spare = null) {
  const out = new Type(takeSpare(spare, blocks.length * width * Type.BYTES_PER_ELEMENT) ?? blocks.length * width);
  blocks.forEach((block, i) => copyRange(out, i * width, data, block * width, (block + 1) * width));
  return out;
}

/** A buffer of `bytes` from `spare` (a worker's returned input buffers, by byte length), taken out, or undefined. */
function takeSpare(spare, bytes) {
  return spare?.get(bytes)?.pop();
}

/** Keeps the input buffers a worker sent back, by byte length, a few of each, for takeSpare. */
export function keepSpares(spare, buffers) {
  for (const buffer of buffers) {
    if (!(buffer instanceof ArrayBuffer)) continue;
    const list = spare.get(buffer.byteLength) ?? [];
    if (list.length < 4) list.push(buffer);
    spare.set(buffer.byteLength, list);
  }
}

/**
 * Where worker `index`'s part of each result goes, as the plan's `out` ({ [key]: { array, view } }, worker-serve.js
 * transfers the buffers there and back): a buffer of the worker's own that comes back with the answer and is
 * reused by the next call (`spare`), so that no worker touches fresh pages; the main thread copies each part into
 * the whole result, one `.set()` each, into pages it touched while the workers computed (wholeResults).
 */
export function partTargets(plan, spare, from, to, pairs) {
  return Object.fromEntries(
    Object.entries(plan.outputs).map(([key, shape]) => {
      const length = (to - from) * (product(shape) / pairs);
      const buffer = spare.get(key);
      spare.delete(key); // taken: a call made meanwhile allocates its own
      const view = buffer?.byteLength === length * 4 ? new Float32Array(buffer) : new Float32Array(length);
      return [key, { array: view, view, length }];
    }),
  );
}

// Floats in a page of memory (4 KiB, the smallest page of the platforms that run this).
const PAGE_FLOATS = 1024;

/**
 * The whole result arrays of a call, { [key]: Float32Array }: the caller's (options.out) or new ones, each page of a
 * new one written once now, while the workers compute. A fresh array's pages are mapped at their first write (a page
 * fault, 3–15 µs a page on a VM: about as long as the attention itself for 12 heads × 512), so that this work runs
 * beside the workers' instead of after them, and assembling the parts is then a plain copy.
 */
export function wholeResults(plan) {
  return Object.fromEntries(
    Object.entries(plan.outputs).map(([key, shape]) => {
      const whole = resultArray(plan, key, product(shape));
      if (!plan.out?.[key]) for (let i = 0; i < whole.length; i += PAGE_FLOATS) whole[i] = 0;
      return [key, whole];
    }),
  );
}

/**
 * Puts one worker's answer (its run of pairs [from, to) of `pairs`) in place in the whole results, and keeps its
 * result buffers in `spare` for its next call. Every output is [B·H, …] in pair order.
 */
export function placePart(plan, wholes, from, answer, pairs, spare) {
  for (const key of Object.keys(plan.outputs)) {
    const data = answer[key].data;
    wholes[key].set(data, from * (wholes[key].length / pairs));
    spare?.set(key, data.buffer);
  }
}

/** The whole results as Tensors, in the plan's order: the caller's own arrays where it gave them. */
export const wholeTensors = (plan, wholes) =>
  Object.fromEntries(
    Object.entries(plan.outputs).map(([key, shape]) => [key, resultTensor(plan, key, wholes[key], shape)]),
  );

/**
 * The error of a split call, or null: the first non-finite input value (in the order q, k, v, then by index, as one
 * thread scans them) that a worker reported, named in the whole tensor; else the first worker's error.
 */
export function firstFailure(plan, parts, settled) {
  let first = null;
  let other = null;
  settled.forEach(({ status, reason }, i) => {
    if (status !== 'rejected') return;
    const at = reason?.[NON_FINITE_AT];
    const part = at && parts[i].blocks[at.key];
    if (!part) {
      other ??= reason;
      return;
    }
    const { blocks, width } = part;
    const index = blocks[Math.floor(at.index / width)] * width + (at.index % width);
    const rank = [Object.keys(plan.inputs).indexOf(at.key), index];
    if (!first || rank[0] < first.rank[0] || (rank[0] === first.rank[0] && rank[1] < first.rank[1])) {
      first = { rank, key: at.key, index, value: at.value };
    }
  });
  if (!first) return other;
  const tensor = plan.inputs[first.key];
  return valueError(first.value, elementName(tensor.name, first.index, tensor.shape), tensor.allowNegativeInfinity);
}
