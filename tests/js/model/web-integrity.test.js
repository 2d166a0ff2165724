// What is read from a web folder is what was loaded: every range answer is checked against the file as it was at
// load (the total in Content-Range, the ETag and Last-Modified where the server states them), a file that changed on
// the server is FETCH_FAILED naming it, never numbers read at the old offsets; a whole-file answer (200) to a range is
// cut at the right offset; a cache entry that is cut short, or a cache that fails, is fetched again; and generate()'s
// reads are kept in the cache as run()'s are. checkpoint-server.mjs lies on purpose (its etag, lastmod, whole and
// badtotal modes); uploading a file again replaces it.
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/js/model/index.js';
import { clearModelCache, openModelCache } from '../../../src/js/model/cache.js';
import { editSafetensors, gpt2Fixture } from './fixtures.js';
import { cacheEvents, sent, server, upload } from './web-helpers.js';

const isNode = typeof window === 'undefined';
const ids = [3, 1, 4, 1, 5];

/** The results of the same files given in memory. */
const expectedRun = async (files, options) => (await loadModel(files)).run({ ids }, options);

/** A Map-backed cache of your own ({ get, set }), its entries by key text. */
function mapCache() {
  const entries = new Map();
  const text = ({ url, begin, end }) => `${url} ${begin}-${end}`;
  return {
    entries,
    get: async (key) => entries.get(text(key)),
    set: async (key, value) => void entries.set(text(key), value),
  };
}

describe('a file that changes on the server after the model was loaded', () => {
  for (const mode of ['etag', 'lastmod']) {
    it(`is FETCH_FAILED naming it, never the new bytes at the old offsets (${mode})`, async () => {
      const v1 = gpt2Fixture({ seed: 1 });
      const v2 = gpt2Fixture({ seed: 2 }); // the same sizes, other values: the same file size
      expect(v2.files['model.safetensors'].length).toBe(v1.files['model.safetensors'].length);
      const path = await upload(v1.files);
      const url = `${server}${mode}/${path}`;
      const model = await loadModel(url, { residentBytes: 0 }); // read at every run
      expect((await model.run({ ids })).logits.data).toEqual((await expectedRun(v1.files)).logits.data);
      await upload({ 'model.safetensors': v2.files['model.safetensors'] }, path);
      const error = await model.run({ ids }).catch((e) => e);
      expect(error?.code).toBe('FETCH_FAILED');
      expect(error.message).toContain(`${url}model.safetensors`);
      expect(error.message).toMatch(/changed on the server since the model was loaded: load it again/);
      // Loaded again, it reads the new file.
      const again = await (await loadModel(url, { residentBytes: 0 })).run({ ids });
      expect(again.logits.data).toEqual((await expectedRun(v2.files)).logits.data);
    });
  }

  it('a server that states no validator: a file of another size is caught by the total of Content-Range', async () => {
    const v1 = gpt2Fixture();
    const path = await upload(v1.files);
    const model = await loadModel(`${server}range/${path}`, { residentBytes: 0 });
    // The same tensors with one more at the end: every offset is the same but the file is longer.
    const longer = editSafetensors(v1.files['model.safetensors'], (tensors) => [
      ...tensors,
      { name: 'extra', dtype: 'F32', shape: [4], bytes: new Uint8Array(16) },
    ]);
    await upload({ 'model.safetensors': longer }, path);
    const error = await model.run({ ids }).catch((e) => e);
    expect(error?.code).toBe('FETCH_FAILED');
    expect(error.message).toContain(`${server}range/${path}model.safetensors`);
    expect(error.message).toMatch(/changed on the server since the model was loaded/);
    expect(error.message).toMatch(new RegExp(`${v1.files['model.safetensors'].length} bytes`));
  });

  it('a Content-Range whose total is not the size at load is FETCH_FAILED', async () => {
    const fixture = gpt2Fixture();
    const path = await upload(fixture.files);
    // The header's range is the first past byte 0: the load fails there.
    const error = await loadModel(`${server}badtotal/${path}`)
      .then((model) => model.run({ ids }))
      .catch((e) => e);
    expect(error?.code).toBe('FETCH_FAILED');
    expect(error.message).toContain(`${server}badtotal/${path}model.safetensors`);
    expect(error.message).toMatch(/Content-Range/);
  });

  it('a cache that holds part of the old file and a server that has the new one: FETCH_FAILED, not a mix', async () => {
    const v1 = gpt2Fixture({ seed: 1, layers: 3 });
    const path = await upload(v1.files);
    const url = `${server}etag/${path}`;
    const cache = mapCache();
    const { written, onProgress } = cacheEvents();
    await (await loadModel(url, { cache, onProgress, residentBytes: 0 })).run({ ids }, { layers: 1, logits: false });
    await written; // the header and layer 0's weights, kept as they were
    await upload({ 'model.safetensors': gpt2Fixture({ seed: 2, layers: 3 }).files['model.safetensors'] }, path);
    const error = await (await loadModel(url, { cache, residentBytes: 0 })).run({ ids }).catch((e) => e);
    expect(error?.code).toBe('FETCH_FAILED');
    expect(error.message).toMatch(/changed on the server since the model was loaded/);
    expect(error.message).toMatch(/cache/);
  });
});

describe('a server that answers a range with the whole file (HTTP 200)', () => {
  it('is read at the right offsets: the same results as the files', async () => {
    const fixture = gpt2Fixture({ shards: 2 });
    const path = await upload(fixture.files);
    const model = await loadModel(`${server}whole/${path}`, { residentBytes: 0 });
    const options = { attentions: true, hiddenStates: true };
    const expected = await expectedRun(fixture.files, options);
    for (let i = 0; i < 2; i++) {
      const result = await model.run({ ids }, options);
      expect(result.logits.data).toEqual(expected.logits.data);
      expect(result.hiddenStates.map((h) => h.data)).toEqual(expected.hiddenStates.map((h) => h.data));
    }
    const answers = (await sent(path)).requests.filter((r) => /safetensors$/.test(r.path));
    expect(answers.some((r) => r.status === 200 && r.range !== null)).toBe(true);
  });
});

describe('a cache that fails', () => {
  it('an entry cut short is dropped and fetched again: the results are right', async () => {
    const fixture = gpt2Fixture();
    const path = await upload(fixture.files);
    const url = `${server}range/${path}`;
    const cache = mapCache();
    const { written, onProgress } = cacheEvents();
    const expected = await (await loadModel(url, { cache, onProgress })).run({ ids });
    await written;
    const before = (await sent(path)).requests.length;
    let cut = 0;
    for (const [key, value] of cache.entries) {
      if (value.bytes?.length > 8) {
        cache.entries.set(key, { ...value, bytes: value.bytes.slice(0, value.bytes.length >> 1) });
        cut++;
      }
    }
    expect(cut).toBeGreaterThan(0);
    const again = await (await loadModel(url, { cache })).run({ ids });
    expect(again.logits.data).toEqual(expected.logits.data);
    expect((await sent(path)).requests.length - before).toBeGreaterThanOrEqual(cut); // each fetched again
  });

  it('a cache whose get() throws or answers nonsense falls back to the network', async () => {
    const fixture = gpt2Fixture();
    const path = await upload(fixture.files);
    const url = `${server}range/${path}`;
    const expected = await expectedRun(fixture.files);
    const broken = [
      { get: async () => Promise.reject(new Error('disk gone')), set: async () => {} },
      {
        get: () => {
          throw new TypeError('not a function');
        },
        set: () => {
          throw new Error('full');
        },
      },
      { get: async () => ({ bytes: 'abc', total: 3 }), set: async () => {} },
      { get: async () => 42, set: async () => {} },
    ];
    for (const cache of broken) {
      const result = await (await loadModel(url, { cache })).run({ ids });
      expect(result.logits.data).toEqual(expected.logits.data);
    }
  });

  it.runIf(!isNode)('Cache Storage entries cut short are fetched again, never "detached" errors', async () => {
    const name = `test-${Math.random().toString(36).slice(2)}`;
    const fixture = gpt2Fixture({ shards: 2 });
    const path = await upload(fixture.files);
    const url = `${server}range/${path}`;
    const { written, onProgress } = cacheEvents();
    const expected = await (await loadModel(url, { cache: await openModelCache(name), onProgress })).run({ ids });
    await written;
    // Every stored range cut to half its bytes, its headers as they were (a disk that lost the end of each entry).
    const storage = await caches.open(name);
    let cut = 0;
    for (const request of await storage.keys()) {
      const response = await storage.match(request);
      const bytes = new Uint8Array(await response.arrayBuffer());
      if (bytes.length <= 8 || !/-\d+$/.test(new URL(request.url).searchParams.get('attention-wasm-bytes'))) continue;
      await storage.put(request, new Response(bytes.slice(0, bytes.length >> 1), { headers: response.headers }));
      cut++;
    }
    expect(cut).toBeGreaterThan(0);
    const before = (await sent(path)).requests.length;
    const again = await (await loadModel(url, { cache: await openModelCache(name) })).run({ ids });
    expect(again.logits.data).toEqual(expected.logits.data);
    expect((await sent(path)).requests.length - before).toBeGreaterThanOrEqual(cut);
    await clearModelCache(name);
  });
});

describe('generate() and the cache', () => {
  it('keeps what generate() fetched, as run() does: a second load generates with no request', async () => {
    const fixture = gpt2Fixture();
    const path = await upload(fixture.files);
    const url = `${server}range/${path}`;
    const cache = mapCache();
    const { written, onProgress } = cacheEvents();
    const steps = async (model) => {
      const out = [];
      for await (const step of model.generate({ ids: [1, 2] }, { maxNewTokens: 3 })) out.push(step.id);
      return out;
    };
    const first = await steps(await loadModel(url, { cache, onProgress }));
    const guard = new Promise((resolve) => setTimeout(() => resolve('never written'), 20_000));
    expect(await Promise.race([written.then(() => 'written'), guard])).toBe('written');
    const requests = (await sent(path)).requests.length;
    const second = await steps(await loadModel(url, { cache }));
    expect(second).toEqual(first);
    expect((await sent(path)).requests).toHaveLength(requests);
  });
});
