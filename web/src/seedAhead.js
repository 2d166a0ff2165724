// "New seed" without the wait on a large layer: the next seed is drawn before the click, and a worker makes its
// matrices (X, W_q, W_k, W_v, W_o: 2.4 M numbers at GPT-2's size, ~0.3 s of Math.log and Math.cos) while the page
// is idle. The worker runs the page's own generatedMatrix, so the numbers are the ones the page would make itself;
// the click then finds them made (matrices.js prepareGenerated, reuse.js adoptFlat). Small layers make theirs at
// the click, in a few ms; so does a page whose worker cannot start.
import { INPUT_NAMES, prepareGenerated } from './model/matrices.js';
import { adoptFlat } from './model/reuse.js';

/** Below this many generated numbers, the click makes them itself (a few ms): nothing is made ahead. */
export const AHEAD_CELLS = 200_000;
/** How long the page must have been still before the worker starts (typing in the sentence changes X). */
const QUIET_MS = 300;

const FIELDS = ['seed', 'dist', 'n', 'dModel', 'dK', 'dV', 'numHeads', 'sentence', 'embed'];
const cells = (s) => s.n * s.dModel + s.dModel * s.numHeads * (2 * s.dK + s.dV) + s.numHeads * s.dV * s.dModel;

let worker = null;
let failed = false;
let jobs = 0;
let busy = false; // a job is in the worker
let next = null; // the next seed's job: { id, seed, signature, ready, resolve }
let wanted = null; // { signature, state }: what the next seed's matrices are made for
let timer = 0;
let takenId = 0; // the job whose seed was clicked
const pending = new Map(); // job id → its promise's resolve
const finishing = new Map(); // job id → its matrices received, their rows being made in idle time

/** A seed as "New seed" has always drawn them. */
const drawSeed = () => Math.floor(Math.random() * 100000);
const signatureOf = (state) => JSON.stringify([...FIELDS.slice(1).map((key) => state[key]), state.shareQK]);

function publish(value) {
  document.documentElement.dataset.seedAhead = value;
}

function start() {
  try {
    const started = new Worker(new URL('./seedAheadWorker.js', import.meta.url), { type: 'module' });
    started.onmessage = ({ data }) => receive(data);
    started.onerror = (event) => {
      event.preventDefault();
      failed = true;
      for (const resolve of pending.values()) resolve();
      pending.clear();
      next = null;
      publish('off');
    };
    return started;
  } catch {
    failed = true;
    return null;
  }
}

/** A job's matrices: handed to the page's caches (a job made for sizes no longer shown is never asked for). */
function receive({ id, matrices }) {
  busy = false;
  const job = { matrices, next: 0, row: 0, rows: matrices.map(() => []) };
  finishing.set(id, job);
  if (id === takenId) return finishNow(id); // its seed was clicked while the worker made it
  const step = (deadline) => {
    if (!finishing.has(id)) return;
    if (nestRows(job, () => deadline.timeRemaining() > 2)) done(id, job);
    else idle(step);
  };
  idle(step);
  schedule();
}

const idle = (callback) =>
  (globalThis.requestIdleCallback ?? ((f) => setTimeout(() => f({ timeRemaining: () => 8 }), 16)))(callback);

/**
 * Makes the nested rows the page's model reads from the flat arrays, a few rows at a time while `more()` says
 * there is time (the same numbers: float64 copied to float64). Returns true when every matrix is done.
 */
function nestRows(job, more) {
  while (job.next < job.matrices.length) {
    const { flat, rows } = job.matrices[job.next];
    const cols = flat.length / rows;
    const out = job.rows[job.next];
    while (job.row < rows) {
      const row = [];
      for (let j = job.row * cols, end = j + cols; j < end; j++) row.push(flat[j]);
      out.push(row);
      job.row++;
      if (job.row % 16 === 0 && !more()) return false;
    }
    job.next++;
    job.row = 0;
  }
  return true;
}

function done(id, job) {
  finishing.delete(id);
  job.matrices.forEach(({ name, key, flat, single }, k) => {
    prepareGenerated(name, key, job.rows[k]);
    adoptFlat(job.rows[k], flat, single);
  });
  if (next?.id === id) publish('ready');
  pending.get(id)?.();
  pending.delete(id);
}

/** Finishes a job's rows now (its seed was clicked before the idle time did it). */
function finishNow(id) {
  const job = finishing.get(id);
  if (!job) return;
  nestRows(job, () => true);
  done(id, job);
}

function post() {
  timer = 0;
  if (busy || failed || !wanted || next?.signature === wanted.signature) return;
  worker ??= start();
  if (!worker) return;
  const seed = next?.seed ?? drawSeed(); // the drawn seed stays when the sizes change
  const id = ++jobs;
  const ready = new Promise((resolve) => pending.set(id, resolve));
  next = { id, seed, signature: wanted.signature, ready };
  busy = true;
  publish('making');
  const { state } = wanted;
  const names = INPUT_NAMES.filter((name) => !(name === 'wk' && state.shareQK));
  const plain = Object.fromEntries(FIELDS.map((key) => [key, state[key]]));
  worker.postMessage({ id, state: { ...plain, seed, design: false, shareQK: state.shareQK }, names });
}

function schedule() {
  clearTimeout(timer);
  if (wanted && next?.signature !== wanted.signature) timer = setTimeout(post, QUIET_MS);
}

/** After each render: makes the next seed's matrices ahead when the layer is large (and not designed by hand). */
export function prepareNextSeed(state) {
  if (failed || state.design || cells(state) < AHEAD_CELLS) {
    wanted = null;
    return;
  }
  wanted = { signature: signatureOf(state), state };
  schedule();
}

/**
 * The seed "New seed" shows, and a promise that its matrices are made (resolved at once when none are made
 * ahead for this state: the render then makes them). Waiting for a worker that has started is never slower than
 * starting again.
 * @param {object} state  the page's state now
 */
export function takeNextSeed(state) {
  const taken = next;
  next = null;
  if (!taken || taken.signature !== signatureOf(state) || failed) {
    return { seed: taken?.seed ?? drawSeed(), ready: Promise.resolve() };
  }
  takenId = taken.id;
  finishNow(taken.id);
  return { seed: taken.seed, ready: taken.ready };
}
