// Activation patching, patching sweeps and mean / resample ablation in the float64 reference (reference.js), through
// its step hook: every activation is replaced right after the forward computes it, so that everything after it
// follows, as TransformerLens's hooks (run_with_hooks) replace them. Written from the definitions of issue 36 and
// TransformerLens's activation patching (patching.py: the clean run's activation written into the corrupted run,
// scored (m − m_corrupted) / (m_clean − m_corrupted)), not from the code under test.
//
// Steps, as model.run's captures and edits name them (TransformerLens's hook in brackets):
//   'input'      [n, d_model]  the residual stream entering the layer, hiddenStates[layer]      (resid_pre)
//   'headOutput' [n, d_k]      one head's attention-weighted values, before W_O                  (hook_z, one head)
//   'output'     [n, d_model]  the attention block's output, after W_O and its bias             (attn_out)
//   'mlpOutput'  [n, d_model]  the MLP's output                                                  (mlp_out)
// and every other step a capture has: 'x', 'q', 'k', 'v', 'qRotated', 'kRotated' ([n, d_k], k and v of the head's
// key-value head), 'rawScores', 'scaledScores', 'scores', 'weights' ([n, n]), 'concat', 'residual', 'mlpInput',
// 'mlpHidden', 'hidden' ([n, width]).
import { referenceForward } from './reference.js';

const PER_HEAD = new Set(['q', 'qRotated', 'headOutput']);
const PER_KV_HEAD = new Set(['k', 'kRotated', 'v']);
const SQUARE = new Set(['rawScores', 'scaledScores', 'scores', 'weights']);

/**
 * Where row `row`, column `col` of a step's [rows, cols] view lies in the reference's array of that step (heads side
 * by side for q, k, v and headOutput; [H, n, n] for scores and weights).
 * @returns {{ rows: number, cols: number, at: (row: number, col: number) => number }}
 */
export function stepLayout(step, head, { n, H, Hkv, dk }, length) {
  const headed = PER_HEAD.has(step) || PER_KV_HEAD.has(step) || SQUARE.has(step);
  if (headed !== (head !== undefined)) {
    throw new Error(`step '${step}' ${headed ? 'needs a head' : 'is a layer step and takes no head'}`);
  }
  if (PER_HEAD.has(step)) return { rows: n, cols: dk, at: (r, c) => r * H * dk + head * dk + c };
  const group = Math.floor(head / (H / Hkv));
  if (PER_KV_HEAD.has(step)) return { rows: n, cols: dk, at: (r, c) => r * Hkv * dk + group * dk + c };
  if (SQUARE.has(step)) return { rows: n, cols: n, at: (r, c) => (head * n + r) * n + c };
  const cols = length / n;
  return { rows: n, cols, at: (r, c) => r * cols + c };
}

/** A value as rows of numbers: nested arrays, or { data, shape } of rank 2. */
function rowsOf(value) {
  if (Array.isArray(value)) return value.map((row) => Array.from(row));
  const [rows, cols] = value.shape;
  return Array.from({ length: rows }, (_, r) => Array.from(value.data.slice(r * cols, (r + 1) * cols)));
}

/** Rows [rows][cols] of a step's array (one head's block for a head step). */
export function readStep(array, layout) {
  return Array.from({ length: layout.rows }, (_, r) =>
    Array.from({ length: layout.cols }, (_, c) => array[layout.at(r, c)]),
  );
}

/** Writes rows `rows` (all when undefined) of `value` into a step's array. */
function writeStep(array, layout, value, rows) {
  const given = rowsOf(value);
  if (given.length !== layout.rows || given.some((row) => row.length !== layout.cols)) {
    throw new Error(`a patch's value must be [${layout.rows}, ${layout.cols}]`);
  }
  for (const r of rows ?? given.keys()) for (let c = 0; c < layout.cols; c++) array[layout.at(r, c)] = given[r][c];
}

/** Calls each hook in turn. */
const chain =
  (...hooks) =>
  (...args) => {
    for (const hook of hooks) hook?.(...args);
  };

/**
 * The forward with `patches` ([{ layer, head?, step, rows?, value }]): each replaces rows `rows` (default all) of
 * that step with `value` (the step's full [rows, cols] shape, nested arrays or { data, shape }) right after the
 * forward computes it. Other options go to referenceForward (ablate, edits, hook: called after the patches).
 * @returns what referenceForward returns
 */
export function referencePatch(fixture, ids, patches, options = {}) {
  const patch = (layer, step, array, dims) => {
    for (const p of patches) {
      if (p.layer !== layer || p.step !== step) continue;
      writeStep(array, stepLayout(step, p.head, dims, array.length), p.value, p.rows);
    }
  };
  return referenceForward(fixture, ids, { ...options, hook: chain(patch, options.hook) });
}

/**
 * A forward that keeps a copy of every step of every layer: { result (referenceForward's), activation(layer, step,
 * head?) → rows [n][cols] of that step (one head's block for a head step) }.
 */
export function referenceCapture(fixture, ids, options = {}) {
  const kept = [];
  const keep = (layer, step, array, dims) => {
    kept[layer] ??= { dims, steps: {} };
    kept[layer].steps[step] = array.slice();
  };
  const result = referencePatch(fixture, ids, options.patches ?? [], { ...options, hook: chain(options.hook, keep) });
  const activation = (layer, step, head) => {
    const { dims, steps } = kept[layer];
    return readStep(steps[step], stepLayout(step, head, dims, steps[step].length));
  };
  return { result, activation };
}

/** m = logit[position][a] − logit[position][b] (or logit[position][a] alone) of a forward's logits [n, V]. */
export function logitMetric(fixture, logits, position, [a, b]) {
  const at = (id) => logits[position * fixture.config.vocab_size + id];
  return at(a) - (b === undefined ? 0 : at(b));
}

/**
 * A patching sweep: each cell writes the clean run's activation into the corrupted run and scores
 * (m − m_corrupted) / (m_clean − m_corrupted), m = logitMetric at `position` (default the last). For 'input',
 * 'output' and 'mlpOutput' a cell is one layer at one token position ([L][n]); for 'headOutput' one head at every
 * position ([L][H]). The prompts must have the same length. A metric that does not differ between the runs gives
 * NaN or ±Infinity, as the division does.
 * @returns {{ scores: number[][], clean: number, corrupted: number }}
 */
export function referencePatchSweep(fixture, { clean, corrupted, target, step, position = clean.length - 1 }) {
  if (clean.length !== corrupted.length) throw new Error('the clean and corrupted prompts differ in length');
  const metric = (logits) => logitMetric(fixture, logits, position, target);
  const cleanRun = referenceCapture(fixture, clean);
  const mClean = metric(cleanRun.result.logits);
  const mCorrupted = metric(referencePatch(fixture, corrupted, []).logits); // the same float64 steps as a cell's
  const score = (patch) =>
    (metric(referencePatch(fixture, corrupted, [patch]).logits) - mCorrupted) / (mClean - mCorrupted);
  const layers = cleanRun.result.attentions.length;
  const heads = cleanRun.result.attentions[0].length / clean.length ** 2;
  const scores = Array.from({ length: layers }, (_, layer) =>
    step === 'headOutput'
      ? Array.from({ length: heads }, (_, head) =>
          score({ layer, head, step, value: cleanRun.activation(layer, step, head) }),
        )
      : clean.map((_, p) => score({ layer, step, rows: [p], value: cleanRun.activation(layer, step) })),
  );
  return { scores, clean: mClean, corrupted: mCorrupted };
}

/**
 * The forward with heads ablated by mode, each replacing the head's output (headOutput, before W_O) at every
 * position right after the forward computes it:
 *   { layer, head, mode: 'zero' }                  0 (as referenceForward's `ablate`, transformers' head_mask);
 *   { layer, head, mode: 'mean' }                  its mean over the positions of this run, as this forward computes
 *                                                  it (after any earlier ablation);
 *   { layer, head, mode: 'mean', ids }             its mean over the positions of a plain run of `ids`;
 *   { layer, head, mode: 'resample', ids }         its output, row by row, in a plain run of `ids` (same length).
 */
export function referenceAblate(fixture, ids, ablations, options = {}) {
  const mean = (rows) => rows[0].map((_, c) => rows.reduce((sum, row) => sum + row[c], 0) / rows.length);
  const sources = ablations.map(({ layer, head, mode, ids: other }) => {
    if (mode === 'zero' || (mode === 'mean' && !other)) return null;
    if (mode === 'resample' && other.length !== ids.length)
      throw new Error('resample needs a prompt of the same length');
    const rows = referenceCapture(fixture, other).activation(layer, 'headOutput', head);
    return mode === 'resample' ? rows : rows.map(() => mean(rows));
  });
  const ablate = (layer, step, array, dims) => {
    if (step !== 'headOutput') return;
    ablations.forEach(({ layer: l, head, mode }, i) => {
      if (l !== layer) return;
      const layout = stepLayout(step, head, dims, array.length);
      const own = readStep(array, layout);
      const value = mode === 'zero' ? own.map((row) => row.map(() => 0)) : (sources[i] ?? own.map(() => mean(own)));
      writeStep(array, layout, value);
    });
  };
  return referenceForward(fixture, ids, { ...options, hook: chain(ablate, options.hook) });
}
