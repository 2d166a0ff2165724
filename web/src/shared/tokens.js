// Turning a sentence into tokens, and tokens into row and column labels.

/** Splits a sentence into tokens at whitespace (a word and its punctuation stay one token). */
export function tokenize(sentence) {
  return String(sentence)
    .split(/\s+/u)
    .filter((token) => token.length > 0);
}

/**
 * Labels for n rows: the sentence's tokens, then "#6", "#7"… when n is larger than the sentence.
 * @param {string[]} tokens
 * @param {number} n
 */
export function tokenLabels(tokens, n) {
  return Array.from({ length: n }, (_, i) => (i < tokens.length ? tokens[i] : `#${i + 1}`));
}

/** A label cut to `max` characters with an ellipsis, for narrow headers. */
export function shortLabel(label, max = 10) {
  const chars = Array.from(label);
  return chars.length <= max ? label : `${chars.slice(0, max - 1).join('')}…`;
}

/**
 * A model tokenizer's token as one word of the page's sentence: the marker of a leading space dropped (GPT-2's
 * byte-level "Ġ", SentencePiece's "▁" of LLaMA and T5), any space inside shown as "·", and `fallback` when nothing
 * is left (a token that was only a space).
 */
export function tokenWord(token, fallback) {
  return (
    String(token)
      .replace(/^[Ġ▁]+/u, '')
      .replace(/\s+/gu, '·') || fallback
  );
}
