// model.run: a run plan (run-plan.js) through the forward (forward-pass.js), and its result. The ablations that take
// their values from a reference prompt ('mean' with a reference, 'resample') run that prompt first, through the layers
// they need, and become rows of those layers' edits input (ablation.js).
import { readRunPlan } from './run-plan.js';
import { forwardPass } from './forward-pass.js';
import { checkForward } from './call-sizes.js';
import { pickRows, sliceCapture, topK } from './results.js';
import { ablationValues, headOutputRows } from './ablation.js';
import { nextTokenLoss } from './loss.js';
import { withExport } from './export.js';

/**
 * The rows of each layer's edits input that the plan's reference ablations give: Map layer → [Float32Array [n·d_k, 5]].
 * One run per reference prompt, through the last layer it is needed for, its heads' outputs kept.
 */
async function ablationRows(engine, plan) {
  const rows = new Map();
  const dK = engine.spec.headDim;
  const references = referenceRuns(engine, plan);
  for (const { reference, hooks } of references) checkForward(engine, reference, hooks); // TOO_LARGE before any read
  for (const { reference, hooks, heads, entries } of references) {
    await forwardPass(engine, reference, hooks);
    for (const a of entries) {
      const values = ablationValues(a.mode, heads.get(a.layer), a.head, plan.n, dK);
      if (!rows.has(a.layer)) rows.set(a.layer, []);
      rows.get(a.layer).push(headOutputRows(a.head, values, plan.n, dK));
    }
  }
  // a layer's rows in the order of `ablate`, after its own edits (forward-pass.js)
  return rows;
}

/**
 * The runs of the reference prompts that a plan's ablations take their values from: one per prompt, through the last
 * layer it is needed for, its heads' outputs kept in `heads` (Map layer → Tensor) by its `hooks`.
 */
function referenceRuns(engine, plan) {
  const byPrompt = new Map();
  for (const a of plan.ablate) {
    if (!a.reference) continue;
    const key = a.reference.ids.join(',');
    if (!byPrompt.has(key)) byPrompt.set(key, { ids: a.reference.ids, entries: [] });
    byPrompt.get(key).entries.push(a);
  }
  const { numHeads: H, headDim: dK } = engine.spec;
  return [...byPrompt.values()].map(({ ids, entries }) => {
    const layers = new Set(entries.map((a) => a.layer));
    const options = { attentions: false, hiddenStates: false, logits: false, layers: Math.max(...layers) + 1 };
    const reference = readRunPlan({ ids }, { ...options, signal: plan.signal }, engine.spec, null);
    const heads = new Map();
    const hooks = {
      outputs: (l) => (layers.has(l) ? { heads: [H, ids.length, dK] } : {}),
      layer: (l, result) => layers.has(l) && heads.set(l, result.heads),
    };
    return { reference, hooks, heads, entries };
  });
}

/**
 * forwardPass of a plan, its reference ablations run first (the instruments' forward); every call of both sized
 * before anything is read (call-sizes.js).
 */
export async function runForward(engine, plan, hooks = {}) {
  checkForward(engine, plan, hooks);
  return forwardPass(engine, plan, { ...hooks, ablationRows: await ablationRows(engine, plan) });
}

/**
 * The result of a run plan: ids (tokens, rawTokens), attentions, hiddenStates, logits, next, captures, loss; with
 * toNpz() and toSafetensors() (export.js).
 */
export async function runModel(engine, plan, tokenizer) {
  const pass = await runForward(engine, plan);
  const all = pass.logits;
  const logits = plan.logits === false || !all ? null : plan.loss ? pickRows(all, plan.logitRows) : all;
  const { spec } = engine;
  return withExport({
    ids: plan.ids,
    ...(plan.tokens ? { tokens: plan.tokens } : {}),
    ...(plan.rawTokens ? { rawTokens: plan.rawTokens } : {}),
    ...(plan.attentions ? { attentions: pass.attentions } : {}),
    ...(plan.hiddenStates ? { hiddenStates: pass.hiddenStates } : {}),
    logits,
    next: logits && topK(logits, plan.topK, tokenizer),
    captures: plan.capture.map(({ layer, head }) => sliceCapture(pass.captured.get(layer), layer, head, spec)),
    ...(plan.loss ? { loss: nextTokenLoss(all, plan.ids) } : {}),
  });
}
