// A browser worker's side of the pool's protocol (worker-serve.js): the worker.js of createAttention({ workers }),
// and with the model's host the worker of loadModel({ workers }) (model/worker.js).
// No top-level await: bundlers build workers as classic scripts by default (Vite: format 'iife').
import { describeError, serve } from './worker-serve.js';

/** Serves the pool's messages in this Web Worker, as `host` (worker-serve.js's; the attention API's by default). */
export function serveWebWorker(host) {
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
  serve(post, (handler) => self.addEventListener('message', (event) => handler(event.data)), crash, host);
}
