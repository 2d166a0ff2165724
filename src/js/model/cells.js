// Cells: continuations of a base run, run as one batch of rows per layer call (src/core/model/cells.h). A cell stands
// for a prompt that agrees with the base run before its position `first`: it holds its rows from `first` on (their
// input at the layer it starts at), and its queries attend over the base run's keys and values before `first` (kept
// from the base run, layer by layer) and over its own rows'. So a cell patched at position p costs the rows from p on,
// and the projections and MLPs of all the cells of a batch are one product per weight. model.patchSweep runs its cells
// so (patch-sweep.js), and model.headScores its sequences (as cells at position 0 over no base). With loadModel's
// workers, each layer call of a batch runs on them (shard-layer.js), each worker's heads over its slice of the base.
import { made, modelDims, ropeInputs } from './calls.js';
import { ropeTablesOf } from './rope-tables.js';
import { runLayer } from './layer-call.js';
import { editInput } from './forward-pass.js';
import { checkAborted } from './signal.js';

/** Rows of a batch: the cells are cut into batches of at most this many rows (a layer call's memory grows with them). */
export const CELL_BATCH_ROWS = 96;

/**
 * Cuts cells (rows [count, d] each) into batches of at most `most` rows each (a cell of more rows is a batch of its own).
 * @returns {object[][]}
 */
export function batchesOf(cells, d, most = CELL_BATCH_ROWS) {
  const batches = [];
  let rows = Infinity;
  for (const cell of cells) {
    const count = cell.rows.length / d;
    if (rows + count > most) {
      batches.push([]);
      rows = 0;
    }
    batches.at(-1).push(cell);
    rows += count;
  }
  return batches;
}

/**
 * Runs one batch of cells through layers [layer, L) and returns each cell's output rows of the last layer.
 * @param {object} engine  the model's parts (model.js)
 * @param {{ first: number, rows: Float32Array, edits?: Float32Array }[]} cells  each cell's position,
 *   its rows' input of layer `layer` ([count, d_model]), and the rows [m, 5] of that layer's `edits` input (step,
 *   block, row, col, value) that change it, `row` counted from its first row
 * @param {{ layer: number, keys?: Float32Array[], values?: Float32Array[], length?: number, signal?: AbortSignal,
 *   attentions?: boolean, pause?: () => Promise<void> }} o  the layer it starts at; the base run's keys (after RoPE)
 *   and values per layer ([H_kv, length, d_k]); with `attentions`, each layer's weights of the cells, cell after cell,
 *   and without `outputs` (default true) no MLP in the last layer, and no outputs; `pause`, awaited between two layer
 *   calls (a task break: what waits runs between them)
 * @returns {Promise<{ outputs: Float32Array[], attentions: Float32Array[] }>}  outputs: per cell [count, d_model]
 */
export async function runCells(
  engine,
  cells,
  { layer, keys, values, length = 0, signal, attentions: wanted = false, outputs: rows = true, pause },
) {
  const { spec } = engine;
  const { dModel: d, numHeads: H, numLayers: L } = spec;
  const counts = cells.map((cell) => cell.rows.length / d);
  const R = counts.reduce((a, b) => a + b, 0);
  const table = new Float32Array(cells.length * 2); // [count, 2]: first row in the batch, position
  const positions = [];
  let x = new Float32Array(R * d); // [R, d]
  let at = 0;
  const edits = [];
  cells.forEach((cell, c) => {
    table.set([at, cell.first], c * 2);
    x.set(cell.rows, at * d);
    for (let i = 0; i < counts[c]; i++) positions.push(cell.first + i);
    if (cell.edits) {
      const shifted = Float32Array.from(cell.edits);
      for (let e = 2; e < shifted.length; e += 5) shifted[e] += at;
      edits.push(shifted);
    }
    at += counts[c];
  });
  const edit = editInput(edits);
  const tables = ropeTablesOf(spec, positions);
  const weightFloats = cells.reduce((sum, cell, c) => sum + H * counts[c] * (cell.first + counts[c]), 0);
  const ctx = { signal: engine.signal(signal) };
  const attentions = [];
  const sharded = engine.shards && { table, count: cells.length, counts, firsts: cells.map((c) => c.first) };
  if (sharded) await engine.shards.ready(ctx.signal); // a worker that replaced a lost one gets its share
  for (let l = layer; l < L; l++) {
    if (pause && l > layer) await pause();
    checkAborted(ctx.signal, 'patchSweep');
    const mlp = rows || l < L - 1; // the last layer's MLP gives only the outputs
    const edited = l === layer && edit;
    if (sharded) {
      // over the model's workers (shards.js): each with its key-value heads' slice of the base's keys and values
      const result = await engine.shards.layer(l, made(x, [R, d], `the cells' rows of layer ${l}`), {
        n: R,
        rope: tables && ropeInputs(tables(l), R, spec),
        weights: wanted,
        cells: { ...sharded, baseLen: length, keys: keys?.[l], values: values?.[l] },
        edits: edited ? edit.tensor.data : null,
        mlp,
      });
      x = result.output?.data;
      if (wanted) attentions.push(result.weights.data);
      continue;
    }
    const weights = await engine.readLayer(l, ctx);
    const inputs = { x: made(x, [R, d], `the cells' rows of layer ${l}`), ...weights.inputs };
    inputs.cells = made(table, [cells.length, 2], 'cells');
    const dims = { ...modelDims(spec, R, l), ...weights.addresses, cellCount: cells.length, baseLen: length };
    if (length) {
      inputs.baseK = made(keys[l], [keys[l].length], `the base run's keys of layer ${l}`);
      inputs.baseV = made(values[l], [values[l].length], `the base run's values of layer ${l}`);
    }
    if (tables) Object.assign(inputs, ropeInputs(tables(l), R, spec));
    if (edited) [inputs.edits, dims.editCount] = [edit.tensor, edit.count];
    const outputs = wanted ? { output: [R, d], weights: [weightFloats] } : { output: [R, d] };
    const editedSteps = edited ? edit.steps : 0;
    const result = runLayer(engine.call, spec, R, { inputs, dims, outputs, causal: true, editedSteps, mlp });
    x = result.output?.data;
    if (wanted) attentions.push(result.weights.data);
  }
  let row = 0;
  const outputs = rows ? counts.map((count) => x.subarray((row += count) * d - count * d, row * d)) : [];
  return { outputs, attentions };
}
