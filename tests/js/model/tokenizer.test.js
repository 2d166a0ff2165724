// Text in: a model folder's tokenizer.json (read with @huggingface/tokenizers) turns run('…')'s text into the ids
// the tokenizer gives, with the tokens in the tokenizer's own form and readable (no ##, Ġ as a space), and the
// next tokens named; the same forward as run({ ids }). A tokenizer.json of a kind it cannot read is refused at load.
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/js/model/index.js';
import { bertFixture, gpt2Fixture } from './fixtures.js';
import { byteLevelTokenizer, wordPieceTokenizer } from './tokenizers.js';

const WORDS = ['the', 'cat', 'sat', 'on', 'mat', '##s', 'dog', '.', 'a']; // ids 5 … 13 after the 5 special tokens

describe('run(text) with the folder’s tokenizer.json', () => {
  it('BERT (WordPiece): [CLS] … [SEP], ## continuations readable, the same forward as the ids', async () => {
    const fixture = bertFixture({ vocab: 19 });
    const model = await loadModel({ ...fixture.files, 'tokenizer.json': wordPieceTokenizer(WORDS) });
    expect(model.hasTokenizer).toBe(true);
    const r = await model.run('The cats sat on the mat.');
    expect(r.ids).toEqual([2, 5, 6, 10, 7, 8, 5, 9, 12, 3]);
    expect(r.rawTokens).toEqual(['[CLS]', 'the', 'cat', '##s', 'sat', 'on', 'the', 'mat', '.', '[SEP]']);
    expect(r.tokens).toEqual(['[CLS]', 'the', 'cat', 's', 'sat', 'on', 'the', 'mat', '.', '[SEP]']);
    const byIds = await model.run({ ids: r.ids });
    expect(byIds.tokens).toEqual(r.tokens);
    expect(r.logits.data).toEqual(byIds.logits.data);
    const vocab = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', '[MASK]', ...WORDS].map((t) => t.replace(/^##/, ''));
    for (const { id, token } of r.next) if (id < vocab.length) expect(token).toBe(vocab[id]);
    expect(typeof r.next[0].token).toBe('string');
  });

  it('GPT-2 (byte-level BPE): merges applied, Ġ read as a space, bytes of a character apart', async () => {
    const merges = ['Ġ t', 'Ġt h', 'Ġth e', 'c a', 'ca t'];
    const fixture = gpt2Fixture({ vocab: 262 }); // 256 bytes + 5 merges + <|endoftext|>
    const model = await loadModel({ ...fixture.files, 'tokenizer.json': byteLevelTokenizer(merges) });
    const r = await model.run('cat the cat');
    expect(r.rawTokens).toEqual(['cat', 'Ġthe', 'Ġ', 'cat']);
    expect(r.tokens).toEqual(['cat', ' the', ' ', 'cat']);
    expect(r.ids).toEqual([260, 258, 32, 260]); // Ġ is the byte of a space
    expect((await model.run({ ids: r.ids })).logits.data).toEqual(r.logits.data);
  });

  it('without tokenizer.json text is BAD_OPTION; an unreadable one is refused at load', async () => {
    const fixture = gpt2Fixture();
    const plain = await loadModel(fixture.files);
    expect(plain.hasTokenizer).toBe(false);
    await expect(plain.run('the cat')).rejects.toMatchObject({
      code: 'BAD_OPTION',
      message: expect.stringMatching(/no tokenizer\.json/),
    });
    const odd = JSON.stringify({ model: { type: 'Unigramish', vocab: [] }, decoder: null, normalizer: null });
    await expect(loadModel({ ...fixture.files, 'tokenizer.json': odd })).rejects.toMatchObject({
      code: 'UNSUPPORTED_MODEL',
      message: expect.stringMatching(/^tokenizer\.json \(model "Unigramish"\) cannot be read/),
    });
    await expect(loadModel({ ...fixture.files, 'tokenizer.json': '{"model": ' })).rejects.toMatchObject({
      code: 'BAD_FILE',
      message: expect.stringMatching(/^tokenizer\.json is not JSON/),
    });
  });

  it('ids the tokenizer gives beyond config.json’s vocabulary are named as the tokenizer’s', async () => {
    const fixture = gpt2Fixture({ vocab: 23 });
    const model = await loadModel({ ...fixture.files, 'tokenizer.json': byteLevelTokenizer([]) });
    await expect(model.run('hi')).rejects.toMatchObject({
      code: 'BAD_OPTION',
      message: expect.stringMatching(/the tokenizer’s ids\[0\] is 104, outside the vocabulary \[0, 23\)/),
    });
  });
});
