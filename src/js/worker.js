// One worker of createAttention({ workers }): a module instance of its own, answering calls from
// parallel.js. Runs as a module Web Worker in browsers and as a worker_threads worker in Node.
import { createAttention } from './index.js';

const nodePort = typeof self === 'undefined' ? (await import(/* @vite-ignore */ 'node:worker_threads')).parentPort : null;
const post = (message, transfer = []) => (nodePort ? nodePort.postMessage(message, transfer) : self.postMessage(message, transfer));
const listen = (handler) => (nodePort ? nodePort.on('message', handler) : self.addEventListener('message', (event) => handler(event.data)));

const describeError = (error) => ({ code: error?.code ?? 'INTERNAL', message: String(error?.message ?? error) });

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
  try {
    const result = attention[message.method](...message.args);
    const tensors = Object.fromEntries(Object.entries(result).map(([key, t]) => [key, { data: t.data, shape: t.shape }]));
    post({ id: message.id, result: tensors }, Object.values(tensors).map((t) => t.data.buffer));
  } catch (error) {
    post({ id: message.id, error: describeError(error) });
  }
});
