// What the instruments (unembed, attribute, headScores, patchSweep) share in reading their options: a target of one
// or two token ids, a token position, a plain run plan. Everything is read and checked before anything is read from
// the checkpoint.
import { AttentionError, describe } from '../errors.js';
import { readRunPlan } from './run-plan.js';

const bad = (message) => new AttentionError('BAD_OPTION', message);

/** `target`: [a] (the logit of a) or [a, b] (logit a − logit b), ids of the vocabulary. @returns {number[]} */
export function readTarget(target, spec, where, also = '') {
  if (!Array.isArray(target) || target.length < 1 || target.length > 2) {
    throw bad(`${where}: target must be [a] or [a, b] (token ids)${also ? ` ${also}` : ''}, got ${describe(target)}`);
  }
  target.forEach((id, i) => {
    if (!Number.isInteger(id) || id < 0 || id >= spec.vocabSize) {
      throw bad(`${where}: target[${i}] is ${describe(id)}, not a token id of the vocabulary [0, ${spec.vocabSize})`);
    }
  });
  return target.slice();
}

/** `position`: a token of the n run (default the last). */
export function readPosition(position, n, where) {
  if (position === undefined) return n - 1;
  if (!Number.isInteger(position) || position < 0 || position >= n) {
    throw bad(`${where}: position ${describe(position)} is not a token of the input (0 to ${n - 1})`);
  }
  return position;
}

/** Throws UNSUPPORTED_MODEL unless the model has a linear LM head after a final norm (not BERT's masked-LM head). */
export function requireLinearHead(engine, what) {
  const { spec, tensors } = engine;
  if (!tensors.head) throw new AttentionError('UNSUPPORTED_MODEL', `${what}: this model has no LM head`);
  if (spec.choices.maskedLm || !spec.choices.finalNorm) {
    throw new AttentionError(
      'UNSUPPORTED_MODEL',
      `${what}: ${spec.labels?.family ?? spec.family}'s masked-LM head is not linear (a dense layer, an activation and a norm before the decoder), so its logits do not split into parts`,
    );
  }
}

/** A plain run's plan of `input` that returns none of its results but the logits of `position` (or none). */
export function plainPlan(input, engine, { position, signal, ablate } = {}) {
  const options = { attentions: false, hiddenStates: false, logits: false, signal, ablate };
  const plan = readRunPlan(input, options, engine.spec, engine.tokenizer);
  if (position !== undefined) Object.assign(plan, { logits: [position], logitRows: [position] });
  return plan;
}

/** The metric of a run's logits [1, V] (the row of the position): logit a, or logit a − logit b, in float64. */
export const logitMetric = (logits, [a, b]) => logits.data[a] - (b === undefined ? 0 : logits.data[b]);
