// A chain of layers in a worker of loadModel({ workers }) where SharedArrayBuffer exists (shard-chain.js sends it to
// every worker at once): each worker runs its attention call of a layer, writes its part of W_o's product into its
// slot of a shared buffer, waits at a barrier for the others, and sums every worker's part in worker order (+ b_o,
// then + x: the residual), as the calling thread's sumParts does, so each worker holds the same bits; then the MLP
// half and its sum likewise, and on to the next layer: no message per layer. A layer's output and the attention
// weights of the worker's heads come back with the chain's answer.
//
// The shared buffer: Int32 [arrived, generation, abort, 0], then two regions of `count` slots [n, d] each (the
// attention's parts, the MLP's), used in turn: a slot is written again only after the next barrier, which every worker
// passes once it has read the slots. A worker that fails sets `abort` (the calling thread sets it when a worker dies),
// and a worker waiting at a barrier then stops with WORKER_FAILED: none waits for ever.
import { runPlan } from '../attention.js';
import { AttentionError } from '../errors.js';
import { firstNonFinite } from '../scan.js';
import { modelScratchBytes } from './calls.js';

export const [ARRIVED, GENERATION, ABORT] = [0, 1, 2];
export const CONTROL_BYTES = 16;
/** The error of a worker stopped at a barrier because another failed: the other's error is the run's. */
export const PEER_FAILED = 'another worker of this chain failed';

/**
 * Atomics.load's before sleeping at a barrier (about 25–50 µs here): a worker whose peer is about to arrive goes on
 * without a sleep and a wake; one that waits longer sleeps, its core free for others (a longer spin costs CPU time
 * that a machine with more threads than cores gives to the other worker).
 */
const SPINS = 1000;

/** Waits until all `count` workers have arrived (a generation counter: the last one to arrive starts the next). */
function barrier(control, count) {
  const stopped = () => {
    if (Atomics.load(control, ABORT)) throw new AttentionError('WORKER_FAILED', PEER_FAILED);
  };
  stopped(); // on the way in too: a worker whose peer arrives at once would never see it while waiting
  const generation = Atomics.load(control, GENERATION);
  if (Atomics.add(control, ARRIVED, 1) === count - 1) {
    Atomics.store(control, ARRIVED, 0);
    Atomics.add(control, GENERATION, 1);
    Atomics.notify(control, GENERATION);
    return;
  }
  for (let spin = 0; Atomics.load(control, GENERATION) === generation; spin++) {
    stopped();
    if (spin > SPINS) Atomics.wait(control, GENERATION, generation, 20);
  }
}

/**
 * Σ of the slots of `region` in worker order, those of the workers that have a part (`has[w]`), + a bias [d] on every
 * row: shard-gather.js's sumParts over the same parts.
 */
function sumSlots(shared, region, has, size, bias, d) {
  const out = new Float32Array(size);
  const count = has.length;
  for (let w = 0; w < count; w++) {
    if (!has[w][region]) continue;
    const slot = shared.subarray((region * count + w) * size, (region * count + w + 1) * size);
    for (let i = 0; i < size; i++) out[i] += slot[i];
  }
  for (let i = 0; bias && i < size; i++) out[i] += bias[i % d];
  return out;
}

/** A model call's plan on a worker's module (its scratch reckoned as the core does). */
export const runModelPlan = (attention, plan) =>
  runPlan(attention, { ...plan, scratchBytes: modelScratchBytes(attention.module, plan) });

/**
 * Runs a chain plan: { op: 'chain', inputs: { x }, worker, has, n, d, buffer, parallel, layers: [{ attention,
 * mlp, bO, bDown }] } (each half a model call's plan without its x, or null where this worker has no heads or no
 * hidden units; `has`: per worker [has heads, has hidden units]). → { output: [layers, n, d] (worker 0's; [0] elsewhere), weights: [Σ its heads·n·L] when asked }.
 */
export function runChain(attention, plan) {
  const { worker, n, d, buffer, parallel, layers } = plan;
  const count = plan.has.length;
  const control = new Int32Array(buffer, 0, CONTROL_BYTES / 4);
  const shared = new Float32Array(buffer, CONTROL_BYTES);
  const size = n * d;
  const outputs = worker === 0 ? new Float32Array(layers.length * size) : new Float32Array(0);
  const weights = [];
  let x = plan.inputs.x.data;
  try {
    for (const [l, layer] of layers.entries()) {
      const half = (region, call, inputs) => {
        const slot = shared.subarray((region * count + worker) * size, (region * count + worker + 1) * size);
        if (call) {
          const result = runModelPlan(attention, { ...call, inputs: { ...call.inputs, ...inputs } });
          slot.set(result[region ? 'mlpOutput' : 'attentionOutput'].data);
          if (result.weights) weights.push(result.weights.data);
        }
        barrier(control, count);
      };
      const input = { data: x, shape: [n, d], name: `hiddenStates[${l}]`, valuesChecked: true };
      half(0, layer.attention, { x: input });
      const attentionOutput = sumSlots(shared, 0, plan.has, size, layer.bO, d);
      const residual = new Float32Array(size);
      for (let i = 0; i < size; i++) residual[i] = x[i] + attentionOutput[i];
      const mlpInputs = parallel
        ? { x: input, layerInput: input }
        : { x: { ...input, data: residual, name: 'the residual sum' } };
      half(1, layer.mlp, mlpInputs);
      const mlpOutput = sumSlots(shared, 1, plan.has, size, layer.bDown, d);
      const output = new Float32Array(size);
      for (let i = 0; i < size; i++) output[i] = residual[i] + mlpOutput[i];
      if (firstNonFinite(output, false) >= 0) {
        throw new AttentionError(
          'PROJECTION_OVERFLOW',
          "the layer's output overflowed float32 (weights too large for float32?)",
        );
      }
      if (worker === 0) outputs.set(output, l * size);
      x = output;
    }
  } catch (error) {
    Atomics.store(control, ABORT, 1);
    Atomics.notify(control, GENERATION);
    throw error;
  }
  const all = new Float32Array(weights.reduce((sum, w) => sum + w.length, 0));
  weights.reduce((at, w) => (all.set(w, at), at + w.length), 0);
  return { output: { data: outputs, shape: [outputs.length] }, weights: { data: all, shape: [all.length] } };
}
