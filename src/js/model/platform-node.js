// Node's hooks for loadModel({ workers }) (platform.js): its workers as worker_threads running worker-node.js, and
// the processors there are (os.availableParallelism) for workers: 'auto'. Imported only by the model's Node entry.
import { availableParallelism } from 'node:os';
import { platform, installPlatform } from '../platform.js';
import '../platform-node.js';

const script = new URL('./worker-node.js', import.meta.url);

installPlatform({
  spawnModelWorker: (onMessage, onFailure) => platform.spawnWorker(onMessage, onFailure, script),
  cores: () => availableParallelism(),
});
