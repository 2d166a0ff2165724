// parseModelSource: the one reader of a typed model source (the page's field, the elements' `model`, a link), into
// what loadModel takes; modelFolderUrl: the folder such a source is read from.
import { describe, expect, it } from 'vitest';
import { HUB_URL, modelFolderUrl, parseModelSource } from '../../../src/js/model/index.js';

const PAGE = 'https://blog.example.org/posts/attention/index.html';

describe('parseModelSource', () => {
  it('reads folder URLs, absolute or relative to a base, into the folder URL loadModel takes', () => {
    expect(parseModelSource('https://models.example.org/gpt2')).toBe('https://models.example.org/gpt2/');
    expect(parseModelSource('  http://localhost:8080/m/tiny/?x=1#top ')).toBe('http://localhost:8080/m/tiny/');
    expect(parseModelSource('./models/tiny', { base: PAGE })).toBe(
      'https://blog.example.org/posts/attention/models/tiny/',
    );
    expect(parseModelSource('../models/tiny/', { base: new URL(PAGE) })).toBe(
      'https://blog.example.org/posts/models/tiny/',
    );
    expect(parseModelSource('/models/tiny/', { base: PAGE })).toBe('https://blog.example.org/models/tiny/');
  });

  it('reads Hub ids, with a revision after @, and the Hub’s own model pages', () => {
    expect(parseModelSource('openai-community/gpt2')).toEqual({ hub: 'openai-community/gpt2' });
    expect(parseModelSource('Qwen/Qwen2.5-0.5B@v1.0')).toEqual({ hub: 'Qwen/Qwen2.5-0.5B', revision: 'v1.0' });
    expect(parseModelSource('owner/name@refs/pr/3')).toEqual({ hub: 'owner/name', revision: 'refs/pr/3' });
    expect(parseModelSource(`${HUB_URL}/openai-community/gpt2`)).toEqual({ hub: 'openai-community/gpt2' });
    expect(parseModelSource(`${HUB_URL}/google-bert/bert-base-uncased/tree/abc123`)).toEqual({
      hub: 'google-bert/bert-base-uncased',
      revision: 'abc123',
    });
    expect(parseModelSource(`${HUB_URL}/owner/name/resolve/main/`)).toEqual({ hub: 'owner/name', revision: 'main' });
    // Not a model's page: a data set's folder stays a folder URL.
    expect(parseModelSource(`${HUB_URL}/datasets/x`)).toBe(`${HUB_URL}/datasets/x/`);
  });

  it('gives { hub } results a mirror’s address as base, and reads that mirror’s model pages', () => {
    const hub = 'https://mirror.example.org/hf/';
    expect(parseModelSource('owner/name', { hub })).toEqual({
      hub: 'owner/name',
      base: 'https://mirror.example.org/hf',
    });
    expect(parseModelSource('https://mirror.example.org/hf/owner/name/tree/dev', { hub })).toEqual({
      hub: 'owner/name',
      revision: 'dev',
      base: 'https://mirror.example.org/hf',
    });
    // The Hub's own address is a plain folder URL then.
    expect(parseModelSource(`${HUB_URL}/owner/name`, { hub })).toBe(`${HUB_URL}/owner/name/`);
  });

  it('answers anything else with BAD_OPTION that says what a source is, never a raw error', () => {
    const cases = [
      ['', /is empty/u],
      ['gpt2', /owner\/name/u],
      ['owner/name/extra', /folder URL/u],
      ['../x/..', /no base/u],
      ['./models/', /no base/u],
      ['ftp://example.org/m/', /neither/u],
      ['javascript:alert(1)', /neither/u],
      ['https://', /not a valid URL/u],
      ['owner/na me', /folder URL/u],
      ['a'.repeat(3000), /too long/u],
    ];
    for (const [text, message] of cases) {
      let error;
      try {
        parseModelSource(text);
      } catch (thrown) {
        error = thrown;
      }
      expect(error?.name, text).toBe('AttentionError');
      expect(error.code, text).toBe('BAD_OPTION');
      expect(error.message, text).toMatch(message);
    }
    expect(() => parseModelSource('./m/', { base: 'not a url' })).toThrow(/cannot be resolved against base/u);
    expect(() => parseModelSource(42)).toThrow(/must be text/u);
    expect(() => parseModelSource('a/b', { hub: 'file:///x' })).toThrow(/http\(s\)/u);
    expect(() => parseModelSource('a/b', { hub: 7 })).toThrow(/hub must be/u);
    expect(() => parseModelSource('a/b', { bas: PAGE })).toThrow(expect.objectContaining({ code: 'UNKNOWN_OPTION' }));
  });
});

describe('modelFolderUrl', () => {
  it('is the folder loadModel reads: a URL as it is, a Hub model under resolve/<revision>/', () => {
    expect(modelFolderUrl('https://models.example.org/gpt2')).toBe('https://models.example.org/gpt2/');
    expect(modelFolderUrl({ hub: 'owner/name' })).toBe(`${HUB_URL}/owner/name/resolve/main/`);
    expect(modelFolderUrl(parseModelSource('owner/name@refs/pr/3', { hub: 'http://127.0.0.1:9/' }))).toBe(
      'http://127.0.0.1:9/owner/name/resolve/refs%2Fpr%2F3/',
    );
    expect(() => modelFolderUrl({ hub: '../x' })).toThrow(expect.objectContaining({ code: 'BAD_OPTION' }));
  });
});
