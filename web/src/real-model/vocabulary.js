// What a model's vocabulary knows, without the page: its unknown token (<unk>, [UNK]) and the words of a sentence
// that became it, and the vocabulary as a list to look through. Pure: no DOM.

/**
 * The tokenizer's unknown token as { id, token }, or null when it has none (byte-level BPE, as GPT-2's, never needs
 * one). `json`: tokenizer.json's object; `names`: its vocabulary id → token (realModel.js's vocabulary).
 */
export function unknownToken(json, names) {
  const token = json?.model?.unk_token;
  if (typeof token !== 'string' || !token) return null;
  const id = names.indexOf(token);
  return id < 0 ? null : { id, token };
}

/**
 * How the tokenizer cuts a sentence into words before its vocabulary is looked up, for the pre-tokenizers whose
 * words a page can find again (WordPiece's): Whitespace (letters and digits, or a run of other signs) and BERT's (each
 * sign alone). Null for the others.
 */
function wordPattern(json) {
  const type = json?.pre_tokenizer?.type;
  if (type === 'Whitespace') return /[\p{L}\p{N}\p{M}_]+|[^\p{L}\p{N}\p{M}_\s]+/gu;
  if (type === 'BertPreTokenizer') return /[\p{L}\p{N}\p{M}_]+|[^\p{L}\p{N}\p{M}_\s]/gu;
  return null;
}

/**
 * The sentence's words that became the unknown token, by token: [i] is the word token i stands for when it is the
 * unknown token (the word as typed), '' when it is one whose word cannot be found again, and null for every other
 * token. A WordPiece word is one token, or a first token and its ##continuations; special tokens ([CLS], [SEP]) stand
 * for no word. `rawTokens`: the tokens as the vocabulary spells them (model.run's rawTokens).
 * @returns {(string | null)[]}
 */
export function unknownWords(text, rawTokens, json, unknown) {
  if (!unknown) return rawTokens.map(() => null);
  const special = new Set((json?.added_tokens ?? []).filter((t) => t?.special).map((t) => String(t.content)));
  special.delete(unknown.token);
  const pattern = wordPattern(json);
  const words = pattern ? (String(text).match(pattern) ?? []) : null;
  const starts = rawTokens.filter((t) => !special.has(t) && !String(t).startsWith('##')).length;
  const aligned = words !== null && words.length === starts;
  let word = -1;
  return rawTokens.map((token) => {
    if (special.has(token)) return null;
    if (!String(token).startsWith('##')) word++;
    if (token !== unknown.token) return null;
    return aligned ? words[word] : '';
  });
}

/**
 * The entries of a vocabulary to show: every token (special ones first, then the others alphabetically) whose text
 * contains `filter` (case-insensitive), at most `limit` of them, and how many matched.
 * @param {string[]} names  id → token
 * @returns {{ shown: { id: number, token: string, special: boolean }[], matched: number }}
 */
export function vocabularyEntries(names, specials, filter = '', limit = 400) {
  const wanted = filter.trim().toLowerCase();
  const all = [];
  names.forEach((token, id) => {
    if (token === undefined || (wanted && !token.toLowerCase().includes(wanted))) return;
    all.push({ id, token, special: specials.has(token) });
  });
  all.sort((a, b) => Number(b.special) - Number(a.special) || (a.token < b.token ? -1 : a.token > b.token ? 1 : 0));
  return { shown: all.slice(0, limit), matched: all.length };
}

/**
 * The sentence under the tokens when some words are not in the vocabulary: how many, which, and what the model reads
 * instead. `words`: unknownWords' list. Empty when every word is known.
 */
export function unknownText(words, unknown, size) {
  const marked = words.filter((w) => w !== null);
  if (!marked.length || !unknown) return '';
  const named = marked.filter(Boolean);
  const list = named.length ? `: ${[...new Set(named)].map((w) => `“${w}”`).join(', ')}` : '';
  const count = marked.length === 1 ? 'One word is' : `${marked.length} words are`;
  return `${count} not in this model's vocabulary of ${size} tokens${list}. The model reads each as ${unknown.token} (id ${unknown.id}), all alike, so it cannot tell them apart: they are marked in the tokens. Its vocabulary is listed below.`;
}
