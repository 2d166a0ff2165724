// The pool behind createAttention({ workers }): it starts the workers (Web Workers in browsers, or the host's:
// worker_threads in Node, platform-node.js), sends each a checked plan and routes the answer back, keeps Node alive exactly while calls are
// outstanding, replaces a worker that dies, and ends them all on terminate(). What to run where is parallel.js's.
//
// The protocol (worker.js answers it):
//   → { type: 'init', simd, module }   ← { type: 'ready', instructionSets, kernelBackend? } or { type: 'ready', error }
//   → { id, plan }                      ← { id, result: { [key]: { data, shape } }, returned: [input buffers] }
//                                         or { id, error: { code, message, at? } } (at: where NON_FINITE was found)
//   ← { type: 'fatal', message }           the worker is broken (an unhandled rejection in a browser worker)
//   → { type: 'fault', fault }             internal, tests only: see injectFault
// A plan holds only typed arrays, numbers, strings and booleans (plan.js), so posting it cannot fail or run
// user code; its buffers are transferred and come back with the answer.
import { AttentionError, isAttentionError } from './errors.js';
import { compileWasm } from './loader-source.js';
import { platform } from './platform.js';
import { planBuffers } from './worker-serve.js';

/** On a NON_FINITE rejection of run(): { key, index, value } of the first bad value in the plan's own inputs. */
export const NON_FINITE_AT = Symbol('nonFiniteAt');

const terminatedError = () =>
  new AttentionError(
    'TERMINATED',
    'this ParallelAttention was terminated: create a new one with createAttention({ workers })',
  );

const here = import.meta.url; // not `new URL(…, import.meta.url)` again: bundlers would emit a second copy

const unavailable = (why, cause) =>
  new AttentionError(
    'WORKERS_UNAVAILABLE',
    `workers cannot be started here: ${why}; or leave workers unset to compute on this thread`,
    { cause },
  );

/**
 * A module Web Worker from `create()` (a `new Worker` of a URL made from the script's relative path and
 * import.meta.url, written where the script is: the form bundlers recognise and emit), or, where that is on another origin (a CDN), from a same-origin blob:
 * script that imports `script` (its absolute URL).
 */
function startWebWorker(create, script) {
  if (typeof Worker === 'undefined') {
    throw unavailable('there is no Worker (in Node, import the package by name: its node entry uses worker_threads)');
  }
  try {
    return { worker: create() };
  } catch (error) {
    if (error?.name !== 'SecurityError') throw unavailable(`new Worker failed (${error?.message})`, error);
  }
  const blob = URL.createObjectURL(new Blob([`import ${JSON.stringify(script)};\n`], { type: 'text/javascript' }));
  try {
    return { worker: new Worker(blob, { type: 'module' }), blob };
  } catch (error) {
    URL.revokeObjectURL(blob);
    throw unavailable(cspAdvice(script, true, true), error);
  }
}

/**
 * What to tell a page whose worker was refused by its CSP (`refused`: the violation was seen) or, started from a
 * `blob:` script, did not load. A module worker's imports are checked against worker-src too, so a blob: worker
 * needs blob: and the package's origin there.
 */
function cspAdvice(script, blob, refused) {
  const origin = new URL(script).origin;
  if (!blob) {
    return `this page's Content-Security-Policy refuses the worker script ${script}: its worker-src must allow ${origin} (add "worker-src ${origin}", or 'self' where that is the page's origin)`;
  }
  const what = refused
    ? "this page's Content-Security-Policy refuses it"
    : 'it did not load (a Content-Security-Policy, or a server without CORS headers)';
  return (
    `the worker script ${script} is on another origin, so it runs from a same-origin blob: worker that imports it, ` +
    `and ${what}: the policy's worker-src must allow blob: and ${origin} (add "worker-src blob: ${origin}")`
  );
}

/**
 * A function that starts one Web Worker (startWebWorker's `create` and `script`) and wires its events:
 * `onMessage(data)` for every message, `onFailure(why, error?)` when it dies (an uncaught error, a message that could
 * not be read), with WORKERS_UNAVAILABLE where a CSP refused it. It resolves to the worker's handle: post(message,
 * transfer), hold(), release(), terminate() (hold/release keep Node alive, nothing here). The model's workers are
 * started by one of these too (model/shards.js).
 */
export const webWorkerSpawner = (create, script) => async (onMessage, onFailure) => {
  const { worker, blob } = startWebWorker(create, script);
  let started = false;
  // A refusal by the CSP shows as an error event that says nothing; the page's violation event says why. The script
  // blocked is worker.js, or a bundler's copy of it (worker-<hash>.js), or the blob: that imports it.
  let refused = null;
  const onViolation = (event) => {
    const directive = String(event.effectiveDirective ?? event.violatedDirective ?? '');
    const blocked = String(event.blockedURI);
    if (/^(worker|child|script|default)-src/.test(directive) && /^blob|worker[^/]*\.js$/.test(blocked)) {
      refused = directive;
    }
  };
  globalThis.addEventListener?.('securitypolicyviolation', onViolation);
  const settle = () => {
    started = true;
    globalThis.removeEventListener?.('securitypolicyviolation', onViolation);
    if (blob) URL.revokeObjectURL(blob);
  };
  worker.addEventListener('message', (event) => {
    if (!started) settle();
    onMessage(event.data);
  });
  worker.addEventListener('messageerror', () => onFailure('sent a message that could not be read'));
  worker.addEventListener('error', (event) => {
    event.preventDefault();
    if (!started) {
      // Let the violation event, queued with the error, arrive first.
      setTimeout(() => {
        settle();
        if (blob || refused) {
          const advice = cspAdvice(script, Boolean(blob), refused !== null);
          onFailure('did not load', unavailable(advice));
        } else {
          onFailure(`failed: ${event.message || 'its script did not load'}`);
        }
      });
      return;
    }
    onFailure(`failed: ${event.message || 'an uncaught error, or its script did not load'}`);
  });
  return {
    post: (message, transfer) => worker.postMessage(message, transfer),
    hold: () => {},
    release: () => {},
    terminate: async () => {
      settle();
      worker.terminate();
    },
  };
};

/** The attention API's Web Workers: worker.js. */
const spawnWebWorker = webWorkerSpawner(
  () => new Worker(new URL('./worker.js', import.meta.url), { type: 'module' }),
  new URL('./worker.js', here).href,
);

let faultOf;
const pools = new WeakMap(); // ParallelAttention → its pool, for injectFault

/** A fixed number of worker slots; a slot whose worker died gets a fresh one for its next call. */
export class WorkerPool {
  #slots;
  #simd;
  #module; // the compiled WebAssembly.Module, compiled once here and posted to each worker
  #nextId = 1;
  #terminated = null; // the promise of the workers' end, once terminate() was called
  #host; // { spawn?, onLost? }: what starts a worker, and who hears that one was lost (the model's pool)

  static {
    faultOf = (pool, index, fault) => pool.#post(index, { type: 'fault', fault });
  }

  constructor(count, simd, module, host = {}) {
    this.#slots = new Array(count).fill(null);
    this.#simd = simd;
    this.#module = module;
    this.#host = host;
  }

  /**
   * Compiles the module (once per page: loader-source.js), starts `count` workers and waits until each has
   * instantiated it; LOAD_FAILED if one cannot, WORKERS_UNAVAILABLE if workers cannot start here.
   * @param {number} count
   * @param {boolean} simd
   * @param {ReturnType<import('./loader-source.js').readWasmOption>} [wasm]  createAttention's wasmUrl, read
   * @param {{ module?: WebAssembly.Module, spawn?: Function, onLost?: (index: number) => void,
   *   terminated?: () => Error }} [host]  another kind of worker (the model's, model/shards.js): its compiled module,
   *   what starts one (webWorkerSpawner's function, or the host's), `onLost(index)`, called when worker `index` died
   *   (a fresh one starts at its next call), and the TERMINATED error of its calls after terminate()
   */
  static async start(count, simd, wasm, host = {}) {
    const { module } = host.module ? host : await compileWasm(simd ? 'simd' : 'scalar', wasm);
    const pool = new WorkerPool(count, simd, module, host);
    try {
      const [info] = await Promise.all(pool.#slots.map((_, index) => pool.#start(index).ready));
      pool.instructionSets = info.instructionSets;
      if (info.kernelBackend !== undefined) pool.kernelBackend = info.kernelBackend;
      return pool;
    } catch (error) {
      await pool.terminate();
      throw error;
    }
  }

  get size() {
    return this.#slots.length;
  }

  /** TERMINATED after terminate(); for the callers' synchronous checks. */
  checkOpen() {
    if (this.#terminated) throw this.#ended();
  }

  /** TERMINATED, in the host's words (a model's: load it again) or the attention API's. */
  #ended() {
    return this.#host.terminated?.() ?? terminatedError();
  }

  /**
   * Runs a checked plan on worker `index` (started first if it is new or replaced); resolves to its result
   * tensors. The plan's buffers are transferred: the caller must not use them again. Its input buffers come
   * back with a result, given to `recycle(buffers)` when present, for the caller's next plans.
   */
  run(index, plan, recycle) {
    if (this.#terminated) return Promise.reject(this.#ended());
    const slot = this.#slots[index] ?? this.#start(index);
    const id = this.#nextId++;
    return new Promise((resolve, reject) => {
      slot.calls.set(id, { resolve, reject, recycle });
      if (slot.calls.size === 1) slot.handle?.hold();
      const post = () => {
        if (!slot.calls.has(id)) return; // the worker died or was terminated meanwhile
        try {
          slot.handle.post({ id, plan }, planBuffers(plan));
        } catch (error) {
          const message = `a plan could not be sent to worker ${index}: ${error?.message}`;
          this.#settle(slot, { id, error: { code: 'INTERNAL', message } });
        }
      };
      // A ready worker gets the plan now, so that it starts while the caller goes on (parallel.js prepares the
      // whole results meanwhile); a starting one once it is ready. A failed start has rejected the calls already.
      if (slot.isReady && !slot.dead) post();
      else slot.ready.then(post, () => {});
    });
  }

  /** A fresh worker in slot `index`: `ready` resolves with its ready message, or rejects with LOAD_FAILED. */
  #start(index) {
    let started;
    let failedToStart;
    const slot = {
      index,
      handle: null,
      calls: new Map(),
      isReady: false,
      dead: false,
      ready: new Promise((resolve, reject) => {
        started = resolve;
        failedToStart = reject;
      }),
    };
    slot.ready.catch(() => {}); // also reported through the slot's calls, or by start()
    this.#slots[index] = slot;
    const onFailure = (why, error) => this.#fail(slot, why, failedToStart, error);
    const onMessage = (message) => {
      if (message?.type === 'ready') {
        if (message.error) {
          onFailure(`could not load its module: ${message.error.message}`);
        } else {
          slot.isReady = true;
          if (slot.calls.size === 0) slot.handle.release();
          started(message);
        }
      } else if (message?.type === 'fatal') {
        onFailure(`failed: ${message.message}`);
      } else {
        this.#settle(slot, message);
      }
    };
    const spawn = this.#host.spawn ?? platform.spawnWorker ?? spawnWebWorker;
    Promise.resolve()
      .then(() => spawn(onMessage, onFailure))
      .then(
        (handle) => {
          if (slot.dead || this.#terminated) {
            handle.terminate();
            return;
          }
          slot.handle = handle; // held (Node's default) until ready: a start is always for someone who waits
          handle.post({ type: 'init', simd: this.#simd, module: this.#module }, []);
        },
        (error) => {
          const given = isAttentionError(error) && error.code === 'WORKERS_UNAVAILABLE' ? error : undefined;
          onFailure(`could not be started: ${error?.message ?? String(error)}`, given);
        },
      );
    return slot;
  }

  /** An answer: settles its call, and lets Node go when it was the worker's last. */
  #settle(slot, message) {
    const call = slot.calls.get(message?.id);
    if (!call) return;
    slot.calls.delete(message.id);
    if (slot.calls.size === 0 && slot.isReady) slot.handle.release();
    if (message.error) {
      const error = new AttentionError(message.error.code, message.error.message);
      if (message.error.at) Object.defineProperty(error, NON_FINITE_AT, { value: message.error.at });
      call.reject(error);
    } else {
      if (Array.isArray(message.returned)) call.recycle?.(message.returned);
      call.resolve(message.result);
    }
  }

  /**
   * A worker died: its calls reject with WORKER_FAILED (LOAD_FAILED before it was ready, or `given`, e.g.
   * WORKERS_UNAVAILABLE), it is ended, and its slot is emptied so that the next call starts a fresh one.
   */
  #fail(slot, why, failedToStart, given) {
    if (slot.dead || this.#terminated) return;
    slot.dead = true;
    if (this.#slots[slot.index] === slot) this.#slots[slot.index] = null;
    slot.handle?.terminate().catch(() => {});
    this.#host.onLost?.(slot.index);
    const code = slot.isReady ? 'WORKER_FAILED' : 'LOAD_FAILED';
    const lost = slot.calls.size
      ? `; its ${slot.calls.size} call(s) were lost, and the next call starts a fresh worker`
      : '';
    const error = given ?? new AttentionError(code, `worker ${slot.index} ${why}${lost}`);
    failedToStart(error);
    for (const { reject } of slot.calls.values()) reject(error);
    slot.calls.clear();
  }

  /** Posts a message outside the call protocol, once the worker is ready. */
  async #post(index, message) {
    this.checkOpen();
    const slot = this.#slots[index] ?? this.#start(index);
    await slot.ready;
    slot.handle.post(message, []);
  }

  /** Ends every worker; calls under way and every later call reject with TERMINATED. Safe to call twice. */
  terminate() {
    if (!this.#terminated) {
      const slots = this.#slots.filter(Boolean);
      this.#terminated = Promise.all(slots.map((slot) => slot.handle?.terminate().catch(() => {})));
      const error = this.#ended();
      for (const slot of slots) {
        for (const { reject } of slot.calls.values()) reject(error);
        slot.calls.clear();
      }
      this.#slots.fill(null);
    }
    return this.#terminated.then(() => {});
  }
}

/** Ties a ParallelAttention to its pool, so that injectFault can reach it. */
export function registerPool(owner, pool) {
  pools.set(owner, pool);
}

/**
 * @internal For the tests of the pool only; not exported from index.js. Arms a fault in worker `index` of
 * `parallel` (a ParallelAttention), which fires on that worker's next call:
 * - 'exit': the worker ends mid-call (Node: process.exit(1); browsers, where a worker cannot end itself
 *   observably, an uncaught error from a timer, as a crash shows there);
 * - 'throw': an error thrown inside the call (the call rejects with it, the worker lives on);
 * - 'reject': an unhandled rejection inside the worker, and no answer (the worker counts as dead);
 * - 'stall': no answer, the worker living on: the call waits until terminate().
 * Resolves once the fault is sent.
 */
export function injectFault(parallel, index, fault) {
  return faultOf(pools.get(parallel), index, fault);
}
