// One worker of loadModel({ workers }) in Node: a worker_threads worker (started by shards.js through pool.js and
// platform-node.js) serving the pool's protocol (worker-serve.js) as the model's worker (worker-host.js).
import { serveNodeWorker } from '../worker-thread.js';
import { MODEL_HOST } from './worker-host.js';

serveNodeWorker(MODEL_HOST);
