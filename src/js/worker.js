// One worker of createAttention({ workers }) in a browser: a module Web Worker (started by pool.js, directly or
// from a blob: script where this file is on another origin) serving the pool's protocol (worker-serve.js).
// No top-level await: bundlers build workers as classic scripts by default (Vite: format 'iife').
import { describeError, serve } from './worker-serve.js';

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
