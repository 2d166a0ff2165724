// Hand-written declarations for attention-wasm/io: reading .npy, .npz and .safetensors files into Tensors, and
// writing named tensors as .npz and .safetensors files.
// A malformed or unsupported file, a Blob that cannot be read, or bytes whose buffer is detached raise
// AttentionError with code 'BAD_FILE'.
/**
 * Reads the tensor files people already have (.npy, .npz, .safetensors) into Tensors every call accepts, and writes
 * named tensors (a run's attentions, hidden states, logits) as .npz and .safetensors files.
 * @module attention-wasm/io
 */
import type { Tensor, TensorData } from '../index.js';

/** The bytes of a whole file held in memory. */
export type FileBytes = ArrayBuffer | ArrayBufferView;

/**
 * What a file's array is read into, by its dtype: floats (float16/32/64, bfloat16) as Float32Array; bool as a
 * Uint8Array of 0 and 1; integers as an Int32Array when every value fits in int32, else a BigInt64Array (a
 * BigUint64Array when a uint64 is 2^63 or more). The readers' type parameter names it (Float32Array unless given):
 * `readNpy<Uint8Array>(bytes)` for a file you know holds a bool mask.
 */
export type FileData = TensorData;

/** Which arrays or tensors to read, by name; all of them when omitted. */
export interface ReadOptions {
  /** Read only these tensors (their names as the file gives them); a name the file lacks is BAD_FILE. */
  names?: readonly string[];
}

/**
 * Reads a NumPy .npy file (float16/32/64, bool, int8 … uint64; either byte order; C or Fortran order) into a
 * row-major Tensor; a bool or integer one is a boolean mask to the API.
 */
export function readNpy<Data extends FileData = Float32Array>(bytes: FileBytes): Tensor<Data>;

/** Reads a NumPy .npz file (numpy.savez or savez_compressed): keys are the member names without ".npy". */
export function readNpz<Data extends FileData = Float32Array>(
  source: Blob | FileBytes,
  options?: ReadOptions,
): Promise<Record<string, Tensor<Data>>>;

/** An array listed by an .npz file's headers. */
export interface NpzEntry {
  /** The name as the file gives it (an .npz member without its ".npy"). */
  readonly name: string;
  /** As numpy writes it: '<f4', '|b1', '<i8', … (others, such as '<c8', are listed but not read). */
  readonly dtype: string;
  /** The dimensions, as the file states them. */
  readonly shape: number[];
}

/** An .npz file opened by its arrays' headers alone. */
export interface NpzFile {
  /** Every array, in the archive's order. */
  readonly arrays: NpzEntry[];
  /** Reads one array whole, as readNpy would. */
  read<Data extends FileData = Float32Array>(name: string): Promise<Tensor<Data>>;
}

/** Opens an .npz file, inflating only each member's header: shapes can be checked before any value is read. */
export function openNpz(source: Blob | FileBytes): Promise<NpzFile>;

/**
 * Reads the F32, F16, BF16, F64, BOOL and integer (I8 … U64) tensors of a safetensors file held in memory;
 * `__metadata__` is skipped. A file that is not one (JSON text, a truncated file, a bad header) is BAD_FILE.
 *
 * @example
 * ```js
 * import { readFile } from 'node:fs/promises';
 * import { readSafetensors } from 'attention-wasm/io';
 * import { BUILTIN_MODEL } from 'attention-wasm/model';
 *
 * const tensors = readSafetensors(await readFile(new URL('model.safetensors', BUILTIN_MODEL)));
 * console.log(Object.keys(tensors).length, tensors['transformer.h.0.attn.c_attn.weight'].shape); // prints: 28 [ 64, 192 ]
 * ```
 */
export function readSafetensors<Data extends FileData = Float32Array>(
  bytes: FileBytes,
  options?: ReadOptions,
): Record<string, Tensor<Data>>;

/** A tensor listed in a safetensors header. */
export interface SafetensorsEntry {
  /** The name as the file gives it (an .npz member without its ".npy"). */
  readonly name: string;
  /** As the file states it: 'F32', 'F16', 'BF16', 'F64', 'BOOL' and the integers are readable; others are listed only. */
  readonly dtype: string;
  /** The dimensions, as the file states them. */
  readonly shape: number[];
}

/** A safetensors file opened by its header alone. */
export interface SafetensorsFile {
  /** Every tensor, in the order of their data in the file. */
  readonly tensors: SafetensorsEntry[];
  /** The `__metadata__` strings; empty when the file has none. */
  readonly metadata: Record<string, string>;
  /**
   * Reads one tensor (a Blob by Blob.slice: only its bytes); with `rows: [begin, end]`, only those rows of its first
   * dimension (an embedding's rows for some tokens). BAD_OPTION for rows outside the tensor.
   */
  read<Data extends FileData = Float32Array>(
    name: string,
    options?: { rows?: readonly [number, number] },
  ): Promise<Tensor<Data>>;
}

/** Opens a safetensors file, reading only its header; a Blob or File is never copied whole. */
export function openSafetensors(source: Blob | FileBytes): Promise<SafetensorsFile>;

/** The typed arrays the writers take: float32, float64, int32 and int64 data. */
export type WritableData = Float32Array | Float64Array | Int32Array | BigInt64Array;

/** A tensor to write as `{ data, shape }`: any Tensor of float32, int32 or int64 data (what calls and readers return). */
export interface WritableTensorLike {
  /** The values, row-major; `data.length` is the product of `shape`. */
  readonly data: WritableData;
  /** The dimensions, outermost first: 1 to 32 positive integers. */
  readonly shape: readonly number[];
}

/** A tensor to write as `{ data, dims }` (onnxruntime-web's and transformers.js's Tensor). */
export interface WritableDimsTensor {
  /** The values, row-major; `data.length` is the product of `dims`. */
  readonly data: WritableData;
  /** The dimensions, outermost first: 1 to 32 positive integers. */
  readonly dims: readonly number[];
}

/** A tensor to write: `{ data, shape }`, `{ data, dims }`, or a typed array alone (one dimension). */
export type WritableTensor = WritableTensorLike | WritableDimsTensor | WritableData;

/** Named tensors: `{ name: tensor }`, a Map, or `[name, tensor]` pairs (written in that order). */
export type NamedTensors =
  | Readonly<Record<string, WritableTensor>>
  | ReadonlyMap<string, WritableTensor>
  | readonly (readonly [string, WritableTensor])[];

/**
 * Writes named tensors as a NumPy .npz file (numpy.savez's layout: stored members "name.npy", .npy format 1.0,
 * little-endian, row-major), which `numpy.load`, readNpz and openNpz read back under the same names.
 *
 * | tensor data                  | array written        | read back by readNpz                            |
 * |------------------------------|----------------------|-------------------------------------------------|
 * | Float32Array, shape [d0, …]  | `<f4`, shape (d0, …) | Float32Array, the same values                   |
 * | Float64Array                 | `<f8`                | Float32Array, rounded                           |
 * | Int32Array                   | `<i4`                | Int32Array                                      |
 * | BigInt64Array                | `<i8`                | Int32Array, or BigInt64Array beyond int32       |
 *
 * NaN, ±Infinity and −0 are written as they are. AttentionError: BAD_OPTION (a name not a non-empty string, given
 * twice, or over a zip name's 65 535 bytes), NOT_A_TENSOR (other data), BAD_RANK (no or over 32 dimensions),
 * BAD_DIMENSION, DATA_LENGTH_MISMATCH, TOO_LARGE (a tensor over MAX_CALL_BYTES as float32, a file of 4 GiB or more).
 */
export function writeNpz(arrays: NamedTensors): Uint8Array;

/** The options of writeSafetensors. */
export interface WriteSafetensorsOptions {
  /** The header's `__metadata__`: strings only (`{ format: 'pt' }`, as PyTorch's files have it). */
  metadata?: Readonly<Record<string, string>>;
}

/**
 * Writes named tensors as a safetensors file (the JSON header padded to 8 bytes, the tensors back to back in the
 * order given), which readSafetensors, openSafetensors, the `safetensors` library and PyTorch read back.
 *
 * | tensor data                  | dtype written | read back by readSafetensors                   |
 * |------------------------------|---------------|------------------------------------------------|
 * | Float32Array, shape [d0, …]  | F32, [d0, …]  | Float32Array, the same values                  |
 * | Float64Array                 | F64           | Float32Array, rounded                          |
 * | Int32Array                   | I32           | Int32Array                                     |
 * | BigInt64Array                | I64           | Int32Array, or BigInt64Array beyond int32      |
 *
 * Errors as writeNpz's; also BAD_OPTION for the name `__metadata__` or metadata that is not strings, and TOO_LARGE
 * for a header over the format's 100,000,000 bytes.
 */
export function writeSafetensors(tensors: NamedTensors, options?: WriteSafetensorsOptions): Uint8Array;
