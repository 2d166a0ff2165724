// Stop means stop, dispose means terminated: generate() passes its signal to every read, so that an abort during a
// stalled download (checkpoint-server.mjs's `slow` mode) ends it with ABORTED and closes the request; a run that
// waits for a weight another caller is reading stops at its own abort; dispose() during a run or a generation, at
// any phase, rejects it with TERMINATED (never a TypeError from a freed object), and so do later calls; an
// onProgress handler that throws is its own error, not a network failure.
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/js/model/index.js';
import { gpt2Fixture } from './fixtures.js';
import { sent, server, upload } from './web-helpers.js';

const reason = new Error('the user pressed Stop');
const pause = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/** Resolves once the server holds a stalled download of a file under `path`. */
async function stalled(path) {
  for (;;) {
    await pause(20);
    if ((await sent(path)).requests.some((r) => r.stalled)) return;
  }
}

/** The stalled requests under `path` once the count holds still: none of them may have been sent whole. */
async function stalledRequests(path) {
  let after = await sent(path);
  for (let previous = -1; previous !== after.requests.length;) {
    previous = after.requests.length;
    await pause(200);
    after = await sent(path);
  }
  return after.requests.filter((r) => r.stalled);
}

/** `promise`'s outcome, or 'still waiting' when it has not settled in 20 s (a stalled download sends its rest at 60 s). */
const settled = (promise) =>
  Promise.race([
    promise.then(
      (value) => value,
      (error) => error,
    ),
    pause(20_000).then(() => 'still waiting'),
  ]);

/** All of a generation's steps' ids. */
async function generated(model, options) {
  const ids = [];
  for await (const step of model.generate({ ids: [1, 2] }, { maxNewTokens: 3, ...options })) ids.push(step.id);
  return ids;
}

describe('generate() and its signal', () => {
  for (const residentBytes of [undefined, 0]) {
    it(`an abort during a stalled download rejects ABORTED and closes it (residentBytes ${residentBytes})`, async () => {
      const fixture = gpt2Fixture({ d: 32, heads: 2, layers: 3 });
      const path = await upload(fixture.files);
      const model = await loadModel(`${server}slow/${path}`, { residentBytes });
      const controller = new AbortController();
      const running = generated(model, { signal: controller.signal });
      await stalled(path);
      controller.abort(reason);
      expect(await settled(running)).toMatchObject({ code: 'ABORTED', cause: reason });
      const cut = await stalledRequests(path);
      expect(cut.length).toBeGreaterThan(0);
      expect(cut.filter((r) => r.completed)).toEqual([]);
    });
  }
});

describe('a run that waits for a weight another caller is reading', () => {
  it('stops at its own abort, though the other read (with no signal) is stalled', async () => {
    const fixture = gpt2Fixture({ d: 32, heads: 2, layers: 3 });
    const path = await upload(fixture.files);
    const model = await loadModel(`${server}slow/${path}`); // keeps its weights: both runs want the same pieces
    const first = model.run({ ids: [1, 2, 3] }).catch((e) => e); // no signal: waits for the stall
    await stalled(path);
    const controller = new AbortController();
    const second = model.run({ ids: [1, 2, 3] }, { signal: controller.signal });
    await pause(50);
    controller.abort(reason);
    expect(await settled(second)).toMatchObject({ code: 'ABORTED', cause: reason });
    // dispose() ends the first one too, with its download under way.
    await model.dispose();
    expect(await settled(first)).toMatchObject({ code: 'TERMINATED' });
    expect((await stalledRequests(path)).filter((r) => r.completed)).toEqual([]);
  });
});

describe('dispose() during a run', () => {
  const phases = [
    ['embeddings', undefined],
    ['layer', 0],
    ['layer', 1],
    ['final', undefined],
    ['head', undefined],
  ];
  for (const residentBytes of [undefined, 0]) {
    it(`at every phase rejects it with TERMINATED, and later calls too (residentBytes ${residentBytes})`, async () => {
      const fixture = gpt2Fixture({ layers: 2 });
      for (const [phase, layer] of phases) {
        let model;
        const onProgress = (event) => {
          if (event.phase === phase && event.layer === layer) model.dispose();
        };
        model = await loadModel(fixture.files, { onProgress, residentBytes });
        const error = await model.run({ ids: [1, 2, 3] }).catch((e) => e);
        expect(error?.name, `${phase} ${layer}`).toBe('AttentionError');
        expect(error.code, `${phase} ${layer}: ${error.message}`).toBe('TERMINATED');
        await expect(model.run({ ids: [1] })).rejects.toMatchObject({ code: 'TERMINATED' });
        await expect(model.attentionWeights(0)).rejects.toMatchObject({ code: 'TERMINATED' });
        expect(() => model.generate({ ids: [1] })).toThrow(expect.objectContaining({ code: 'TERMINATED' }));
      }
    });
  }

  it('while a download is stalled: TERMINATED at once, the download closed', async () => {
    const fixture = gpt2Fixture({ d: 32, heads: 2, layers: 3 });
    const path = await upload(fixture.files);
    const model = await loadModel(`${server}slow/${path}`, { residentBytes: 0 });
    const running = model.run({ ids: [1, 2, 3] });
    await stalled(path);
    await model.dispose();
    expect(await settled(running)).toMatchObject({ code: 'TERMINATED' });
    expect((await stalledRequests(path)).filter((r) => r.completed)).toEqual([]);
  });
});

describe('dispose() during generate()', () => {
  for (const residentBytes of [undefined, 0]) {
    it(`in its prefill or between its steps rejects it with TERMINATED (residentBytes ${residentBytes})`, async () => {
      const fixture = gpt2Fixture({ layers: 2 });
      for (const phase of ['embeddings', 'final']) {
        let model;
        const onProgress = (event) => event.phase === phase && model.dispose();
        model = await loadModel(fixture.files, { onProgress, residentBytes });
        const error = await generated(model).catch((e) => e);
        expect(error?.name, phase).toBe('AttentionError');
        expect(error.code, `${phase}: ${error.message}`).toBe('TERMINATED');
      }
      const model = await loadModel(fixture.files, { residentBytes });
      const steps = model.generate({ ids: [1, 2] }, { maxNewTokens: 4 });
      expect((await steps.next()).value.step).toBe(0);
      await model.dispose();
      await expect(steps.next()).rejects.toMatchObject({ code: 'TERMINATED' });
      expect(() => model.generate({ ids: [1] })).toThrow(expect.objectContaining({ code: 'TERMINATED' }));
    });
  }
});

describe('an onProgress handler that throws', () => {
  const oops = new Error('my progress bar broke');
  const throwing = (phase) => (event) => {
    if (event.phase === phase) throw oops;
  };

  it('stops a load from the web with BAD_OPTION naming onProgress, its error as the cause: not FETCH_FAILED', async () => {
    const path = await upload(gpt2Fixture().files);
    const error = await loadModel(`${server}range/${path}`, { onProgress: throwing('download') }).catch((e) => e);
    expect(error).toMatchObject({ name: 'AttentionError', code: 'BAD_OPTION', cause: oops });
    expect(error.message).toMatch(/onProgress threw/);
  });

  it('stops a run likewise; the model runs again after', async () => {
    let broken = true;
    const onProgress = (event) => broken && throwing('layer')(event);
    const model = await loadModel(gpt2Fixture().files, { onProgress });
    const error = await model.run({ ids: [1, 2] }).catch((e) => e);
    expect(error).toMatchObject({ name: 'AttentionError', code: 'BAD_OPTION', cause: oops });
    expect(error.message).toMatch(/onProgress threw/);
    broken = false;
    expect((await model.run({ ids: [1, 2] })).logits.shape).toEqual([2, 23]);
  });
});

describe('a stalled run without a signal of its own', () => {
  it('is stopped by AbortSignal.timeout(ms), as docs/model.md says (there is no default timeout)', async () => {
    const path = await upload(gpt2Fixture({ d: 32, heads: 2, layers: 3 }).files);
    const model = await loadModel(`${server}slow/${path}`);
    const error = await settled(model.run({ ids: [1, 2] }, { signal: AbortSignal.timeout(300) }));
    expect(error).toMatchObject({ code: 'ABORTED' });
    expect(error.cause?.name).toBe('TimeoutError');
  });
});
