// model.patchSweep({ clean, corrupted, target, step, position }): activation patching over the model, as
// TransformerLens's patching.py (get_act_patch_resid_pre, get_act_patch_attn_out, get_act_patch_mlp_out,
// get_act_patch_attn_head_out_all_pos). Each cell writes the clean run's activation of `step` into the corrupted run,
// right after the forward computes it, and scores (m − m_corrupted) / (m_clean − m_corrupted), m = logit[position][a]
// − logit[position][b] (or logit a alone); target 'top' takes a and b from the clean and corrupted runs' logits at
// `position` (their top tokens; a alone when they are the same):
//   'input' (resid_pre), 'output' (attn_out), 'mlpOutput' (mlp_out)   one layer at one token position: [L, n]
//   'headOutput' (z)                                                  one head at every position: [L, H]
// m needs no LM head: it is the final norm's output at `position` times the LM head's row a (minus row b), plus their
// biases' difference, in float64 for every run alike. In a decoder (sweep-cells.js) a cell runs from its layer only,
// from the first row its patch changes, up to `position`, beside the other cells of its layer in batches of rows; a cell
// whose patch changes nothing scores 0. In BERT every row sees every other: each cell is a run from its layer.
import { AttentionError, describe } from '../errors.js';
import { readRecord } from '../read.js';
import { Tensor } from '../tensor.js';
import { made } from './calls.js';
import { forwardPass } from './forward-pass.js';
import { plainPlan, readPosition, readTarget } from './instrument-options.js';
import { readRunInput } from './run-plan.js';
import { readStep } from './patches.js';
import { sweepByCells } from './sweep-cells.js';
import { argmax } from './sampling.js';
import { CELL_BATCH_ROWS, batchesOf } from './cells.js';
import { checkCells, checkForward, checkHead } from './call-sizes.js';
import { LAYER_STEPS } from '../generated/model-abi.js';

/** The steps a sweep patches. */
export const SWEEP_STEPS = Object.freeze(['input', 'output', 'mlpOutput', 'headOutput']);
/** The layer call's output that holds each step's activation ('input': the run's hidden states). */
export const OUTPUT_OF = { output: 'attentionOutput', mlpOutput: 'mlpOutput', headOutput: 'heads' };

/** A task of its own (a message to itself): what the event loop has waiting runs first. */
const taskBreak = () =>
  new Promise((resolve) => {
    const channel = new MessageChannel();
    channel.port1.onmessage = () => {
      channel.port1.close();
      resolve();
    };
    channel.port2.postMessage(null);
  });

/**
 * The sweep's options, read and checked: { clean, corrupted (plans), target, step, position, onProgress, pause,
 * batchRows }.
 */
function readSweep(engine, options) {
  const { spec, tokenizer } = engine;
  const o = readRecord(
    options,
    'patchSweep options',
    ['clean', 'corrupted', 'target', 'step', 'position', 'signal', 'onProgress', 'batchRows'],
    'option',
  );
  const clean = readRunInput(o.clean, spec, tokenizer, 'clean');
  const corrupted = readRunInput(o.corrupted, spec, tokenizer, 'corrupted');
  if (clean.ids.length !== corrupted.ids.length) {
    throw new AttentionError(
      'SHAPE_MISMATCH',
      `patchSweep: the clean prompt has ${clean.ids.length} tokens and the corrupted one ${corrupted.ids.length}: a sweep patches position by position, so they must have the same length`,
    );
  }
  readStep(o.step, spec, 'patchSweep', SWEEP_STEPS);
  const target = o.target === 'top' ? 'top' : readTarget(o.target, spec, 'patchSweep', "or 'top'");
  const position = readPosition(o.position, clean.ids.length, 'patchSweep');
  if (o.onProgress !== undefined && typeof o.onProgress !== 'function') {
    throw new AttentionError('BAD_OPTION', `patchSweep: onProgress must be a function, got ${describe(o.onProgress)}`);
  }
  const batchRows = o.batchRows === undefined ? CELL_BATCH_ROWS : o.batchRows;
  if (!Number.isInteger(batchRows) || batchRows < 1) {
    throw new AttentionError(
      'BAD_OPTION',
      `patchSweep: batchRows (the most rows of cells in one layer call) must be an integer of at least 1, got ${describe(o.batchRows)}`,
    );
  }
  if (!engine.tensors.head) throw new AttentionError('UNSUPPORTED_MODEL', 'patchSweep: this model has no LM head');
  const plan = (input) => plainPlan({ ids: input.ids }, engine, { signal: o.signal });
  // With onProgress (a page drawing the rows), a task break between the layer calls of the cells: see patchSweep.
  const pause = o.onProgress ? taskBreak : undefined;
  return {
    clean: plan(clean),
    corrupted: plan(corrupted),
    target,
    step: o.step,
    position,
    onProgress: o.onProgress,
    pause,
    batchRows,
  };
}

/**
 * The metric of final-norm rows: m(rows [C, d]) → Float64Array(C), each row · (W_head[a] − W_head[b]) + the bias
 * difference, in float64.
 */
async function metricOf(engine, [a, b], ctx) {
  const { tensors } = engine;
  const d = engine.spec.dModel;
  const row = async (id) => Float64Array.from(await engine.rows(tensors.head, [id, id + 1], ctx));
  const u = await row(a);
  if (b !== undefined) (await row(b)).forEach((v, e) => (u[e] -= v));
  let bias = 0;
  if (tensors.headBias) {
    const kept = await engine.group('headBias', [tensors.headBias], ctx);
    const all = kept.inputs.bHead?.data ?? engine.heap().subarray(kept.addresses.bHead / 4);
    bias = all[a] - (b === undefined ? 0 : all[b]);
  }
  return (rows) =>
    Float64Array.from({ length: rows.length / d }, (_, c) => {
      let sum = bias;
      for (let e = 0; e < d; e++) sum += rows[c * d + e] * u[e];
      return sum;
    });
}

/**
 * target 'top': [a, b], each run's top token at `position` (the lowest id of a tie), or [a] when both runs' top token
 * is a (then a − b would be 0 everywhere).
 */
async function topTarget(engine, runs, position, ctx) {
  const d = engine.spec.dModel;
  const row = (pass) => pass.final.data.subarray(position * d, (position + 1) * d);
  const rows = new Float32Array(2 * d);
  [runs.clean, runs.corrupted].forEach((pass, i) => rows.set(row(pass), i * d));
  const logits = await engine.logits(new Tensor(rows, [2, d]), ctx);
  const V = logits.shape[1];
  const [a, b] = [0, 1].map((i) => argmax(logits.data.subarray(i * V, (i + 1) * V)));
  return a === b ? [a] : [a, b];
}

/** Each cell as a run from its layer, of every row (any family). @returns {Promise<void>} */
async function sweepByRuns(engine, sweep, runs, score) {
  const { step, position } = sweep;
  const { n } = sweep.clean;
  const { numHeads: H, headDim: dK, dModel: d } = engine.spec;
  const columns = step === 'headOutput' ? H : n;
  const all = Array.from({ length: n }, (_, i) => i);
  for (let layer = 0; layer < engine.spec.numLayers; layer++) {
    const state = runs.corrupted.hiddenStates[layer];
    const from = { layer, hidden: made(state.data, state.shape, `hiddenStates[${layer}]`), tensor: state };
    const values = [];
    for (let column = 0; column < columns; column++) {
      const clean = runs.clean.activations[layer];
      const patch =
        step === 'headOutput'
          ? {
              layer,
              head: column,
              step,
              rows: all,
              cols: dK,
              data: clean.subarray(column * n * dK, (column + 1) * n * dK),
            }
          : { layer, step, rows: [column], cols: d, data: clean };
      if (sweep.pause && column > 0) await sweep.pause();
      const cell = { ...sweep.corrupted, from, first: layer, patches: [patch] };
      const { final } = await forwardPass(engine, cell, { pause: sweep.pause });
      values.push(final.data.subarray(position * d, (position + 1) * d));
    }
    await score(
      layer,
      values.map((rows) => runs.metric(rows)[0]),
    );
  }
}

/**
 * TOO_LARGE before anything is read (call-sizes.js): the clean and corrupted runs with their outputs, and in a
 * decoder the batches of cells as if every cell's patch changed something (each from its first row: the most rows).
 */
function checkSweep(engine, sweep, { name, shape, keyName }) {
  const { spec } = engine;
  const { step, position } = sweep;
  const { n } = sweep.clean;
  const { numKvHeads: Hkv, headDim: dK, dModel: d, numHeads: H } = spec;
  const outputs = name ? { [name]: shape } : {};
  checkForward(engine, sweep.clean, { outputs: () => outputs });
  const kv = spec.choices.causal ? { [keyName]: [Hkv, n, dK], v: [Hkv, n, dK] } : {};
  checkForward(engine, sweep.corrupted, { outputs: () => ({ ...outputs, ...kv }) });
  if (!spec.choices.causal) return;
  const count = (p) => position - p + 1;
  const cells =
    step === 'headOutput'
      ? Array.from({ length: H }, () => ({ first: 0, count: count(0), edits: count(0) * dK }))
      : Array.from({ length: position + 1 }, (_, p) => ({
          first: p,
          count: count(p),
          edits: step === 'input' ? 0 : d,
        }));
  const steps = step === 'input' ? 0 : 1 << LAYER_STEPS[step];
  const batches = batchesOf(
    cells.map((cell) => ({ ...cell, steps, rows: { length: cell.count * d } })),
    d,
    sweep.batchRows,
  );
  for (let layer = 0; layer < spec.numLayers; layer++) {
    checkCells(engine, batches, { layer, length: n, what: `patchSweep's cells of layer ${layer}` });
  }
  checkHead(engine, Math.max(...batches.map((batch) => batch.length)), { logits: false });
  if (sweep.target === 'top') checkHead(engine, 2);
}

/**
 * model.patchSweep({ clean, corrupted, target, step, position?, signal?, onProgress?, batchRows? }).
 *
 * | result     | shape                                                                  |
 * |------------|------------------------------------------------------------------------|
 * | scores     | Tensor [L, n] ('input', 'output', 'mlpOutput') or [L, H] ('headOutput') |
 * | clean      | number: m of the clean run                                              |
 * | corrupted  | number: m of the corrupted run                                          |
 * | target     | [a] or [a, b]: the token ids of m (target 'top': the runs' top tokens)  |
 * @param {object} engine  the model's parts (model.js)
 */
export async function patchSweep(engine, options) {
  const sweep = readSweep(engine, options);
  const { spec } = engine;
  const { step, position, onProgress } = sweep;
  const { n } = sweep.clean;
  const { numLayers: L, numHeads: H, numKvHeads: Hkv, headDim: dK, dModel: d } = spec;
  const cells = spec.choices.causal;
  const name = OUTPUT_OF[step];
  const shape = step === 'headOutput' ? [H, n, dK] : [n, d];
  const keyName = spec.rope ? 'kRotated' : 'k';
  // each run's activation of `step` at every layer; the corrupted run's keys and values, for the cells
  const run = async (plan, kv) => {
    const activations = [];
    const keys = [];
    const values = [];
    const pass = await forwardPass(engine, plan, {
      outputs: () => ({
        ...(name ? { [name]: shape } : {}),
        ...(kv ? { [keyName]: [Hkv, n, dK], v: [Hkv, n, dK] } : {}),
      }),
      pause: sweep.pause,
      layer: (l, result) => {
        if (name) activations[l] = result[name].data;
        if (kv) [keys[l], values[l]] = [result[keyName].data, result.v.data];
      },
    });
    if (!name) for (let l = 0; l < L; l++) activations[l] = pass.hiddenStates[l].data;
    return { ...pass, activations, keys, values };
  };
  checkSweep(engine, sweep, { name, shape, keyName });
  const runs = { clean: await run(sweep.clean, false), corrupted: await run(sweep.corrupted, cells) };
  const ctx = { signal: engine.signal(sweep.clean.signal) };
  const target = sweep.target === 'top' ? await topTarget(engine, runs, position, ctx) : sweep.target;
  runs.metric = await metricOf(engine, target, ctx);
  const at = (pass) => runs.metric(pass.final.data.subarray(position * d, (position + 1) * d))[0];
  const [mClean, mCorrupted] = [at(runs.clean), at(runs.corrupted)];
  runs.mCorrupted = mCorrupted;
  const columns = step === 'headOutput' ? H : n;
  const scores = new Tensor(new Float32Array(L * columns).fill(NaN), [L, columns]);
  let done = 0;
  // After each layer's cells: the progress, then (with onProgress) a task break, so that a page paints the row and
  // an input (a Cancel) runs before the next layer; with onProgress also between the layers of the clean and corrupted
  // runs, between two batches of cells and between two layer calls of a batch (sweep.pause): no task is longer than
  // one layer call.
  const score = async (layer, ms) => {
    ms.forEach((m, column) => (scores.data[layer * columns + column] = (m - mCorrupted) / (mClean - mCorrupted)));
    done += columns;
    if (!onProgress) return;
    onProgress({ phase: 'patch', layer, done, total: L * columns, scores, target });
    if (layer < L - 1) await taskBreak();
  };
  if (cells) await sweepByCells(engine, sweep, runs, score);
  else await sweepByRuns(engine, sweep, runs, score);
  return { scores, clean: mClean, corrupted: mCorrupted, target };
}
