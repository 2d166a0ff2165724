// What one worker of createAttention({ workers }) does, wherever it runs (worker.js in browsers, worker-node.js in
// Node), and with another host a worker of loadModel({ workers }) (model/worker.js, model/worker-host.js): a module instance of its own, from the Module the pool compiled, running the checked plans that the pool
// (pool.js, which documents the protocol) sends. Every call gets an answer, a result or an error; anything that
// escapes (an unhandled rejection) is reported as fatal, so that the pool replaces this worker instead of waiting.
// It imports neither index.js nor pool.js: pool.js starts workers by `new Worker(new URL('./worker.js', …))`, and
// a worker that reached it would hold itself (webpack 5 warns "Circular dependency between chunks with runtime").
import { Attention, runPlan } from './attention.js';
import { loadModule, readWasmOption } from './loader.js';
import { firstNonFinite } from './scan.js';

/**
 * The ArrayBuffers under a plan's inputs, mask and result targets (`out`, { [key]: { view } }), each owned by that
 * plan alone: parallel.js copies the inputs and gives each worker's targets buffers of their own.
 */
export function planBuffers(plan) {
  const views = [...Object.values(plan.inputs), plan.options.mask].filter((t) => t && ArrayBuffer.isView(t.data));
  const targets = Object.values(plan.out ?? {}).map((target) => target.view.buffer);
  return [...new Set([...views.map((t) => t.data.buffer), ...targets])];
}

/**
 * Where a plan's first non-finite input value is, { key, index, value } (inputs in the plan's order, as the call scans
 * them), so that the pool's caller can name it in the whole tensor: a NON_FINITE error's message names this part.
 */
function nonFiniteAt(plan) {
  for (const [key, tensor] of Object.entries(plan?.inputs ?? {})) {
    if (!tensor || !ArrayBuffer.isView(tensor.data)) continue;
    const index = firstNonFinite(tensor.data, tensor.allowNegativeInfinity);
    if (index >= 0) return { key, index, value: tensor.data[index] };
  }
  return undefined;
}

function describeError(error) {
  try {
    return {
      code: typeof error?.code === 'string' ? error.code : 'INTERNAL',
      message: String(error?.message ?? error),
    };
  } catch {
    return { code: 'INTERNAL', message: 'an error that could not be described' };
  }
}

/**
 * The faults of injectFault (pool.js), for the tests only; `exit` is how this worker ends itself. 'stall' does
 * nothing here: the call is not answered.
 */
function fire(fault, exit) {
  if (fault === 'throw') throw new Error('fault injected: an error thrown inside the call');
  if (fault === 'reject') Promise.reject(new Error('fault injected: an unhandled rejection'));
  if (fault === 'exit') exit();
}

/** What a worker of createAttention({ workers }) runs: its own module instance, each plan on it. */
const ATTENTION_HOST = {
  load: async (message) =>
    new Attention(await loadModule(message.simd ? 'simd' : 'scalar', readWasmOption(message.module))),
  run: runPlan,
};

/**
 * Answers the pool's messages: an 'init' first, then calls { id, plan }.
 * @param {(message: unknown, transfer: Transferable[]) => void} post
 * @param {(handler: (message: any) => void) => void} listen
 * @param {() => void} exit  how this worker ends itself (the 'exit' fault)
 * @param {{ load: (init: object) => Promise<object>, run: (state: object, plan: object) => object }} [host]  what
 *   the worker is: `load` makes its state from the 'init' message (an Attention, with instructionSets), `run` answers
 *   a plan with tensors { [key]: { data, shape } } (the model's workers: model/worker-host.js)
 */
export function serve(post, listen, exit, host = ATTENTION_HOST) {
  let attention;
  let fault = null;
  const answer = (id, plan) => {
    // The plan's buffers go back with the answer, so that none is left here as garbage: a worker allocates
    // little else, so its collector would run rarely and let them pile up (measured: +90 MB with 2 workers).
    let inputs = [];
    try {
      inputs = planBuffers(plan);
      if (fault) {
        const armed = fault;
        fault = null;
        fire(armed, exit);
        if (armed !== 'throw') return; // no answer: the pool sees the worker die
      }
      if (!attention) throw new Error('a call came before the module was loaded');
      const result = host.run(attention, plan);
      const tensors = Object.fromEntries(
        Object.entries(result).map(([key, t]) => [key, { data: t.data, shape: t.shape }]),
      );
      const buffers = new Set(Object.values(tensors).map((t) => t.data.buffer));
      const returned = inputs.filter((buffer) => !buffers.has(buffer)); // for the pool to reuse (parallel.js)
      post({ id, result: tensors, returned }, [...buffers, ...returned]);
    } catch (error) {
      const described = describeError(error);
      if (described.code === 'NON_FINITE') described.at = nonFiniteAt(plan);
      post({ id, error: described }, inputs);
    }
  };
  listen(async (message) => {
    try {
      if (message?.type === 'init') {
        try {
          attention = await host.load(message);
          const { instructionSets, kernelBackend } = attention;
          post({ type: 'ready', instructionSets, ...(kernelBackend === undefined ? {} : { kernelBackend }) }, []);
        } catch (error) {
          post({ type: 'ready', error: describeError(error) }, []);
        }
      } else if (message?.type === 'fault') {
        fault = message.fault;
      } else {
        answer(message?.id, message?.plan);
      }
    } catch (error) {
      post({ type: 'fatal', message: `an error escaped its message handler: ${describeError(error).message}` }, []);
    }
  });
}

export { describeError };
