// loadModel({ workers }): a forward split over workers by heads and by the MLP's hidden units (tensor parallelism;
// shard-slices.js says who keeps what). The workers are the attention API's pool (pool.js) running the model's host
// (worker-host.js): Web Workers in browsers, worker_threads in Node. Each keeps its share of every layer in its own
// WebAssembly memory from the load until dispose(); nothing is shared, so no cross-origin isolation is needed.
//
// A layer (layer()): the model's side posts the layer's input x to every worker; each runs the attention half on its
// heads (forward.h's layer_attention, its weights by address) and returns its part of attention's output, x·W_o over
// its heads' rows of W_o; the model's side sums the parts in worker order, adds b_o and x (the residual), posts that
// to every worker, which runs the MLP half on its hidden units and returns its part of W_down's product; the model's
// side sums them, adds b_down and the residual: the layer's output. The sums over W_o's and W_down's inputs are thus
// cut into one partial sum per worker: the outputs equal one thread's within float32 rounding (bit for bit with one
// worker), attention's weights of the first layer bit for bit.
//
// A worker that dies fails the calls it had (WORKER_FAILED, pool.js) and loses its share: the next run starts a fresh
// worker and gives it its share again before any layer (ready()).
import { AttentionError } from '../errors.js';
import { LAYER_ATTENTION_WEIGHTS, LAYER_MLP_WEIGHTS } from '../generated/model-abi.js';
import { compileWasm } from '../loader.js';
import { platform } from '../platform.js';
import { WorkerPool, registerPool, webWorkerSpawner } from '../pool.js';
import { firstNonFinite } from '../scan.js';
import { Tensor } from '../tensor.js';
import { made, modelDims, modelPlan } from './calls.js';
import { halfWeights } from './layer-call.js';
import { layerShare, shardParts } from './shard-slices.js';
import { modelWasmFiles } from './wasm.js';

const here = import.meta.url; // not `new URL(…, import.meta.url)` again: bundlers would emit a second copy

/** The model's Web Workers: worker.js of this folder. */
const spawnWebWorker = webWorkerSpawner(
  () => new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }),
  new URL('./worker.js', here).href,
);

/** The most workers loadModel takes, and the most 'auto' picks. */
export const MAX_WORKERS = 64;
export const AUTO_WORKERS = 8;

/** loadModel's `workers` for 'auto': one less than the processors (at least 1, at most AUTO_WORKERS). */
export function autoWorkers() {
  const cores = platform.cores?.() ?? globalThis.navigator?.hardwareConcurrency ?? 2;
  return Math.max(1, Math.min(AUTO_WORKERS, cores - 1));
}

/** Whether a family's layers can be split: the norm before the MLP's residual sum (pre-norm or parallel). */
export const shardable = (spec) => spec.choices.placement !== 'postNorm';

/** Whether a run plan runs on the workers: no capture, ablation, edit or patch (those run on the calling thread). */
export const shardedRun = (plan) =>
  !plan.capture.length && !plan.ablate.length && !plan.edits.length && !plan.patches.length;

const copy = (data, shape, name) => made(data.slice(), shape, name);

/** out += part, element by element in float32 (each sum rounded to float32, as the core's). */
function addInto(out, part) {
  for (let i = 0; i < out.length; i++) out[i] += part[i];
}

export class Shards {
  #pool = null;
  #spec;
  #tensors;
  #checkpoint;
  #parts;
  #kept; // per worker: per layer { slot: address }, or null when its worker was lost
  #biases = []; // per layer { bO, bDown }: Float32Array or undefined
  #restoring = null;
  #reads = { attention: null, mlp: null };

  constructor({ spec, tensors, checkpoint }, count) {
    this.#spec = spec;
    this.#tensors = tensors;
    this.#checkpoint = checkpoint;
    this.#parts = shardParts(spec, count);
    this.#kept = Array(count).fill(null);
    this.#reads = {
      attention: halfWeights(LAYER_ATTENTION_WEIGHTS, spec.choices.placement),
      mlp: halfWeights(LAYER_MLP_WEIGHTS, spec.choices.placement),
    };
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
      onLost: (index) => (shards.#kept[index] = null),
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

  /** Ties the pool to its Model, so that the tests' injectFault (pool.js) can reach it. */
  register(owner) {
    registerPool(owner, this.#pool);
  }

  get size() {
    return this.#kept.length;
  }

  /** Reads each layer and gives workers `which` their shares ('keep' plans, worker-host.js). */
  async #keep(which, signal) {
    const spec = this.#spec;
    const kept = which.map(() => []);
    for (const [l, entries] of this.#tensors.layers.entries()) {
      const read = await Promise.all(entries.map((entry) => this.#checkpoint.read(entry, undefined, signal)));
      const layer = Object.fromEntries(entries.map((entry, i) => [entry.slot, read[i]]));
      this.#biases[l] = { bO: layer.bO?.data, bDown: layer.bDown?.data };
      const answers = which.map((w) => {
        const share = layerShare(spec, layer, this.#parts[w], `layer ${l}`);
        const plan = { op: 'keep', inputs: share, options: {} };
        return this.#pool.run(w, plan).then(({ addresses }) => {
          const slots = Object.keys(share);
          return Object.fromEntries(slots.map((slot, i) => [slot, addresses.data[i]]));
        });
      });
      (await Promise.all(answers)).forEach((addresses, i) => kept[i].push(addresses));
    }
    which.forEach((w, i) => (this.#kept[w] = kept[i]));
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

  /** A layer call of worker w: its plan's dims with its sizes and its weights' addresses for the half `half`. */
  #call(w, l, kind, dims, inputs, outputs) {
    const kept = this.#kept[w];
    if (!kept) {
      const message = `worker ${w} ended during this run (its share of the weights is given again at the next run)`;
      return Promise.reject(new AttentionError('WORKER_FAILED', message));
    }
    const [h0, h1] = this.#parts[w].heads;
    const [g0, g1] = this.#parts[w].kv;
    const [f0, f1] = this.#parts[w].ff;
    const reads = kind === 'modelAttention' ? this.#reads.attention : this.#reads.mlp;
    const addresses = Object.fromEntries(Object.entries(kept[l]).filter(([slot]) => reads.has(slot)));
    const own = { ...dims, numHeads: h1 - h0, numKvHeads: g1 - g0, dFf: f1 - f0, ...addresses };
    if (!own.numHeads) Object.assign(own, { numHeads: 1, numKvHeads: 1 }); // an MLP-only worker: heads unused
    const plan = modelPlan(kind, own, inputs, outputs, { causal: this.#spec.choices.causal });
    return this.#pool.run(w, plan);
  }

  /**
   * Layer l on x [n, d] over the workers: { output [n, d], weights [H, n, n] with `weights` }.
   * @param {{ data: Float32Array, shape: number[], name?: string, valuesChecked?: boolean }} x  the layer's input
   *   (a caller's hidden state, from.hiddenState, is scanned by the workers: NON_FINITE)
   * @param {{ ropeCos: object, ropeSin: object } | null} rope  the RoPE tables' inputs (calls.js's ropeInputs)
   */
  async layer(l, x, { n, rope, weights }) {
    const spec = this.#spec;
    const { dModel: d } = spec;
    const dims = modelDims(spec, n, l);
    const inputs = () => ({
      x: { ...x, data: x.data.slice() },
      ...(rope && { ropeCos: copy(rope.ropeCos.data, rope.ropeCos.shape, 'rope.cos') }),
      ...(rope && { ropeSin: copy(rope.ropeSin.data, rope.ropeSin.shape, 'rope.sin') }),
    });
    const attention = this.#parts.flatMap(({ heads: [h0, h1] }, w) => {
      if (h1 === h0) return [];
      const outputs = { attentionOutput: [n, d], residual: [n, d], ...(weights && { weights: [h1 - h0, n, n] }) };
      return [this.#call(w, l, 'modelAttention', dims, inputs(), outputs).then((result) => ({ h0, result }))];
    });
    const parts = await Promise.all(attention);
    const residual = new Float32Array(n * d); // [n, d]: Σ parts, + b_o, + x
    for (const { result } of parts) addInto(residual, result.attentionOutput.data);
    const { bO, bDown } = this.#biases[l];
    for (let i = 0; bO && i < n * d; i++) residual[i] += bO[i % d];
    for (let i = 0; i < n * d; i++) residual[i] = x.data[i] + residual[i];
    const parallel = spec.choices.placement === 'parallel';
    const mlp = this.#parts.flatMap(({ ff: [f0, f1] }, w) => {
      if (f1 === f0) return [];
      const inputs = { x: copy(residual, [n, d], 'the residual sum') };
      if (parallel) inputs.layerInput = copy(x.data, [n, d], 'the layer input');
      return [this.#call(w, l, 'modelMlp', dims, inputs, { mlpOutput: [n, d], output: [n, d] })];
    });
    const output = new Float32Array(n * d); // [n, d]: Σ parts, + b_down, + the residual
    for (const result of await Promise.all(mlp)) addInto(output, result.mlpOutput.data);
    for (let i = 0; bDown && i < n * d; i++) output[i] += bDown[i % d];
    for (let i = 0; i < n * d; i++) output[i] = residual[i] + output[i];
    if (firstNonFinite(output, false) >= 0) {
      throw new AttentionError(
        'PROJECTION_OVERFLOW',
        "the layer's output overflowed float32 (weights too large for float32?)",
      );
    }
    const result = { output: new Tensor(output, [n, d]) };
    if (weights) {
      const all = new Float32Array(spec.numHeads * n * n); // [H, n, n]
      for (const { h0, result: part } of parts) all.set(part.weights.data, h0 * n * n);
      result.weights = new Tensor(all, [spec.numHeads, n, n]);
    }
    return result;
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
