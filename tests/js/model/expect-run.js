// The check the edits' and the instruments' tests share: a run's attentions, hidden states and logits against the
// float64 reference's (reference.js's referenceForward, or a forward with edits or patches), within its tolerances.
import { expectClose } from '../reference.js';
import { VALUES, WEIGHTS } from './reference.js';

/** Expects run result `r` to hold the reference forward `ref`'s attentions, hidden states and logits. */
export function expectLikeReference(r, ref, what) {
  r.attentions.forEach((a, l) =>
    expectClose(a.data, ref.attentions[l], { ...WEIGHTS, what: `${what}: attentions[${l}]` }),
  );
  r.hiddenStates.forEach((h, l) =>
    expectClose(h.data, ref.hiddenStates[l], { ...VALUES, what: `${what}: hiddenStates[${l}]` }),
  );
  expectClose(r.logits.data, ref.logits, { ...VALUES, what: `${what}: logits` });
}
