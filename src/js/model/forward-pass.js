// One forward pass of a loaded model over a run plan (run-plan.js), one call at a time (forward.h): the embeddings of
// the tokens used, then each layer with its weights read from the checkpoint (or kept resident) for that layer's
// calls only (its attention, then its MLP: layer-call.js), then the final norm and the LM head by blocks of the
// vocabulary. model.run and the instruments (unembed, attribute, headScores, patchSweep) run it; `hooks` give the
// instruments a layer's other outputs and its weights as the call had them.
//
// Inside a layer, in the forward's order: its input with the 'input' patches written into it; then the call, whose
// `edits` input holds the run's edits, the ablations' replaced head outputs ('mean', 'resample') and the patches, in
// that order (a later row wins); zero ablations are the call's head mask.
import { Tensor } from '../tensor.js';
import { layerOutputs, made, modelDims, ropeInputs } from './calls.js';
import { ropeTablesOf } from './rope-tables.js';
import { headMask, runLayer } from './layer-call.js';
import { editWeights, layerEdits } from './edits.js';
import { pickRows } from './results.js';
import { runBytes } from './run-bytes.js';
import { checkAborted } from './signal.js';
import { floatBytes } from './resident.js';
import { patchEditRows, patchInput, writeWeightPatches } from './patches.js';
import { ablationValues, headOutputRows } from './ablation.js';
import { headResultRows, outputMatrix } from './head-result.js';
import { STEPS } from './edits.js';
import { checkForward } from './call-sizes.js';

// Layers up to this many bytes of float32 weights are read ahead, one layer while the one before computes; larger
// ones (a 7B model's 770 MiB) one at a time, so that the JS side holds one layer's weights, not two.
const READ_AHEAD_BYTES = 256 * 2 ** 20;

/**
 * Rows of the `edits` input [m, 5] from parts (Float32Arrays of whole rows) as one input, with their count and the
 * steps they change (bits 1 << LAYER_STEPS, which the core's scratch depends on); null when there are none.
 */
export function editInput(parts) {
  const count = parts.reduce((sum, part) => sum + part.length / 5, 0);
  if (!count) return null;
  const data = new Float32Array(count * 5);
  let at = 0;
  let steps = 0;
  for (const part of parts) {
    data.set(part, at);
    for (let e = 0; e < part.length; e += 5) steps |= 1 << part[e];
    at += part.length;
  }
  return { tensor: made(data, [count, 5], 'edits'), count, steps };
}

/**
 * Layer l of a run on the model's workers (shards.js), from `hidden` (its input): pushes its output to hiddenStates,
 * its weights to attentions, and with captures sets captured as the calling thread's path does (headResult from
 * W_O as stored: the workers keep its rows, so it is read here). Returns the output.
 */
async function shardedLayer(engine, plan, l, layerInput, { ctx, hooks, tables, hiddenStates, attentions, captured }) {
  const { spec, tensors } = engine;
  const { n, from, first } = plan;
  const heads = plan.capture.filter((c) => c.layer === l).map((c) => c.head);
  const hidden = patchInput(plan.patches, l, layerInput);
  hiddenStates[l] = hidden;
  // a start `from` a caller's hidden state: its values are scanned in the workers' calls (NON_FINITE)
  const x =
    l === first && from ? { ...from.hidden, data: hidden.data } : made(hidden.data, hidden.shape, `hiddenStates[${l}]`);
  // the edits input's rows, in the forward's order: the run's edits, the ablations' rows, the patches'
  const own = layerEdits(plan.edits, l, spec)?.tensor.data;
  const ablated = [...(hooks.ablationRows?.get(l) ?? [])];
  const patched = patchEditRows(plan.patches, l, spec)?.data;
  // edits and patches of q, k, v and o: the weights as stored, read here and edited, for the workers to slice
  const weightEdit = [...plan.edits, ...plan.patches].some((e) => e.layer === l && STEPS[e.step]?.weight);
  let attentionWeights = null;
  if (weightEdit) {
    attentionWeights = {};
    for (const entry of tensors.layers[l].filter((e) => ['wQkv', 'wQ', 'wK', 'wV', 'wO'].includes(e.slot))) {
      attentionWeights[entry.slot] = { data: await engine.rows(entry, [0, entry.shape[0]], ctx), shape: entry.shape };
    }
    writeWeightPatches(plan.patches, l, editWeights(plan.edits, l, attentionWeights, spec));
  }
  const call = (rows, more) =>
    engine.shards.layer(l, x, {
      attentionWeights,
      n,
      rope: tables && ropeInputs(tables(l), n, spec),
      headMask: headMask(plan.ablate, l, spec.numHeads),
      edits: editInput(rows.filter(Boolean))?.tensor.data ?? null,
      ...more,
    });
  const meanOwn = plan.ablate.filter((a) => a.layer === l && a.mode === 'mean' && !a.reference);
  if (meanOwn.length) {
    // the heads' outputs of this run as it goes (its patches of headOutput come after an ablation): then each mean
    const early = patchEditRows(
      plan.patches.filter((p) => p.step !== 'headOutput'),
      l,
      spec,
    );
    const pass = await call([own, ...ablated, early?.data], { capture: 'heads' }); // as one thread's first pass
    for (const { head } of meanOwn) {
      ablated.push(headOutputRows(head, ablationValues('mean', pass.heads, head, n, spec.headDim), n, spec.headDim));
    }
  }
  const steps = Object.keys(hooks.outputs?.(l) ?? {}); // an instrument's outputs of the layer
  const result = await call([own, ...ablated, patched], { weights: plan.attentions, capture: heads.length > 0, steps });
  hiddenStates.push(result.output);
  if (plan.attentions) attentions.push(result.weights);
  if (heads.length) {
    const entry = tensors.layers[l].find((e) => e.slot === 'wO');
    const W = await engine.rows(entry, [0, entry.shape[0]], ctx);
    const rows = Array.from({ length: n }, (_, i) => i);
    const results = new Map(
      heads.map((h) => [
        h,
        new Tensor(Float32Array.from(headResultRows(result.heads, h, W, spec, rows)), [n, spec.dModel]),
      ]),
    );
    captured.set(l, { ...result, input: hiddenStates[l], headResults: results });
  }
  if (hooks.layer) hooks.layer(l, result, await outputWeights(engine, l, hooks, ctx));
  return result.output;
}

/**
 * How many layers from l on are plain (shard-chain.js runs them as one chain, where shards.chains): none of the run's
 * captures, edits, patches, ablations but zero ones, nor an instrument's outputs or hooks; not a start from a caller's
 * hidden state (scanned by its first call).
 */
function plainLayers(engine, plan, hooks, l, end) {
  if (!engine.shards.chains || hooks.layer || hooks.outputs) return 0;
  const own = (list) => list.some((entry) => entry.layer === l);
  let count = 0;
  for (; l < end; l++, count++) {
    if (own(plan.capture) || own(plan.edits) || own(plan.patches) || (plan.from && l === plan.first)) break;
    if (plan.ablate.some((a) => a.layer === l && a.mode !== 'zero')) break;
  }
  return count;
}

/** Plain layers [l, l + count) of a run as one chain on the workers (shard-chain.js): pushes as shardedLayer does. */
async function chainedLayers(engine, plan, l, count, hidden, { ctx, tables, hiddenStates, attentions }) {
  const { spec } = engine;
  const { n } = plan;
  const layers = [];
  for (let i = l; i < l + count; i++) {
    engine.progress('layer', i, ctx); // the chain's layers, before it runs: it has no hand-off per layer
    const rope = tables && ropeInputs(tables(i), n, spec);
    layers.push({ l: i, rope, headMask: headMask(plan.ablate, i, spec.numHeads) });
  }
  hiddenStates[l] = hidden;
  const options = { n, weights: plan.attentions, signal: ctx.signal };
  const results = await engine.shards.chain(layers, hidden.data, options);
  for (const result of results) {
    hiddenStates.push(result.output);
    if (plan.attentions) attentions.push(result.weights);
  }
  return results[results.length - 1].output;
}

/**
 * What a sharded layer's hook reads of its weights ({ inputs, addresses, entries }, as one thread's call had them):
 * with hooks.outputWeights, W_O as stored (read here: the workers keep its rows) and the biases and norms the workers'
 * side keeps (b_O, the sandwich's norm after attention); else none.
 */
async function outputWeights(engine, l, hooks, ctx) {
  const entries = engine.tensors.layers[l];
  const inputs = {};
  if (hooks.outputWeights) {
    const entry = entries.find((e) => e.slot === 'wO');
    inputs.wO = { data: await engine.rows(entry, [0, entry.shape[0]], ctx), shape: entry.shape };
    const { bO, attentionPostNorm: [post] = [] } = engine.shards.biases(l);
    if (bO) inputs.bO = { data: bO, shape: [bO.length] };
    if (post) inputs.attentionPostNorm = post;
  }
  return { inputs, addresses: {}, entries };
}

/**
 * The forward of `plan` on `engine` (model.js's parts: spec, tensors, resident, call, embed, final, logits,
 * readLayer, progress, heap, bytesRead, flush).
 * @param {{ outputs?: (l: number) => object, layer?: (l: number, result: object, weights: object) => void,
 *   ablationRows?: Map<number, Float32Array[]>, pause?: () => Promise<void>, outputWeights?: boolean }} [hooks]
 *   outputs: more outputs of layer l's call (layerOutputs' names and shapes); layer: called after layer l's call with
 *   its outputs and `weights` ({ inputs, addresses, entries }: its weights as the call had them; on the workers, none
 *   but W_O, b_O and attentionPostNorm, and those with outputWeights); ablationRows: the 'mean' (of a reference) and
 *   'resample' rows of each layer's edits input (run.js); pause: awaited after each layer but the last (a task break)
 * @returns {Promise<{ hiddenStates, attentions, captured: Map, last: Tensor, final: Tensor | null,
 *   logits: Tensor | null }>}  last: the last layer's output (before the final norm); logits of plan.headRows
 */
export async function forwardPass(engine, plan, hooks = {}) {
  const { spec, tensors } = engine;
  const { ids, n, from, first } = plan;
  checkForward(engine, plan, hooks); // TOO_LARGE before anything is read or prefetched
  const wantLogits = plan.logits !== false || plan.loss;
  // Over the model's workers (shards.js), which keep the layers' weights; the instruments' hooks too.
  const sharded = Boolean(engine.shards);
  const reads = { ...plan, logits: wantLogits, sharded };
  const ctx = {
    signal: engine.signal(plan.signal),
    total: engine.bytesRead() + runBytes(tensors, ids, reads, engine.resident),
    sharded, // the LM head too runs on the workers (model.js)
  };
  checkAborted(ctx.signal, 'run');
  if (sharded) await engine.shards.ready(ctx.signal); // a worker that replaced a lost one gets its share
  const tables = ropeTablesOf(
    spec,
    Array.from({ length: n }, (_, i) => i),
  );
  engine.resident?.prefetch(tensors, reads, ctx.signal); // every weight asked for now, in order
  let hidden = from ? from.tensor : await engine.embed(ids, plan.tokenTypeIds, 0, ctx);
  // the layers before `first` are not run: null in attentions and hiddenStates
  const hiddenStates = [...Array(first).fill(null), hidden];
  const attentions = Array(first).fill(null);
  const captured = new Map();
  const layers = tensors.layers.slice(0, plan.layers);
  const whole = layers.length === tensors.layers.length;
  // Layer l + 1's weights are read while layer l computes (the reads run off this thread).
  const ahead = floatBytes(layers[first] ?? []) <= READ_AHEAD_BYTES;
  let next = layers.length && !sharded ? engine.readLayer(first, ctx) : null;
  const { numHeads: H, headDim: dK } = spec;
  for (let l = first; l < layers.length; l++) {
    const plain = sharded ? plainLayers(engine, plan, hooks, l, layers.length) : 0;
    if (plain) {
      hidden = await chainedLayers(engine, plan, l, plain, hidden, { ctx, tables, hiddenStates, attentions });
      l += plain - 1;
      continue;
    }
    engine.progress('layer', l, ctx);
    if (sharded) {
      hidden = await shardedLayer(engine, plan, l, hidden, { ctx, hooks, tables, hiddenStates, attentions, captured });
      if (hooks.pause && l < layers.length - 1) await hooks.pause();
      continue;
    }
    const heads = plan.capture.filter((c) => c.layer === l).map((c) => c.head);
    const capture = heads.length > 0;
    const weights = await (typeof next === 'number' ? engine.readLayer(next, ctx) : next);
    const input = patchInput(plan.patches, l, hidden);
    hiddenStates[l] = input;
    // a start `from` a caller's hidden state: its values are scanned in the call (NON_FINITE)
    const x =
      l === first && from ? { ...from.hidden, data: input.data } : made(input.data, input.shape, `hiddenStates[${l}]`);
    const inputs = { x, ...weights.inputs };
    next = l + 1 < layers.length ? (ahead ? engine.readLayer(l + 1, ctx) : l + 1) : null;
    const addresses = { ...weights.addresses };
    const kept = { addresses, entries: layers[l], heap: engine.heap };
    writeWeightPatches(plan.patches, l, editWeights(plan.edits, l, inputs, spec, kept));
    if (tables) Object.assign(inputs, ropeInputs(tables(l), n, spec));
    const mask = headMask(plan.ablate, l, H); // its zero ablations
    if (mask) inputs.headMask = mask;
    const own = layerEdits(plan.edits, l, spec)?.tensor.data;
    const patched = patchEditRows(plan.patches, l, spec);
    const ablated = [...(hooks.ablationRows?.get(l) ?? [])];
    const outputs = { ...layerOutputs(spec, n, { weights: plan.attentions, capture }), ...hooks.outputs?.(l) };
    const dims = { ...modelDims(spec, n, l), ...addresses };
    const call = (edit, wanted) => {
      if (edit) inputs.edits = edit.tensor;
      else delete inputs.edits;
      return runLayer(engine.call, spec, n, {
        inputs,
        dims: { ...dims, editCount: edit?.count ?? 0 },
        outputs: wanted,
        causal: spec.choices.causal,
        editedSteps: edit?.steps ?? 0,
      });
    };
    const meanOwn = plan.ablate.filter((a) => a.layer === l && a.mode === 'mean' && !a.reference);
    if (meanOwn.length) {
      // the heads' outputs of this run as it goes (its patches of headOutput come after an ablation): then each mean
      const early =
        patched &&
        patchEditRows(
          plan.patches.filter((p) => p.step !== 'headOutput'),
          l,
          spec,
        );
      const pass = call(editInput([own, ...ablated, early?.data].filter(Boolean)), {
        output: [n, spec.dModel],
        heads: [H, n, dK],
      });
      for (const { head } of meanOwn)
        ablated.push(headOutputRows(head, ablationValues('mean', pass.heads, head, n, dK), n, dK));
    }
    const result = call(editInput([own, ...ablated, patched?.data].filter(Boolean)), outputs);
    hidden = result.output;
    hiddenStates.push(hidden);
    if (plan.attentions) attentions.push(result.weights);
    const layerWeights = { inputs, addresses, entries: layers[l] };
    if (capture) {
      const W = outputMatrix(layerWeights, layers[l], engine.heap);
      const rows = Array.from({ length: n }, (_, i) => i);
      const results = new Map(
        heads.map((h) => [
          h,
          new Tensor(Float32Array.from(headResultRows(result.heads, h, W, spec, rows)), [n, spec.dModel]),
        ]),
      );
      captured.set(l, { ...result, input: hiddenStates[l], headResults: results });
    }
    hooks.layer?.(l, result, layerWeights);
    if (hooks.pause && l < layers.length - 1) await hooks.pause();
  }
  const final = whole && tensors.final.length ? await engine.final(hidden, ctx) : null;
  const last = hidden;
  // The last hidden state is after a final norm (GPT-2's ln_f, LLaMA's norm); BERT's final rows are its masked-LM
  // head's transform, which hiddenStates do not hold.
  if (final && spec.choices.finalNorm) hiddenStates[hiddenStates.length - 1] = final;
  const logits =
    whole && wantLogits && tensors.head
      ? await engine.logits(pickRows(final ?? hidden, plan.loss ? null : plan.logitRows), ctx)
      : null;
  engine.progress('done', undefined, ctx);
  engine.flush(); // a web source's cache is written now, after the run
  return { hiddenStates, attentions, captured, last, final, logits };
}
