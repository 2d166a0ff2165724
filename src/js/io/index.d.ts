// Hand-written declarations for attention-wasm/io: reading .npy, .npz and .safetensors files into Tensors.
// A malformed or unsupported file raises AttentionError with code 'BAD_FILE'.
import type { Tensor } from '../index.js';

/** The bytes of a whole file held in memory. */
export type FileBytes = ArrayBuffer | ArrayBufferView;

/** Which arrays or tensors to read, by name; all of them when omitted. */
export interface ReadOptions {
  names?: readonly string[];
}

/** Reads a NumPy .npy file (float16/32/64, either byte order, C or Fortran order) into a row-major Tensor. */
export function readNpy(bytes: FileBytes): Tensor;

/** Reads a NumPy .npz file (numpy.savez or savez_compressed): keys are the member names without ".npy". */
export function readNpz(source: Blob | FileBytes, options?: ReadOptions): Promise<Record<string, Tensor>>;

/** Reads the F32, F16, BF16 and F64 tensors of a safetensors file held in memory; `__metadata__` is skipped. */
export function readSafetensors(bytes: FileBytes, options?: ReadOptions): Record<string, Tensor>;

/** A tensor listed in a safetensors header. */
export interface SafetensorsEntry {
  readonly name: string;
  /** As the file states it: 'F32', 'F16', 'BF16', 'F64' are readable; others are listed only. */
  readonly dtype: string;
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
  read(name: string, options?: { rows?: readonly [number, number] }): Promise<Tensor>;
}

/** Opens a safetensors file, reading only its header; a Blob or File is never copied whole. */
export function openSafetensors(source: Blob | FileBytes): Promise<SafetensorsFile>;
