// Hand-written declarations for attention-wasm (Emscripten 3.1.6 has no --emit-tsd).
// Shape names: B batch, H / H_kv query and key-value heads, L_q / L_k sequence lengths, d_k / d_v widths.
/**
 * The main entry: `createAttention()` and the attention calls, their options, results and errors.
 * @module attention-wasm
 */

import type { AttentionErrorCode } from './generated/abi.js';

/** Stable error codes of AttentionError: the list in src/core/abi.h, with what raises each. */
export type { AttentionErrorCode };

/** The only error the API throws: a stable `code` and a message naming the argument and the shapes. */
export class AttentionError extends Error {
  constructor(code: AttentionErrorCode, message: string, options?: { cause?: unknown });
  /** Always 'AttentionError'. */
  readonly name: 'AttentionError';
  /** What went wrong, as a stable code (the table of error codes in the guide). */
  readonly code: AttentionErrorCode;
}

/** Nested arrays of numbers: number[] (rank 1), number[][] (rank 2), and deeper for leading dimensions. */
export type NestedNumbers = number[] | Float32Array | Float64Array | NestedNumbers[];
/** Nested arrays of booleans, for boolean masks (true = may attend). */
export type NestedBooleans = boolean[] | NestedBooleans[];

/** A row-major tensor given as flat data and a shape; `data.length` must equal the product of `shape`. */
export interface TensorLike {
  /** The values, row-major. */
  data: Float32Array | Float64Array | number[];
  /** The dimensions, outermost first: positive safe integers. */
  shape: readonly number[];
}

/**
 * onnxruntime-web's and transformers.js's Tensor, passed as it is: flat `data` and `dims` (read when there is
 * no `shape`). Float32Array or Float64Array data (in a mask also a Uint8Array, e.g. a 'bool' tensor); any other
 * type is NOT_A_TENSOR at run time. A TensorFlow.js tensor is not one: pass `{ data: await t.data(), shape: t.shape }`.
 */
export interface DimsTensorLike {
  /** The values, row-major: Float32Array or Float64Array (a Uint8Array in a mask). */
  readonly data: ArrayLike<unknown>;
  /** The dimensions, outermost first. */
  readonly dims: readonly number[];
}

/** A tensor argument: nested arrays, `{ data, shape }` (a returned Tensor works too) or `{ data, dims }`. */
export type TensorInput = NestedNumbers | TensorLike | DimsTensorLike;

/** Integer typed arrays: as a mask's data (bare, as `data`, or as rows), a boolean mask of 0 and 1. */
export type IntegerArray =
  | Uint8Array
  | Uint8ClampedArray
  | Int8Array
  | Uint16Array
  | Int16Array
  | Uint32Array
  | Int32Array
  | BigInt64Array
  | BigUint64Array;

/**
 * A mask that broadcasts (from the right, as in PyTorch) to the shape of the attention weights.
 * Booleans (nested, or `{ data, shape }` of 0/1 in any integer typed array): true = may attend. An integer typed
 * array (a 'bool' Uint8Array, an int64 BigInt64Array, …) is boolean everywhere: bare, as data, or as rows.
 * Numbers: an additive mask, added to the scaled scores; -Infinity blocks (a Float32Array of 0/1 is additive).
 */
export type MaskInput =
  | NestedBooleans
  | {
      /** 0/1 or booleans, row-major: 1 = may attend. */
      data: IntegerArray | boolean[];
      /** The mask's dimensions, broadcast from the right. */
      shape: readonly number[];
    }
  | TensorInput;

/** The data a Tensor may hold: Float32Array from every call; bool and integer arrays from attention-wasm/io. */
export type TensorData = Float32Array | Uint8Array | Int32Array | BigInt64Array | BigUint64Array;

/**
 * A result: a row-major Float32Array owned by JS (nothing to free), its shape, and nested arrays on demand.
 * attention-wasm/io also gives Tensors of bool (Uint8Array) and integer (Int32Array, BigInt64Array, BigUint64Array)
 * data, which the API takes as boolean masks.
 */
export class Tensor<Data extends TensorData = Float32Array> {
  constructor(data: Data, shape: number[]);
  /** The values, row-major, in an array JS owns. */
  readonly data: Data;
  /** The dimensions, outermost first. */
  readonly shape: number[];
  /** The values as nested arrays (number[][] for a matrix; bigints for BigInt64Array data), each rounded to `digits` decimals (0–20) if given. */
  toArray(digits?: number): any[];
  /** What JSON.stringify writes: `{ shape, data: number[] }`, which reads back as an input (BigInt64Array data: decimal strings). */
  toJSON(): {
    /** The dimensions. */
    shape: number[];
    /** The values, row-major. */
    data: Data extends BigInt64Array | BigUint64Array ? string[] : number[];
  };
}

/** Options of every attention call: scale, masks, what to return, and arrays to write the results into. */
export interface AttentionOptions {
  /** Multiplies q·kᵀ. Default 1/√d_k; any explicit value, 0 included, replaces it. */
  scale?: number;
  /** true or 'top-left': query i sees keys j ≤ i. 'bottom-right': j ≤ i + L_k − L_q. Default false. */
  causal?: boolean | 'top-left' | 'bottom-right';
  /** Combined with causal when both are given. */
  mask?: MaskInput | null;
  /**
   * Logit softcapping (Gemma 2's attn_logit_softcapping): each scaled score s becomes tanh(s / softcap) · softcap,
   * before the masks; `scaledScores` hold s, `scores` the capped values. Default 0: none.
   */
  softcap?: number;
  /**
   * A sliding window (Mistral's and Gemma 2's sliding_window), with causal only: query i, at key position p (i, or
   * i + L_k − L_q with 'bottom-right'), sees the keys j with p − window < j ≤ p. Default 0: none.
   */
  window?: number;
  /** Default true. false: no [L_q, L_k] matrices are kept or returned, and memory stays O(L·d). */
  returnWeights?: boolean;
  /** Also return rawScores, scaledScores and scores. Default false for scaledDotProductAttention, true otherwise. */
  returnSteps?: boolean;
  /**
   * Rotary position embeddings: q and k rotated by their positions before q·kᵀ (after the projections), in SIMD;
   * the results then hold qRotated and kRotated. Not for crossAttention (BAD_OPTION).
   */
  rope?: RopeOptions | null;
  /**
   * Your own arrays for some or all results, written in place of new ones (the returned tensors' `data` are
   * these arrays): for repeated calls that should allocate nothing. Each must be a Float32Array over an
   * ArrayBuffer (not a SharedArrayBuffer: BAD_OPTION) of exactly its result's length (SHAPE_MISMATCH otherwise,
   * also when its buffer is detached before the results are written), sharing no memory with an input or another
   * result (BAD_OPTION); a key that is not a result of the call is UNKNOWN_OPTION. Nothing is written when the
   * call fails, on workers too.
   */
  out?: OutArrays | null;
}

/**
 * Rotary position embeddings (RoPE). Angles position · inv_freq_i with inv_freq_i = 1 / theta^(2i / dim), computed
 * in float64 and rounded once to float32; a bad value is BAD_OPTION naming it.
 */
export interface RopeOptions {
  /** The frequencies' base (LLaMA's rope_theta). Default 10000. */
  theta?: number;
  /**
   * Columns rotated, the first of each head: even, at most d_k (partial rotary: GPT-NeoX's rotary_pct, Phi's
   * partial_rotary_factor). Default d_k (less one when d_k is odd).
   */
  rotaryDims?: number;
  /** rotaryDims' older name. */
  dim?: number;
  /** One position per key (L_k), integers from 0; queries take the last L_q of them. Default 0 … L_k − 1. */
  positions?: ArrayLike<number>;
  /** 'half': column i pairs with i + dim/2 (LLaMA, GPT-NeoX rotate_half); 'interleaved': 2i with 2i + 1 (GPT-J). Default 'half'. */
  style?: 'half' | 'interleaved';
  /** The dim / 2 inverse frequencies themselves (a rope_scaling's, e.g. llama3), in place of theta's. */
  invFreq?: ArrayLike<number>;
  /**
   * cos and sin multiplied by it, and so the rotated columns of q and k (LongRoPE's attention factor: Phi-3's
   * long-context models). A finite number above 0; default 1.
   */
  attentionFactor?: number;
}

/** With a rope: q and k after their rotation, shaped as q and k. */
export interface RopeSteps {
  /** q rotated by the rope: [..., L_q, d_k], as q. */
  qRotated?: Tensor;
  /** k rotated by the rope: [..., L_k, d_k], as k (one per key-value head). */
  kRotated?: Tensor;
}

/** crossAttention's options: a rope is for self-attention only. */
export interface CrossAttentionOptions extends Omit<AttentionOptions, 'rope'> {
  /** None: crossAttention refuses a rope (BAD_OPTION). */
  rope?: null;
}

/** The shapes of a prepared call: as scaledDotProductAttention's q, k and v. */
export interface PreparedShapes {
  /** [L_q, d_k], [H, L_q, d_k] or [B, H, L_q, d_k] */
  q: number[];
  /** [L_k, d_k], [H_kv, L_k, d_k] or [B, H_kv, L_k, d_k] */
  k: number[];
  /** [L_k, d_v], [H_kv, L_k, d_v] or [B, H_kv, L_k, d_v] */
  v: number[];
}

/** A prepared scaledDotProductAttention: q, k and v as Float32Arrays of the prepared shapes' lengths. */
export type PreparedAttention = (q: Float32Array, k: Float32Array, v: Float32Array) => SdpaResult;

/** options.out: a Float32Array per result name (output, weights, rawScores, …, q, k, v, heads, concat). */
export type OutArrays = { [result: string]: Float32Array | undefined };

/** The steps before the softmax (with returnSteps), each shaped like the weights: [..., L_q, L_k]. */
export interface AttentionSteps {
  /** [..., L_q, L_k]: q·kᵀ, each query row's dot product with each key, before any scaling. */
  rawScores?: Tensor;
  /** [..., L_q, L_k]: q·kᵀ·scale (scale 1/√d_k unless options.scale says otherwise), before a softcap. */
  scaledScores?: Tensor;
  /** [..., L_q, L_k]: softcap(q·kᵀ·scale) + mask: the softmax's input, −Infinity where masked (and outside a window). */
  scores?: Tensor;
}

/** What scaledDotProductAttention returns ("..." is the leading dimensions of q: [H] or [B, H], or none). */
export interface SdpaResult extends AttentionSteps, RopeSteps {
  /** [..., L_q, d_v]: weights·v, each query's weighted sum of the values. */
  output: Tensor;
  /** [..., L_q, L_k]: the softmax of the scores: each row sums to 1, or is all 0 when every key of that row is masked. */
  weights?: Tensor;
}

/** Projection weights; heads are consecutive column blocks. W_q and W_k may be the same matrix. */
export interface ProjectionWeights {
  /** [d_model, H·d_k]: W_q, [in, out] (q = x·W_q; PyTorch's nn.Linear weight transposed). */
  wq: TensorInput;
  /** [d_model or d_context, H_kv·d_k]: W_k, [in, out] as W_q. */
  wk: TensorInput;
  /** [d_model or d_context, H_kv·d_v]: W_v, [in, out] as W_q. */
  wv: TensorInput;
  /** [H·d_v, d_out]: the output projection (optional) */
  wo?: TensorInput;
  /** [H·d_k]: q's bias. */
  bq?: TensorInput;
  /** [H_kv·d_k]: k's bias. */
  bk?: TensorInput;
  /** [H_kv·d_v]: v's bias. */
  bv?: TensorInput;
  /** [d_out] (needs wo) */
  bo?: TensorInput;
  /** H. When given, results keep a head dimension. Default 1. */
  numHeads?: number;
  /** H_kv, dividing H (grouped-query attention): query head h uses kv head ⌊h / (H / H_kv)⌋. Default H. */
  numKvHeads?: number;
  /** The rope these weights belong with (a LLaMA layer's, from attentionWeightsFrom); options.rope wins. */
  rope?: RopeOptions;
  /** The scores' scale these weights belong with (Gemma 2's query_pre_attn_scalar^-½); options.scale wins. */
  scale?: number;
  /** The logit softcap these weights belong with (Gemma 2's); options.softcap wins (0: none). */
  softcap?: number;
  /** The sliding window these weights belong with (Gemma 2's, Mistral's): needs causal; options.window wins (0: none). */
  window?: number;
  /**
   * A q/k norm after the projections (attentionWeightsFrom's of Qwen3, Gemma 3, OLMo-2): not run by selfAttention or
   * multiHeadAttention, which refuse weights holding one (BAD_OPTION).
   */
  qkNorm?: unknown;
}

/** Projection weights with the number of heads, for multiHeadAttention (and selfAttention's per-head results). */
export interface MultiHeadWeights extends ProjectionWeights {
  /** H: the query heads, each d_k = the width of W_q / H. */
  numHeads: number;
}

/** Results of selfAttention and crossAttention without numHeads ("..." is [B] for a batched input). */
export interface SelfAttentionResult extends AttentionSteps, RopeSteps {
  /** [..., L_q, d_k]: the queries, x·W_q + b_q. */
  q: Tensor;
  /** [..., L_k, d_k]: the keys, x·W_k + b_k (the context's, in crossAttention). */
  k: Tensor;
  /** [..., L_k, d_v]: the values, x·W_v + b_v (the context's, in crossAttention). */
  v: Tensor;
  /** [..., L_q, L_k]: the attention weights, the softmax of the scores (each row sums to 1). */
  weights?: Tensor;
  /** [..., L_q, d_v]: weights·v, before W_o; present when wo is given. */
  concat?: Tensor;
  /** [..., L_q, d_out]: concat·W_o + b_o; without wo, [..., L_q, d_v]: weights·v. */
  output: Tensor;
}

/** Results with a head dimension: multiHeadAttention, or numHeads given. */
export interface MultiHeadResult extends AttentionSteps, RopeSteps {
  /** [..., H, L_q, d_k]: each head's queries (its columns of x·W_q + b_q). */
  q: Tensor;
  /** [..., H_kv, L_k, d_k]: each key-value head's keys. */
  k: Tensor;
  /** [..., H_kv, L_k, d_v]: each key-value head's values. */
  v: Tensor;
  /** [..., H, L_q, L_k]: each head's attention weights, the softmax of its scores (each row sums to 1). */
  weights?: Tensor;
  /** [..., H, L_q, d_v]: each head's attention output, its weights·v. */
  heads: Tensor;
  /** [..., L_q, H·d_v]: the heads side by side. */
  concat: Tensor;
  /** [..., L_q, d_out]: concat·W_o + b_o; without wo, [..., L_q, H·d_v]: concat. */
  output: Tensor;
}

/**
 * Self-attention prepared for fixed weights (Attention#prepareSelfAttention). The weights, the last x and its
 * q, k and v stay in WebAssembly memory until free().
 */
export interface SelfAttentionLayer {
  /**
   * selfAttention(x, weights, options) with the prepared weights: the same results, bit for bit. Only the groups
   * of 4 rows of x that differ from the last call's x are projected again (all of them when the shape changed).
   *
   * | x                                 | results                         |
   * |-----------------------------------|---------------------------------|
   * | [L, d_model] or [B, L, d_model]   | as selfAttention's              |
   */
  run(x: TensorInput, options?: AttentionOptions): SelfAttentionResult & Partial<MultiHeadResult>;
  /** Rows of x whose q, k and v the last run projected (whole groups of 4; 0 when only options changed). */
  readonly projectedRows: number;
  /** Releases the layer's WebAssembly memory; later runs throw TERMINATED. Harmless twice. */
  free(): void;
}

/** One instance of the WebAssembly module. Methods are synchronous; results are owned by JS. */
export class Attention {
  private constructor();
  /** True when the SIMD build is running. */
  readonly simd: boolean;
  /** The SIMD instruction sets Eigen uses inside the module ("None" in the scalar build). */
  readonly instructionSets: string;
  /** The backend the module's kernels were compiled with: "wasm-simd128" in the SIMD build, else "scalar". */
  readonly kernelBackend: 'wasm-simd128' | 'scalar';
  /** Bytes of WebAssembly memory: it grows when a call needs more, and never shrinks. */
  readonly memoryBytes: number;
  /** Bytes of the module's heap in use now; it returns to its baseline after every call, error or not. */
  heapBytesInUse(): number;

  /**
   * Scaled dot-product attention on given q, k and v.
   *
   * | q               | k                  | v                  | output          | weights         |
   * |-----------------|--------------------|--------------------|-----------------|-----------------|
   * | [L_q, d_k]      | [L_k, d_k]         | [L_k, d_v]         | [L_q, d_v]      | [L_q, L_k]      |
   * | [H, L_q, d_k]   | [H_kv, L_k, d_k]   | [H_kv, L_k, d_v]   | [H, L_q, d_v]   | [H, L_q, L_k]   |
   * | [B, H, L_q, d_k]| [B, H_kv, L_k, d_k]| [B, H_kv, L_k, d_v]| [B, H, L_q, d_v]| [B, H, L_q, L_k]|
   */
  scaledDotProductAttention(q: TensorInput, k: TensorInput, v: TensorInput, options?: AttentionOptions): SdpaResult;

  /**
   * scaledDotProductAttention prepared for fixed shapes and options (out included), checked once here with a
   * call's errors; the function takes q, k and v as Float32Arrays of those shapes' lengths (NOT_A_TENSOR,
   * DATA_LENGTH_MISMATCH otherwise), scans their values (NON_FINITE) and returns the same bits as a call.
   */
  prepare(shapes: PreparedShapes, options?: AttentionOptions): PreparedAttention;

  /**
   * Self-attention prepared for fixed weights, for an x that changes a little at a time (an edited token, a live
   * figure). The layer's code loads on first use; then the weights are read, checked and copied into WebAssembly
   * memory, with selfAttention's errors (as a rejection): do not change them before the promise settles. The layer
   * keeps copies only: later changes to the weights' arrays are not seen, and their buffers may be transferred.
   *
   * | weights                                                   | run(x, options)                          |
   * |-----------------------------------------------------------|------------------------------------------|
   * | as selfAttention's (numHeads, numKvHeads, biases, wo, bo) | x [(B,) L, d_model] → selfAttention's results |
   */
  prepareSelfAttention(weights: ProjectionWeights | MultiHeadWeights): Promise<SelfAttentionLayer>;

  /**
   * Self-attention from x: Q = x·wq (+bq), K = x·wk (+bk), V = x·wv (+bv), attention, then optional wo (+bo).
   *
   * | x                       | wq, wk           | wv               | output                     |
   * |-------------------------|------------------|------------------|----------------------------|
   * | [L, d_model]            | [d_model, d_k]   | [d_model, d_v]   | [L, d_out or d_v]          |
   * | [B, L, d_model]         | [d_model, d_k]   | [d_model, d_v]   | [B, L, d_out or d_v]       |
   */
  selfAttention(
    x: TensorInput,
    weights: ProjectionWeights & { numHeads?: undefined },
    options?: AttentionOptions,
  ): SelfAttentionResult;
  selfAttention(x: TensorInput, weights: MultiHeadWeights, options?: AttentionOptions): MultiHeadResult;

  /**
   * Cross-attention: queries from x [(B,) L_q, d_model], keys and values from context [(B,) L_k, d_context];
   * wk and wv are [d_context, …]. Results as selfAttention, with L_k columns in the weights.
   */
  crossAttention(
    x: TensorInput,
    context: TensorInput,
    weights: ProjectionWeights & { numHeads?: undefined },
    options?: CrossAttentionOptions,
  ): SelfAttentionResult;
  crossAttention(
    x: TensorInput,
    context: TensorInput,
    weights: MultiHeadWeights,
    options?: CrossAttentionOptions,
  ): MultiHeadResult;

  /**
   * Multi-head (and grouped-query) self-attention: split into heads, attend, concatenate, project with wo.
   *
   * | x               | wq               | wk, wv                          | wo              | weights          |
   * |-----------------|------------------|---------------------------------|-----------------|------------------|
   * | [L, d_model]    | [d_model, H·d_k] | [d_model, H_kv·d_k], […·d_v]    | [H·d_v, d_out]  | [H, L, L]        |
   * | [B, L, d_model] | [d_model, H·d_k] | [d_model, H_kv·d_k], […·d_v]    | [H·d_v, d_out]  | [B, H, L, L]     |
   */
  multiHeadAttention(x: TensorInput, weights: MultiHeadWeights, options?: AttentionOptions): MultiHeadResult;
}

/**
 * Attention spread over workers (Web Workers in browsers, worker_threads in Node), each with its own module:
 * the same methods and results as Attention, as Promises, and the same bits. scaledDotProductAttention splits
 * its (batch, head) pairs; multi-head attention splits its heads, then the rows of its output projection.
 * No SharedArrayBuffer is needed. A type only: the class is not exported at runtime, so that bundles that use
 * no workers do not carry them; createAttention({ workers }) makes one.
 */
export interface ParallelAttention {
  /** True when the workers run the SIMD build. */
  readonly simd: boolean;
  /** The SIMD instruction sets Eigen uses inside the workers' module ("None" in the scalar build). */
  readonly instructionSets: string;
  /** What the workers' attention kernels were compiled to, as on Attention. */
  readonly kernelBackend: 'wasm-simd128' | 'scalar';
  /** How many workers run. */
  readonly workers: number;
  /** Attention.scaledDotProductAttention, its (batch, head) pairs split over the workers. */
  scaledDotProductAttention(
    q: TensorInput,
    k: TensorInput,
    v: TensorInput,
    options?: AttentionOptions,
  ): Promise<SdpaResult>;
  /** Attention.selfAttention without numHeads, on the workers. */
  selfAttention(
    x: TensorInput,
    weights: ProjectionWeights & { numHeads?: undefined },
    options?: AttentionOptions,
  ): Promise<SelfAttentionResult>;
  /** Attention.selfAttention with numHeads: its heads split over the workers, then the rows of wo. */
  selfAttention(x: TensorInput, weights: MultiHeadWeights, options?: AttentionOptions): Promise<MultiHeadResult>;
  /** Attention.crossAttention without numHeads, on the workers. */
  crossAttention(
    x: TensorInput,
    context: TensorInput,
    weights: ProjectionWeights & { numHeads?: undefined },
    options?: CrossAttentionOptions,
  ): Promise<SelfAttentionResult>;
  /** Attention.crossAttention with numHeads: its heads split over the workers, then the rows of wo. */
  crossAttention(
    x: TensorInput,
    context: TensorInput,
    weights: MultiHeadWeights,
    options?: CrossAttentionOptions,
  ): Promise<MultiHeadResult>;
  /** Attention.multiHeadAttention: its heads split over the workers, then the rows of wo. */
  multiHeadAttention(x: TensorInput, weights: MultiHeadWeights, options?: AttentionOptions): Promise<MultiHeadResult>;
  /** Ends the workers; calls under way reject. */
  terminate(): Promise<void>;
}

/** Where a .wasm comes from: a URL or string (in Node, also a file path), its bytes, or a compiled module. */
export type WasmSource = string | URL | ArrayBuffer | Uint8Array | WebAssembly.Module;

/** Options of createAttention: which build, where its .wasm is, and how many workers. */
export interface CreateAttentionOptions {
  /** true: the SIMD build (throws SIMD_UNSUPPORTED where missing); false: the scalar build. Default: SIMD where supported. */
  simd?: boolean;
  /**
   * The .wasm to run instead of the one next to the package's JS: a URL (in Node, also a file path), its bytes, a
   * compiled WebAssembly.Module, or `{ simd, scalar }` of those (a build left out uses the package's own).
   * Each URL (or bytes) is compiled once per page, however many createAttention calls and workers use it.
   * A URL that cannot be fetched rejects with LOAD_FAILED naming it.
   */
  wasmUrl?:
    | WasmSource
    | {
        /** The SIMD build's .wasm. */
        simd?: WasmSource;
        /** The scalar build's .wasm. */
        scalar?: WasmSource;
      };
  /** Spread each call over this many workers (1 to 64): createAttention then gives a ParallelAttention. */
  workers?: number;
}

/**
 * Loads the WebAssembly module (Node 20, browsers, module workers, bundlers) and returns an instance.
 *
 * @example
 * ```js
 * import { createAttention } from 'attention-wasm';
 *
 * const attn = await createAttention();
 * const x = [[1, 0], [0, 1]]; // two tokens, d_model = 2
 * const s = attn.selfAttention(x, { wq: x, wk: x, wv: [[1, 2], [3, 4]] });
 * console.log(s.weights.toArray(4)); // prints: [ [ 0.6698, 0.3302 ], [ 0.3302, 0.6698 ] ]
 * console.log(s.output.toArray(4)); // prints: [ [ 1.6605, 2.6605 ], [ 2.3395, 3.3395 ] ]
 * ```
 */
export function createAttention(options?: CreateAttentionOptions & { workers?: undefined }): Promise<Attention>;
/**
 * With `workers`: the module in that many Web Workers (worker_threads in Node), each call spread over them.
 *
 * @example
 * ```js
 * import { createAttention } from 'attention-wasm';
 *
 * const attn = await createAttention({ workers: 2 });
 * const x = [[1, 0], [0, 1]];
 * const s = await attn.multiHeadAttention(x, { wq: x, wk: x, wv: [[1, 2], [3, 4]], numHeads: 2 });
 * console.log(s.weights.shape, s.output.toArray(2)); // prints: [ 2, 2, 2 ] [ [ 1.54, 3 ], [ 2, 3.46 ] ]
 * await attn.terminate();
 * ```
 */
export function createAttention(options: CreateAttentionOptions & { workers: number }): Promise<ParallelAttention>;

/** True where this engine supports WebAssembly SIMD128. */
export function simdSupported(): boolean;

/** The most WebAssembly memory one call may use (inputs, results and scratch): 1 GiB. */
export const MAX_CALL_BYTES: number;
