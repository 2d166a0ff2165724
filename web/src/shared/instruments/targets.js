// The tokens an instrument is about, typed by a person: a token id, or a word the vocabulary holds as one token
// (" Mary" with its leading space as GPT-2's Ġ or SentencePiece's ▁, "mary" as the shipped model's lower-cased words).
// Pure: no DOM; what is typed is only compared, never shown as markup.

/** The vocabulary's tokens (id → raw token) as a lookup: raw token → id (the first id of a token written twice). */
export function tokenIndex(vocab) {
  const index = new Map();
  vocab.forEach((token, id) => {
    if (typeof token === 'string' && !index.has(token)) index.set(token, id);
  });
  return index;
}

/** The spellings tried for a word typed, in order: as typed, then with a leading space marker, then lower-cased. */
function spellings(text) {
  const word = text.trim();
  const spaced = [`Ġ${word}`, `▁${word}`];
  const first = /^\s/u.test(text) ? [...spaced, word] : [word, ...spaced];
  const lower = word.toLowerCase();
  return [...first, ...(lower === word ? [] : [lower, `Ġ${lower}`, `▁${lower}`])];
}

/**
 * A token typed: its id, or why it is not one.
 * @param {string} text  an id (digits) or a word
 * @param {Map<string, number>} index  tokenIndex(vocab)
 * @param {number} vocabSize
 * @returns {{ id: number } | { problem: string }}
 */
export function readToken(text, index, vocabSize) {
  const word = text.trim();
  if (!word) return { problem: 'Type a token: a word the vocabulary holds, or its id.' };
  if (/^\d{1,9}$/u.test(word)) {
    const id = Number(word);
    return id < vocabSize
      ? { id }
      : { problem: `Token id ${id} is not in this vocabulary (ids 0 to ${vocabSize - 1}).` };
  }
  for (const spelling of spellings(text)) {
    const id = index.get(spelling);
    if (id !== undefined && id < vocabSize) return { id };
  }
  return {
    problem: index.size
      ? `“${word}” is not one token of this vocabulary: type a word it holds as one token, or a token id.`
      : `This model has no tokenizer.json: type a token id (0 to ${vocabSize - 1}).`,
  };
}

/**
 * The target of an attribution or a sweep: token a alone, or a − b, from the two fields typed (b empty: a alone; a
 * empty: `fallback`, the predicted token).
 * @returns {{ target: number[] } | { problem: string }}
 */
export function readTarget(aText, bText, index, vocabSize, fallback) {
  const a = aText.trim() ? readToken(aText, index, vocabSize) : { id: fallback };
  if ('problem' in a) return { problem: `Token a: ${a.problem}` };
  if (!bText.trim()) return { target: [a.id] };
  const b = readToken(bText, index, vocabSize);
  if ('problem' in b) return { problem: `Token b: ${b.problem}` };
  if (b.id === a.id) return { problem: 'Tokens a and b are the same token: their difference is 0 everywhere.' };
  return { target: [a.id, b.id] };
}

/** A target in words: “ball” or “ball” − “wolf” (name: a token as shown). */
export function targetText(target, name) {
  return target.map((id) => `“${name(id)}”`).join(' − ');
}
