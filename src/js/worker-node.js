// One worker of createAttention({ workers }) in Node: a worker_threads worker (started by platform-node.js)
// serving the pool's protocol (worker-serve.js). An unhandled rejection or uncaught error ends the thread,
// which the pool sees as 'error' and 'exit'.
import { parentPort } from 'node:worker_threads';
import './platform-node.js';
import { serve } from './worker-serve.js';

serve(
  (message, transfer) => parentPort.postMessage(message, transfer),
  (handler) => parentPort.on('message', handler),
  () => globalThis.process.exit(1),
);
