// attention-wasm/model/cache: what a web source fetched kept in the browser's Cache Storage, so that a second load
// and the same run ask the server for nothing (checkpoint-server.mjs counts the requests); its size reported, and
// cleared. In Node, where there is no Cache Storage, opening one says so.
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/js/model/index.js';
import { clearModelCache, modelCacheBytes, openModelCache } from '../../../src/js/model/cache.js';
import { gpt2Fixture } from './fixtures.js';
import { cacheEvents, sent, server, upload } from './web-helpers.js';

const isNode = typeof window === 'undefined';

describe.runIf(!isNode)('a cache of the fetched files and ranges (Cache Storage)', () => {
  it('serves a second load and the same run with no request to the server; reports its bytes; clears', async () => {
    const name = `test-${Math.random().toString(36).slice(2)}`;
    const fixture = gpt2Fixture({ shards: 2 });
    const path = await upload(fixture.files);
    const url = `${server}range/${path}`;
    const ids = [3, 1, 3];

    // What a run fetched is written after it: onProgress says when ({ phase: 'cache' }).
    let written;
    const cached = new Promise((resolve) => (written = resolve));
    const onProgress = (event) => event.phase === 'cache' && written();
    const first = await loadModel(url, { cache: await openModelCache(name), onProgress });
    const expected = await first.run({ ids });
    await cached;
    const fetched = await sent(path);
    expect(fetched.requests.length).toBeGreaterThan(0);
    // Every byte of file the server sent is kept (404s are kept too, as entries of no bytes).
    expect(await modelCacheBytes(name)).toBe(fetched.bytes);

    const second = await loadModel(url, { cache: await openModelCache(name) });
    const again = await second.run({ ids });
    expect((await sent(path)).requests).toHaveLength(fetched.requests.length); // nothing asked for
    expect(again.logits.data).toEqual(expected.logits.data);
    expect(again.attentions.map((a) => a.data)).toEqual(expected.attentions.map((a) => a.data));

    expect(await clearModelCache(name)).toBe(true);
    expect(await modelCacheBytes(name)).toBe(0);
    await loadModel(url, { cache: await openModelCache(name) });
    expect((await sent(path)).requests.length).toBeGreaterThan(fetched.requests.length); // fetched again
    await clearModelCache(name);
  });

  it('refuses a cache option that is no cache', async () => {
    await expect(loadModel(`${server}range/x/`, { cache: {} })).rejects.toMatchObject({ code: 'BAD_OPTION' });
    await expect(openModelCache('')).rejects.toMatchObject({ code: 'BAD_OPTION' });
  });
});

describe('a cache of your own: any object with get and set', () => {
  it('a Map-backed cache serves the second load and run, in Node and in browsers', async () => {
    const entries = new Map();
    const key = ({ url, begin, end }) => `${url} ${begin}-${end}`;
    const cache = { get: async (k) => entries.get(key(k)), set: async (k, value) => void entries.set(key(k), value) };
    const path = await upload(gpt2Fixture().files);
    const url = `${server}range/${path}`;
    const { written, onProgress } = cacheEvents(); // the cache is written behind the run, after it returns
    const first = await (await loadModel(url, { cache, onProgress })).run({ ids: [2, 4] });
    await written;
    const requests = (await sent(path)).requests.length;
    const second = await (await loadModel(url, { cache })).run({ ids: [2, 4] });
    expect((await sent(path)).requests).toHaveLength(requests);
    expect(second.logits.data).toEqual(first.logits.data);
    expect([...entries.values()].some((entry) => entry.missing)).toBe(true); // tokenizer.json: a 404, kept
  });
});

describe.runIf(isNode)('the cache in Node', () => {
  it('openModelCache says that Cache Storage is missing here', async () => {
    await expect(openModelCache()).rejects.toMatchObject({ code: 'BAD_OPTION', message: /Cache Storage/ });
  });
});
