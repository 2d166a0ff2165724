// One worker of createAttention({ workers }): a module instance of its own, running the checked plans that the
// pool (pool.js, which documents the protocol) sends. Runs as a module Web Worker in browsers and as a
// worker_threads worker in Node. Every call gets an answer, a result or an error; anything that escapes (an
// unhandled rejection) is reported as fatal, so that the pool replaces this worker instead of waiting for ever.
import { createAttention } from './index.js';
import { runPlan } from './attention.js';
import { planBuffers } from './pool.js';

// No top-level await: bundlers build workers as classic scripts by default (Vite: format 'iife').

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

/** The faults of injectFault (pool.js), for the tests only; `exit` is how this worker ends itself. */
function fire(fault, exit) {
  if (fault === 'throw') throw new Error('fault injected: an error thrown inside the call');
  if (fault === 'reject') Promise.reject(new Error('fault injected: an unhandled rejection'));
  if (fault === 'exit') exit();
}

/** Answers the pool's messages: an 'init' first, then calls { id, plan }. */
function serve(post, listen, exit) {
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
      const result = runPlan(attention, plan);
      const tensors = Object.fromEntries(
        Object.entries(result).map(([key, t]) => [key, { data: t.data, shape: t.shape }]),
      );
      post({ id, result: tensors }, [...Object.values(tensors).map((t) => t.data.buffer), ...inputs]);
    } catch (error) {
      post({ id, error: describeError(error) }, inputs);
    }
  };
  listen(async (message) => {
    try {
      if (message?.type === 'init') {
        try {
          const wasmUrl = message.wasmUrl ? { wasmUrl: message.wasmUrl } : {};
          attention = await createAttention({ simd: message.simd, ...wasmUrl });
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

if (typeof self !== 'undefined') {
  const post = (message, transfer) => self.postMessage(message, transfer);
  self.addEventListener('unhandledrejection', (event) => {
    event.preventDefault();
    post({ type: 'fatal', message: `an unhandled rejection: ${describeError(event.reason).message}` }, []);
  });
  // A browser worker cannot end itself observably (close() fires nothing): a crash shows as an uncaught error.
  const crash = () =>
    setTimeout(() => {
      throw new Error('fault injected: the worker crashed');
    });
  serve(post, (handler) => self.addEventListener('message', (event) => handler(event.data)), crash);
} else {
  // Node: an unhandled rejection or uncaught error ends the thread, which the pool sees as 'error' and 'exit'.
  import(/* @vite-ignore */ 'node:worker_threads').then(({ parentPort }) => {
    const post = (message, transfer) => parentPort.postMessage(message, transfer);
    serve(
      post,
      (handler) => parentPort.on('message', handler),
      () => globalThis.process.exit(1),
    );
  });
}
