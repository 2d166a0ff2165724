// Weights kept resident in the model's WebAssembly memory, as float32, each tensor 16-byte aligned and scanned for
// NaN and ±inf once when written. One store serves both users: a generation's own (decode.js: the weights the prefill
// reads, layer by layer while they fit its `residentBytes`, freed when the generation ends) and the model's
// (model.js: loadModel's `residentBytes`, kept across runs and generations until dispose()). A call then passes a
// kept tensor's address in its descriptor instead of the tensor: nothing is read from the checkpoint or copied.
//
// A piece is kept the first time it is asked for, when its bytes fit what is left of the budget and memory can grow;
// a piece that did not fit is read from the checkpoint every time (`kept(key)` is then null). A layer's MLP weights
// in the 'inOut' layout (GPT-2's) are kept packed into the core's panels (gemm.h's pack_panels: each call then reads
// them as streams, with the same results bit for bit), marked by `mlpPanels: 1` among the layer's addresses, which
// the calls pass in their descriptors.
import { AttentionError } from '../errors.js';
import { PANEL_COLUMNS } from '../generated/abi.js';
import { checkValues } from '../plan.js';
import { weight } from './calls.js';
import { settledOrAborted } from './signal.js';

/** Bytes of `count` floats rounded up to 16. */
const aligned = (count) => Math.ceil(count / 4) * 16;

export const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** Floats of a matrix (the LM head, the embeddings) read and written per step: 16 MiB of the checkpoint at a time. */
const MATRIX_BLOCK_BYTES = 16 * 2 ** 20;

/** Blocks of a matrix read at a time while it is kept: the JS side holds at most this many (16 MiB each). */
const MATRIX_READS = 4;

/** The MLP's weights that a kept layer in the 'inOut' layout holds as the core's panels (of PANEL_COLUMNS). */
const MLP_MATRICES = new Set(['wUp', 'wGate', 'wDown']);

/**
 * The slots of a layer's MLP weights (`tensors`: [{ slot, shape }]) to keep as the core's panels: all of them in the
 * 'inOut' layout when each is [in, out] with both sizes non-zero multiples of PANEL_COLUMNS, else none (the calls'
 * mlp_panels flag is the layer's). The calling thread's store and the workers' shares (shards.js) ask it.
 */
export function panelSlots(layout, tensors) {
  const mlp = tensors.filter((t) => MLP_MATRICES.has(t.slot));
  const fits = (t) => t.shape.length === 2 && t.shape.every((size) => size > 0 && size % PANEL_COLUMNS === 0);
  return layout === 'inOut' && mlp.length && mlp.every(fits) ? mlp.map((t) => t.slot) : [];
}

/** Pieces (a layer's weights, a matrix) a run's prefetch keeps at a time. */
const PIECES_AHEAD = 3;

/**
 * Rows of the LM head per call, and per read of a matrix: about 16 MiB of float32, a multiple of 4 rows so that a
 * block of a resident matrix starts 16-byte aligned (its results then equal the block's read copy, bit for bit).
 */
export const blockRows = (d) => Math.max(4, Math.floor(MATRIX_BLOCK_BYTES / (d * 16)) * 4);

/**
 * The key of a tensor kept whole: its file and name (GPT-2's tied wte, as embeddings and LM head, is kept once), and
 * the rows of a part of one (rowsOf).
 */
export const matrixKey = (entry) => `${entry.file}\0${entry.name}${entry.rows ? `\0${entry.rows}` : ''}`;

/** Bytes of float32 the tensors take. */
export const floatBytes = (entries) => entries.reduce((sum, e) => sum + e.shape.reduce((a, b) => a * b, 4), 0);

export class Residency {
  #module;
  #checkpoint;
  #budget;
  #allocations = new Map(); // aligned address → what _malloc gave, freed by free()
  #kept = new Map(); // key → { slot: address } (a group) or an address (a matrix); null: did not fit
  #freed = false;
  #layout;

  /**
   * @param {object} module  the model's WebAssembly module
   * @param {{ read: Function }} checkpoint  the opened checkpoint (checkpoint.js)
   * @param {number} budget  bytes of weights that may be kept
   * @param {string | null} [layout]  the weights' layout (spec.choices.layout): 'inOut' packs the MLP's weights
   */
  constructor(module, checkpoint, budget, layout = null) {
    this.#module = module;
    this.#checkpoint = checkpoint;
    this.#budget = budget;
    this.#layout = layout;
  }

  /** A 16-byte aligned block of `bytes`, or 0 when memory cannot grow and not `required` (then OUT_OF_MEMORY). */
  allocate(bytes, required = false) {
    const allocation = this.#module._malloc(bytes + 16);
    if (!allocation) {
      if (required) throw new AttentionError('OUT_OF_MEMORY', `WebAssembly memory could not grow by ${mib(bytes)}`);
      return 0;
    }
    const address = Math.ceil(allocation / 16) * 16;
    this.#allocations.set(address, allocation);
    return address;
  }

  /** What is kept under `key`: its addresses, null when it did not fit, undefined before it was asked for. */
  kept(key) {
    return this.#kept.get(key);
  }

  /** Takes `bytes` of the budget and allocates them, or 0 (the budget is spent or memory cannot grow). */
  #reserve(bytes) {
    if (bytes > this.#budget) return 0;
    const address = this.allocate(bytes);
    if (address) this.#budget -= bytes;
    return address;
  }

  /** Gives back a block #reserve took (its write failed). */
  #release(address, bytes) {
    this.#module._free(this.#allocations.get(address));
    this.#allocations.delete(address);
    this.#budget += bytes;
  }

  /** Writes `tensor` at `address` (heap views read again: memory may have grown) and scans it for NaN and ±inf. */
  #write(address, tensor, name, offset = 0) {
    const module = this.#module;
    module.HEAPF32.set(tensor.data, address / 4 + offset);
    checkValues(module, weight(tensor, name), address + offset * 4);
  }

  /**
   * A group of tensors (a layer's weights, a norm's): kept together the first time when they fit, as `addresses`
   * { slot: address } for the call's descriptor; else read, as the call's `inputs` { slot: tensor }.
   */
  async group(key, entries, signal) {
    const kept = this.#kept.get(key);
    if (kept instanceof Promise) {
      // Being kept by another caller (prefetch): asked again once that is over (failed: read here); this caller's
      // abort ends the wait at once, even when the other's read has no signal and is stalled.
      await settledOrAborted(kept, signal, `reading ${key}`);
      return this.group(key, entries, signal);
    }
    if (kept) return { inputs: {}, addresses: kept };
    if (kept === undefined) {
      const pending = this.#keep(key, entries, signal);
      this.#kept.set(key, pending);
      pending.catch(() => this.#kept.get(key) === pending && this.#kept.delete(key)); // asked for again next time
      return pending;
    }
    return this.#keep(key, entries, signal);
  }

  /** Reads a group and keeps it when it fits (`this.#kept` has no key yet, or null: read only). */
  async #keep(key, entries, signal) {
    const checkpoint = this.#checkpoint;
    const kept = this.#kept.get(key) === null ? null : undefined;
    const read = await Promise.all(entries.map((entry) => checkpoint.read(entry, undefined, signal)));
    this.#checkOpen();
    const bytes = read.reduce((sum, t) => sum + aligned(t.data.length), 0);
    const block = kept === undefined ? this.#reserve(bytes) : 0;
    const inputs = {};
    const addresses = {};
    let at = block;
    try {
      read.forEach((tensor, i) => {
        const { slot, name } = entries[i];
        if (block) {
          this.#write(at, tensor, name);
          addresses[slot] = at;
          at += aligned(tensor.data.length); // each tensor 16-byte aligned in the block
        } else {
          inputs[slot] = weight(tensor, name);
        }
      });
      if (block) this.#pack(entries, addresses);
    } catch (error) {
      if (block) this.#release(block, bytes); // NON_FINITE, OUT_OF_MEMORY: nothing of the group stays
      throw error;
    }
    if (kept === undefined) this.#kept.set(key, block ? addresses : null);
    return { inputs, addresses };
  }

  /**
   * Packs a kept layer's MLP weights (wUp, wGate, wDown, each [in, out] with in and out multiples of 16) into the
   * core's panels and sets `addresses.mlpPanels`: all of them or none (the call's flag is the layer's).
   */
  #pack(entries, addresses) {
    const slots = new Set(panelSlots(this.#layout, entries));
    if (!slots.size) return;
    for (const { slot, shape } of entries.filter((e) => slots.has(e.slot))) {
      if (!this.#module._packPanels(addresses[slot], shape[0], shape[1])) {
        throw new AttentionError(
          'OUT_OF_MEMORY',
          `WebAssembly memory could not grow by ${mib(shape[0] * shape[1] * 4)}`,
        );
      }
    }
    addresses.mlpPanels = 1;
  }

  /**
   * A whole matrix [rows, …] (the LM head, an embedding table): its address, kept the first time when it fits (read
   * by blocks of rows, so that the JS side holds MATRIX_READS × 16 MiB of it at a time), or 0 when it does not.
   */
  async matrix(entry, signal) {
    const key = matrixKey(entry);
    const kept = this.#kept.get(key);
    if (kept instanceof Promise) {
      // Being kept by another caller (another run, or its prefetch, with its own signal): asked again once that is
      // over, so that the other's abort is not this caller's (and this caller's own abort ends the wait at once).
      await settledOrAborted(kept, signal, `reading ${entry.name}`);
      return this.matrix(entry, signal);
    }
    if (kept !== undefined) return kept ?? 0;
    const [rows, ...rest] = entry.shape;
    const perRow = rest.reduce((a, b) => a * b, 1);
    const bytes = aligned(rows * perRow);
    const address = this.#reserve(bytes);
    const block = blockRows(perRow);
    // A concurrent caller waits for this one's reads rather than keeping the matrix twice.
    const filled = address ? this.#fill(address, entry, block, signal) : Promise.resolve();
    const pending = filled.then(() => address || null);
    pending.catch(() => {}); // awaited by a concurrent caller, if any
    this.#kept.set(key, pending);
    try {
      await filled;
    } catch (error) {
      this.#kept.delete(key); // asked for again next time
      if (address) this.#release(address, bytes);
      throw error;
    }
    this.#kept.set(key, address || null);
    return address;
  }

  /**
   * Reads a matrix's blocks of `block` rows, MATRIX_READS at a time, each written at its place as it comes (the same
   * bytes as in order). After a failure no block is written or read, and all reads under way are over before the
   * error is thrown: the caller then gives the memory back.
   */
  async #fill(address, entry, block, signal) {
    const [rows, ...rest] = entry.shape;
    const perRow = rest.reduce((a, b) => a * b, 1);
    let next = 0;
    let failed = false;
    const reader = async () => {
      while (!failed && next < rows) {
        const r0 = next;
        next += block;
        try {
          const part = await this.#checkpoint.read(entry, [r0, Math.min(rows, r0 + block)], signal);
          if (failed) return;
          this.#checkOpen();
          this.#write(address, part, entry.name, r0 * perRow);
        } catch (error) {
          failed = true;
          throw error;
        }
      }
    };
    const readers = Array.from({ length: Math.min(MATRIX_READS, Math.ceil(rows / block)) }, reader);
    const settled = await Promise.allSettled(readers);
    const error = settled.find((s) => s.status === 'rejected');
    if (error) throw error.reason;
  }

  /**
   * Starts keeping every piece a run of layers [first, layers) (and of the LM head with `logits`) will use, in the order
   * it uses them, PIECES_AHEAD at a time: the run then finds each piece kept or being kept (group and matrix share
   * one read), and the reads of later layers go on while earlier ones compute. Stops at the first failure or abort
   * (the run sees the same error when it asks for that piece).
   */
  prefetch(tensors, { layers, logits, first = 0, sharded = false }, signal) {
    const all = layers === tensors.layers.length;
    // A run from layer `first` (> 0) starts at that layer's input: no embeddings.
    const pieces = (first ? [] : Object.values(tensors.embeddings))
      .filter(Boolean)
      .map((entry) => () => this.matrix(entry, signal));
    if (!first) pieces.push(() => this.group('embedNorm', tensors.embedNorm, signal));
    (sharded ? [] : tensors.layers.slice(first, layers)).forEach((entries, l) =>
      pieces.push(() => this.group(`layer ${first + l}`, entries, signal)),
    );
    if (all && tensors.final.length) pieces.push(() => this.group('final', tensors.final, signal));
    if (all && logits && tensors.head && !sharded) {
      pieces.push(() => this.matrix(tensors.head, signal));
      if (tensors.headBias) pieces.push(() => this.group('headBias', [tensors.headBias], signal));
    }
    let failed = false;
    const worker = async () => {
      while (pieces.length && !failed && !signal?.aborted && !this.#freed) {
        await pieces
          .shift()()
          .catch(() => (failed = true));
      }
    };
    for (let i = 0; i < PIECES_AHEAD; i++) worker();
  }

  /** After free(), a read that was under way writes nothing: its memory may be another's by now. */
  #checkOpen() {
    if (this.#freed) throw new AttentionError('TERMINATED', 'this model was disposed: load it again with loadModel');
  }

  /** Gives every block back (heapBytesInUse returns to its baseline). Safe to call twice. */
  free() {
    this.#freed = true;
    for (const allocation of this.#allocations.values()) this.#module._free(allocation);
    this.#allocations.clear();
    this.#kept.clear();
  }
}

/** Every tensor a forward reads, each once (GPT-2's tied wte counted once). */
function allEntries(tensors) {
  const { tokens, positions, types } = tensors.embeddings;
  const entries = [tokens, positions, types, ...tensors.embedNorm, ...tensors.layers.flat(), ...tensors.final];
  entries.push(tensors.head, tensors.headBias);
  return [...new Map(entries.filter(Boolean).map((e) => [matrixKey(e), e])).values()];
}

/**
 * The model's store when every tensor of its forward fits `budget` (loadModel's residentBytes), else null; in the
 * model's weight layout (spec.choices.layout: 'inOut' keeps the MLP's weights as packed panels).
 */
export function modelResidency({ module, checkpoint, tensors, spec }, budget) {
  if (!(budget > 0 && floatBytes(allEntries(tensors)) <= budget)) return null;
  return new Residency(module, checkpoint, budget, spec.choices.layout);
}

/**
 * The bytes a run reads from the checkpoint when the model keeps its weights (run-bytes.js counts them otherwise):
 * each piece it uses that is not kept yet, whole; an embedding table that did not fit, by the rows the run uses.
 * @param {(entry: object, whole: boolean) => number} bytes  an entry's bytes: whole, or the rows this run uses
 */
export function residentRunBytes(store, tensors, { logits, layers, first = 0, sharded = false }, bytes) {
  const all = layers === tensors.layers.length;
  const pieces = new Map();
  const group = (key, entries) =>
    !store.kept(key) &&
    pieces.set(
      key,
      entries.reduce((sum, e) => sum + bytes(e, true), 0),
    );
  for (const entry of first ? [] : Object.values(tensors.embeddings)) {
    const kept = store.kept(matrixKey(entry));
    if (!kept) pieces.set(matrixKey(entry), bytes(entry, kept === undefined));
  }
  if (!first) group('embedNorm', tensors.embedNorm);
  (sharded ? [] : tensors.layers.slice(first, layers)).forEach((entries, l) => group(`layer ${first + l}`, entries));
  if (all) group('final', tensors.final);
  if (all && logits && tensors.head && !sharded) {
    if (!store.kept(matrixKey(tensors.head))) pieces.set(matrixKey(tensors.head), bytes(tensors.head, true));
    if (tensors.headBias) group('headBias', [tensors.headBias]);
  }
  return [...pieces.values()].reduce((a, b) => a + b, 0);
}
