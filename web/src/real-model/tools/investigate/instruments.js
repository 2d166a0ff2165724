// The Investigate part's calls to attention-wasm/model's instruments, on the session's model and sentence: the logit
// lens of a run's hidden states, the attribution, the head detectors, the loss, a patching sweep's prompts, the run
// as .npz. No DOM: the part (investigate.js) draws what these return.
import { INDUCTION_SENTENCE } from '../../realModel.js';
import { SCORE_KINDS, repeatedSequences } from '../../../shared/instruments/headScores.js';

/** A prompt typed: text for a model with a tokenizer.json, else the ids typed. */
export function promptOf(model, text) {
  return model.hasTokenizer ? text : { ids: text.trim().split(/\s+/u).filter(Boolean).map(Number) };
}

/** The corrupted prompt offered first: the lesson's sentence with its first “red” changed, else the sentence. */
export function defaultCorrupted(text) {
  return text === INDUCTION_SENTENCE ? text.replace('a red ball', 'a green ball') : text;
}

/**
 * The logit lens of run `r`: model.unembed of every hidden state (the final one is already normed: unembedded as is).
 * @returns {Promise<object[]>} [n, V] per residual, the embeddings first
 */
export async function lensLogits(model, r, signal) {
  const states = r.hiddenStates;
  const last = states.length - 1;
  const out = [];
  for (let l = 0; l <= last; l++) out.push(await model.unembed(states[l], { norm: l < last, signal }));
  return out;
}

/** The three detectors' [L, H] scores on `ids` (one sequence or several), as a record by kind. */
export async function headScores(model, ids, options) {
  const scores = {};
  for (const { kind } of SCORE_KINDS) scores[kind] = await model.headScores(kind, { ids, ...options });
  return scores;
}

/** The detectors' sequences: the sentence's ids, or random tokens repeated (headScores.js's repeatedSequences). */
export const scoreIds = (model, which, sentenceIds) =>
  which === 'repeated' ? repeatedSequences(model.spec.vocabSize) : sentenceIds;

/** The run with every output for a download or the loss: the sentence with the heads switched off as they are. */
export function fullRun(session, { signal, loss }) {
  const { input } = session.input();
  const ablate = session.ablateOptions();
  return session.model.run(input, { ablate, edits: session.edits, loss, signal });
}

/** One prompt's tokens and top next token, for a sweep's lengths and targets (no attentions kept). */
export async function promptRun(model, prompt, signal) {
  const r = await model.run(prompt, { logits: 'last', topK: 1, attentions: false, hiddenStates: false, signal });
  return { ids: r.ids, tokens: r.tokens ?? r.ids.map(String), top: r.next[0].id };
}
