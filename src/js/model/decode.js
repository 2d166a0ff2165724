// One generation's state in the model's WebAssembly memory: each layer's KV cache, and the weights kept resident
// while they fit a budget. forward(ids) runs the new tokens through every layer as one call per layer
// (forward.h's layer with a KvCache): their keys and values are appended to the cache and their queries attend over
// it, so a decode step computes one row. free() gives every byte back (heapBytesInUse returns to its baseline).
//
// Residency: run() writes each layer's weights into WebAssembly memory for that layer's call only. A decode step
// is a handful of matrix-vector products, so reading the checkpoint again at every step would cost more than the
// step itself: here the weights read by the prefill stay in WebAssembly memory for the whole generation, layer by
// layer in order and then the LM head, as long as their float32 bytes fit `residentBytes`; what does not fit is
// read again at every step, as run() reads it.
import { AttentionError } from '../errors.js';
import { MAX_CALL_BYTES, checkValues } from '../plan.js';
import { ropeTables } from '../rope.js';
import { Tensor } from '../tensor.js';
import { layerScratchBytes, made, modelDims, modelPlan, weight } from './calls.js';

/** Bytes of `count` floats rounded up to 16. */
const aligned = (count) => Math.ceil(count / 4) * 16;

const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

/** Floats of the LM head's resident copy written per read: 16 MiB of the checkpoint at a time. */
const HEAD_BLOCK_BYTES = 16 * 2 ** 20;

export class DecodeSession {
  #engine;
  #allocations = []; // what _malloc gave, freed by free()
  #layers; // per layer: { cacheK, cacheV, resident: { slot: address } | null } (null: read at every call)
  #head; // { address } when the LM head is resident, null when not, undefined before the prefill
  #capacity;
  #budget;
  /** Tokens in the cache. */
  past = 0;
  freed = false;

  /**
   * @param {object} engine  the model's parts (model.js): module, checkpoint, tensors, spec, run, embed, final, logits
   * @param {number} capacity  tokens the cache must hold
   * @param {number} residentBytes  the budget of resident weights
   */
  constructor(engine, capacity, residentBytes) {
    this.#engine = engine;
    this.#capacity = capacity;
    this.#budget = residentBytes;
    const { numLayers, numKvHeads, headDim } = engine.spec;
    const perLayer = numKvHeads * capacity * headDim * 4; // bytes of one layer's k (or v)
    const total = 2 * numLayers * perLayer;
    if (total > MAX_CALL_BYTES) {
      throw new AttentionError(
        'TOO_LARGE',
        `the KV cache of ${capacity} tokens needs ${mib(total)} of WebAssembly memory, over the limit of ${mib(MAX_CALL_BYTES)} (MAX_CALL_BYTES): ask for fewer maxNewTokens or a shorter prompt`,
      );
    }
    try {
      this.#layers = Array.from({ length: numLayers }, () => ({
        cacheK: this.#allocate(perLayer, true),
        cacheV: this.#allocate(perLayer, true),
        resident: undefined,
      }));
    } catch (error) {
      this.free();
      throw error;
    }
  }

  /** A 16-byte aligned block of `bytes` (as the calls' workspaces), or 0 when memory cannot grow and not `required`. */
  #allocate(bytes, required = false) {
    const { module } = this.#engine;
    const allocation = module._malloc(bytes + 16);
    if (!allocation) {
      if (required) throw new AttentionError('OUT_OF_MEMORY', `WebAssembly memory could not grow by ${mib(bytes)}`);
      return 0;
    }
    this.#allocations.push(allocation);
    return Math.ceil(allocation / 16) * 16;
  }

  /** Writes `data` at `address` (heap views read again: memory may have grown) and scans it for NaN and ±inf. */
  #write(address, data, name, offset = 0) {
    const { module } = this.#engine;
    module.HEAPF32.set(data, address / 4 + offset);
    checkValues(module, weight({ data, shape: [data.length] }, name), address + offset * 4);
  }

  /** Takes `bytes` of the budget and allocates them, or 0 (the budget is spent or memory cannot grow). */
  #reserve(bytes) {
    if (bytes > this.#budget) return 0;
    const address = this.#allocate(bytes);
    if (address) this.#budget -= bytes;
    return address;
  }

  /** Layer l's weights: resident addresses as descriptor values, the rest as the call's inputs. */
  async #layerWeights(l) {
    const { checkpoint, tensors } = this.#engine;
    const entries = tensors.layers[l];
    const layer = this.#layers[l];
    const inputs = {};
    if (layer.resident === undefined) {
      const read = [];
      for (const entry of entries) read.push([entry, await checkpoint.read(entry)]);
      const bytes = read.reduce((sum, [, t]) => sum + aligned(t.data.length), 0);
      const block = this.#reserve(bytes);
      layer.resident = block ? {} : null;
      let at = block;
      for (const [entry, tensor] of read) {
        if (block) {
          this.#write(at, tensor.data, entry.name);
          layer.resident[entry.slot] = at;
          at += aligned(tensor.data.length); // each tensor 16-byte aligned in the block
        } else {
          inputs[entry.slot] = weight(tensor, entry.name);
        }
      }
      return { inputs, addresses: layer.resident ?? {} };
    }
    if (layer.resident === null) {
      for (const entry of entries) inputs[entry.slot] = weight(await checkpoint.read(entry), entry.name);
    }
    return { inputs, addresses: layer.resident ?? {} };
  }

  /**
   * Runs `ids` (the new tokens, at positions past …) through every layer, then the final norm and the LM head on
   * the last of them.
   *
   * | result      | shape                                                  |
   * |-------------|--------------------------------------------------------|
   * | logits      | Tensor [1, vocab]: the last new token's                |
   * | attentions  | per layer Tensor [H, 1, past + n]: its attention row   |
   * @param {number[]} ids
   * @param {{ attentions: boolean, check: () => void }} o  check() throws when the generation must stop
   */
  async forward(ids, { attentions: wantWeights, check }) {
    const { spec: config, run } = this.#engine;
    const n = ids.length;
    const first = this.past;
    const L = first + n;
    if (L > this.#capacity) throw new AttentionError('INTERNAL', `the KV cache holds ${this.#capacity} tokens`);
    let hidden = await this.#engine.embed(ids, first);
    check();
    const positions = Array.from({ length: n }, (_, i) => first + i);
    const tables = config.rope && ropeTables(config.rope.invFreq, positions);
    const { numHeads: H, dModel: d } = config;
    const attentions = [];
    for (let l = 0; l < this.#layers.length; l++) {
      const { inputs, addresses } = await this.#layerWeights(l);
      check();
      inputs.x = made(hidden.data, hidden.shape, `the hidden state of layer ${l}`);
      if (tables) {
        inputs.ropeCos = made(tables.cos, [n, config.rope.dim / 2], 'rope.cos');
        inputs.ropeSin = made(tables.sin, [n, config.rope.dim / 2], 'rope.sin');
      }
      const { cacheK, cacheV } = this.#layers[l];
      const dims = {
        ...modelDims(config, n, l),
        ...addresses,
        cacheK,
        cacheV,
        cachePast: first,
        cacheCapacity: this.#capacity,
      };
      const outputs = wantWeights ? { output: [n, d], weights: [H, n, L] } : { output: [n, d] };
      const scratchBytes = layerScratchBytes(config, n) + (n * L + 2 * L * config.headDim) * 4;
      const result = run(modelPlan('modelLayer', dims, inputs, outputs, { causal: true, scratchBytes }));
      hidden = result.output;
      if (wantWeights) attentions.push(lastRows(result.weights, H, n, L));
    }
    this.past = L;
    const last = new Tensor(hidden.data.slice((n - 1) * d), [1, d]);
    const normed = this.#engine.tensors.final.length ? await this.#engine.final(last) : last;
    check();
    const logits = await this.#logits(normed);
    check();
    return { logits, attentions };
  }

  /** The LM head on one row: resident when it fits what the layers left of the budget (read once), else by blocks. */
  async #logits(h) {
    const { checkpoint, tensors, spec: config, run } = this.#engine;
    const { head, headBias } = tensors;
    if (this.#head === undefined) {
      const [V, d] = head.shape;
      const address = this.#reserve(V * d * 4);
      if (address) {
        const block = Math.max(1, Math.floor(HEAD_BLOCK_BYTES / (d * 4)));
        for (let v0 = 0; v0 < V; v0 += block) {
          const rows = await checkpoint.read(head, [v0, Math.min(V, v0 + block)]);
          this.#write(address, rows.data, head.name, v0 * d);
        }
      }
      this.#head = address ? { address } : null;
    }
    if (!this.#head) return this.#engine.logits(h);
    const V = config.vocabSize;
    const inputs = { x: made(h.data, h.shape, 'the final hidden state') };
    if (headBias) inputs.bHead = weight(await checkpoint.read(headBias), headBias.name);
    const dims = { ...modelDims(config, 1), dOut: V, wHead: this.#head.address };
    return run(modelPlan('modelLogits', dims, inputs, { output: [1, V] })).output;
  }

  /** Gives back the cache and the resident weights. Safe to call twice. */
  free() {
    const { module } = this.#engine;
    for (const allocation of this.#allocations) module._free(allocation);
    this.#allocations = [];
    this.freed = true;
  }
}

/** The last query row of weights [H, n, L]: [H, 1, L]. */
function lastRows(weights, H, n, L) {
  const rows = new Float32Array(H * L);
  for (let h = 0; h < H; h++) rows.set(weights.data.subarray((h * n + n - 1) * L, (h * n + n) * L), h * L);
  return new Tensor(rows, [H, 1, L]);
}
