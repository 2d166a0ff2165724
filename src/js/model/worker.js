// One worker of loadModel({ workers }) in a browser: a module Web Worker (started by shards.js through pool.js)
// serving the pool's protocol (worker-serve.js) as the model's worker (worker-host.js).
import { serveWebWorker } from '../worker-web.js';
import { MODEL_HOST } from './worker-host.js';

serveWebWorker(MODEL_HOST);
