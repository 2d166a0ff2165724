// What a worker's layer calls return under loadModel({ workers }) (shards.js), and how the model's side puts the
// parts back into one layer's outputs. A worker's attention call gives its heads' steps ([its heads, …]) and its
// columns of concat [n, its heads·d_k]; its MLP call its columns of mlpHidden [n, its units]; both their part of the
// W_o and W_down products [n, d], summed in worker order (each sum rounded to float32, as the core's).
import { Tensor } from '../tensor.js';

/** Per-head steps of an attention call ([its heads, …]), per key-value head steps, and the rest by name. */
const HEAD_STEPS = ['q', 'qRotated', 'rawScores', 'scaledScores', 'scores', 'heads'];
const KV_STEPS = ['k', 'kRotated', 'v'];

/** Floats of worker part `part`'s weights of a batch of cells: cell by cell [its heads, rows_c, first_c + rows_c]. */
const cellWeightFloats = ({ counts, firsts }, heads) =>
  counts.reduce((sum, count, c) => sum + heads * count * (firsts[c] + count), 0);

/**
 * The outputs of worker part `part`'s attention call: with `capture`, every step of its heads; with capture 'heads',
 * only their outputs (a 'mean' ablation's first pass asks one thread's call for just these: the kernels' path, and so
 * the bits, depend on the outputs asked for, e.g. a window's keys skipped without the raw scores); `steps`: those of
 * the attention's steps (an instrument's, by layerOutputs' names); with `cells`, the cells' weights.
 */
export function attentionShapes(
  spec,
  n,
  L,
  { heads: [h0, h1], kv: [g0, g1] },
  { weights, capture, steps = [], cells },
) {
  const { dModel: d, headDim: dK } = spec;
  const [H, G] = [h1 - h0, g1 - g0];
  const outputs = { attentionOutput: [n, d], residual: [n, d] };
  if (capture === 'heads') return { ...outputs, heads: [H, n, dK] };
  if (weights || capture) outputs.weights = cells ? [cellWeightFloats(cells, H)] : [H, n, L];
  const wanted = capture ? [...HEAD_STEPS, ...KV_STEPS, 'normed', 'concat'] : steps;
  for (const key of wanted) {
    if (key === 'normed') outputs.normed = [n, d];
    else if (key === 'concat') outputs.concat = [n, H * dK];
    else if (KV_STEPS.includes(key) && (spec.rope || key !== 'kRotated')) outputs[key] = [G, n, dK];
    else if (!HEAD_STEPS.includes(key) || (key === 'qRotated' && !spec.rope)) continue;
    else outputs[key] = key === 'q' || key === 'qRotated' || key === 'heads' ? [H, n, dK] : [H, n, L];
  }
  return outputs;
}

/** The outputs of a worker's MLP call: with `capture`, its input and its columns of the activation too. */
export function mlpShapes(spec, n, { ff: [f0, f1] }, { capture }) {
  const { dModel: d } = spec;
  const outputs = { mlpOutput: [n, d], output: [n, d] };
  return capture ? { ...outputs, mlpInput: [n, d], mlpHidden: [n, f1 - f0] } : outputs;
}

/** out += part, element by element in float32 (each sum rounded to float32, as the core's). */
function addInto(out, part) {
  for (let i = 0; i < out.length; i++) out[i] += part[i];
}

/** Σ parts[key] in order, + a bias [d] on every row: [n, d]. */
export function sumParts(parts, key, bias, n, d) {
  const out = new Float32Array(n * d); // [n, d]
  for (const part of parts) addInto(out, part.result[key].data);
  for (let i = 0; bias && i < n * d; i++) out[i] += bias[i % d];
  return out;
}

/** [count, …rest] from each part's block at its first index `from(part)`. */
function stacked(parts, key, count, from) {
  const [, ...rest] = parts[0].result[key].shape;
  const size = rest.reduce((a, b) => a * b, 1);
  const all = new Float32Array(count * size);
  for (const part of parts) all.set(part.result[key].data, from(part) * size);
  return new Tensor(all, [count, ...rest]);
}

/** [n, width] from each part's columns [n, its width] at its first column `from(part)`. */
function columns(parts, key, n, width, from) {
  const all = new Float32Array(n * width);
  for (const part of parts) {
    const { data, shape } = part.result[key];
    const w = shape[1];
    for (let i = 0; i < n; i++) all.set(data.subarray(i * w, (i + 1) * w), i * width + from(part));
  }
  return new Tensor(all, [n, width]);
}

/** The attention's and the MLP's steps among `keys` from their parts, named and shaped as one call's. */
export function gatherSteps(spec, n, attention, mlp, keys) {
  const { numHeads: H, numKvHeads: Hkv, headDim: dK, dFf } = spec;
  const head = ({ part }) => part.heads[0];
  const kv = ({ part }) => part.kv[0];
  const steps = {};
  for (const key of keys) {
    if (HEAD_STEPS.includes(key) && attention[0].result[key]) steps[key] = stacked(attention, key, H, head);
    else if (KV_STEPS.includes(key) && attention[0].result[key]) steps[key] = stacked(attention, key, Hkv, kv);
    else if (key === 'concat') steps.concat = columns(attention, 'concat', n, H * dK, (p) => head(p) * dK);
    else if (key === 'normed') steps.normed = copied(attention[0].result.normed);
    else if (key === 'mlpInput' && mlp.length) steps.mlpInput = copied(mlp[0].result.mlpInput);
    else if (key === 'mlpHidden' && mlp.length) {
      steps.mlpHidden = columns(mlp, 'mlpHidden', n, dFf, ({ part }) => part.ff[0]);
    }
  }
  return steps;
}

const copied = (t) => new Tensor(t.data, t.shape);

/**
 * The captured steps of a layer from its parts (`attention`: [{ part, result }] of the attention calls, `mlp` of the
 * MLP calls), named and shaped as one call's (calls.js's layerOutputs).
 */
export function gatherCapture(spec, n, attention, mlp) {
  const keys = ['normed', ...HEAD_STEPS, ...KV_STEPS, 'concat', 'mlpInput', 'mlpHidden'];
  return gatherSteps(spec, n, attention, mlp, keys);
}

/** A batch of cells' weights from each part's: cell by cell, each part's heads' [its heads, rows_c, first_c + rows_c]. */
export function gatherCellWeights(spec, cells, attention) {
  const all = new Float32Array(cellWeightFloats(cells, spec.numHeads));
  const at = attention.map(() => 0);
  let to = 0;
  cells.counts.forEach((count, c) => {
    const size = count * (cells.firsts[c] + count);
    attention.forEach(
      (
        {
          part: {
            heads: [h0, h1],
          },
          result,
        },
        i,
      ) => {
        const floats = (h1 - h0) * size;
        all.set(result.weights.data.subarray(at[i], at[i] + floats), to);
        [at[i], to] = [at[i] + floats, to + floats];
      },
    );
  });
  return new Tensor(all, [all.length]);
}

/** Each head's output [H, n, d_k] from each part's heads. */
export const gatherHeads = (spec, attention) => stacked(attention, 'heads', spec.numHeads, ({ part }) => part.heads[0]);

/** The attention weights [H, n, L] from each part's heads. */
export const gatherWeights = (spec, attention) =>
  stacked(attention, 'weights', spec.numHeads, ({ part }) => part.heads[0]);
