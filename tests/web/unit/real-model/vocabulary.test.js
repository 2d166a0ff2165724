// The real model's vocabulary without the page: its unknown token, the words that became it, the list looked
// through, and the lesson's first paragraph following the run.
import { describe, expect, it } from 'vitest';
import {
  unknownText,
  unknownToken,
  unknownWords,
  vocabularyEntries,
} from '../../../../web/src/real-model/vocabulary.js';
import { INDUCTION_SENTENCE, lessonLead, vocabulary } from '../../../../web/src/real-model/realModel.js';

const special = (content, id) => ({ id, content, special: true });
const wordLevel = {
  pre_tokenizer: { type: 'Whitespace' },
  added_tokens: [special('<|endoftext|>', 0), special('<unk>', 1)],
  model: { type: 'WordPiece', unk_token: '<unk>', vocab: { '<|endoftext|>': 0, '<unk>': 1, the: 2, cat: 3, '.': 4 } },
};
const bert = {
  pre_tokenizer: { type: 'BertPreTokenizer' },
  added_tokens: ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'].map(special),
  model: { type: 'WordPiece', unk_token: '[UNK]', vocab: { '[PAD]': 0, '[UNK]': 1, '[CLS]': 2, '[SEP]': 3, sat: 5 } },
};

describe('real model: words outside the vocabulary', () => {
  it('finds the unknown token, or none (byte-level BPE has none)', () => {
    expect(unknownToken(wordLevel, vocabulary(wordLevel))).toEqual({ id: 1, token: '<unk>' });
    expect(unknownToken({ model: { type: 'BPE', unk_token: null, vocab: { a: 0 } } }, ['a'])).toBe(null);
    expect(unknownToken(null, [])).toBe(null);
  });

  it('names the word typed for each unknown token, as the pre-tokenizer cut the sentence', () => {
    const unknown = unknownToken(wordLevel, vocabulary(wordLevel));
    const raw = ['the', '<unk>', 'cat', '<unk>', '.', '<unk>'];
    expect(unknownWords('The Quick cat jumps... Ünïcode', raw, wordLevel, unknown)).toEqual([
      null,
      'Quick',
      null,
      'jumps',
      null,
      'Ünïcode',
    ]);
    // BERT: [CLS] and [SEP] stand for no word, ##pieces continue one, each sign is a word of its own.
    const unk = unknownToken(bert, vocabulary(bert));
    const tokens = ['[CLS]', 'sat', '##s', '[UNK]', '[UNK]', '[SEP]'];
    expect(unknownWords('sats zzz!', tokens, bert, unk)).toEqual([null, null, null, 'zzz', '!', null]);
  });

  it('marks an unknown token without a word when the words cannot be found again', () => {
    const unknown = unknownToken(wordLevel, vocabulary(wordLevel));
    expect(unknownWords('the', ['the', '<unk>'], wordLevel, unknown)).toEqual([null, '']);
    const other = { ...wordLevel, pre_tokenizer: { type: 'Metaspace' } };
    expect(unknownWords('the x', ['the', '<unk>'], other, unknown)).toEqual([null, '']);
    expect(unknownWords('the x', ['the', 'x'], wordLevel, null)).toEqual([null, null]);
  });

  it('says how many words, which, and what the model reads instead', () => {
    const unknown = { id: 1, token: '<unk>' };
    expect(unknownText([null, 'dog', null, 'dog', 'barked'], unknown, 320)).toBe(
      "3 words are not in this model's vocabulary of 320 tokens: “dog”, “barked”. The model reads each as <unk> (id 1), all alike, so it cannot tell them apart: they are marked in the tokens. Its vocabulary is listed below.",
    );
    expect(unknownText([''], unknown, 9)).toMatch(/^One word is not in this model's vocabulary of 9 tokens\. /u);
    expect(unknownText([null, null], unknown, 9)).toBe('');
  });

  it('lists the vocabulary: special tokens first, then alphabetically, filtered and cut', () => {
    const names = ['the', '<unk>', 'cat', 'ball', undefined, 'Bat'];
    const all = vocabularyEntries(names, new Set(['<unk>']));
    expect(all.shown.map((e) => e.token)).toEqual(['<unk>', 'Bat', 'ball', 'cat', 'the']);
    expect(all.shown[0]).toEqual({ id: 1, token: '<unk>', special: true });
    expect(vocabularyEntries(names, new Set(), 'BA')).toEqual({
      shown: [
        { id: 5, token: 'Bat', special: false },
        { id: 3, token: 'ball', special: false },
      ],
      matched: 2,
    });
    expect(vocabularyEntries(names, new Set(), '', 2)).toMatchObject({ matched: 5, shown: [{}, {}] });
  });
});

describe('real model: the lesson follows the run', () => {
  it('gives the run’s word and p on the lesson’s sentence, and another sentence its own', () => {
    expect(lessonLead(INDUCTION_SENTENCE, { word: 'ball', p: 0.1174 })).toMatch(
      /so the model predicts “ball” again \(the top word, p ≈ 0\.12\)\.$/u,
    );
    expect(lessonLead(`  ${INDUCTION_SENTENCE} `, { word: 'tree', p: 0.3 })).toMatch(/predicts “tree” \(not “ball”\)/u);
    const other = lessonLead('the dog ran', { word: '.', p: 0.004 });
    expect(other).toMatch(/For this sentence its top next word is “\.” \(p ≈ 0\.004\)\./u);
    expect(other).not.toMatch(/0\.12/u);
    expect(other).toContain(`The lesson’s sentence, “${INDUCTION_SENTENCE}”`);
  });
});
