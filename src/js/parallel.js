// createAttention({ workers: N }): attention spread over N workers (pool.js), each running a module instance
// of its own. scaledDotProductAttention splits its (batch, head) pairs; multi-head attention splits its heads,
// then the rows of its output projection, so that every value is the same bits as on one thread. Everything
// about a call happens synchronously on the calling thread, before the first await: the same plans as one
// thread (so the same errors, TOO_LARGE for the whole call included), the NaN/±inf scan, then each worker's
// sub-plan built from fresh Float32Array copies. The workers get only typed arrays and plain numbers, never
// the caller's objects, so nothing the caller does afterwards, and nothing odd in what they passed (a Proxy,
// a cyclic property), reaches them. No SharedArrayBuffer (and no cross-origin isolation) is needed.
import {
  checkCallBytes,
  planCrossAttention,
  planMultiHeadAttention,
  planScaledDotProduct,
  planSelfAttention,
  product,
} from './plan.js';
import { checkOutHeld } from './out.js';
import { checkPlanValues } from './scan.js';
import { WorkerPool, registerPool } from './pool.js';
import {
  copyRange,
  firstFailure,
  gather,
  keepSpares,
  partTargets,
  placePart,
  resultArray,
  resultTensor,
  wholeResults,
  wholeTensors,
} from './parallel-pairs.js';
import { CAUSAL, OUTPUT_PROJECTION_ROWS } from './generated/abi.js';

const CAUSAL_NAMES = { [CAUSAL.none]: false, [CAUSAL.topLeft]: true, [CAUSAL.bottomRight]: 'bottom-right' };
const METHODS = ['scaledDotProductAttention', 'selfAttention', 'crossAttention', 'multiHeadAttention', 'terminate'];

/**
 * Plans the output projection alone, output = concat·wo (+ bo), for the workers of ParallelAttention: its
 * tensors ({ data, shape }) were validated by the calling thread's plan. @returns {Plan}
 */
function planOutputProjection(concat, wo, bo) {
  const [rows, width] = concat.shape;
  const dOut = wo.shape[1];
  return {
    kind: 'outputProjection',
    dims: { rows, width, dOut },
    inputs: { concat, wO: wo, bO: bo },
    outputs: { output: [rows, dOut] },
    options: { causal: CAUSAL.none, mask: null, returnWeights: false, returnSteps: false },
    maskDims: [1, 1, 1, 1],
    scratchBytes: 0, // the core's product allocates nothing (gemm.h)
    square: null,
  };
}

/** Splits `count` items into at most `parts` contiguous [start, end) ranges of near-equal size. */
function ranges(count, parts) {
  const n = Math.min(count, parts);
  return Array.from({ length: n }, (_, i) => [Math.floor((i * count) / n), Math.floor(((i + 1) * count) / n)]);
}

/** data[from, to) as a new Float32Array. */
function segment(data, from, to) {
  const out = new Float32Array(to - from);
  copyRange(out, 0, data, from, to);
  return out;
}

/** The columns [from, to) of a row-major [rows, cols] matrix, as a new Float32Array [rows, to − from]. */
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
const copy = (input) => (input ? tensor(segment(input.data, 0, input.data.length), input.shape.slice()) : undefined);

/** The options of a plan, as public options again, to plan a worker's part with the plan functions. */
function publicOptions(options, mask) {
  return {
    ...(options.scale === undefined ? {} : { scale: options.scale }),
    causal: CAUSAL_NAMES[options.causal],
    ...(mask ? { mask } : {}),
    returnWeights: options.returnWeights,
    returnSteps: options.returnSteps,
    ...(options.rope ? { rope: options.rope } : {}),
    ...(options.softcap ? { softcap: options.softcap } : {}),
    ...(options.window ? { window: options.window } : {}),
  };
}

/** A worker's plan: its inputs are our fresh copies, whose values the whole call's scan already checked. */
function checked(plan) {
  for (const input of [...Object.values(plan.inputs), plan.options.mask]) {
    if (input && 'valuesChecked' in input) input.valuesChecked = true;
  }
  return plan;
}

/** The part of a mask for the given (batch, head) blocks, as a new [blocks, L_q or 1, L_k or 1] array. */
function maskBlocks(mask, maskDims, blocks) {
  const [, maskHeads, maskRows, maskCols] = maskDims;
  const indices = blocks.map(([b, h]) => (maskDims[0] === 1 ? 0 : b) * maskHeads + (maskHeads === 1 ? 0 : h));
  return gather(mask.data, indices, maskRows * maskCols, mask.kind === 'boolean' ? Uint8Array : Float32Array);
}

/**
 * Puts one result of each worker's run of heads in place in `whole` (its whole array) and returns it; the parts are
 * [B, h1 − h0, …] of [B, H, …] (q, heads, weights, steps), [B, kv1 − kv0, …] of [B, H_kv, …] (k, v), or
 * [B·L_q, (h1 − h0)·d_v] of [B·L_q, H·d_v] (concat, and output without wo).
 */
function placeHeads(plan, parts, results, key, whole) {
  const { batch, lenQ, numHeads, numKvHeads, dV } = plan.dims;
  const shape = plan.outputs[key];
  parts.forEach(({ h0, h1, kv0, kv1 }, i) => {
    const part = results[i][key].data;
    if (key === 'concat' || key === 'output') {
      const width = (h1 - h0) * dV; // each row's columns from h0·d_v on
      for (let row = 0; row < batch * lenQ; row++) {
        whole.set(part.subarray(row * width, (row + 1) * width), row * numHeads * dV + h0 * dV);
      }
    } else {
      const perKv = key === 'k' || key === 'v' || key === 'kRotated';
      const [first, last, total] = perKv ? [kv0, kv1, numKvHeads] : [h0, h1, numHeads];
      const perHead = product(shape.slice(shape.length - 2));
      const block = (last - first) * perHead;
      for (let b = 0; b < batch; b++)
        whole.set(part.subarray(b * block, (b + 1) * block), (b * total + first) * perHead);
    }
  });
  return whole;
}

/**
 * The API of Attention over a pool of workers: the same methods and results, as Promises.
 * Create it with createAttention({ workers: N }); end it with terminate(). Methods work detached.
 */
export class ParallelAttention {
  #pool;
  /** Per worker, the result buffers of its last call, by result name, for the next (partTargets). */
  #spares = [];
  /** Per worker, the input buffers its calls sent back, by byte length, for the next calls' copies (gather). */
  #inputSpares = [];

  constructor(pool, simd) {
    this.#pool = pool;
    this.simd = simd;
    this.instructionSets = pool.instructionSets;
    if (pool.kernelBackend !== undefined) this.kernelBackend = pool.kernelBackend;
    this.workers = pool.size;
    for (const method of METHODS) this[method] = this[method].bind(this);
    registerPool(this, pool);
  }

  /** Ends the workers. Calls under way, and every later call, reject with TERMINATED. */
  terminate() {
    return this.#pool.terminate();
  }

  /** As Attention#scaledDotProductAttention; the (batch, head) pairs are spread over the workers. */
  async scaledDotProductAttention(q, k, v, options) {
    this.#pool.checkOpen();
    const plan = planScaledDotProduct(q, k, v, options);
    checkCallBytes(plan);
    if (plan.options.rope) return this.#whole(plan); // kRotated is per kv head, not per (batch, head) pair
    const { batch, numHeads, numKvHeads, lenQ, lenK, dK, dV } = plan.dims;
    const group = numHeads / numKvHeads;
    const { q: Q, k: K, v: V } = plan.inputs;
    const mask = plan.options.mask;
    // Float32 q, k, v and no mask: each worker scans its copies in WebAssembly memory, and a NaN/±inf found there is
    // named in the whole tensor (firstNonFinite), the same error as one thread; otherwise the scan runs here.
    const workersScan = !mask && [Q, K, V].every((t) => t.data instanceof Float32Array);
    if (!workersScan) checkPlanValues(plan);
    const [, , maskRows, maskCols] = plan.maskDims;
    const maskShared = mask && plan.maskDims[0] === 1 && plan.maskDims[1] === 1;
    // Pair p = b·H + h; the worker takes pairs [from, to) as `count` heads of one batch item.
    const parts = ranges(batch * numHeads, this.#pool.size).map(([from, to], index) => {
      const spare = (this.#inputSpares[index] ??= new Map());
      const pairs = range(from, to).map((p) => [Math.floor(p / numHeads), p % numHeads]);
      const kvBlocks = pairs.map(([b, h]) => b * numKvHeads + Math.floor(h / group));
      const count = to - from;
      const subQ = tensor(gather(Q.data, range(from, to), lenQ * dK, Float32Array, spare), [count, lenQ, dK]); // [count, L_q, d_k]
      const subK = tensor(gather(K.data, kvBlocks, lenK * dK, Float32Array, spare), [count, lenK, dK]); // [count, L_k, d_k]
      const subV = tensor(gather(V.data, kvBlocks, lenK * dV, Float32Array, spare), [count, lenK, dV]); // [count, L_k, d_v]
      const subMask = !mask
        ? null
        : maskShared
          ? tensor(maskBlocks(mask, plan.maskDims, [[0, 0]]), [maskRows, maskCols])
          : tensor(maskBlocks(mask, plan.maskDims, pairs), [count, maskRows, maskCols]);
      const sub = planScaledDotProduct(subQ, subK, subV, publicOptions(plan.options, subMask));
      if (!workersScan) checked(sub);
      sub.out = partTargets(plan, (this.#spares[index] ??= new Map()), from, to, batch * numHeads);
      // Posted at once (pool.run does, to a ready worker): this worker starts while the next part is copied.
      const running = this.#pool.run(index, sub, (buffers) => keepSpares(spare, buffers));
      const blocks = { q: { blocks: range(from, to), width: lenQ * dK }, k: { blocks: kvBlocks, width: lenK * dK } };
      blocks.v = { blocks: kvBlocks, width: lenK * dV };
      return { from, to, running, blocks };
    });
    const spares = parts.map((_, index) => this.#spares[index]);
    const wholes = wholeResults(plan); // while the workers compute
    const pairs = batch * numHeads;
    // New arrays take each answer as it comes, while the other workers compute; the caller's (out) are written
    // only once every part succeeded, so that a failed call writes nothing there.
    const eager = !plan.out;
    const settled = await Promise.allSettled(
      parts.map(({ running, from }, i) =>
        eager ? running.then((answer) => (placePart(plan, wholes, from, answer, pairs, spares[i]), answer)) : running,
      ),
    );
    const failure = firstFailure(plan, parts, settled);
    if (failure) throw failure;
    if (!eager) {
      checkOutHeld(plan.out); // detached while the workers computed: nothing is written
      parts.forEach(({ from }, i) => placePart(plan, wholes, from, settled[i].value, pairs, spares[i]));
    }
    return wholeTensors(plan, wholes);
  }

  /** As Attention#selfAttention; with numHeads, the heads are spread over the workers. */
  async selfAttention(x, weights, options) {
    this.#pool.checkOpen();
    return this.#projected(planSelfAttention(x, weights, options));
  }

  /** As Attention#crossAttention; with numHeads, the heads are spread over the workers. */
  async crossAttention(x, context, weights, options) {
    this.#pool.checkOpen();
    return this.#projected(planCrossAttention(x, context, weights, options));
  }

  /** As Attention#multiHeadAttention; the heads are spread over the workers. */
  async multiHeadAttention(x, weights, options) {
    this.#pool.checkOpen();
    return this.#projected(planMultiHeadAttention(x, weights, options));
  }

  /**
   * Runs a projected plan. Without numHeads, one worker runs the whole plan. With it, in two rounds: first each
   * worker takes a run of heads (whole kv groups, or part of one group) with the matching columns of wq, wk and
   * wv, and returns them concatenated. Then, with wo, the workers share the rows of the whole concat for the
   * output projection, split at multiples of the core's block of rows, so that every value is summed as on one
   * thread: the results are the same bits. wo and bo are copied now, before the first round.
   */
  #projected(plan) {
    checkCallBytes(plan);
    const { x: X, context: C, wQ, wK, wV, wO, bQ, bK, bV, bO } = plan.inputs;
    if (!('heads' in plan.outputs)) return this.#whole(plan);
    checkPlanValues(plan);
    const { dModel, dContext, numHeads, numKvHeads, dK, dV, dOut } = plan.dims;
    const hasBatch = plan.outputs.output.length === 3;
    const group = numHeads / numKvHeads;
    const chunks = [];
    if (numKvHeads >= this.#pool.size) {
      for (const [kv0, kv1] of ranges(numKvHeads, this.#pool.size)) {
        chunks.push({ h0: kv0 * group, h1: kv1 * group, kv0, kv1 });
      }
    } else {
      const perGroup = ranges(this.#pool.size, numKvHeads).map(([a, b]) => b - a);
      perGroup.forEach((workers, kv) => {
        for (const [a, b] of ranges(group, workers)) {
          chunks.push({ h0: kv * group + a, h1: kv * group + b, kv0: kv, kv1: kv + 1 });
        }
      });
    }
    const mask = plan.options.mask;
    const parts = chunks.map(({ h0, h1, kv0, kv1 }) => {
      const weights = {
        // [d_model, (h1 − h0)·d_k] of [d_model, H·d_k]; wk, wv: [d_context, (kv1 − kv0)·d] of [d_context, H_kv·d]
        wq: tensor(columns(wQ.data, dModel, numHeads * dK, h0 * dK, h1 * dK), [dModel, (h1 - h0) * dK]),
        wk: tensor(columns(wK.data, dContext, numKvHeads * dK, kv0 * dK, kv1 * dK), [dContext, (kv1 - kv0) * dK]),
        wv: tensor(columns(wV.data, dContext, numKvHeads * dV, kv0 * dV, kv1 * dV), [dContext, (kv1 - kv0) * dV]),
        ...(bQ ? { bq: tensor(segment(bQ.data, h0 * dK, h1 * dK), [(h1 - h0) * dK]) } : {}),
        ...(bK ? { bk: tensor(segment(bK.data, kv0 * dK, kv1 * dK), [(kv1 - kv0) * dK]) } : {}),
        ...(bV ? { bv: tensor(segment(bV.data, kv0 * dV, kv1 * dV), [(kv1 - kv0) * dV]) } : {}),
        numHeads: h1 - h0,
        numKvHeads: kv1 - kv0,
      };
      let subMask = null;
      if (mask) {
        const [maskBatch, maskHeads, maskRows, maskCols] = plan.maskDims;
        const heads = maskHeads === 1 ? [0] : range(h0, h1);
        const blocks = range(0, maskBatch).flatMap((b) => heads.map((h) => [b, h]));
        const shape = [...(hasBatch ? [maskBatch] : []), heads.length, maskRows, maskCols];
        subMask = tensor(maskBlocks(mask, plan.maskDims, blocks), shape); // [B or 1, h1 − h0 or 1, L_q or 1, L_k or 1]
      }
      const options = publicOptions(plan.options, subMask);
      const sub = C
        ? planCrossAttention(copy(X), copy(C), weights, options)
        : planSelfAttention(copy(X), weights, options);
      return { h0, h1, kv0, kv1, plan: checked(sub) };
    });
    const projection = dOut > 0 ? { wo: copy(wO), bo: copy(bO) } : null;
    const done = parts.map((part, index) => this.#pool.run(index, part.plan));
    return Promise.all(done).then((results) => this.#scatterHeads(plan, parts, results, projection));
  }

  /** Runs a whole plan on one worker (its values scanned here), from copies of its inputs. */
  #whole(plan) {
    checkPlanValues(plan);
    const inputs = Object.fromEntries(
      Object.entries(plan.inputs).map(([key, input]) => [key, input && { ...input, ...copy(input) }]),
    );
    const given = plan.options.mask;
    const mask = given && { ...given, data: maskBlocks(given, [1, 1, 1, given.data.length], [[0, 0]]) };
    const whole = { ...plan, inputs, options: { ...plan.options, mask }, dims: { ...plan.dims }, out: null };
    return this.#pool.run(0, checked(whole)).then((result) => {
      checkOutHeld(plan.out); // detached while the worker computed: nothing is written
      return Object.fromEntries(
        Object.entries(plan.outputs).map(([key, shape]) => {
          plan.out?.[key]?.view.set(result[key].data);
          return [key, resultTensor(plan, key, result[key].data, shape)];
        }),
      );
    });
  }

  /**
   * Puts each worker's run of heads back in place, after the output projection when there is one: the caller's
   * arrays (out) are written only once every part of the call succeeded, so that a failed call writes nothing.
   */
  async #scatterHeads(plan, parts, results, projection) {
    const { batch, lenQ, numHeads, dV } = plan.dims;
    const made = {}; // results assembled before the projection, in new arrays
    if (projection) {
      made.concat = placeHeads(plan, parts, results, 'concat', new Float32Array(product(plan.outputs.concat)));
      made.output = await this.#projectOutput(made.concat, batch * lenQ, numHeads * dV, projection);
    }
    checkOutHeld(plan.out); // detached while the workers computed: nothing is written
    const out = {};
    for (const [key, shape] of Object.entries(plan.outputs)) {
      if (made[key]) plan.out?.[key]?.view.set(made[key]);
      else placeHeads(plan, parts, results, key, (made[key] = resultArray(plan, key, product(shape))));
      out[key] = resultTensor(plan, key, made[key], shape);
    }
    return out;
  }

  /** output = concat·wo (+ bo) for [rows, width] concat, its rows shared out in blocks of the core's size. */
  async #projectOutput(concat, rows, width, { wo, bo }) {
    const dOut = wo.shape[1];
    const blocks = Math.ceil(rows / OUTPUT_PROJECTION_ROWS);
    const parts = ranges(blocks, this.#pool.size).map(([b0, b1], index) => {
      const [r0, r1] = [b0 * OUTPUT_PROJECTION_ROWS, Math.min(rows, b1 * OUTPUT_PROJECTION_ROWS)];
      const sub = planOutputProjection(
        tensor(concat.slice(r0 * width, r1 * width), [r1 - r0, width]), // [r1 − r0, H·d_v] of [rows, H·d_v]
        tensor(wo.data.slice(), wo.shape), // our copy of wo, copied again: each worker's buffer is transferred
        bo ? tensor(bo.data.slice(), bo.shape) : null,
      );
      return this.#pool.run(index, sub).then(({ output }) => ({ r0, output }));
    });
    const output = new Float32Array(rows * dOut);
    // [rows, d_out] ← [r1 − r0, d_out] at row r0
    for (const { r0, output: part } of await Promise.all(parts)) output.set(part.data, r0 * dOut);
    return output;
  }
}

/** Starts `count` workers with the given build; see createAttention. */
export async function createParallelAttention(count, simd, wasmUrl) {
  const pool = await WorkerPool.start(count, simd, wasmUrl);
  return new ParallelAttention(pool, simd);
}
