// createAttention({ workers: N }): attention spread over N workers (Web Workers in browsers, worker_threads
// in Node), each running a module instance of its own. scaledDotProductAttention splits its (batch, head)
// pairs; multi-head attention splits its heads, then the rows of its output projection, so that every value is
// the same bits as on one thread. Inputs and results cross as copied or transferred buffers,
// so no SharedArrayBuffer (and no cross-origin isolation) is needed. Arguments are checked on the calling
// thread with the same plans as the single-threaded API, so errors are the same too.
import { AttentionError } from './errors.js';
import { Tensor } from './tensor.js';
import {
  checkPlanValues, planCrossAttention, planMultiHeadAttention, planScaledDotProduct, planSelfAttention, product,
} from './plan.js';
import { CAUSAL, OUTPUT_PROJECTION_ROWS } from './generated/abi.js';

const CAUSAL_NAMES = { [CAUSAL.none]: false, [CAUSAL.topLeft]: true, [CAUSAL.bottomRight]: 'bottom-right' };

/** Starts one worker; the same small interface over Web Workers and worker_threads. */
async function spawn() {
  if (typeof Worker !== 'undefined') {
    const worker = new Worker(new URL('./worker.js', import.meta.url), { type: 'module' });
    return {
      post: (message, transfer) => worker.postMessage(message, transfer),
      listen: (handler) => worker.addEventListener('message', (event) => handler(event.data)),
      listenForErrors: (handler) => worker.addEventListener('error', (event) => handler(new Error(event.message))),
      hold: () => {},
      release: () => {},
      terminate: async () => worker.terminate(),
    };
  }
  const { Worker: NodeWorker } = await import(/* @vite-ignore */ 'node:worker_threads');
  const here = import.meta.url; // not `new URL(…, import.meta.url)` inline: bundlers would emit a copy
  const worker = new NodeWorker(new URL('./worker.js', here));
  return {
    post: (message, transfer) => worker.postMessage(message, transfer),
    listen: (handler) => worker.on('message', handler),
    listenForErrors: (handler) => worker.on('error', handler),
    // An idle worker must not keep Node running: referenced only while a call is under way.
    hold: () => worker.ref(),
    release: () => worker.unref(),
    terminate: () => worker.terminate().then(() => {}),
  };
}

class WorkerPool {
  #workers = [];
  #pending = new Map();
  #nextId = 1;

  static async start(count, simd, wasmUrl) {
    const pool = new WorkerPool();
    const workers = await Promise.all(Array.from({ length: count }, spawn));
    const ready = workers.map((worker) => new Promise((resolve, reject) => {
      const failed = (error) => reject(new AttentionError('LOAD_FAILED', `a worker failed to start: ${error.message}`, { cause: error }));
      worker.listenForErrors((error) => {
        failed(error);
        pool.#rejectAll(new AttentionError('INTERNAL', `a worker stopped: ${error.message}`, { cause: error }));
      });
      worker.listen((message) => {
        if (message.type === 'ready') {
          if (message.error) failed(new AttentionError(message.error.code, message.error.message));
          else resolve(message.instructionSets);
          return;
        }
        pool.#settle(worker, message);
      });
      worker.post({ type: 'init', simd, wasmUrl: wasmUrl === undefined ? undefined : String(wasmUrl) }, []);
    }));
    pool.#workers = workers;
    try {
      const [instructionSets] = await Promise.all(ready);
      workers.forEach((worker) => worker.release());
      pool.instructionSets = instructionSets;
      return pool;
    } catch (error) {
      await pool.terminate();
      throw error;
    }
  }

  get size() {
    return this.#workers.length;
  }

  /** Runs `method(...args)` on worker `index`; resolves to its result tensors. */
  call(index, method, args, transfer = []) {
    const worker = this.#workers[index];
    const id = this.#nextId++;
    worker.hold();
    return new Promise((resolve, reject) => {
      this.#pending.set(id, { resolve, reject });
      worker.post({ id, method, args }, transfer);
    });
  }

  #settle(worker, { id, result, error }) {
    const pending = this.#pending.get(id);
    if (!pending) return;
    this.#pending.delete(id);
    worker.release();
    if (error) pending.reject(new AttentionError(error.code, error.message));
    else pending.resolve(result);
  }

  #rejectAll(error) {
    for (const { reject } of this.#pending.values()) reject(error);
    this.#pending.clear();
  }

  async terminate() {
    await Promise.all(this.#workers.map((worker) => worker.terminate()));
    this.#rejectAll(new AttentionError('INTERNAL', 'the workers were terminated'));
    this.#workers = [];
  }
}

/** Splits `count` items into at most `parts` contiguous [start, end) ranges of near-equal size. */
function ranges(count, parts) {
  const n = Math.min(count, parts);
  return Array.from({ length: n }, (_, i) => [Math.floor((i * count) / n), Math.floor(((i + 1) * count) / n)]);
}

/** Copies the given row blocks of `data` (each `width` long) into a new Float32Array. */
function gather(data, blocks, width) {
  const out = new Float32Array(blocks.length * width);
  blocks.forEach((block, i) => {
    const start = block * width;
    out.set(data instanceof Float32Array || data instanceof Float64Array ? data.subarray(start, start + width) : data.slice(start, start + width), i * width);
  });
  return out;
}

/** The columns [from, to) of a row-major [rows, cols] matrix. */
function columns(data, rows, cols, from, to) {
  const width = to - from;
  const out = new Float32Array(rows * width);
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < width; c++) out[r * width + c] = data[r * cols + from + c];
  }
  return out;
}

const tensor = (data, shape) => ({ data, shape });
const range = (from, to) => Array.from({ length: to - from }, (_, i) => from + i);

/** The options of a plan, as public options again (for the call a worker makes). */
function publicOptions(options, mask) {
  return {
    ...(options.scale === undefined ? {} : { scale: options.scale }),
    causal: CAUSAL_NAMES[options.causal],
    ...(mask ? { mask } : {}),
    returnWeights: options.returnWeights,
    returnSteps: options.returnSteps,
  };
}

/** The part of a mask for the given (batch, head) blocks, as [blocks, L_q or 1, L_k or 1] data. */
function maskBlocks(mask, maskDims, blocks) {
  const [, maskHeads, maskRows, maskCols] = maskDims;
  const indices = blocks.map(([b, h]) => (maskDims[0] === 1 ? 0 : b) * maskHeads + (maskHeads === 1 ? 0 : h));
  const width = maskRows * maskCols;
  const out = new (mask.kind === 'boolean' ? Uint8Array : Float32Array)(indices.length * width);
  indices.forEach((index, i) => out.set(mask.data.slice(index * width, (index + 1) * width), i * width));
  return out;
}

/**
 * The API of Attention over a pool of workers: the same methods and results, as Promises.
 * Create it with createAttention({ workers: N }); end it with terminate().
 */
export class ParallelAttention {
  #pool;

  constructor(pool, simd) {
    this.#pool = pool;
    this.simd = simd;
    this.instructionSets = pool.instructionSets;
    this.workers = pool.size;
  }

  /** Ends the workers. Calls under way reject. */
  terminate() {
    return this.#pool.terminate();
  }

  /** As Attention#scaledDotProductAttention; the (batch, head) pairs are spread over the workers. */
  async scaledDotProductAttention(q, k, v, options) {
    const plan = planScaledDotProduct(q, k, v, options);
    checkPlanValues(plan);
    const { batch, numHeads, numKvHeads, lenQ, lenK, dK, dV } = plan.dims;
    const group = numHeads / numKvHeads;
    const { q: Q, k: K, v: V } = plan.inputs;
    const mask = plan.options.mask;
    const maskShared = mask && plan.maskDims[0] === 1 && plan.maskDims[1] === 1;
    const parts = ranges(batch * numHeads, this.#pool.size).map(([from, to], index) => {
      const pairs = range(from, to).map((p) => [Math.floor(p / numHeads), p % numHeads]);
      const kvBlocks = pairs.map(([b, h]) => b * numKvHeads + Math.floor(h / group));
      const count = to - from;
      const subQ = tensor(gather(Q.data, range(from, to), lenQ * dK), [count, lenQ, dK]);
      const subK = tensor(gather(K.data, kvBlocks, lenK * dK), [count, lenK, dK]);
      const subV = tensor(gather(V.data, kvBlocks, lenK * dV), [count, lenK, dV]);
      const [, , maskRows, maskCols] = plan.maskDims;
      const subMask = !mask ? null
        : maskShared ? tensor(mask.data, [maskRows, maskCols])
          : tensor(maskBlocks(mask, plan.maskDims, pairs), [count, maskRows, maskCols]);
      const args = [subQ, subK, subV, publicOptions(plan.options, subMask)];
      return this.#pool.call(index, 'scaledDotProductAttention', args, [subQ.data.buffer, subK.data.buffer, subV.data.buffer])
        .then((result) => ({ from, result }));
    });
    const done = await Promise.all(parts);
    const pairs = batch * numHeads;
    return Object.fromEntries(Object.entries(plan.outputs).map(([key, shape]) => {
      const out = new Float32Array(product(shape));
      const block = out.length / pairs;
      for (const { from, result } of done) out.set(result[key].data, from * block);
      return [key, new Tensor(out, shape)];
    }));
  }

  /** As Attention#selfAttention; with numHeads, the heads are spread over the workers. */
  selfAttention(x, weights, options) {
    return this.#projected(planSelfAttention(x, weights, options));
  }

  /** As Attention#crossAttention; with numHeads, the heads are spread over the workers. */
  crossAttention(x, context, weights, options) {
    return this.#projected(planCrossAttention(x, context, weights, options));
  }

  /** As Attention#multiHeadAttention; the heads are spread over the workers. */
  multiHeadAttention(x, weights, options) {
    return this.#projected(planMultiHeadAttention(x, weights, options));
  }

  /**
   * Runs a projected plan in two rounds. First each worker takes a run of heads (whole kv groups, or part of
   * one group) with the matching columns of wq, wk and wv, and returns them concatenated. Then, with wo, the
   * workers share the rows of the whole concat for the output projection, split at multiples of the core's
   * block of rows, so that every value is summed as on one thread: the results are the same bits.
   */
  async #projected(plan) {
    checkPlanValues(plan);
    const { batch, lenQ, lenK, dModel, numHeads, numKvHeads, dK, dV, dOut } = plan.dims;
    const { x: X, context: C, wQ, wK, wV, wO, bQ, bK, bV, bO } = plan.inputs;
    const headed = 'heads' in plan.outputs;
    const hasBatch = plan.outputs.output.length === 3;
    const group = numHeads / numKvHeads;
    const chunks = [];
    if (!headed || numKvHeads >= this.#pool.size) {
      for (const [kv0, kv1] of ranges(numKvHeads, headed ? this.#pool.size : 1)) chunks.push({ h0: kv0 * group, h1: kv1 * group, kv0, kv1 });
    } else {
      const perGroup = ranges(this.#pool.size, numKvHeads).map(([a, b]) => b - a);
      perGroup.forEach((workers, kv) => {
        for (const [a, b] of ranges(group, workers)) chunks.push({ h0: kv * group + a, h1: kv * group + b, kv0: kv, kv1: kv + 1 });
      });
    }
    const mask = plan.options.mask;
    const dContext = C ? C.shape[C.shape.length - 1] : dModel;
    const parts = chunks.map(({ h0, h1, kv0, kv1 }, index) => {
      const weights = {
        wq: tensor(columns(wQ.data, dModel, numHeads * dK, h0 * dK, h1 * dK), [dModel, (h1 - h0) * dK]),
        wk: tensor(columns(wK.data, dContext, numKvHeads * dK, kv0 * dK, kv1 * dK), [dContext, (kv1 - kv0) * dK]),
        wv: tensor(columns(wV.data, dContext, numKvHeads * dV, kv0 * dV, kv1 * dV), [dContext, (kv1 - kv0) * dV]),
        ...(bQ ? { bq: tensor(Float32Array.from(bQ.data.slice(h0 * dK, h1 * dK)), [(h1 - h0) * dK]) } : {}),
        ...(bK ? { bk: tensor(Float32Array.from(bK.data.slice(kv0 * dK, kv1 * dK)), [(kv1 - kv0) * dK]) } : {}),
        ...(bV ? { bv: tensor(Float32Array.from(bV.data.slice(kv0 * dV, kv1 * dV)), [(kv1 - kv0) * dV]) } : {}),
        ...(headed ? { numHeads: h1 - h0, numKvHeads: kv1 - kv0 } : {}),
      };
      let subMask = null;
      if (mask) {
        const [maskBatch, maskHeads, maskRows, maskCols] = plan.maskDims;
        const heads = maskHeads === 1 ? [0] : range(h0, h1);
        const blocks = range(0, maskBatch).flatMap((b) => heads.map((h) => [b, h]));
        const shape = [...(hasBatch ? [maskBatch] : []), ...(headed ? [heads.length] : []), maskRows, maskCols];
        subMask = tensor(maskBlocks(mask, plan.maskDims, blocks), shape);
      }
      const args = C
        ? ['crossAttention', [X, C, weights, publicOptions(plan.options, subMask)]]
        : ['selfAttention', [X, weights, publicOptions(plan.options, subMask)]];
      return this.#pool.call(index, ...args).then((result) => ({ h0, h1, kv0, kv1, result }));
    });
    const done = await Promise.all(parts);
    if (!headed) {
      const { result } = done[0];
      return Object.fromEntries(Object.entries(plan.outputs).map(([key, shape]) => [key, new Tensor(result[key].data, shape)]));
    }

    // Scatter each run of heads back: [B, H, …] per batch item, concat by columns.
    const results = {};
    for (const [key, shape] of Object.entries(plan.outputs)) {
      if (key === 'output' && dOut > 0) continue;
      const out = new Float32Array(product(shape));
      results[key] = new Tensor(out, shape);
      for (const { h0, h1, kv0, kv1, result } of done) {
        const part = result[key].data;
        if (key === 'concat' || key === 'output') {
          const width = (h1 - h0) * dV;
          for (let row = 0; row < batch * lenQ; row++) out.set(part.subarray(row * width, (row + 1) * width), row * numHeads * dV + h0 * dV);
        } else {
          const [first, last, total] = key === 'k' || key === 'v' ? [kv0, kv1, numKvHeads] : [h0, h1, numHeads];
          const block = (last - first) * product(shape.slice(hasBatch ? 2 : 1));
          for (let b = 0; b < batch; b++) out.set(part.subarray(b * block, (b + 1) * block), (b * total + first) * (block / (last - first)));
        }
      }
    }
    if (dOut > 0) {
      const output = await this.#projectOutput(results.concat.data, batch * lenQ, numHeads * dV, wO, bO);
      results.output = new Tensor(output, plan.outputs.output); // last, as in the plan
    }
    return results;
  }

  /** output = concat·wo (+ bo) for [rows, width] concat, its rows shared out in blocks of the core's size. */
  async #projectOutput(concat, rows, width, wO, bO) {
    const dOut = wO.shape[1];
    const blocks = Math.ceil(rows / OUTPUT_PROJECTION_ROWS);
    const parts = ranges(blocks, this.#pool.size).map(([b0, b1], index) => {
      const [r0, r1] = [b0 * OUTPUT_PROJECTION_ROWS, Math.min(rows, b1 * OUTPUT_PROJECTION_ROWS)];
      const args = [
        tensor(concat.slice(r0 * width, r1 * width), [r1 - r0, width]),
        tensor(Float32Array.from(wO.data), [width, dOut]),
        bO ? tensor(Float32Array.from(bO.data), [dOut]) : null,
      ];
      return this.#pool.call(index, 'outputProjection', args, args.filter(Boolean).map((t) => t.data.buffer))
        .then(({ output }) => ({ r0, output }));
    });
    const output = new Float32Array(rows * dOut);
    for (const { r0, output: part } of await Promise.all(parts)) output.set(part.data, r0 * dOut);
    return output;
  }
}

/** Starts `count` workers with the given build; see createAttention. */
export async function createParallelAttention(count, simd, wasmUrl) {
  const pool = await WorkerPool.start(count, simd, wasmUrl);
  return new ParallelAttention(pool, simd);
}
