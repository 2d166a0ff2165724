// One worker of createAttention({ workers }) in a browser: a module Web Worker (started by pool.js, directly or
// from a blob: script where this file is on another origin) serving the pool's protocol (worker-serve.js).
import { serveWebWorker } from './worker-web.js';

serveWebWorker();
