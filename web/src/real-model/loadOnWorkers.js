// The page's load of a real model: on workers by default (loadModel's workers: 'auto', which takes as many as the
// processors and the model's size call for, or none for a model too large), so
// that a run computes off the main thread and a key pressed meanwhile is answered at once; on the page's thread where
// workers cannot start (a Content-Security-Policy without worker-src for the page's origin, no Worker:
// WORKERS_UNAVAILABLE; a worker that failed to start: WORKER_FAILED), silently. The elements (sharedModel.js) load on
// the calling thread: an element reads only the layers it shows, where workers read every layer at the load.
import { loadModel } from '../../../src/js/model/index.js';

/** Codes of a load on workers that a load on the calling thread does not meet. */
const WORKERS_REFUSED = new Set(['WORKERS_UNAVAILABLE', 'WORKER_FAILED']);

/**
 * loadModel(from, options) on workers, else on the calling thread: the Model (its `workers` says how many).
 * @param {unknown} from  any source loadModel takes
 * @param {object} [options]  loadModel's options, but `workers`
 */
export async function loadOnWorkers(from, options = {}) {
  try {
    return await loadModel(from, { ...options, workers: 'auto' });
  } catch (error) {
    if (!WORKERS_REFUSED.has(error?.code) || options.signal?.aborted) throw error;
    return loadModel(from, options);
  }
}

/** Where a model's layers run, for its card: "runs on 2 workers", or "runs on the page's thread". */
export const whereItRuns = ({ workers }) =>
  workers ? `runs on ${workers} worker${workers === 1 ? '' : 's'}` : 'runs on the page’s thread';
