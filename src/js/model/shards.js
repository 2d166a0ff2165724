// loadModel({ workers }): a forward split over workers by heads and by the MLP's hidden units (tensor parallelism;
// shard-slices.js says who keeps what). The workers are the attention API's pool (pool.js) running the model's host
// (worker-host.js): Web Workers in browsers, worker_threads in Node. Each keeps its share of every layer in its own
// WebAssembly memory from the load until dispose(); nothing is shared, so no cross-origin isolation is needed.
//
// A layer (layer(), shard-layer.js): the model's side posts the layer's input x to every worker; each runs the attention half on its
// heads (forward.h's layer_attention, its weights by address) and returns its part of attention's output, x·W_o over
// its heads' rows of W_o; the model's side sums the parts in worker order, adds b_o and x (the residual), posts that
// to every worker, which runs the MLP half on its hidden units and returns its part of W_down's product; the model's
// side sums them, adds b_down and the residual: the layer's output. The sums over W_o's and W_down's inputs are thus
// cut into one partial sum per worker: the outputs equal one thread's within float32 rounding (bit for bit with one
// worker), attention's weights of the first layer bit for bit. Norms that need a whole sum run on the model's side:
// post-norm's (BERT's) after the MLP's residual sum, the sandwich's (Gemma 2 and 3) and OLMo-2's after each half's sum.
// OLMo-2's q and k norms over each token's whole projection take a first call of the workers per layer: each gives its
// columns' sums of squares, the whole rows' scales go back with the attention calls (shard-qk.js).
//
// The LM head is cut too: worker w keeps vocabulary rows of its own (ranges of multiples of 4, in blocks of
// resident.js's blockRows, as the calling thread's blocks), and a run's logits are each worker's columns. Each logit is
// one dot product over d, as on one thread: the logits of the same final hidden state are the same bits.
//
// A worker that dies fails the calls it had (WORKER_FAILED, pool.js) and loses its share: the next run starts a fresh
// worker and gives it its share again before any layer (ready()).
import { AttentionError } from '../errors.js';
import { LAYER_ATTENTION_WEIGHTS, LAYER_MLP_WEIGHTS } from '../generated/model-abi.js';
import { compileWasm } from '../loader.js';
import { WorkerPool, registerPool, webWorkerSpawner } from '../pool.js';
import { platform } from '../platform.js';
import { Tensor } from '../tensor.js';
import { made, modelDims, modelPlan, weight } from './calls.js';
import { halfWeights } from './layer-call.js';
import { blockRows, panelSlots } from './resident.js';
import { headRows, layerShare, shardParts, workerPlacement } from './shard-slices.js';
import { shardLayer } from './shard-layer.js';
import { chainsPlacement, shardChain, sharedMemoryAvailable } from './shard-chain.js';
import { modelWasmFiles } from './wasm.js';

const here = import.meta.url; // not `new URL(…, import.meta.url)` again: bundlers would emit a second copy

/** The model's Web Workers: worker.js of this folder. */
const spawnWebWorker = webWorkerSpawner(
  () => new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }),
  new URL('./worker.js', here).href,
);

const copy = (data, shape, name) => made(data.slice(), shape, name);

let sharedMemory = true;

/**
 * @internal For the tests only: false makes the models loaded after it hand every layer off by messages, as where
 * there is no SharedArrayBuffer; true (the default) lets them chain layers through shared memory where it exists.
 */
export function useSharedMemory(enabled) {
  sharedMemory = enabled;
}

const owners = new WeakMap(); // Model → its Shards

/**
 * @internal For the tests only: { chains, chained, stopped } of a model's workers (chained: layers run as chains so
 * far; stopped: chains that failed or were aborted).
 */
export function chainsOf(model) {
  const { chains, chained, stopped } = owners.get(model);
  return { chains, chained, stopped };
}

export class Shards {
  #pool = null;
  #spec;
  #tensors;
  #checkpoint;
  #parts;
  #kept; // per worker: { layers: per layer { slot: address }, head: [{ v0, rows, address }] }, or null when lost
  #biases = []; // per layer: b_o, b_down (Float32Array or undefined); the norms run here ([weight, bias] tensors)
  #restoring = null;
  #epochs; // per worker: how many times it was lost (a cache of an earlier worker is not freed on a fresh one)
  #reads = { attention: null, mlp: null };
  #local; // the calling thread's model calls (model.js): the norms that need a whole sum (post-norm's, after a half)
  #placement; // the workers' calls' placement: the sandwich's halves run there as pre-norm's, its norms after here;
  // post-branch's (OLMo-2's) as they are, without the norms after them (not in a share), which run here
  #side; // what shard-layer.js's shardLayer and shard-chain.js's shardChain use of this
  #spare = null; // a chain's SharedArrayBuffer, for the next chain
  /** True when plain layers run as chains (shard-chain.js): SharedArrayBuffer here, a pre-norm or parallel model. */
  chains;
  chained = 0;
  stopped = 0;

  constructor({ spec, tensors, checkpoint }, count) {
    this.#spec = spec;
    this.#tensors = tensors;
    this.#checkpoint = checkpoint;
    this.#parts = shardParts(spec, count);
    this.#kept = Array(count).fill(null);
    this.#epochs = Array(count).fill(0);
    this.#placement = workerPlacement(spec);
    this.#reads = {
      attention: halfWeights(LAYER_ATTENTION_WEIGHTS, this.#placement),
      mlp: halfWeights(LAYER_MLP_WEIGHTS, this.#placement),
    };
    this.#side = {
      spec,
      parts: this.#parts,
      placement: this.#placement,
      biases: (l) => this.#biases[l],
      norm: (...args) => this.#norm(...args),
      call: (...args) => this.#call(...args),
      plan: (...args) => this.#plan(...args),
      send: (w, plan) => this.#send(w, plan),
      buffer: (bytes) => this.#buffer(bytes),
      giveBack: (buffer) => (this.#spare = buffer),
    };
    this.chains = sharedMemory && sharedMemoryAvailable() && chainsPlacement(spec);
  }

  /** Layer l's biases and norms kept here: { bO, bDown, norm2, attentionPostNorm, mlpPostNorm }. */
  biases(l) {
    return this.#biases[l];
  }

  /**
   * Starts `count` workers and gives each its share of every layer (read from the checkpoint layer by layer).
   * @param {object} model  { spec, tensors, checkpoint }
   */
  static async start(model, count, { simd, signal }) {
    const shards = new Shards(model, count);
    const variant = simd ? 'simd' : 'scalar';
    const { module } = await compileWasm(variant, modelWasmFiles(variant));
    const spawn = platform.spawnModelWorker ?? spawnWebWorker;
    shards.#pool = await WorkerPool.start(count, simd, undefined, {
      module,
      spawn,
      onLost: (index) => {
        shards.#kept[index] = null;
        shards.#epochs[index]++;
      },
      terminated: () => new AttentionError('TERMINATED', 'this model was disposed: load it again with loadModel'),
    });
    try {
      await shards.#keep(
        shards.#kept.map((_, w) => w),
        signal,
      );
    } catch (error) {
      await shards.terminate();
      throw error;
    }
    return shards;
  }

  /**
   * Ties the pool to its Model, so that the tests' injectFault (pool.js) can reach it, and takes the Model's runner of
   * calls on the calling thread (`call(plan)` → outputs).
   */
  register(owner, call) {
    registerPool(owner, this.#pool);
    owners.set(owner, this);
    this.#local = call;
  }

  /** Layer l's norm `slot` (norm2: post-norm's last; those after each half) on x [n, d] here, as forward.cc's. */
  #norm(l, slot, x, n, what) {
    const [w, b] = this.#biases[l][slot];
    const inputs = { x: made(x, [n, this.#spec.dModel], what), norm1Weight: weight(w, slot) };
    if (b) inputs.norm1Bias = weight(b, `${slot} bias`);
    return this.#local(modelPlan('modelNorm', modelDims(this.#spec, n), inputs, { output: [n, this.#spec.dModel] }))
      .output.data;
  }

  get size() {
    return this.#kept.length;
  }

  /** Reads each layer and gives workers `which` their shares ('keep' plans, worker-host.js). */
  async #keep(which, signal) {
    const spec = this.#spec;
    const epochs = which.map((w) => this.#epochs[w]);
    const kept = which.map(() => ({ layers: [], head: [] }));
    for (const [l, entries] of this.#tensors.layers.entries()) {
      const read = await Promise.all(entries.map((entry) => this.#checkpoint.read(entry, undefined, signal)));
      const layer = Object.fromEntries(entries.map((entry, i) => [entry.slot, read[i]]));
      this.#biases[l] = {
        bO: layer.bO?.data,
        bDown: layer.bDown?.data,
        norm2: [layer.norm2Weight, layer.norm2Bias],
        ...{ attentionPostNorm: [layer.attentionPostNorm], mlpPostNorm: [layer.mlpPostNorm] }, // the sandwich's, OLMo-2's
      };
      const answers = which.map((w) => {
        const share = layerShare(spec, layer, this.#parts[w], `layer ${l}`);
        // GPT-2's MLP weights packed as the core's panels, as one thread keeps them (resident.js): [in, out] each
        const [f0, f1] = this.#parts[w].ff;
        const mlp = { wUp: [spec.dModel, f1 - f0], wGate: [spec.dModel, f1 - f0], wDown: [f1 - f0, spec.dModel] };
        const matrices = Object.keys(share)
          .filter((slot) => slot in mlp)
          .map((slot) => ({ slot, shape: mlp[slot] }));
        const panels = panelSlots(spec.choices.layout, matrices).map((slot) => [slot, ...mlp[slot]]);
        const plan = { op: 'keep', inputs: share, panels, options: {} };
        return this.#pool.run(w, plan).then(({ addresses }) => {
          const slots = Object.keys(share);
          const kept = Object.fromEntries(slots.map((slot, i) => [slot, addresses.data[i]]));
          return panels.length ? { ...kept, mlpPanels: 1 } : kept;
        });
      });
      (await Promise.all(answers)).forEach((addresses, i) => kept[i].layers.push(addresses));
    }
    if (this.#tensors.head) {
      await Promise.all(which.map(async (w, i) => (kept[i].head = await this.#keepHead(w, signal))));
    }
    // a worker lost meanwhile (after its answers) has a fresh one in its slot, which holds none of this
    which.forEach((w, i) => this.#epochs[w] === epochs[i] && (this.#kept[w] = kept[i]));
  }

  /** Worker w's rows of the LM head (and of its bias), block by block: [{ v0, rows, address, bias }]. */
  async #keepHead(w, signal) {
    const { head, headBias } = this.#tensors;
    const [V, d] = head.shape;
    // cut at multiples of 4 rows (the last worker takes the rest), as the calling thread's blocks: the same bits
    const [r0, r1] = headRows(V, this.size, w);
    const block = blockRows(d);
    const bias = headBias && (await this.#checkpoint.read(headBias, undefined, signal)).data;
    const blocks = [];
    for (let v0 = r0; v0 < r1; v0 += block) {
      const v1 = Math.min(r1, v0 + block);
      const rows = await this.#checkpoint.read(head, [v0, v1], signal);
      const inputs = { wHead: { data: rows.data, shape: [v1 - v0, d], name: head.name } };
      if (bias) inputs.bHead = { data: bias.slice(v0, v1), shape: [v1 - v0], name: headBias.name };
      const { addresses } = await this.#pool.run(w, { op: 'keep', inputs, options: {} });
      blocks.push({ v0, rows: v1 - v0, address: addresses.data[0], bias: bias ? addresses.data[1] : 0 });
    }
    return blocks;
  }

  /** The LM head on the final hidden state h [n, d] over the workers' rows: logits [n, V]. */
  async logits(h, signal) {
    await this.ready(signal);
    const [n, d] = h.shape;
    const V = this.#tensors.head.shape[0];
    const logits = new Float32Array(n * V); // [n, V]
    // one call per worker for all its blocks ('head', worker-host.js): its rows [n, its rows], from its first block's
    const calls = this.#kept.map(async (kept, w) => {
      const blocks = kept?.head ?? [];
      if (!blocks.length) return;
      const plans = blocks.map(({ rows, address, bias }) => {
        const dims = { ...modelDims(this.#spec, n), dOut: rows, wHead: address, ...(bias && { bHead: bias }) };
        return modelPlan('modelLogits', dims, {}, { output: [n, rows] });
      });
      const plan = { op: 'head', inputs: { x: copy(h.data, [n, d], 'the final hidden state') }, options: {}, plans };
      const { output } = await this.#send(w, plan);
      const width = output.shape[1];
      const v0 = blocks[0].v0;
      for (let i = 0; i < n; i++) logits.set(output.data.subarray(i * width, (i + 1) * width), i * V + v0);
    });
    await Promise.all(calls);
    return new Tensor(logits, [n, V]);
  }

  /** Posts a plan to worker w: WORKER_FAILED at once when its worker was lost (its share is given again by ready()). */
  #send(w, plan) {
    if (!this.#kept[w]) {
      const message = `worker ${w} ended during this run (its share of the weights is given again at the next run)`;
      return Promise.reject(new AttentionError('WORKER_FAILED', message));
    }
    return this.#pool.run(w, plan);
  }

  /** Gives a fresh worker (one that replaced a lost one) its shares, before a run's first layer. */
  async ready(signal) {
    while (this.#restoring) await this.#restoring.catch(() => {});
    const lost = this.#kept.flatMap((kept, w) => (kept ? [] : [w]));
    if (!lost.length) return;
    this.#restoring = this.#keep(lost, signal);
    try {
      await this.#restoring;
    } finally {
      this.#restoring = null;
    }
  }

  /**
   * A generation's KV cache split with the heads: in each worker with heads, per layer a block for the keys and one
   * for the values of its key-value heads [H_kv of w, capacity, d_k]. { capacity, past, blocks, free() }.
   */
  async openCache(capacity, signal) {
    await this.ready(signal);
    const { numLayers, headDim } = this.#spec;
    const epochs = [...this.#epochs];
    const settled = await Promise.allSettled(
      this.#parts.map(async ({ kv: [g0, g1] }, w) => {
        if (g1 === g0) return null;
        const bytes = Array(2 * numLayers).fill((g1 - g0) * capacity * headDim * 4);
        const { addresses } = await this.#send(w, { op: 'alloc', bytes, inputs: {}, options: {} });
        return Array.from({ length: numLayers }, (_, l) => ({
          cacheK: addresses.data[2 * l],
          cacheV: addresses.data[2 * l + 1],
        }));
      }),
    );
    const blocks = settled.map((s) => (s.status === 'fulfilled' ? s.value : null));
    const free = () =>
      blocks.forEach((layers, w) => {
        if (!layers || this.#epochs[w] !== epochs[w] || !this.#kept[w]) return;
        const addresses = layers.flatMap(({ cacheK, cacheV }) => [cacheK, cacheV]);
        this.#pool.run(w, { op: 'free', addresses, inputs: {}, options: {} }).catch(() => {});
      });
    const failed = settled.find((s) => s.status === 'rejected');
    if (failed) {
      free(); // what the other workers allocated (OUT_OF_MEMORY in one of them)
      throw failed.reason;
    }
    return { capacity, blocks, epochs, free };
  }

  /**
   * A layer call (`kind`: its attention or its MLP half) of layer l on worker w: the plan's dims with the worker's sizes
   * and the addresses of its kept weights that the half reads (but those given in `inputs`), its cache, its edits.
   */
  #plan(w, l, kind, dims, inputs, outputs, { cache, edit } = {}) {
    const kept = this.#kept[w];
    if (!kept || (cache && cache.epochs[w] !== this.#epochs[w])) {
      const message = `worker ${w} ended during this ${cache ? 'generation (its KV cache is lost)' : 'run (its share of the weights is given again at the next run)'}`;
      throw new AttentionError('WORKER_FAILED', message);
    }
    const [h0, h1] = this.#parts[w].heads;
    const [g0, g1] = this.#parts[w].kv;
    const [f0, f1] = this.#parts[w].ff;
    const reads = kind === 'modelAttention' ? this.#reads.attention : this.#reads.mlp;
    // a weight given as an input (edited for this run) replaces the kept one
    const addresses = Object.fromEntries(
      Object.entries(kept.layers[l]).filter(([slot]) => reads.has(slot) && !(slot in inputs)),
    );
    if (kind === 'modelMlp' && kept.layers[l].mlpPanels) addresses.mlpPanels = 1; // its MLP weights are panels
    const own = { ...dims, numHeads: h1 - h0, numKvHeads: g1 - g0, dFf: f1 - f0, ...addresses };
    if (!own.numHeads) Object.assign(own, { numHeads: 1, numKvHeads: 1 }); // an MLP-only worker: heads unused
    if (cache && kind === 'modelAttention') {
      Object.assign(own, cache.blocks[w][l], { cachePast: cache.past, cacheCapacity: cache.capacity });
    }
    if (edit) {
      inputs.edits = edit.tensor;
      own.editCount = edit.count;
    }
    const options = { causal: this.#spec.choices.causal, editedSteps: edit?.steps ?? 0 };
    return modelPlan(kind, own, inputs, outputs, options);
  }

  /** A layer call of #plan's, posted to worker w: its outputs. */
  #call(...args) {
    try {
      return this.#send(args[0], this.#plan(...args));
    } catch (error) {
      return Promise.reject(error);
    }
  }

  /** A SharedArrayBuffer of at least `bytes` for a chain: the last one given back when it is large enough. */
  #buffer(bytes) {
    const spare = this.#spare;
    if (spare && spare.byteLength >= bytes) {
      this.#spare = null;
      new Int32Array(spare, 0, 4).fill(0); // its control words: no worker holds it (its chain settled)
      return spare;
    }
    return new SharedArrayBuffer(bytes);
  }

  /**
   * Layers `layers` ([{ l, rope, headMask }], consecutive) without a hand-off per layer (shard-chain.js), where
   * `chains` is true: per layer { output, weights? }.
   */
  chain(layers, x, options) {
    this.chained += layers.length;
    return shardChain(this.#side, layers, x, options).catch((error) => {
      this.stopped++;
      throw error;
    });
  }

  /** Layer l over the workers (shard-layer.js's shardLayer: its options and result). */
  layer(l, x, options) {
    return shardLayer(this.#side, l, x, options);
  }

  /** Each worker's WebAssembly memory: [{ memoryBytes, heapBytesInUse }], its share of the weights included. */
  async memory() {
    const answers = this.#kept.map((_, w) => this.#pool.run(w, { op: 'memory', inputs: {}, options: {} }));
    return (await Promise.all(answers)).map(({ memory }) => ({
      memoryBytes: memory.data[0],
      heapBytesInUse: memory.data[1],
    }));
  }

  /** Ends every worker; a run under way fails with TERMINATED. */
  terminate() {
    return this.#pool?.terminate() ?? Promise.resolve();
  }
}
