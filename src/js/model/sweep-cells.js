// A patching sweep of a decoder as cells (cells.js): token i of a run depends on tokens 0 … i only, so a cell whose
// patch changes the corrupted run from row p on agrees with it before p, at every layer. It runs from its layer, rows p
// to `position` (later rows do not reach the metric), over the corrupted run's keys and values before p; the cells of
// a layer run in batches of at most `sweep.batchRows` rows. Where the patch changes nothing (the clean and corrupted
// activations agree, as they do before the first token the prompts differ in), the cell is the corrupted run: it
// scores 0 and does not run.
import { LAYER_STEPS } from '../generated/model-abi.js';
import { Tensor } from '../tensor.js';
import { batchesOf, runCells } from './cells.js';

/** Whether a[from, to) and b[from, to) hold the same numbers. */
function same(a, b, from, to) {
  for (let i = from; i < to; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The cells of layer `layer`, those whose patch changes anything: { column, first, rows, edits? }.
 * 'input': the clean row p in place of the corrupted one; the others: an edit of the step's rows.
 */
function cellsOf(layer, { step, position, n, d, dK, H }, runs) {
  const clean = runs.clean.activations[layer];
  const corrupted = runs.corrupted.activations[layer];
  const input = runs.corrupted.hiddenStates[layer].data;
  const from = (p) => input.slice(p * d, (position + 1) * d); // the corrupted run's input rows p … position
  const cells = [];
  if (step === 'headOutput') {
    for (let h = 0; h < H; h++) {
      const block = h * n * dK;
      let first = 0;
      while (first <= position && same(clean, corrupted, block + first * dK, block + (first + 1) * dK)) first++;
      if (first > position) continue;
      const count = position - first + 1;
      const edits = new Float32Array(count * dK * 5);
      for (let r = 0, e = 0; r < count; r++) {
        for (let c = 0; c < dK; c++, e++) {
          edits.set([LAYER_STEPS.headOutput, h, r, c, clean[block + (first + r) * dK + c]], e * 5);
        }
      }
      cells.push({ column: h, first, rows: from(first), edits });
    }
    return cells;
  }
  for (let p = 0; p <= position; p++) {
    if (same(clean, corrupted, p * d, (p + 1) * d)) continue;
    const cell = { column: p, first: p, rows: from(p) };
    if (step === 'input') cell.rows.set(clean.subarray(p * d, (p + 1) * d));
    else {
      cell.edits = new Float32Array(d * 5);
      for (let c = 0; c < d; c++) cell.edits.set([LAYER_STEPS[step], 0, 0, c, clean[p * d + c]], c * 5);
    }
    cells.push(cell);
  }
  return cells;
}

/**
 * Scores every cell of the sweep, layer by layer: score(layer, m of each column). With `sweep.pause` (a task break),
 * it is awaited between two batches and between two layer calls of a batch: no task runs more than one layer call.
 * @param {object} runs  the clean and corrupted runs' activations of the step at every layer, the corrupted run's
 *   hidden states, keys (after RoPE) and values, `metric` (final-norm rows → m) and `mCorrupted`
 */
export async function sweepByCells(engine, sweep, runs, score) {
  const { step, position } = sweep;
  const { n, signal } = sweep.clean;
  const { numLayers: L, numHeads: H, headDim: dK, dModel: d } = engine.spec;
  const sizes = { step, position, n, d, dK, H };
  const { pause } = sweep;
  const base = { keys: runs.corrupted.keys, values: runs.corrupted.values, length: n, signal, pause };
  for (let layer = 0; layer < L; layer++) {
    const ms = new Float64Array(step === 'headOutput' ? H : n).fill(runs.mCorrupted);
    for (const [b, batch] of batchesOf(cellsOf(layer, sizes, runs), d, sweep.batchRows).entries()) {
      if (pause && b > 0) await pause();
      const { outputs } = await runCells(engine, batch, { ...base, layer });
      const last = new Float32Array(batch.length * d); // each cell's row at `position`: its last
      outputs.forEach((rows, c) => last.set(rows.subarray(rows.length - d), c * d));
      const normed = await engine.final(new Tensor(last, [batch.length, d]), { signal: engine.signal(signal) });
      runs.metric(normed.data).forEach((m, c) => (ms[batch[c].column] = m));
    }
    await score(layer, ms);
  }
}
