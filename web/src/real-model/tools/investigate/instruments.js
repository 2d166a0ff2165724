// The Investigate part's calls to attention-wasm/model's instruments, on the session's model and sentence: the logit
// lens of a run's hidden states, the attribution, the head detectors, the loss, a patching sweep's prompts, the run
// as .npz. No DOM: the part (investigate.js) draws what these return.
import { INDUCTION_SENTENCE } from '../../realModel.js';
import { repeatedSequences } from '../../../shared/instruments/headScores.js';

// The calls the elements make too: in shared/instruments/ (pure), used from here by the page.
export { allHeadScores as headScores } from '../../../shared/instruments/headScores.js';
export { lensLogits } from '../../../shared/instruments/lens.js';
export { promptOf, promptRun } from '../../../shared/instruments/patching.js';

/** The corrupted prompt offered first: the lesson's sentence with its first “red” changed, else the sentence. */
export function defaultCorrupted(text) {
  return text === INDUCTION_SENTENCE ? text.replace('a red ball', 'a green ball') : text;
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
