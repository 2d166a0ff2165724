// How a folder URL is read: at most 6 reads at a time (a resident run asks for all of its weights at its start, and
// gets them in that order), the tensors of a layer that follow each other in the file in one request, and its cache
// written behind, once the run that fetched the ranges is over, so that
// writing never delays a result. A cache of your own ({ get, set }) shows both: its get() calls are the reads.
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/js/model/index.js';
import { gpt2Fixture } from './fixtures.js';
import { cacheEvents, sent, server, upload } from './web-helpers.js';

/** A cache of your own that counts its get() calls under way (each answers a miss after a task) and its set()s. */
function countingCache() {
  const entries = new Map();
  const text = ({ url, begin, end }) => `${url} ${begin}-${end}`;
  const stats = { active: 0, most: 0, gets: 0, sets: 0 };
  return {
    entries,
    stats,
    async get(key) {
      stats.gets++;
      stats.most = Math.max(stats.most, ++stats.active);
      await new Promise((resolve) => setTimeout(resolve, 1));
      stats.active--;
      return entries.get(text(key));
    },
    async set(key, value) {
      stats.sets++;
      entries.set(text(key), value);
    },
  };
}

describe('reading a folder URL', () => {
  it('runs at most 6 reads at a time, a layer’s tensors joined in few requests; results as from Files', async () => {
    const layers = 8;
    const fixture = gpt2Fixture({ d: 16, heads: 2, layers });
    const path = await upload(fixture.files);
    const cache = countingCache();
    const model = await loadModel(`${server}range/${path}`, { cache });
    const loaded = (await sent(path)).requests.length;
    const options = { attentions: true, hiddenStates: true };
    const result = await model.run({ ids: [3, 1, 4, 1, 5] }, options);
    // All of the run's weights are asked for at its start; its reads (here, its cache's get() calls) run 6 at a time.
    expect(cache.stats.most).toBeLessThanOrEqual(6);
    expect(cache.stats.most).toBeGreaterThan(1);
    // A layer's 12 tensors follow each other in the file but for the causal-mask buffer (not read): 2 requests.
    const requests = (await sent(path)).requests.slice(loaded);
    expect(requests.length).toBeLessThanOrEqual(2 * layers + 3); // and the embeddings, the final norm
    expect(requests.every((r) => r.status === 206)).toBe(true);
    const expected = await (await loadModel(fixture.files)).run({ ids: [3, 1, 4, 1, 5] }, options);
    expect(result.logits.data).toEqual(expected.logits.data);
    expect(result.attentions.map((a) => a.data)).toEqual(expected.attentions.map((a) => a.data));
    expect(result.hiddenStates.map((h) => h.data)).toEqual(expected.hiddenStates.map((h) => h.data));
  });

  it('writes its cache after the run, then says so; a second load reads it all from there, the same', async () => {
    const fixture = gpt2Fixture({ shards: 2 });
    const path = await upload(fixture.files);
    const url = `${server}range/${path}`;
    const cache = countingCache();
    const { written, onProgress } = cacheEvents();
    const model = await loadModel(url, { cache, onProgress });
    expect(cache.stats.sets).toBe(0); // the JSON files and headers are held until a run is over
    const expected = await model.run({ ids: [2, 7, 2] });
    const event = await written;
    const fetched = await sent(path);
    // Every answer the server sent is kept (a 404 too), and the event counts the bytes written.
    expect(cache.stats.sets).toBe(fetched.requests.length);
    expect(event).toMatchObject({ phase: 'cache', loaded: fetched.bytes });

    const again = await (await loadModel(url, { cache })).run({ ids: [2, 7, 2] });
    expect((await sent(path)).requests).toHaveLength(fetched.requests.length); // nothing asked for
    expect(again.logits.data).toEqual(expected.logits.data);
    expect(again.attentions.map((a) => a.data)).toEqual(expected.attentions.map((a) => a.data));
  });
});
