// One generation's state in the model's WebAssembly memory: each layer's KV cache, and the weights kept resident
// while they fit a budget. forward(ids) runs the new tokens through every layer, two calls per layer (layer-call.js:
// forward.h's layer_attention with a KvCache, then layer_mlp): their keys and values are appended to the cache and
// their queries attend over it, so a decode step computes one row. free() gives every byte back (heapBytesInUse
// returns to its baseline).
//
// Residency: run() writes each layer's weights into WebAssembly memory for that layer's call only. A decode step
// is a handful of matrix-vector products, so reading the checkpoint again at every step would cost more than the
// step itself: here the weights read by the prefill stay in WebAssembly memory for the whole generation, layer by
// layer in order and then the LM head, as long as their float32 bytes fit `residentBytes`; what does not fit is
// read again at every step, as run() reads it. When the model keeps its weights across runs (loadModel's
// residentBytes, model.js), the generation uses those and keeps none of its own. The store is resident.js's.
//
// With loadModel's `workers` (shards.js), the layers and the LM head run on the workers and the KV cache is split with
// the heads: each worker keeps its key-value heads' keys and values (shards.openCache); nothing of the layers is kept
// here.
import { AttentionError } from '../errors.js';
import { MAX_CALL_BYTES } from '../plan.js';
import { Tensor } from '../tensor.js';
import { made, modelDims, modelPlan, ropeInputs } from './calls.js';
import { ropeTablesOf } from './rope-tables.js';
import { headMask, runLayer } from './layer-call.js';
import { Residency, mib } from './resident.js';

export class DecodeSession {
  #engine;
  #own; // this generation's store (resident.js): its KV cache, and its resident weights when the model keeps none
  #weights; // where the weights are kept: the model's store (loadModel's residentBytes) when it has one, else #own
  #layers; // per layer: { cacheK, cacheV }
  #capacity;
  #shards; // the model's workers (shards.js), or null
  #shardCache = null; // this generation's KV cache in the workers (opened by the first forward)
  /** Tokens in the cache. */
  past = 0;
  freed = false;

  /**
   * @param {object} engine  the model's parts (model.js): module, checkpoint, tensors, spec, resident, run, embed,
   *   final, logits
   * @param {number} capacity  tokens the cache must hold
   * @param {number} residentBytes  the budget of this generation's resident weights (when the model keeps none)
   * @param {boolean} [sharded]  the layers run on the model's workers (engine.shards): no cache here
   */
  constructor(engine, capacity, residentBytes, sharded = false) {
    this.#engine = engine;
    this.#capacity = capacity;
    this.#shards = sharded ? engine.shards : null;
    this.#own = new Residency(engine.module, engine.checkpoint, engine.resident ? 0 : residentBytes);
    this.#weights = engine.resident ?? this.#own;
    const { numLayers, numKvHeads, headDim } = engine.spec;
    const perLayer = numKvHeads * capacity * headDim * 4; // bytes of one layer's k (or v)
    const total = 2 * numLayers * perLayer;
    if (total > MAX_CALL_BYTES) {
      throw new AttentionError(
        'TOO_LARGE',
        `the KV cache of ${capacity} tokens needs ${mib(total)} of WebAssembly memory, over the limit of ${mib(MAX_CALL_BYTES)} (MAX_CALL_BYTES): ask for fewer maxNewTokens or a shorter prompt`,
      );
    }
    if (this.#shards) return;
    try {
      this.#layers = Array.from({ length: numLayers }, () => ({
        cacheK: this.#own.allocate(perLayer, true),
        cacheV: this.#own.allocate(perLayer, true),
      }));
    } catch (error) {
      this.free();
      throw error;
    }
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
   * @param {{ attentions: boolean, ablate?: object[], check: () => void, signal?: AbortSignal }} o  ablate: the
   *   heads switched off (ablation.js's entries, 'zero'); check() throws when the generation must stop; `signal` stops
   *   every read
   */
  async forward(ids, { attentions: wantWeights, ablate = [], check, signal }) {
    const { spec, run } = this.#engine;
    const n = ids.length;
    const first = this.past;
    const L = first + n;
    if (L > this.#capacity) throw new AttentionError('INTERNAL', `the KV cache holds ${this.#capacity} tokens`);
    let hidden = await this.#engine.embed(ids, first, signal);
    check();
    const positions = Array.from({ length: n }, (_, i) => first + i);
    const tables = ropeTablesOf(spec, positions);
    const { numHeads: H, dModel: d } = spec;
    const attentions = [];
    if (this.#shards) {
      this.#shardCache ??= await this.#shards.openCache(this.#capacity, signal);
      if (this.freed) this.#shardCache.free(); // disposed meanwhile
      check();
    }
    if (this.#shards?.chains) {
      // every layer as one chain (shard-chain.js): no hand-off per layer
      const layers = Array.from({ length: spec.numLayers }, (_, l) => ({
        l,
        rope: tables && ropeInputs(tables(l), n, spec),
        headMask: headMask(ablate, l, H),
      }));
      const cache = { ...this.#shardCache, past: first };
      const options = { n, weights: wantWeights, cache, signal, what: 'generate()' };
      const results = await this.#shards.chain(layers, hidden.data, options);
      check();
      hidden = results[results.length - 1].output;
      if (wantWeights) for (const result of results) attentions.push(lastRows(result.weights, H, n, L));
    }
    for (let l = 0; this.#shards && !this.#shards.chains && l < spec.numLayers; l++) {
      const x = made(hidden.data, hidden.shape, `the hidden state of layer ${l}`);
      const rope = tables && ropeInputs(tables(l), n, spec);
      const cache = { ...this.#shardCache, past: first };
      const mask = headMask(ablate, l, H);
      const result = await this.#shards.layer(l, x, { n, rope, weights: wantWeights, cache, headMask: mask });
      check();
      hidden = result.output;
      if (wantWeights) attentions.push(lastRows(result.weights, H, n, L));
    }
    for (let l = 0; !this.#shards && l < this.#layers.length; l++) {
      const { inputs, addresses } = await this.#weights.group(`layer ${l}`, this.#engine.tensors.layers[l], signal);
      check();
      inputs.x = made(hidden.data, hidden.shape, `the hidden state of layer ${l}`);
      if (tables) Object.assign(inputs, ropeInputs(tables(l), n, spec));
      const mask = headMask(ablate, l, H);
      if (mask) inputs.headMask = mask;
      const { cacheK, cacheV } = this.#layers[l];
      const dims = {
        ...modelDims(spec, n, l),
        ...addresses,
        cacheK,
        cacheV,
        cachePast: first,
        cacheCapacity: this.#capacity,
      };
      const outputs = wantWeights ? { output: [n, d], weights: [H, n, L] } : { output: [n, d] };
      const result = runLayer(run, spec, n, { inputs, dims, outputs, causal: true });
      hidden = result.output;
      if (wantWeights) attentions.push(lastRows(result.weights, H, n, L));
    }
    this.past = L;
    const last = new Tensor(hidden.data.slice((n - 1) * d), [1, d]);
    const normed = this.#engine.tensors.final.length ? await this.#engine.final(last, signal) : last;
    check();
    const logits = await this.#logits(normed, signal);
    check();
    return { logits, attentions };
  }

  /** The LM head on one row: resident when it fits what the layers left of the budget (read once), else by blocks. */
  async #logits(h, signal) {
    if (this.#shards) return this.#shards.logits(h, signal);
    const { tensors, spec, run } = this.#engine;
    const { head, headBias } = tensors;
    const address = await this.#weights.matrix(head, signal);
    if (!address) return this.#engine.logits(h, signal);
    const V = spec.vocabSize;
    const inputs = { x: made(h.data, h.shape, 'the final hidden state') };
    const bias = headBias ? await this.#weights.group('headBias', [headBias], signal) : { inputs: {}, addresses: {} };
    Object.assign(inputs, bias.inputs);
    const dims = { ...modelDims(spec, 1), ...bias.addresses, dOut: V, wHead: address };
    return run(modelPlan('modelLogits', dims, inputs, { output: [1, V] })).output;
  }

  /** Gives back the cache and this generation's resident weights (the model's stay). Safe to call twice. */
  free() {
    this.#own.free();
    this.#shardCache?.free();
    this.freed = true;
  }
}
/** The last query row of weights [H, n, L]: [H, 1, L]. */
function lastRows(weights, H, n, L) {
  const rows = new Float32Array(H * L);
  for (let h = 0; h < H; h++) rows.set(weights.data.subarray((h * n + n - 1) * L, (h * n + n) * L), h * L);
  return new Tensor(rows, [H, 1, L]);
}
