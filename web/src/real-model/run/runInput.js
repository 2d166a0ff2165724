// What the real model runs on: the sentence, or the token ids typed (a folder without tokenizer.json), with one token
// masked for BERT: a token clicked, or [MASK] typed among the ids. Pure: no DOM.

/**
 * The [MASK] id of BERT's published English vocabularies (bert-base and bert-large, uncased: 30 522 tokens; cased:
 * 28 996), offered for a folder without tokenizer.json; -1 for another vocabulary (the reader types it).
 */
export const knownMaskId = (vocabSize) => (vocabSize === 30522 || vocabSize === 28996 ? 103 : -1);

/** The ids typed: whole numbers, and [MASK] as `maskId` (left out while it is not known), in order. */
export function typedIds(text, maskId) {
  const ids = [];
  for (const word of String(text).match(/\[mask\]|\d+/giu) ?? []) {
    if (/^\d+$/u.test(word)) ids.push(Number(word));
    else if (maskId >= 0) ids.push(maskId);
  }
  return ids;
}

/**
 * The run's input and its key (the same key, the same run): the text, or the ids typed when `model` has no tokenizer;
 * with the token at `masked` (-1: none) of the last run's ids (`lastIds`) replaced by `maskId` (BERT, a token
 * clicked).
 * @param {{ hasTokenizer: boolean }} model
 * @param {{ masked: number, lastIds?: number[] | null }} shown
 * @returns {{ input: string | { ids: number[] }, key: string }}
 */
export function runInput(text, { hasTokenizer }, { masked, lastIds }, maskId) {
  if (masked >= 0 && lastIds && maskId >= 0) {
    const ids = lastIds.slice();
    ids[masked] = maskId;
    return { input: { ids }, key: `${text}|${masked}|${maskId}` };
  }
  if (!hasTokenizer) return { input: { ids: typedIds(text, maskId) }, key: `${text}|${maskId}` };
  return { input: text, key: text };
}
