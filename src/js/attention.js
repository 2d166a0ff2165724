// The Attention class: one instance of the WebAssembly module. Every method validates its arguments (plan.js),
// copies the inputs into WebAssembly memory once, runs the C++ core through the Embind layer, and copies every
// result out into JS-owned Float32Arrays. No view into WebAssembly memory outlives a call (memory growth would
// detach it). Internal: the package's entry (index.js) exports the class; runPlan stays inside the package.
import { AttentionError, describe as describeValue, formatShape } from './errors.js';
import { readRecord } from './read.js';
import { typedArrayLength, typedArrayTag, typedArrayView } from './intrinsics.js';
import { checkApart, checkOutHeld, outExtents } from './out.js';
import { CALL_KINDS } from './generated/abi.js';
import {
  Workspace,
  callLayout,
  checkCallBytes,
  checkValues,
  descriptorTemplate,
  planCrossAttention,
  planMultiHeadAttention,
  planScaledDotProduct,
  planSelfAttention,
  product,
  statusError,
} from './plan.js';

let runPlanOf;

const PUBLIC_METHODS = [
  'scaledDotProductAttention',
  'selfAttention',
  'crossAttention',
  'multiHeadAttention',
  'heapBytesInUse',
  'prepare',
  'prepareSelfAttention',
];

/**
 * One instance of the WebAssembly module. Every method is synchronous, validates its arguments, and
 * returns tensors owned by JS. After an AttentionError the instance keeps working.
 */
export class Attention {
  #module;

  static {
    // The one way into #run from outside the class, for the workers (worker.js), which receive checked plans.
    runPlanOf = (attention, plan) => attention.#run(plan);
  }

  #kernelBackend;

  /** @internal use createAttention() */
  constructor(module) {
    this.#module = module;
    this.#kernelBackend = module._kernelBackend();
    /** True when the SIMD build is running: what the module reports, not what was asked for. */
    this.simd = this.#kernelBackend === 'wasm-simd128';
    /** The instruction sets Eigen uses inside the module, e.g. "SSE, SSE2, …" or "None". */
    this.instructionSets = module._simdInstructionSets();
    // Public methods work detached (const f = attn.selfAttention; f(…)).
    for (const name of PUBLIC_METHODS) this[name] = this[name].bind(this);
  }

  /** The backend the core's kernels were compiled with: "wasm-simd128" or "scalar". */
  get kernelBackend() {
    return this.#kernelBackend;
  }

  /** Bytes of WebAssembly memory (grows, never shrinks). */
  get memoryBytes() {
    return this.#module.HEAPU8.length;
  }

  /** Bytes of the module's heap in use right now; returns to its baseline after every call. */
  heapBytesInUse() {
    return this.#module._heapBytesInUse();
  }

  /**
   * Scaled dot-product attention on given q, k, v.
   *
   * | argument | shape                                                   |
   * |----------|---------------------------------------------------------|
   * | q        | [L_q, d_k] · [H, L_q, d_k] · [B, H, L_q, d_k]           |
   * | k        | [L_k, d_k] · [H_kv, L_k, d_k] · [B, H_kv, L_k, d_k]     |
   * | v        | [L_k, d_v] · [H_kv, L_k, d_v] · [B, H_kv, L_k, d_v]     |
   * | output   | [..., L_q, d_v]                                          |
   * | weights  | [..., L_q, L_k]   (unless returnWeights: false)          |
   */
  scaledDotProductAttention(q, k, v, options) {
    return this.#run(planScaledDotProduct(q, k, v, options));
  }

  /**
   * Self-attention from an input: Q = x·wq (+ bq), K = x·wk (+ bk), V = x·wv (+ bv), then attention,
   * then the optional output projection wo (+ bo). With `numHeads` in the weights, as multiHeadAttention.
   *
   * | argument | shape                              | result    | shape (single head)    |
   * |----------|------------------------------------|-----------|------------------------|
   * | x        | [L, d_model] or [B, L, d_model]    | q, k      | [..., L, d_k]          |
   * | wq, wk   | [d_model, d_k]                     | v         | [..., L, d_v]          |
   * | wv       | [d_model, d_v]                     | rawScores, scaledScores, scores, weights | [..., L, L] |
   * | wo       | [d_v, d_out] (optional)            | output    | [..., L, d_out or d_v] |
   */
  selfAttention(x, weights, options) {
    return this.#run(planSelfAttention(x, weights, options));
  }

  /**
   * Cross-attention: queries from `x`, keys and values from `context`. Shapes as selfAttention, with
   * context [L_k, d_context] or [B, L_k, d_context], wk and wv [d_context, …], and L_k columns in the weights.
   */
  crossAttention(x, context, weights, options) {
    return this.#run(planCrossAttention(x, context, weights, options));
  }

  /**
   * Multi-head (and grouped-query) self-attention. Heads are consecutive column blocks of the projections;
   * query head h uses kv head ⌊h / (numHeads / numKvHeads)⌋.
   *
   * | argument | shape                       | result                                   | shape                 |
   * |----------|-----------------------------|------------------------------------------|-----------------------|
   * | x        | [L, d_model] · [B, L, d_model] | q                                     | [..., H, L, d_k]      |
   * | wq       | [d_model, H·d_k]            | k                                        | [..., H_kv, L, d_k]   |
   * | wk       | [d_model, H_kv·d_k]         | v                                        | [..., H_kv, L, d_v]   |
   * | wv       | [d_model, H_kv·d_v]         | rawScores, scaledScores, scores, weights | [..., H, L, L]        |
   * | wo       | [H·d_v, d_out] (optional)   | heads                                    | [..., H, L, d_v]      |
   * |          |                             | concat                                   | [..., L, H·d_v]       |
   * |          |                             | output                                   | [..., L, d_out or H·d_v] |
   */
  multiHeadAttention(x, weights, options) {
    return this.#run(planMultiHeadAttention(x, weights, options));
  }

  /**
   * A prepared scaledDotProductAttention for fixed shapes and options, as onnxruntime's InferenceSession: the
   * shapes and options (out included) are read and checked once, here, with the same errors as a call; the
   * returned function takes q, k and v as Float32Arrays of those shapes' lengths, scans their values as every
   * call does, and returns the same results, bit for bit.
   *
   * | argument    | shape                                                                  |
   * |-------------|------------------------------------------------------------------------|
   * | shapes      | { q, k, v }: as scaledDotProductAttention's                            |
   * | → (q, k, v) | Float32Arrays of product(shapes.q), product(shapes.k), product(shapes.v) values |
   */
  prepare(shapes, options) {
    const given = readPreparedShapes(shapes);
    const placeholder = (name) => ({ data: new Float32Array(product(given[name])), shape: given[name] });
    const plan = planScaledDotProduct(placeholder('q'), placeholder('k'), placeholder('v'), options);
    const layout = callLayout(plan);
    checkCallBytes(plan, layout.totalBytes);
    const mask = plan.options.mask && { ...plan.options.mask, data: plan.options.mask.data.slice() };
    const fixed = { ...plan, options: { ...plan.options, mask } };
    const { q: pq, k: pk, v: pv } = plan.inputs;
    const [nq, nk, nv] = [pq, pk, pv].map((t) => product(t.shape));
    const apart = plan.out && outExtents(plan.out); // the caller's out arrays, read once here
    return (q, k, v) => {
      const inputs = { q: preparedInput(pq, q, nq), k: preparedInput(pk, k, nk), v: preparedInput(pv, v, nv) };
      if (apart) checkApart(plan.out, [inputs.q, inputs.k, inputs.v], apart);
      return this.#run({ ...fixed, inputs }, layout);
    };
  }

  /**
   * Self-attention prepared for fixed weights (layer.js, loaded on first use): its run(x, options) gives
   * selfAttention's results, bit for bit, projecting again only the rows of x that changed.
   *
   * | weights              | run(x, options)                             |
   * |----------------------|---------------------------------------------|
   * | as selfAttention's   | x [(B,) L, d_model] → selfAttention's results |
   */
  async prepareSelfAttention(weights) {
    const { SelfAttentionLayer } = await import('./layer.js');
    return new SelfAttentionLayer(this.#module, weights);
  }

  /** Allocates one block for the call, copies inputs in, runs the plan's binding, copies results out, frees. */
  #run(plan, layout = callLayout(plan)) {
    const { kind, options } = plan;
    const { descriptor, maskRegion, outputs: outputRegions, totalBytes } = layout;
    layout.template ??= descriptorTemplate(plan, layout); // a prepared call's layout keeps it
    // A prepared call's layout holds its placeholders: the inputs are this call's, in the same regions.
    const inputRegions = layout.inputs.map(([key, , region]) => [key, plan.inputs[key], region]);
    checkCallBytes(plan, totalBytes);
    const mask = options.mask;
    const workspace = new Workspace(this.#module, totalBytes);
    try {
      for (const [, tensor, region] of inputRegions) {
        workspace.write(region, tensor.data);
        checkValues(this.#module, tensor, workspace.address(region));
      }
      if (mask) {
        workspace.write(maskRegion, mask.data);
        checkValues(this.#module, mask, workspace.address(maskRegion));
      }
      workspace.writeDescriptor(descriptor, layout.template, options.scale);
      const status = this.#module._call(CALL_KINDS[kind], workspace.address(descriptor));
      if (status) throw statusError(status);
      checkOutHeld(plan.out); // a prepared call's out arrays may have been detached since: then nothing is written
      const result = {};
      // shape.slice(): a prepared call's results get shapes of their own at every call
      for (const [key, shape, region] of outputRegions)
        result[key] = workspace.read(region, shape.slice(), plan.out?.[key]);
      return result;
    } finally {
      workspace.free();
    }
  }
}

/** prepare()'s shapes: { q, k, v }, each an array of dimensions (checked by the plan, as a call's shapes). */
function readPreparedShapes(shapes) {
  const record = readRecord(shapes, 'shapes', ['q', 'k', 'v'], 'shape');
  for (const name of ['q', 'k', 'v']) {
    if (!Array.isArray(record[name])) {
      throw new AttentionError(
        'BAD_DIMENSION',
        `shapes.${name} must be an array of dimensions, got ${describeValue(record[name])}`,
      );
    }
  }
  return record;
}

/** One input of a prepared call: a Float32Array of `length` (the prepared shape's), as a plan's unchecked tensor. */
function preparedInput(prepared, array, length) {
  const { name, shape } = prepared;
  if (typedArrayTag(array) !== 'Float32Array') {
    throw new AttentionError(
      'NOT_A_TENSOR',
      `this prepared call takes ${name} as a Float32Array of ${length} values (${formatShape(shape)}), got ${describeValue(array)}`,
    );
  }
  if (typedArrayLength(array) !== length) {
    throw new AttentionError(
      'DATA_LENGTH_MISMATCH',
      `${name} holds ${typedArrayLength(array)} values, but this call was prepared for ${name} ${formatShape(shape)}: ${length} values`,
    );
  }
  return { ...prepared, data: typedArrayView(array, Float32Array, length), valuesChecked: false };
}

/**
 * @internal Runs a plan made by plan.js on `attention`'s module: for the workers of createAttention({ workers }),
 * whose plans come checked from the calling thread. Not part of the public API.
 * @param {Attention} attention
 * @param {import('./plan.js').Plan} plan
 */
export function runPlan(attention, plan) {
  return runPlanOf(attention, plan);
}
