// One layer over loadModel({ workers })'s workers (shards.js keeps them and their shares): the attention half on each
// worker's heads, the sum of their parts of W_o's product here, then the MLP half on each worker's hidden units and
// the sum of their parts of W_down's; the norms that need a whole sum (post-norm's, the sandwich's, OLMo-2's after each
// half) run here, and OLMo-2's q and k norms over every head's columns take a first call of the workers (shard-qk.js). A run's
// layer (forward-pass.js) or a batch of cells' (cells.js: patchSweep's and headScores' rows of many continuations in
// one call, each worker given its key-value heads' slice of the base run's keys and values).
import { AttentionError } from '../errors.js';
import { NORM_PLACEMENTS } from '../generated/model-abi.js';
import { firstNonFinite } from '../scan.js';
import { Tensor } from '../tensor.js';
import { made, modelDims, weight } from './calls.js';
import { layerShare } from './shard-slices.js';
import {
  attentionShapes,
  gatherCapture,
  gatherCellWeights,
  gatherHeads,
  gatherSteps,
  gatherWeights,
  mlpShapes,
  sumParts,
} from './shard-gather.js';
import { splitEdits, writeEdits } from './shard-edits.js';
import { qkScales, squaresShapes } from './shard-qk.js';

const copy = (data, shape, name) => made(data.slice(), shape, name);

/** A batch of cells' inputs for worker part `part`: its key-value heads' slice of the base run's keys and values. */
function cellInputs(cells, { kv: [g0, g1] }, dK, l) {
  const inputs = { cells: copy(cells.table, [cells.count, 2], 'cells') };
  if (!cells.baseLen) return inputs;
  const [a, b] = [g0 * cells.baseLen * dK, g1 * cells.baseLen * dK];
  inputs.baseK = copy(cells.keys.subarray(a, b), [b - a], `the base run's keys of layer ${l}`);
  inputs.baseV = copy(cells.values.subarray(a, b), [b - a], `the base run's values of layer ${l}`);
  return inputs;
}

/**
 * Layer l on x [n, d] over the workers: { output [n, d], weights with `weights`, the steps asked for }.
 * @param {object} shards  shards.js's side: { spec, parts, placement, biases(l), norm(l, slot, x, n, what),
 *   call(w, l, kind, dims, inputs, outputs, { cache, edit }) }
 * @param {{ data: Float32Array, shape: number[], name?: string, valuesChecked?: boolean }} x  the layer's input
 *   (a caller's hidden state, from.hiddenState, is scanned by the workers: NON_FINITE)
 * @param {{ ropeCos: object, ropeSin: object } | null} rope  the RoPE tables' inputs (calls.js's ropeInputs)
 * @param {object} [cache]  a generation's (shards.js's openCache, with `past`: the tokens in it): x holds the n new
 *   tokens, their keys and values are appended, and `weights` are [H, n, past + n]
 * @param {boolean | 'heads'} [capture]  every step too, as one call's (shard-gather.js); 'heads': their outputs only
 * @param {string[]} [steps]  these outputs too (an instrument's: layerOutputs' names), as one call's
 * @param {{ table: Float32Array, count: number, counts: number[], firsts: number[], baseLen: number,
 *   keys?: Float32Array, values?: Float32Array }} [cells]  x holds a batch of cells' rows (cells.js; keys and values
 *   [H_kv, baseLen, d_k]); `weights` are then the cells', cell after cell
 * @param {boolean} [mlp]  false: the attention half only (a batch of cells' last layer): no `output`
 * @param {{ data: Float32Array } | null} [headMask]  [H]: the zero ablations (layer-call.js's headMask)
 * @param {Float32Array | null} [edits]  the layer's edits input's rows [m, 5] (shard-edits.js cuts them)
 * @param {object | null} [attentionWeights]  the layer's q, k, v and o weights as stored ({ slot: { data, shape } }),
 *   edited for this run: each worker's slices of them replace its kept ones in this call
 */
export async function shardLayer(shards, l, x, o) {
  const { n, rope, weights, cache, capture = false, steps = [], cells, mlp: withMlp = true } = o;
  const { headMask = null, edits = null, attentionWeights } = o;
  const { spec, parts } = shards;
  const { dModel: d, headDim: dK } = spec;
  const dims = { ...modelDims(spec, n, l), normPlacement: NORM_PLACEMENTS[shards.placement] };
  if (cells) Object.assign(dims, { cellCount: cells.count, baseLen: cells.baseLen });
  const L = cache ? cache.past + n : n; // keys each query sees
  const wanted = { weights, capture, steps, cells };
  const split = splitEdits(edits, spec, parts);
  const edited = (part) =>
    attentionWeights
      ? Object.entries(layerShare(spec, attentionWeights, { ...part, ff: [0, 0] }, `layer ${l}`)).map(
          ([slot, tensor]) => [slot, weight(tensor, tensor.name)],
        )
      : [];
  const inputs = (part) => {
    const [h0, h1] = part.heads;
    return {
      x: { ...x, data: x.data.slice() },
      ...(rope && { ropeCos: copy(rope.ropeCos.data, rope.ropeCos.shape, 'rope.cos') }),
      ...(rope && { ropeSin: copy(rope.ropeSin.data, rope.ropeSin.shape, 'rope.sin') }),
      ...(headMask && { headMask: copy(headMask.data.subarray(h0, h1), [h1 - h0], 'ablate') }),
      ...(cells && cellInputs(cells, part, dK, l)),
    };
  };
  const calls = (which, run) =>
    Promise.all(parts.flatMap((part, w) => (which(part) ? [run(part, w).then((result) => ({ part, result }))] : [])));
  const { placement } = spec.choices;
  const mlpCapture = capture === true || placement === 'postNorm' || steps.includes('mlpInput');
  // The MLP's calls on `sum` (its residual input, which only its own output, unused here, reads with kParallel)
  const mlpCalls = (sum) =>
    calls(
      ({ ff: [f0, f1] }) => f1 > f0,
      (part, w) => {
        const mlpInputs = { x: copy(sum, [n, d], 'the residual sum') };
        if (placement === 'parallel') mlpInputs.layerInput = copy(x.data, [n, d], 'the layer input');
        const outputs = mlpShapes(spec, n, part, { capture: mlpCapture });
        return shards.call(w, l, 'modelMlp', dims, mlpInputs, outputs, { edit: split.mlp[w] });
      },
    );
  const withHeads = ({ heads: [h0, h1] }) => h1 > h0;
  const attentionInputs = (part) => ({ ...inputs(part), ...Object.fromEntries(edited(part)) });
  // OLMo-2: the whole q and k norms' scales from each worker's sums of squares (its edits copied: each call's go)
  const scales = spec.qkNormWhole
    ? qkScales(
        spec,
        n,
        await calls(withHeads, (part, w) => {
          const edit = split.attention[w] && { ...split.attention[w] };
          if (edit) edit.tensor = copy(edit.tensor.data, edit.tensor.shape, 'edits');
          const outputs = squaresShapes(spec, n, part);
          return shards.call(w, l, 'modelAttention', dims, attentionInputs(part), outputs, { cache, edit });
        }),
      )
    : null;
  const attentionCalls = calls(withHeads, (part, w) => {
    const outputs = attentionShapes(spec, n, L, part, wanted);
    const given = { ...attentionInputs(part), ...(scales && scales(part)) };
    return shards.call(w, l, 'modelAttention', dims, given, outputs, { cache, edit: split.attention[w] });
  });
  // kParallel (GPT-NeoX): the MLP reads the layer's input, not the residual: both halves are posted at once
  const early = placement === 'parallel' && withMlp ? mlpCalls(x.data) : null;
  early?.catch(() => {}); // awaited below, or dropped after the attention's error
  const attention = await attentionCalls;
  const { bO, bDown } = shards.biases(l);
  let attentionOutput = sumParts(attention, 'attentionOutput', bO, n, d); // [n, d]: Σ parts + b_o
  const sandwich = placement === 'sandwich' || placement === 'postBranch'; // a norm after each half, on the whole sum
  if (sandwich) attentionOutput = shards.norm(l, 'attentionPostNorm', attentionOutput, n, "attention's output");
  writeEdits(split.here, 'output', attentionOutput, d);
  const residual = new Float32Array(n * d); // [n, d]: x + the attention's output
  for (let i = 0; i < n * d; i++) residual[i] = x.data[i] + attentionOutput[i];
  writeEdits(split.here, 'residual', residual, d);
  const result = {};
  if (weights || capture === true) {
    result.weights = cells ? gatherCellWeights(spec, cells, attention) : gatherWeights(spec, attention);
  }
  if (capture === 'heads') result.heads = gatherHeads(spec, attention); // a 'mean' ablation's first pass
  if (!withMlp) {
    Object.assign(result, gatherSteps(spec, n, attention, [], steps));
    return Object.assign(result, {
      attentionOutput: new Tensor(attentionOutput, [n, d]),
      residual: new Tensor(residual, [n, d]),
    });
  }
  const mlp = await (early ?? mlpCalls(residual));
  let mlpOutput = sumParts(mlp, 'mlpOutput', bDown, n, d); // [n, d]: Σ parts + b_down
  if (sandwich) mlpOutput = shards.norm(l, 'mlpPostNorm', mlpOutput, n, "the MLP's output");
  writeEdits(split.here, 'mlpOutput', mlpOutput, d);
  // [n, d]: the residual + the MLP's output; post-norm: norm2(the MLP's input + its output)
  const before = placement === 'postNorm' ? mlp[0].result.mlpInput.data : residual;
  let output = new Float32Array(n * d);
  for (let i = 0; i < n * d; i++) output[i] = before[i] + mlpOutput[i];
  if (placement === 'postNorm') output = shards.norm(l, 'norm2', output, n, 'the residual sum of the MLP');
  writeEdits(split.here, 'hidden', output, d);
  if (firstNonFinite(output, false) >= 0) {
    throw new AttentionError(
      'PROJECTION_OVERFLOW',
      "the layer's output overflowed float32 (weights too large for float32?)",
    );
  }
  result.output = new Tensor(output, [n, d]);
  const sums = {
    attentionOutput: new Tensor(attentionOutput, [n, d]),
    residual: new Tensor(residual, [n, d]),
    mlpOutput: new Tensor(mlpOutput, [n, d]),
  };
  if (capture === true) return Object.assign(result, gatherCapture(spec, n, attention, mlp), sums);
  return Object.assign(result, gatherSteps(spec, n, attention, mlp, steps), sums);
}
