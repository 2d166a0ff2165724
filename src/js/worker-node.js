// One worker of createAttention({ workers }) in Node: a worker_threads worker (started by platform-node.js)
// serving the pool's protocol (worker-serve.js).
import { serveNodeWorker } from './worker-thread.js';

serveNodeWorker();
