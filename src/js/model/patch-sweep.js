// model.patchSweep({ clean, corrupted, target, step, position }): activation patching over the model, as
// TransformerLens's patching.py (get_act_patch_resid_pre, get_act_patch_attn_out, get_act_patch_mlp_out,
// get_act_patch_attn_head_out_all_pos). Each cell writes the clean run's activation of `step` into the corrupted run,
// right after the forward computes it, and scores (m − m_corrupted) / (m_clean − m_corrupted), m = logit[position][a]
// − logit[position][b] (or logit a alone):
//   'input' (resid_pre), 'output' (attn_out), 'mlpOutput' (mlp_out)   one layer at one token position: [L, n]
//   'headOutput' (z)                                                  one head at every position: [L, H]
// A cell runs from its layer only (the corrupted run's input of that layer), and only the metric's row of the LM head.
import { AttentionError, describe } from '../errors.js';
import { readRecord } from '../read.js';
import { Tensor } from '../tensor.js';
import { made } from './calls.js';
import { forwardPass } from './forward-pass.js';
import { logitMetric, plainPlan, readPosition, readTarget } from './instrument-options.js';
import { readRunInput } from './run-plan.js';
import { readStep } from './patches.js';

/** The steps a sweep patches, and the layer call's output that holds each (the clean run's). */
export const SWEEP_STEPS = Object.freeze(['input', 'output', 'mlpOutput', 'headOutput']);
const OUTPUT_OF = { output: 'attentionOutput', mlpOutput: 'mlpOutput', headOutput: 'heads' };

/** The sweep's options, read and checked: { clean, corrupted (plans), target, step, position, onProgress }. */
export function readSweep(engine, options) {
  const { spec, tokenizer } = engine;
  const o = readRecord(
    options,
    'patchSweep options',
    ['clean', 'corrupted', 'target', 'step', 'position', 'signal', 'onProgress'],
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
  const target = readTarget(o.target, spec, 'patchSweep');
  const position = readPosition(o.position, clean.ids.length, 'patchSweep');
  if (o.onProgress !== undefined && typeof o.onProgress !== 'function') {
    throw new AttentionError('BAD_OPTION', `patchSweep: onProgress must be a function, got ${describe(o.onProgress)}`);
  }
  if (!engine.tensors.head) throw new AttentionError('UNSUPPORTED_MODEL', 'patchSweep: this model has no LM head');
  const plan = (input) => plainPlan({ ids: input.ids }, engine, { position, signal: o.signal });
  return { clean: plan(clean), corrupted: plan(corrupted), target, step: o.step, position, onProgress: o.onProgress };
}

/**
 * @param {object} engine  the model's parts (model.js)
 * @returns {Promise<{ scores: Tensor, clean: number, corrupted: number }>}  scores [L, n] or [L, H]
 */
export async function patchSweep(engine, options) {
  const sweep = readSweep(engine, options);
  const { spec } = engine;
  const { step, target, onProgress } = sweep;
  const { n } = sweep.clean;
  const { numLayers: L, numHeads: H, headDim: dK, dModel: d } = spec;
  // the clean run's activation of `step` at every layer
  const activations = [];
  const name = OUTPUT_OF[step];
  const shape = step === 'headOutput' ? [H, n, dK] : [n, d];
  const clean = await forwardPass(engine, sweep.clean, {
    outputs: () => (name ? { [name]: shape } : {}),
    layer: (l, result) => name && (activations[l] = result[name].data),
  });
  if (!name) for (let l = 0; l < L; l++) activations[l] = clean.hiddenStates[l].data;
  const corrupted = await forwardPass(engine, sweep.corrupted);
  const mClean = logitMetric(clean.logits, target);
  const mCorrupted = logitMetric(corrupted.logits, target);
  const columns = step === 'headOutput' ? H : n;
  const scores = new Tensor(new Float32Array(L * columns).fill(NaN), [L, columns]);
  const cell = async (layer, column) => {
    const state = corrupted.hiddenStates[layer];
    const patch =
      step === 'headOutput'
        ? { layer, head: column, step, rows: Array.from({ length: n }, (_, i) => i), cols: dK }
        : { layer, step, rows: [column], cols: d };
    patch.data =
      step === 'headOutput' ? activations[layer].subarray(column * n * dK, (column + 1) * n * dK) : activations[layer];
    const from = { layer, hidden: made(state.data, state.shape, `hiddenStates[${layer}]`), tensor: state };
    const plan = { ...sweep.corrupted, from, first: layer, patches: [patch] };
    const { logits } = await forwardPass(engine, plan);
    return (logitMetric(logits, target) - mCorrupted) / (mClean - mCorrupted);
  };
  let done = 0;
  for (let layer = 0; layer < L; layer++) {
    for (let column = 0; column < columns; column++) {
      scores.data[layer * columns + column] = await cell(layer, column);
      done++;
    }
    onProgress?.({ phase: 'patch', layer, done, total: L * columns, scores });
  }
  return { scores, clean: mClean, corrupted: mCorrupted };
}
