// A worker_threads worker's side of the pool's protocol (worker-serve.js), Node only: the worker-node.js of
// createAttention({ workers }), and with the model's host the worker of loadModel({ workers })
// (model/worker-node.js). An unhandled rejection or uncaught error ends the thread, which the pool sees as 'error'
// and 'exit'.
import { parentPort } from 'node:worker_threads';
import './platform-node.js';
import { serve } from './worker-serve.js';

/** Serves the pool's messages in this thread, as `host` (worker-serve.js's; the attention API's by default). */
export function serveNodeWorker(host) {
  serve(
    (message, transfer) => parentPort.postMessage(message, transfer),
    (handler) => parentPort.on('message', handler),
    () => globalThis.process.exit(1),
    host,
  );
}
