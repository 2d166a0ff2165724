// Cancelling and following a load or a run: the `signal` option stops either one with ABORTED (the signal's reason
// as the cause), a download under way included (checkpoint-server.mjs's `slow` mode stalls it until the client
// goes away); onProgress events carry the bytes to read (`total`) as well as those read, for a progress bar.
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/js/model/index.js';
import { gpt2Fixture } from './fixtures.js';
import { sent, server, upload } from './web-helpers.js';

const reason = new Error('the user went away');

describe('signal: cancelling a load or a run', () => {
  it('an aborted signal stops loadModel and run with ABORTED; a signal that is not an AbortSignal is refused', async () => {
    const fixture = gpt2Fixture();
    const controller = new AbortController();
    controller.abort(reason);
    const e1 = await loadModel(fixture.files, { signal: controller.signal }).catch((e) => e);
    expect(e1).toMatchObject({ name: 'AttentionError', code: 'ABORTED', cause: reason });
    const model = await loadModel(fixture.files);
    const e2 = await model.run({ ids: [1, 2] }, { signal: controller.signal }).catch((e) => e);
    expect(e2).toMatchObject({ code: 'ABORTED', cause: reason });
    await expect(loadModel(fixture.files, { signal: 'stop' })).rejects.toMatchObject({ code: 'BAD_OPTION' });
    await expect(model.run({ ids: [1] }, { signal: {} })).rejects.toMatchObject({ code: 'BAD_OPTION' });
    expect((await model.run({ ids: [1, 2] })).logits.shape).toEqual([2, 23]); // the model still runs
  });

  it('an abort during a load from a URL stops it between its files', async () => {
    const path = await upload(gpt2Fixture().files);
    const controller = new AbortController();
    const onProgress = (event) => event.file === 'config.json' && controller.abort(reason);
    const error = await loadModel(`${server}range/${path}`, { signal: controller.signal, onProgress }).catch((e) => e);
    expect(error).toMatchObject({ code: 'ABORTED', cause: reason });
    const requested = (await sent(path)).requests.map((r) => r.path.slice(path.length));
    expect(requested).toEqual(['config.json']);
  });

  it('an abort during a run stops the download under way and reads nothing more', async () => {
    const fixture = gpt2Fixture({ d: 32, heads: 2, layers: 3 });
    const path = await upload(fixture.files);
    const model = await loadModel(`${server}slow/${path}`);
    const controller = new AbortController();
    const running = model.run({ ids: [1, 2, 3] }, { signal: controller.signal }).catch((e) => e);
    // Wait until the server holds a stalled download (a layer's weight), then abort.
    let stalled = [];
    while (stalled.length === 0) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      stalled = (await sent(path)).requests.filter((r) => r.stalled);
    }
    controller.abort(reason);
    expect(await running).toMatchObject({ code: 'ABORTED', cause: reason });
    // A run asks for its weights ahead (up to 6 requests at a time): every one stalled is cut off. Had a download
    // gone on, the run would have waited for it: the server would have sent the rest. A request sent before the
    // abort may reach this busy server a little later: the count is taken once it holds still.
    let after = await sent(path);
    for (let previous = -1; previous !== after.requests.length;) {
      previous = after.requests.length;
      await new Promise((resolve) => setTimeout(resolve, 200));
      after = await sent(path);
    }
    const cut = after.requests.filter((r) => r.stalled);
    expect(cut.length).toBeGreaterThan(0);
    expect(cut.filter((r) => r.completed)).toEqual([]);
    // Nothing is asked for once the run has ended.
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await sent(path)).requests.length).toBe(after.requests.length);
  });
});

describe('two runs of a model that keeps its weights, reading the same ones', () => {
  it('the first one aborted: the second reads them itself and gives the same results as a run alone', async () => {
    const fixture = gpt2Fixture({ d: 16, heads: 2, layers: 3 });
    const path = await upload(fixture.files);
    const model = await loadModel(`${server}range/${path}`);
    const controller = new AbortController();
    const first = model.run({ ids: [1, 2, 3] }, { signal: controller.signal }).catch((e) => e);
    const second = model.run({ ids: [1, 2, 3] }, { attentions: true });
    controller.abort(reason);
    expect(await first).toMatchObject({ code: 'ABORTED', cause: reason });
    const result = await second;
    const expected = await (await loadModel(fixture.files)).run({ ids: [1, 2, 3] }, { attentions: true });
    expect(result.logits.data).toEqual(expected.logits.data);
    expect(result.attentions.map((a) => a.data)).toEqual(expected.attentions.map((a) => a.data));
  });
});

describe('onProgress: loaded and total bytes', () => {
  it('a run’s events carry the bytes it will read; the last one has read them all', async () => {
    const fixture = gpt2Fixture({ shards: 2 });
    const path = await upload(fixture.files);
    const events = [];
    const model = await loadModel(`${server}range/${path}`, { onProgress: (event) => events.push(event) });
    const downloads = events.filter((e) => e.phase === 'download' && e.loaded === e.total);
    expect(downloads.map((e) => [e.file, e.total])).toEqual([
      ['config.json', new TextEncoder().encode(fixture.files['config.json']).length],
      ['model.safetensors.index.json', new TextEncoder().encode(fixture.files['model.safetensors.index.json']).length],
    ]);
    const loadBytes = (await sent(path)).bytes;
    for (const ids of [
      [5, 6, 5],
      [1, 2, 3, 4],
    ]) {
      events.length = 0;
      const start = model.bytesRead;
      await model.run({ ids });
      const totals = new Set(events.map((e) => e.total));
      expect(totals.size).toBe(1);
      const [total] = totals;
      expect(events.at(-1)).toMatchObject({ phase: 'done', loaded: total });
      expect(events.every((e) => e.loaded <= total)).toBe(true);
      expect(total - start).toBe(model.bytesRead - start);
    }
    // The server sent what the runs read, and the totals said so beforehand.
    expect((await sent(path)).bytes - loadBytes).toBe(model.bytesRead);
  });
});
