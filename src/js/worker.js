// One worker of createAttention({ workers }): a module instance of its own, answering calls from
// parallel.js. Runs as a module Web Worker in browsers and as a worker_threads worker in Node.
import { createAttention } from './index.js';
import { runPlan } from './attention.js';
import { planOutputProjection } from './plan.js';

// No top-level await: bundlers build workers as classic scripts by default (Vite: format 'iife').

const describeError = (error) => ({ code: error?.code ?? 'INTERNAL', message: String(error?.message ?? error) });

/** The ArrayBuffers under the tensors among a call's arguments (weights objects included). */
function inputBuffers(args) {
  const buffers = [];
  const visit = (value) => {
    if (ArrayBuffer.isView(value)) {
      if (value.buffer instanceof ArrayBuffer) buffers.push(value.buffer);
    } else if (value && typeof value === 'object') {
      Object.values(value).forEach(visit);
    }
  };
  args.forEach(visit);
  return buffers;
}

/** Answers messages from parallel.js: an 'init' first, then calls. */
function serve(post, listen) {
  let attention;
  listen(async (message) => {
    if (message.type === 'init') {
      try {
        attention = await createAttention({ simd: message.simd, ...(message.wasmUrl ? { wasmUrl: message.wasmUrl } : {}) });
        post({ type: 'ready', instructionSets: attention.instructionSets });
      } catch (error) {
        post({ type: 'ready', error: describeError(error) });
      }
      return;
    }
    // The inputs' buffers go back with the answer, so that none is left here as garbage: a worker allocates
    // little else, so its collector would run rarely and let them pile up (measured: +90 MB with 2 workers).
    const inputs = new Set(inputBuffers(message.args));
    try {
      const result = message.method === 'outputProjection'
        ? runPlan(attention, planOutputProjection(...message.args))
        : attention[message.method](...message.args);
      const tensors = Object.fromEntries(Object.entries(result).map(([key, t]) => [key, { data: t.data, shape: t.shape }]));
      post({ id: message.id, result: tensors }, [...Object.values(tensors).map((t) => t.data.buffer), ...inputs]);
    } catch (error) {
      post({ id: message.id, error: describeError(error) }, [...inputs]);
    }
  });
}

if (typeof self !== 'undefined') {
  serve((message, transfer) => self.postMessage(message, transfer), (handler) => self.addEventListener('message', (event) => handler(event.data)));
} else {
  import(/* @vite-ignore */ 'node:worker_threads').then(({ parentPort }) => {
    serve((message, transfer) => parentPort.postMessage(message, transfer), (handler) => parentPort.on('message', handler));
  });
}
