// The logit lens (nostalgebraist; TransformerLens's accumulated_resid + unembed): the residual stream entering each
// layer, and the final one, read through the final norm and the LM head. Shapes model.unembed's results into the
// grid the page draws: per layer and position the top token and its probability, and a chosen token's probability
// per layer at one position. Pure: no DOM.
import { tokenColumns } from './table.js';
import { taskBreak } from '../taskBreak.js';

/** The lens's rows: the embeddings (layer 0's input), each later layer's input, the final residual. */
export function lensRowLabels(numLayers) {
  return Array.from({ length: numLayers + 1 }, (_, l) =>
    l === 0 ? 'embeddings' : l === numLayers ? `after L${l - 1} (final)` : `after L${l - 1}`,
  );
}

/**
 * Row `row` of logits [n, V] through a float64 softmax: its top id and probability, and the probability of `chosen`.
 * @param {{ data: Float32Array, shape: number[] }} logits
 */
export function softmaxRow(logits, row, chosen = -1) {
  const V = logits.shape[1];
  const values = logits.data.subarray(row * V, (row + 1) * V);
  let top = 0;
  for (let v = 1; v < V; v++) if (values[v] > values[top]) top = v;
  const max = values[top];
  let sum = 0;
  for (let v = 0; v < V; v++) sum += Math.exp(values[v] - max);
  const p = (v) => Math.exp(values[v] - max) / sum;
  return { id: top, p: p(top), chosenP: chosen >= 0 && chosen < V ? p(chosen) : NaN };
}

/**
 * The lens's grid: one row per residual (lensRowLabels), one cell per position with its top token and probability;
 * `line`: the probability of `chosen` at `position` on every row.
 * @param {{ data: Float32Array, shape: number[] }[]} logits  [n, V] per row: model.unembed of hiddenStates[l]
 * @param {{ name: (id: number) => string, chosen: number, position: number }} how  name: a token as shown
 * @returns {{ rows: { label: string, cells: { id: number, token: string, p: number }[] }[], line: number[] }}
 */
export function lensGrid(logits, { name, chosen, position }) {
  const labels = lensRowLabels(logits.length - 1);
  const line = [];
  const rows = logits.map((tensor, l) => {
    const n = tensor.shape[0];
    const cells = [];
    for (let i = 0; i < n; i++) {
      const { id, p, chosenP } = softmaxRow(tensor, i, i === position ? chosen : -1);
      cells.push({ id, token: name(id), p });
      if (i === position) line.push(chosenP);
    }
    return { label: labels[l], cells };
  });
  return { rows, line };
}

/** The lens's numbers as tables: the top probability and the top id per row and position, and the chosen line. */
export function lensTables(grid, tokens, chosenName) {
  const columns = tokenColumns(tokens);
  return {
    title: 'logit lens: top token probability',
    labelName: 'residual',
    columns: [...columns.map((c) => `p ${c}`), ...columns.map((c) => `id ${c}`), `p(${chosenName})`],
    rows: grid.rows.map((row, l) => ({
      label: row.label,
      values: [...row.cells.map((c) => c.p), ...row.cells.map((c) => c.id), grid.line[l]],
    })),
  };
}

/**
 * About how many multiply-adds one model.unembed call of the lens does at most: a long residual's rows are cut to fit
 * (64 rows of GPT-2 small). Not fewer: each call streams the whole LM head (GPT-2 small's 154 MB), whatever its rows.
 */
export const LENS_PRODUCT = 2.5e9;
/** About how long the lens runs before it lets a task in (an input, a frame), in ms. */
export const LENS_TASK_MS = 50;
/** Multiply-adds of a lens from which it lets a task in before it starts (GPT-2 small's at 16 tokens: 8e9). */
const LARGE = 1e8;

/**
 * The logit lens of run `r` (with its hiddenStates): model.unembed of every hidden state, the final one unembedded as
 * it is (already through the final norm). A long residual goes through in parts of rows, with a task let in whenever
 * the lens has run `taskMs` (and first, for a large model): the page answers an input meanwhile. Each row's logits
 * are its own (the norm and the head are row by row).
 * @param {{ taskMs?: number, between?: () => Promise<void>, product?: number }} [how]  between: the break; product:
 *   the multiply-adds of a part
 * @returns {Promise<object[]>} [n, V] per residual, the embeddings first
 */
export async function lensLogits(
  model,
  r,
  signal,
  { taskMs = LENS_TASK_MS, between = taskBreak, product = LENS_PRODUCT } = {},
) {
  const states = r.hiddenStates;
  const last = states.length - 1;
  const { vocabSize: V, dModel: d } = model.spec;
  const n = states[0].shape[0];
  const size = Math.ceil(n / Math.ceil((n * V * d) / product));
  // a large model's lens lets a task in first too (the click that asked for it paints); a small one's is drawn at once
  let since = n * V * d * states.length > LARGE ? -Infinity : performance.now();
  const out = [];
  for (let l = 0; l <= last; l++) {
    const parts = [];
    for (let r0 = 0; r0 < n; r0 += size) {
      if (performance.now() - since >= taskMs) {
        await between();
        since = performance.now();
      }
      const rows =
        size >= n
          ? states[l]
          : { data: states[l].data.subarray(r0 * d, Math.min(n, r0 + size) * d), shape: [Math.min(size, n - r0), d] };
      parts.push(await model.unembed(rows, { norm: l < last, signal }));
    }
    out.push(parts.length === 1 ? parts[0] : joined(parts, V));
  }
  return out;
}

/** Logits [rows, V] of consecutive rows as one [n, V]. */
function joined(parts, V) {
  const data = new Float32Array(parts.reduce((sum, p) => sum + p.data.length, 0));
  let at = 0;
  for (const p of parts) {
    data.set(p.data, at);
    at += p.data.length;
  }
  return { data, shape: [data.length / V, V] };
}
