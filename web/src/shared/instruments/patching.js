// Activation patching (TransformerLens's patching.get_act_patch_resid_pre and get_act_patch_attn_head_out_all_pos),
// shaped for the page: the two prompts' lengths checked, model.patchSweep's scores (NaN where a cell is still to
// come) as a grid with row and column labels, what it shows in a sentence, and its table to copy. Pure: no DOM.
import { headName } from '../counting.js';
import { gridTable, tokenColumns } from './table.js';

/** The sweeps the page runs: the residual stream entering each layer at each position, and each head's output. */
export const SWEEPS = Object.freeze([
  { step: 'input', name: 'residual stream (layers × positions)', tl: 'resid_pre' },
  { step: 'headOutput', name: 'head outputs (layers × heads)', tl: 'z, every position' },
]);

/**
 * Why the two prompts cannot be compared cell by cell, or null: a sweep patches position i of one into position i
 * of the other, so they must have the same number of tokens, at least one.
 */
export function lengthProblem(cleanTokens, corruptedTokens) {
  const [a, b] = [cleanTokens.length, corruptedTokens.length];
  if (a === 0 || b === 0)
    return `The ${a === 0 ? 'clean' : 'corrupted'} prompt has no tokens: type a sentence in each.`;
  if (a === b) return null;
  return `The clean prompt has ${a} token${a === 1 ? '' : 's'} and the corrupted one ${b}: patching puts each position of one in place of the same position of the other, so they need the same number of tokens. Change a word for a word, not for two.`;
}

/**
 * A sweep's grid: rows L0…, columns the positions' tokens ('input') or H0… ('headOutput').
 * @param {{ data: Float32Array, shape: number[] }} scores  [L, n] or [L, H]
 * @returns {{ rowLabels: string[], columns: string[], cells: number[][], done: number, total: number }}
 */
export function sweepGrid(scores, step, tokens) {
  const [L, C] = scores.shape;
  const columns = step === 'headOutput' ? Array.from({ length: C }, (_, h) => `H${h}`) : tokens.slice(0, C);
  const cells = Array.from({ length: L }, (_, l) => Array.from(scores.data.subarray(l * C, (l + 1) * C)));
  const done = cells.flat().filter((v) => !Number.isNaN(v)).length;
  return { rowLabels: Array.from({ length: L }, (_, l) => `L${l}`), columns, cells, done, total: L * C };
}

/** The cells that restore at least `threshold` of the metric, largest first, named ("L0H2 0.72", "L1 at 5 ball 0.99"). */
export function restoringCells(grid, step, threshold = 0.3) {
  const found = [];
  grid.cells.forEach((row, l) =>
    row.forEach((v, c) => {
      if (v >= threshold) found.push({ l, c, v });
    }),
  );
  found.sort((x, y) => y.v - x.v);
  return found.map(({ l, c, v }) =>
    step === 'headOutput' ? `${headName(l, c)} ${v.toFixed(2)}` : `L${l} at ${c} “${grid.columns[c]}” ${v.toFixed(2)}`,
  );
}

/** The sweep's scores as a table to copy. */
export function sweepTable(grid, step, metricText) {
  const columns = step === 'headOutput' ? grid.columns : tokenColumns(grid.columns);
  return gridTable(
    `activation patching (${step}) of ${metricText}`,
    'layer',
    grid.rowLabels,
    columns,
    grid.cells.flat(),
  );
}

/** A prompt typed: text for a model with a tokenizer.json, else the ids typed. */
export function promptOf(model, text) {
  return model.hasTokenizer ? text : { ids: text.trim().split(/\s+/u).filter(Boolean).map(Number) };
}

/** model.run itself. */
const modelRun = (model) => (input, options) => model.run(input, options);

/**
 * One prompt's ids and tokens, for a sweep's lengths and labels: text through model.tokenize (the tokens a run
 * computes on, the tokenizer's special tokens included; no layer runs), ids typed through a run of one layer with no
 * LM head (it checks them, and names them with the folder's tokenizer.json when there is one).
 * @param {string | { ids: number[] }} prompt  promptOf's
 * @param {(input: unknown, options: object) => Promise<object>} [run]  model.run, or a run of its own (in parts)
 */
export async function promptTokens(model, prompt, signal, run = modelRun(model)) {
  if (typeof prompt === 'string') {
    const { ids, tokens } = model.tokenize(prompt);
    return { ids, tokens };
  }
  const r = await run(prompt, { layers: 1, logits: false, attentions: false, hiddenStates: false, signal });
  return { ids: r.ids, tokens: r.tokens ?? r.ids.map(String) };
}

/**
 * One prompt's tokens and top next token (a whole forward): for a default token a beside a token b typed; the default
 * pair itself is patchSweep's target 'top', from the sweep's own runs.
 * @param {(input: unknown, options: object) => Promise<object>} [run]  model.run, or a run of its own (in parts)
 */
export async function promptRun(model, prompt, signal, run = modelRun(model)) {
  const r = await run(prompt, { logits: 'last', topK: 1, attentions: false, hiddenStates: false, signal });
  return { ids: r.ids, tokens: r.tokens ?? r.ids.map(String), top: r.next[0].id };
}

/** patchSweep's batchRows by default: the most rows of its cells in one layer call. */
export const CELL_ROWS = 96;

/**
 * About how many multiply-adds one layer call of a sweep's cells does at most: its batches are cut to fit (48 rows of
 * GPT-2 small, about 40 ms on an idle core of the bench's machine, 96 rows about 70 ms).
 */
export const SWEEP_LAYER_PRODUCT = 3.4e8;

/**
 * patchSweep's batchRows for `spec`: the most rows whose layer call (attention projections and MLP) is about
 * SWEEP_LAYER_PRODUCT multiply-adds, at most patchSweep's default, CELL_ROWS. GPT-2 small (768 × 9 216 a row): 48
 * rows, two batches of a 16-token prompt's cells rather than one; the shipped model: 96, as without it.
 */
export function sweepBatchRows({ dModel: d, numHeads: H, numKvHeads: Hkv, headDim: dK, dFf, activation }) {
  const mlp = (activation.endsWith('Gated') ? 3 : 2) * dFf;
  const perRow = d * (2 * H * dK + 2 * Hkv * dK + mlp);
  return Math.max(1, Math.min(CELL_ROWS, Math.floor(SWEEP_LAYER_PRODUCT / perRow)));
}
