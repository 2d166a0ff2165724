// tokenizer.json files of the two kinds the fixtures' models use, in the format of the Hub's (the Hugging Face
// tokenizers library's serialization): BERT's WordPiece and GPT-2's byte-level BPE, over tiny vocabularies.

const special = (content, id) => ({
  id,
  content,
  single_word: false,
  lstrip: false,
  rstrip: false,
  normalized: false,
  special: true,
});

/** BERT's tokenizer.json (WordPiece, lower case, [CLS] … [SEP]) over `words` after the five special tokens. */
export function wordPieceTokenizer(words) {
  const specials = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]'];
  const vocab = Object.fromEntries([...specials, ...words].map((token, id) => [token, id]));
  const around = (name) => ({ SpecialToken: { id: name, type_id: 0 } });
  return JSON.stringify({
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: specials.map(special),
    normalizer: {
      type: 'BertNormalizer',
      clean_text: true,
      handle_chinese_chars: true,
      strip_accents: null,
      lowercase: true,
    },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [around('[CLS]'), { Sequence: { id: 'A', type_id: 0 } }, around('[SEP]')],
      pair: [
        around('[CLS]'),
        { Sequence: { id: 'A', type_id: 0 } },
        around('[SEP]'),
        { Sequence: { id: 'B', type_id: 1 } },
        around('[SEP]'),
      ],
      special_tokens: {
        '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] },
        '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] },
      },
    },
    decoder: { type: 'WordPiece', prefix: '##', cleanup: true },
    model: {
      type: 'WordPiece',
      unk_token: '[UNK]',
      continuing_subword_prefix: '##',
      max_input_chars_per_word: 100,
      vocab,
    },
  });
}

/**
 * GPT-2's tokenizer.json (byte-level BPE): the 256 byte characters as ids 0-255, then one id per merge, then
 * <|endoftext|>. Its vocabulary is 257 + merges.length.
 */
export function byteLevelTokenizer(merges) {
  const printable = (b) => (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255);
  let shifted = 0;
  const chars = Array.from({ length: 256 }, (_, b) => String.fromCharCode(printable(b) ? b : 256 + shifted++));
  const vocab = Object.fromEntries(chars.map((c, id) => [c, id]));
  for (const merge of merges) vocab[merge.replace(' ', '')] = Object.keys(vocab).length;
  const end = Object.keys(vocab).length;
  vocab['<|endoftext|>'] = end;
  const byteLevel = { type: 'ByteLevel', add_prefix_space: false, trim_offsets: true, use_regex: true };
  return JSON.stringify({
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [{ ...special('<|endoftext|>', end), normalized: true }],
    normalizer: null,
    pre_tokenizer: byteLevel,
    post_processor: byteLevel,
    decoder: byteLevel,
    model: {
      type: 'BPE',
      dropout: null,
      unk_token: null,
      continuing_subword_prefix: '',
      end_of_word_suffix: '',
      fuse_unk: false,
      byte_fallback: false,
      vocab,
      merges,
    },
  });
}
