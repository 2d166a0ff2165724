// "New seed" without the wait on a large layer: the next two seeds are drawn before the click, and a worker makes
// their matrices (X, W_q, W_k, W_v, W_o: 2.4 M numbers at GPT-2's size, ~0.3 s of Math.log and Math.cos) and their
// attention results (~20 ms of WebAssembly) while the page is idle. The worker runs the page's own generatedMatrix,
// attentionCall and float32Call and the same module, so the numbers are the ones the page would make itself; the
// click then finds them made (matrices.js prepareGenerated, calls.js adoptFlat, takeResultAhead in render()), and
// the page only draws. Two seeds are kept ahead, so a second click at once finds its own made too. Only what a change
// makes out of date is made again (typing in the sentence: X and the results; the causal mask: the results). Small
// layers make theirs at the click, in a few ms; so does a page whose worker cannot start.
import { Tensor } from 'attention-wasm';
import { INPUT_NAMES, generationKey, headBlock, headWidth, prepareGenerated } from '../shared/matrices.js';
import { WEIGHT_KEYS, adoptFlat } from './attentionCalls.js';
import { columnBlockOf } from '../shared/reuse.js';

/**
 * Below this many generated numbers, the click makes them itself (under 1 ms at the default size): nothing is made
 * ahead. The old caps (n = 64, d_model = 64, 8 heads: 20 480 numbers) are made ahead: made at the click, their
 * matrices and results took 8-12 ms of the frame, and "new seed" painted in 48-56 ms instead of 40.
 */
export const AHEAD_CELLS = 10_000;
/** How long the page must have been still before the worker starts (typing in the sentence changes X). */
const QUIET_MS = 300;
/** Seeds made ahead: the next click's, and the one after it for a second click before the worker made another. */
const SEEDS_AHEAD = 2;
/** State fields that change what is shown, not what is computed: a change there keeps the results made ahead. */
const SHOWN_ONLY = new Set(['head', 'precision', 'shuffle', 'source']); // kv heads group the layer's K and V

const cells = (s) => s.n * s.dModel + s.dModel * s.numHeads * (2 * s.dK + s.dV) + s.numHeads * s.dV * s.dModel;

let worker = null;
let failed = false;
let jobs = 0;
let busy = 0; // the id of the job in the worker, or 0
/**
 * The seeds made ahead, the next click's first: { seed, keys: Map<name, key> made or being made, resultKey: the
 * result's (made or being made), last: its latest job, jobs: how many are not done, ready: Promise, matrices:
 * Map<name, { key, rows, flat, single }>, result: the worker's result or null }.
 */
let seeds = [];
let taken = null; // the seed clicked last (its matrices go to the page's caches, its result to takeResultAhead)
let wanted = null; // the state whose next seeds are made ahead
let timer = 0;
let takes = 0; // clicks on New seed so far
const pending = new Map(); // job id → its promise's resolve
const finishing = new Map(); // job id → its matrices received, their rows being made in idle time

/** A seed as "New seed" has always drawn them. */
const drawSeed = () => Math.floor(Math.random() * 100000);

/** The state the page will have after "New seed" shows `seed` (controls.js redrawn: no overrides). */
const target = (state, seed) => ({ ...state, seed, design: false, x: null, wq: null, wk: null, wv: null, wo: null });

/** The matrices of `state` with `seed`, by name, and their keys (W_k is W_q when they are tied). */
function keysFor(state, seed) {
  const names = INPUT_NAMES.filter((name) => !(name === 'wk' && state.shareQK));
  return new Map(names.map((name) => [name, generationKey(target(state, seed), name)]));
}

/** The names of `state`'s matrices that `entry` (a seed made ahead) has not made or started for it. */
const missing = (state, entry) => {
  const keys = keysFor(state, entry.seed);
  return [...keys].filter(([name, key]) => entry.keys.get(name) !== key).map(([name]) => name);
};

const biasIds = new WeakMap();
/** What a result depends on besides the matrices (the options, positions, biases: one id per biases object). */
function resultKey(state) {
  if (state.biases && !biasIds.has(state.biases)) biasIds.set(state.biases, biasIds.size + Math.random());
  const fields = Object.entries(target(state, 0)).filter(([key]) => !SHOWN_ONLY.has(key) && key !== 'biases');
  return JSON.stringify([fields, state.biases ? biasIds.get(state.biases) : null]);
}

/** Whether `entry` has everything `state` needs from it, made and received. */
const complete = (state, entry) =>
  entry.jobs === 0 && entry.resultKey === resultKey(state) && !missing(state, entry).length;

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
      seeds = [];
      publish('off');
    };
    return started;
  } catch {
    failed = true;
    return null;
  }
}

/** A job's matrices and result: their rows are made in idle time, then the seed has them. */
function receive({ id, matrices, result }) {
  busy = 0;
  const entry = [...seeds, taken].find((e) => e?.jobIds.has(id));
  if (!entry) {
    // A seed no longer wanted (the layer became small, or designed): nothing to keep.
    pending.get(id)?.();
    pending.delete(id);
    schedule();
    return;
  }
  const job = { entry, result, matrices, next: 0, row: 0, rows: matrices.map(() => []) };
  finishing.set(id, job);
  if (entry === taken)
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
  const { entry } = job;
  job.matrices.forEach(({ name, key, flat, single }, k) => {
    if (entry.keys.get(name) === key) entry.matrices.set(name, { key, rows: job.rows[k], flat, single });
  });
  if (id === entry.last) entry.result = job.result;
  entry.jobs--;
  if (entry === taken) adopt(entry);
  else idle(() => warmBlocks(entry));
  pending.get(id)?.();
  pending.delete(id);
  if (!busy && wanted && seeds.length === SEEDS_AHEAD && seeds.every((e) => complete(wanted, e))) publish('ready');
}

/**
 * Makes the column blocks of the head shown that the steps draw of W_q, W_k and W_v (reuse.js keeps them per
 * matrix): ~2 ms each at GPT-2 size, in idle time instead of at the click.
 */
function warmBlocks(entry) {
  if (!wanted) return;
  for (const name of ['wq', 'wk', 'wv']) {
    const made = entry.matrices.get(name);
    const width = headWidth(wanted, name);
    if (made) columnBlockOf(made.rows, headBlock(wanted, name) * width, width);
  }
}

/** Hands the clicked seed's matrices to the page's caches (generatedMatrix then returns them). */
function adopt(entry) {
  for (const [name, made] of entry.matrices) {
    if (made.adopted) continue;
    made.adopted = true;
    prepareGenerated(name, made.key, made.rows);
    adoptFlat(made.rows, made.flat, made.single);
  }
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
  while (seeds.length < SEEDS_AHEAD) {
    const ready = Promise.resolve();
    seeds.push({ seed: drawSeed(), keys: new Map(), matrices: new Map(), jobIds: new Set(), jobs: 0, ready });
  }
  const key = resultKey(wanted);
  const entry = seeds.find((e) => e.resultKey !== key || missing(wanted, e).length);
  if (!entry) {
    if (!finishing.size) publish('ready');
    return;
  }
  worker ??= start();
  if (!worker) return;
  const id = ++jobs;
  const names = missing(wanted, entry);
  const keys = keysFor(wanted, entry.seed);
  for (const name of names) entry.keys.set(name, keys.get(name));
  entry.resultKey = key;
  entry.result = null;
  const keep = seeds.flatMap((e) => [...e.keys.values()]);
  try {
    worker.postMessage({ id, state: target(wanted, entry.seed), names, keep });
  } catch {
    failed = true; // a state the worker cannot receive: the page makes everything itself
    publish('off');
    return;
  }
  const made = new Promise((resolve) => pending.set(id, resolve));
  entry.ready = Promise.all([entry.ready, made]);
  entry.last = id;
  entry.jobIds.add(id);
  entry.jobs++;
  busy = id;
  publish('making');
}

function schedule() {
  clearTimeout(timer);
  if (wanted) timer = setTimeout(post, QUIET_MS);
}

/**
 * After each render: makes the next seeds' matrices and results ahead when the layer is large (and not designed).
 * `model`: the steps show a real model's head (its own W's, which no seed changes): nothing is made ahead, and what
 * was is dropped, so that neither the worker nor the idle time of the page works for a click that is not coming.
 */
export function prepareNextSeed(state, model = false) {
  wanted = failed || model || state.design || cells(state) < AHEAD_CELLS ? null : state;
  if (!wanted) {
    seeds = [];
    for (const [id, job] of finishing) {
      if (job.entry === taken) continue; // a click waits for it
      finishing.delete(id);
      pending.get(id)?.();
      pending.delete(id);
    }
    if (!failed) publish('idle');
  } else if (seeds.length < SEEDS_AHEAD || !seeds.every((e) => complete(wanted, e))) publish('making'); // after QUIET_MS
  schedule();
}

/**
 * The seed "New seed" shows, and a promise that its matrices and result are made (resolved at once when its
 * matrices are not all made or being made for this state: the render then makes what is missing; never resolved
 * when another click came while it waited). Waiting for a worker that has started is never slower than starting
 * again.
 * @param {object} state  the page's state now
 */
export function takeNextSeed(state) {
  const take = ++takes;
  const entry = seeds.shift();
  if (!entry) return { seed: drawSeed(), ready: Promise.resolve() };
  taken = entry;
  for (const [id, job] of [...finishing]) if (job.entry === entry) finishNow(id);
  adopt(entry);
  const whole = !failed && wanted !== null && missing(state, entry).length === 0;
  // A click overtaken by a later one while it waited never shows its seed (the later seed stays on screen).
  const ready = whole
    ? entry.ready.then(() => (take === takes ? undefined : new Promise(() => {})))
    : Promise.resolve();
  return { seed: entry.seed, ready };
}

/** Whether two Float32Arrays hold the same bits. */
function sameBits(a, b) {
  if (a === b) return true;
  if (!(a instanceof Float32Array && b instanceof Float32Array) || a.length !== b.length) return false;
  const x = new Int32Array(a.buffer, a.byteOffset, a.length);
  const y = new Int32Array(b.buffer, b.byteOffset, b.length);
  for (let i = 0; i < x.length; i++) if (x[i] !== y[i]) return false;
  return true;
}

/** Whether `result` (made by the worker for `entry`) was computed from exactly `call`'s inputs and options. */
function madeFor(call, result, entry) {
  const { weights } = call;
  if (weights.numHeads !== result.numHeads || weights.numKvHeads !== result.numKvHeads) return false;
  if (JSON.stringify(call.options) !== result.options) return false;
  const slots = ['x', ...WEIGHT_KEYS.filter((name) => weights[name])];
  if (slots.length !== Object.keys(result.inputs).length) return false;
  const singles = new Map([...entry.matrices.values()].map(({ key, single }) => [key, single]));
  return slots.every((name) => {
    const given = name === 'x' ? call.x : weights[name];
    const made = result.inputs[name];
    const expected = made && (made.key ? singles.get(made.key) : made.data);
    return Boolean(expected) && String(given.shape) === String(made.shape) && sameBits(given.data, expected);
  });
}

/**
 * The result of `call` (float32Call(attentionCall(state)), as render() makes it) when the worker made it for the
 * seed just clicked: its inputs are the same arrays (or the same bits) and its options the same; else null, and
 * the page computes it itself. A result is handed out once.
 * @param {{ x: { data: Float32Array, shape: number[] }, weights: object, options: object }} call
 * @returns {Record<string, Tensor> | null}
 */
export function takeResultAhead(call) {
  const result = taken?.result;
  if (!result || !madeFor(call, result, taken)) return null;
  taken.result = null;
  const root = document.documentElement.dataset;
  root.resultsAhead = String(Number(root.resultsAhead ?? 0) + 1); // the page tests' hook: results taken so far
  return Object.fromEntries(
    Object.entries(result.tensors).map(([name, { data, shape }]) => [name, new Tensor(data, shape)]),
  );
}
