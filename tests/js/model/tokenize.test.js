// model.tokenize(text): the ids and tokens run(text) computes on, with the tokenizer's special tokens where it adds
// them (BERT's [CLS] … [SEP]), read without a forward (no weight read); not checked against the model's positions or
// vocabulary (run refuses those); anything but a string, a model without tokenizer.json and a disposed model refused.
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/js/model/index.js';
import { bertFixture, gpt2Fixture } from './fixtures.js';
import { byteLevelTokenizer, wordPieceTokenizer } from './tokenizers.js';

const WORDS = ['the', 'cat', 'sat', 'on', 'mat', '##s', 'dog', '.', 'a']; // ids 5 … 13 after the 5 special tokens
const MERGES = ['Ġ t', 'Ġt h', 'Ġth e', 'c a', 'ca t']; // ids 256 … 260; <|endoftext|> 261

const bert = () => loadModel({ ...bertFixture({ vocab: 19 }).files, 'tokenizer.json': wordPieceTokenizer(WORDS) });
const gpt2 = () => loadModel({ ...gpt2Fixture({ vocab: 262 }).files, 'tokenizer.json': byteLevelTokenizer(MERGES) });

describe('model.tokenize(text)', () => {
  it('BERT (WordPiece): [CLS] … [SEP] as run adds them, ## continuations readable, no weight read', async () => {
    const model = await bert();
    const t = model.tokenize('The cats sat on the mat.');
    expect(t).toEqual({
      ids: [2, 5, 6, 10, 7, 8, 5, 9, 12, 3],
      tokens: ['[CLS]', 'the', 'cat', 's', 'sat', 'on', 'the', 'mat', '.', '[SEP]'],
      rawTokens: ['[CLS]', 'the', 'cat', '##s', 'sat', 'on', 'the', 'mat', '.', '[SEP]'],
    });
    expect(model.bytesRead).toBe(0); // tokenized without a forward
    const r = await model.run('The cats sat on the mat.');
    expect([r.ids, r.tokens, r.rawTokens]).toEqual([t.ids, t.tokens, t.rawTokens]);
    expect(model.tokenize('')).toEqual({ ids: [2, 3], tokens: ['[CLS]', '[SEP]'], rawTokens: ['[CLS]', '[SEP]'] });
    await model.dispose();
  });

  it('GPT-2 (byte-level BPE): Ġ read as a space, the ids run computes on, each call its own arrays', async () => {
    const model = await gpt2();
    const t = model.tokenize('cat the cat');
    expect(t).toEqual({
      ids: [260, 258, 32, 260],
      tokens: ['cat', ' the', ' ', 'cat'],
      rawTokens: ['cat', 'Ġthe', 'Ġ', 'cat'],
    });
    expect(model.bytesRead).toBe(0);
    const r = await model.run('cat the cat');
    expect([r.ids, r.tokens, r.rawTokens]).toEqual([t.ids, t.tokens, t.rawTokens]);
    t.ids.push(0);
    expect(model.tokenize('cat the cat').ids).toEqual([260, 258, 32, 260]);
    expect(model.tokenize('')).toEqual({ ids: [], tokens: [], rawTokens: [] });
    await model.dispose();
  });

  it('text longer than the model’s positions tokenizes whole; run refuses it', async () => {
    const model = await gpt2(); // 16 positions
    const text = 'cat'.repeat(20);
    expect(model.tokenize(text).ids).toEqual(Array(20).fill(260));
    await expect(model.run(text)).rejects.toMatchObject({ code: 'TOO_MANY_TOKENS' });
    await model.dispose();
  });

  it('anything but a string is BAD_OPTION naming it, thrown at the call', async () => {
    const model = await gpt2();
    const cases = [
      [42, 'the number 42'],
      [{ ids: [1, 2] }, 'an object'],
      [null, 'null'],
      [undefined, 'undefined'],
      [['cat'], 'an array'],
    ];
    for (const [input, named] of cases) {
      let error;
      try {
        model.tokenize(input);
      } catch (e) {
        error = e;
      }
      expect(error).toMatchObject({ code: 'BAD_OPTION', message: expect.stringContaining('tokenize takes text') });
      expect(error.message).toContain(named);
    }
    await model.dispose();
  });

  it('without tokenizer.json: BAD_OPTION as run gives it; a disposed model: TERMINATED', async () => {
    const plain = await loadModel(gpt2Fixture().files);
    const ran = await plain.run('the cat').catch((e) => e);
    expect(ran).toMatchObject({
      code: 'BAD_OPTION',
      message: expect.stringMatching(/^the model folder has no tokenizer\.json: /),
    });
    expect(() => plain.tokenize('the cat')).toThrow(
      expect.objectContaining({
        code: 'BAD_OPTION',
        message: expect.stringMatching(/^the model folder has no tokenizer\.json: tokenize reads text with it/),
      }),
    );
    await plain.dispose();
    const model = await gpt2();
    const { tokenize } = model; // bound, as the other methods
    expect(tokenize('cat').ids).toEqual([260]);
    await model.dispose();
    expect(() => model.tokenize('cat')).toThrow(expect.objectContaining({ code: 'TERMINATED' }));
  });
});
