// Layers one after another over loadModel({ workers })'s workers without a hand-off per layer, where
// SharedArrayBuffer exists (Node; a page only when crossOriginIsolated): one 'chain' call per worker, all posted at
// once, each running the layers' attention and MLP halves on its share and summing every worker's parts itself through
// a shared buffer, in worker order (worker-chain.js), so that the layers' outputs are the bits shard-layer.js's sums
// give, and with one worker one thread's. For the layers that need nothing of their own (plain: no captures, steps,
// edits, patches or ablations other than zero ones) of a pre-norm or parallel model; the others, and every layer where
// there is no SharedArrayBuffer, take shard-layer.js's hand-offs.
import { NORM_PLACEMENTS } from '../generated/model-abi.js';
import { Tensor } from '../tensor.js';
import { made, modelDims } from './calls.js';
import { checkAborted } from './signal.js';
import { attentionShapes, mlpShapes } from './shard-gather.js';
import { ABORT, CONTROL_BYTES, GENERATION, PEER_FAILED } from './worker-chain.js';

const copy = (data, shape, name) => made(data.slice(), shape, name);

/** True where SharedArrayBuffer can be posted to workers: Node, and pages with cross-origin isolation. */
export const sharedMemoryAvailable = () =>
  typeof SharedArrayBuffer === 'function' && globalThis.crossOriginIsolated !== false;

/** The placements whose layers chain: the sums need no norm of the whole (post-norm's, the sandwich's, OLMo-2's). */
export const chainsPlacement = (spec) =>
  (spec.choices.placement === 'preNorm' || spec.choices.placement === 'parallel') && !spec.qkNormWhole;

/**
 * Runs `layers` ([{ l, rope, headMask }], consecutive) from x [n, d] (a Float32Array) over the workers: per layer
 * { output: Tensor [n, d], weights?: Tensor [H, n, L] }.
 * @param {object} shards  shards.js's side: { spec, parts, placement, biases(l), plan(w, l, kind, dims, inputs,
 *   outputs, { cache }), send(w, plan), buffer(bytes), giveBack(buffer) }
 * @param {{ n: number, weights?: boolean, cache?: object, signal?: AbortSignal, what?: string }} o  cache: a
 *   generation's, as shard-layer.js's; `signal` stops the workers at their next barrier: ABORTED (of `what`)
 */
export async function shardChain(shards, layers, x, { n, weights = false, cache, signal, what = 'run' }) {
  const { spec, parts } = shards;
  const { dModel: d, numHeads: H } = spec;
  const L = cache ? cache.past + n : n;
  const has = parts.map(({ heads: [h0, h1], ff: [f0, f1] }) => [h1 > h0, f1 > f0]);
  const buffer = shards.buffer(CONTROL_BYTES + 2 * parts.length * n * d * 4);
  const control = new Int32Array(buffer, 0, CONTROL_BYTES / 4);
  const plans = parts.map((part, w) => {
    const [h0, h1] = part.heads;
    return {
      op: 'chain',
      inputs: { x: copy(x, [n, d], 'the hidden state') },
      options: {},
      ...{ worker: w, has, n, d, buffer, parallel: spec.choices.placement === 'parallel' },
      layers: layers.map(({ l, rope, headMask }) => {
        const dims = { ...modelDims(spec, n, l), normPlacement: NORM_PLACEMENTS[shards.placement] };
        const { bO, bDown } = shards.biases(l);
        const inputs = {
          ...(rope && { ropeCos: rope.ropeCos, ropeSin: rope.ropeSin }),
          ...(headMask && { headMask: copy(headMask.data.subarray(h0, h1), [h1 - h0], 'ablate') }),
        };
        const outputs = attentionShapes(spec, n, L, part, { weights });
        const mlp = mlpShapes(spec, n, part, { capture: false });
        return {
          attention: has[w][0] ? shards.plan(w, l, 'modelAttention', dims, inputs, outputs, { cache }) : null,
          mlp: has[w][1] ? shards.plan(w, l, 'modelMlp', dims, {}, mlp) : null,
          bO,
          bDown,
        };
      }),
    };
  });
  // every worker's chain posted before any other call: each takes the chains in the same order, so none waits at a
  // barrier for a worker that is running another; a failed call stops the others (worker-chain.js's abort)
  const stop = () => {
    Atomics.store(control, ABORT, 1);
    Atomics.notify(control, GENERATION);
  };
  const stopping = (error) => {
    stop();
    throw error;
  };
  if (signal?.aborted)
    stop(); // (in the buffer before the workers see it: each stops at its first barrier)
  else signal?.addEventListener('abort', stop, { once: true });
  const settled = await Promise.allSettled(plans.map((plan, w) => shards.send(w, plan).catch(stopping)));
  signal?.removeEventListener('abort', stop);
  const failed = settled.filter((s) => s.status === 'rejected').map((s) => s.reason);
  if (failed.length) {
    checkAborted(signal, what); // the workers stopped at a barrier for it
    throw failed.find((e) => e?.message !== PEER_FAILED) ?? failed[0];
  }
  shards.giveBack(buffer);
  const outputs = settled[0].value.output.data;
  const at = parts.map(() => 0);
  return layers.map((_, i) => {
    const result = { output: new Tensor(outputs.slice(i * n * d, (i + 1) * n * d), [n, d]) };
    if (!weights) return result;
    const all = new Float32Array(H * n * L);
    parts.forEach(({ heads: [h0, h1] }, w) => {
      const size = (h1 - h0) * n * L;
      all.set(settled[w].value.weights.data.subarray(at[w], at[w] + size), h0 * n * L);
      at[w] += size;
    });
    result.weights = new Tensor(all, [H, n, L]);
    return result;
  });
}
