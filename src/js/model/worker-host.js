// What a worker of loadModel({ workers }) is (the pool's worker-serve.js serves it: model/worker.js in browsers,
// model/worker-node.js in Node): the model's own module instance, holding this worker's share of every layer
// (shards.js) in its memory until it ends, and running the layer calls the model's side sends it. Three kinds of
// plan come:
//   { op: 'keep', inputs: { slot: { data, shape, name } }, panels?: [[slot, in, out], …] }
//                                                            → { addresses: [k] }: each tensor written, 16-byte
//                                                               aligned, and scanned for NaN and ±inf (NON_FINITE);
//                                                               the slots of `panels` packed as the core's panels
//   { op: 'alloc', bytes: [b, …] }                           → { addresses: [k] }: blocks for a generation's KV cache
//   { op: 'free', addresses: [a, …] }                        → {}: gives back blocks of 'alloc' (not of 'keep')
//   { op: 'memory' }                                         → { memory: [memoryBytes, heapBytesInUse] }
//   { op: 'head', inputs: { x }, plans: [modelLogits plan without x, …] }
//                                                            → { output: [n, Σ their rows] }: the LM head's blocks
//                                                               of this worker, in one call
//   { op: 'chain', … }                                       → layers one after another, the parts summed through
//                                                               a SharedArrayBuffer (worker-chain.js)
//   a model call's plan (calls.js's modelPlan), its weights by address → its outputs, as model.js's own calls run
import { Attention } from '../attention.js';
import { AttentionError } from '../errors.js';
import { loadModule, readWasmOption } from '../loader.js';
import { checkValues } from '../plan.js';
import { MODEL_FACTORIES } from './wasm.js';
import { runChain, runModelPlan } from './worker-chain.js';

const values = (array) => ({ data: Float64Array.from(array), shape: [array.length] });

/** A 16-byte aligned block of `bytes` for `what`; its allocation is kept for 'free'. */
function allocate({ module, allocations }, bytes, what) {
  const allocation = module._malloc(bytes + 16);
  if (!allocation) {
    throw new AttentionError(
      'OUT_OF_MEMORY',
      `a worker's WebAssembly memory could not grow by ${bytes} bytes for ${what}`,
    );
  }
  const address = Math.ceil(allocation / 16) * 16;
  allocations.set(address, allocation);
  return address;
}

/** Gives back blocks of 'alloc' (addresses it did not give are ignored). */
function free({ module, allocations }, addresses) {
  for (const address of addresses) {
    if (!allocations.has(address)) continue;
    module._free(allocations.get(address));
    allocations.delete(address);
  }
  return {};
}

/**
 * Writes each tensor of a 'keep' plan into the module's memory: their addresses, in the plan's order. The slots of
 * `plan.panels` ([slot, in, out]: the MLP's [in, out] weights in GPT-2's layout, sizes multiples of 16) are then
 * packed in place into the core's panels (gemm.h's pack_panels), as the calling thread's resident store keeps them.
 */
function keep(state, plan) {
  const { module } = state;
  const panels = new Map((plan.panels ?? []).map(([slot, rows, cols]) => [slot, [rows, cols]]));
  return {
    addresses: values(
      Object.entries(plan.inputs).map(([slot, tensor]) => {
        const address = allocate(state, tensor.data.byteLength, tensor.name);
        state.allocations.delete(address); // kept until the worker ends
        module.HEAPF32.set(tensor.data, address / 4);
        checkValues(module, { ...tensor, allowNegativeInfinity: false, valuesChecked: false }, address);
        if (panels.has(slot) && !module._packPanels(address, ...panels.get(slot))) {
          throw new AttentionError(
            'OUT_OF_MEMORY',
            `a worker's WebAssembly memory could not grow to pack ${tensor.name}`,
          );
        }
        return address;
      }),
    ),
  };
}

/** The LM head's blocks of this worker on x [n, d], each block's plan run as it is: [n, Σ rows], block after block. */
function head(attention, { inputs: { x }, plans }) {
  const outputs = plans.map((plan) => runModelPlan(attention, { ...plan, inputs: { x } }).output);
  const n = x.shape[0];
  const width = outputs.reduce((sum, o) => sum + o.shape[1], 0);
  const all = new Float32Array(n * width);
  for (let i = 0, at = 0; i < n; i++) {
    for (const { data, shape } of outputs) {
      all.set(data.subarray(i * shape[1], (i + 1) * shape[1]), at);
      at += shape[1];
    }
  }
  return { output: { data: all, shape: [n, width] } };
}

/** worker-serve.js's host for the model's workers. */
export const MODEL_HOST = {
  async load(message) {
    const variant = message.simd ? 'simd' : 'scalar';
    const module = await loadModule(variant, readWasmOption(message.module), MODEL_FACTORIES[variant]);
    const attention = new Attention(module);
    return Object.assign(attention, { module, allocations: new Map() });
  },
  run(attention, plan) {
    if (plan?.op === 'keep') return keep(attention, plan);
    if (plan?.op === 'alloc') return { addresses: values(plan.bytes.map((b) => allocate(attention, b, 'a KV cache'))) };
    if (plan?.op === 'free') return free(attention, plan.addresses);
    if (plan?.op === 'chain') return runChain(attention, plan);
    if (plan?.op === 'memory') return { memory: values([attention.memoryBytes, attention.heapBytesInUse()]) };
    if (plan?.op === 'head') return head(attention, plan);
    return runModelPlan(attention, plan);
  },
};
