// "New seed" without the wait on a large layer: the next seed is drawn before the click, and a worker makes its
// matrices (X, W_q, W_k, W_v, W_o: 2.4 M numbers at GPT-2's size, ~0.3 s of Math.log and Math.cos) while the page
// is idle. The worker runs the page's own generatedMatrix, so the numbers are the ones the page would make itself;
// the click then finds them made (matrices.js prepareGenerated, calls.js adoptFlat). Only what a change makes
// out of date is made again (typing in the sentence: X alone). Small layers make theirs at the click, in a few
// ms; so does a page whose worker cannot start.
import { INPUT_NAMES, generationKey, prepareGenerated } from './model/matrices.js';
import { adoptFlat } from './model/calls.js';

/** Below this many generated numbers, the click makes them itself (a few ms): nothing is made ahead. */
export const AHEAD_CELLS = 200_000;
/** How long the page must have been still before the worker starts (typing in the sentence changes X). */
const QUIET_MS = 300;

const FIELDS = ['dist', 'n', 'dModel', 'dK', 'dV', 'numHeads', 'sentence', 'embed', 'shareQK'];
const cells = (s) => s.n * s.dModel + s.dModel * s.numHeads * (2 * s.dK + s.dV) + s.numHeads * s.dV * s.dModel;

let worker = null;
let failed = false;
let jobs = 0;
let busy = 0; // the id of the job in the worker, or 0
let ahead = null; // { seed, keys: Map<name, key> made or being made, ready: Promise }
let wanted = null; // the state whose next seed is made ahead
let timer = 0;
let takenId = 0; // the job whose seed was clicked
const pending = new Map(); // job id → its promise's resolve
const finishing = new Map(); // job id → its matrices received, their rows being made in idle time

/** A seed as "New seed" has always drawn them. */
const drawSeed = () => Math.floor(Math.random() * 100000);

/** The matrices of `state` with `seed`, by name, and their keys (W_k is W_q when they are tied). */
function keysFor(state, seed) {
  const target = { ...state, seed, design: false };
  const names = INPUT_NAMES.filter((name) => !(name === 'wk' && state.shareQK));
  return new Map(names.map((name) => [name, generationKey(target, name)]));
}

/** The names of `state`'s matrices that `made` (a seed made ahead) has not made or started for it. */
const missing = (state, made = ahead) => {
  const keys = keysFor(state, made.seed);
  return [...keys].filter(([name, key]) => made.keys.get(name) !== key).map(([name]) => name);
};

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
      ahead = null;
      publish('off');
    };
    return started;
  } catch {
    failed = true;
    return null;
  }
}

/** A job's matrices: their rows are made in idle time, then they go to the page's caches. */
function receive({ id, matrices }) {
  busy = 0;
  const job = { matrices, next: 0, row: 0, rows: matrices.map(() => []) };
  finishing.set(id, job);
  if (id === takenId)
    finishNow(id); // its seed was clicked while the worker made it
  else {
    const step = (deadline) => {
      if (!finishing.has(id)) return;
      if (nestRows(job, () => deadline.timeRemaining() > 2)) done(id, job);
      else idle(step);
    };
    idle(step);
  }
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
  pending.get(id)?.();
  pending.delete(id);
  if (!busy && finishing.size === 0 && ahead && wanted && missing(wanted).length === 0) publish('ready');
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
  if (busy || failed || !wanted) return;
  ahead ??= { seed: drawSeed(), keys: new Map(), ready: Promise.resolve(), last: 0 };
  const names = missing(wanted);
  if (!names.length) {
    if (!finishing.size) publish('ready');
    return;
  }
  worker ??= start();
  if (!worker) return;
  const id = ++jobs;
  const keys = keysFor(wanted, ahead.seed);
  for (const name of names) ahead.keys.set(name, keys.get(name));
  const before = ahead.ready;
  const made = new Promise((resolve) => pending.set(id, resolve));
  ahead.ready = Promise.all([before, made]);
  ahead.last = id;
  busy = id;
  publish('making');
  const state = Object.fromEntries(FIELDS.map((key) => [key, wanted[key]]));
  worker.postMessage({ id, state: { ...state, seed: ahead.seed, design: false }, names });
}

function schedule() {
  clearTimeout(timer);
  if (wanted) timer = setTimeout(post, QUIET_MS);
}

/** After each render: makes the next seed's matrices ahead when the layer is large (and not designed by hand). */
export function prepareNextSeed(state) {
  wanted = failed || state.design || cells(state) < AHEAD_CELLS ? null : state;
  if (wanted && (!ahead || missing(wanted).length)) publish('making'); // soon: after QUIET_MS
  schedule();
}

/**
 * The seed "New seed" shows, and a promise that its matrices are made (resolved at once when they are not all
 * made or being made for this state: the render then makes what is missing). Waiting for a worker that has
 * started is never slower than starting again.
 * @param {object} state  the page's state now
 */
export function takeNextSeed(state) {
  const taken = ahead;
  ahead = null;
  if (!taken) return { seed: drawSeed(), ready: Promise.resolve() };
  const complete = !failed && wanted !== null && missing(state, taken).length === 0;
  if (!complete) return { seed: taken.seed, ready: Promise.resolve() };
  takenId = busy || taken.last;
  for (const id of [...finishing.keys()]) finishNow(id);
  return { seed: taken.seed, ready: taken.ready };
}
