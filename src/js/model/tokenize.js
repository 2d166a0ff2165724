// Text into tokens with the folder's tokenizer.json (tokenizer.js), one code path for model.tokenize(text) and for
// the text that run, generate and the instruments take (run-plan.js's readRunInput): the same ids, with the
// tokenizer's own special tokens (BERT's [CLS] … [SEP]) where it adds them, and the same token strings.
import { AttentionError, describe } from '../errors.js';

/**
 * The tokenizer's encoding of `text`: { ids, tokens, rawTokens }, or BAD_OPTION when the folder has no
 * tokenizer.json, its message ending with `instead` (what to pass instead).
 * @param {string} text
 * @param {{ encode: (text: string) => { ids: number[], tokens: string[], rawTokens: string[] } } | null} tokenizer
 * @param {string} instead
 */
export function encodeText(text, tokenizer, instead) {
  if (!tokenizer) throw new AttentionError('BAD_OPTION', `the model folder has no tokenizer.json: ${instead}`);
  return tokenizer.encode(text);
}

/**
 * model.tokenize(text) (model.js has its doc block): the ids and tokens that run(text) computes on, one per position,
 * not checked against the model (run refuses ids outside config.json's vocabulary, and more than its positions).
 * @returns {{ ids: number[], tokens: string[], rawTokens: string[] }}
 */
export function tokenize(text, tokenizer) {
  if (typeof text !== 'string') {
    throw new AttentionError('BAD_OPTION', `tokenize takes text, a string, but got ${describe(text)}`);
  }
  const { ids, tokens, rawTokens } = encodeText(
    text,
    tokenizer,
    'tokenize reads text with it; run and the instruments take token ids, { ids: [...] }',
  );
  return { ids, tokens, rawTokens };
}
