// loadModel({ workers: 'auto' }): a count from the processors that each worker's share of the weights fits, or none.
// The shares are weighed from the tensors' shapes (shard-slices.js's workerShareBytes), checked here against the
// shares the workers are given (layerShare's slices, summed) and the LM head's rows cut at multiples of 4; the count
// is picked against a limit (pickWorkers, given a small one here: the real one is 1 GiB, which no fixture reaches).
import { afterEach, describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/js/model/index.js';
import { openCheckpoint, resolveModel } from '../../../src/js/model/checkpoint.js';
import { FAMILIES } from '../../../src/js/model/families/index.js';
import { openFolder, readJson } from '../../../src/js/model/sources.js';
import { parseConfigText, readSpec } from '../../../src/js/model/spec.js';
import { layerShare, pickWorkers, shardParts, workerShareBytes } from '../../../src/js/model/shard-slices.js';
import { platform, installPlatform } from '../../../src/js/platform.js';
import { gpt2Fixture, llamaFixture, source } from './fixtures.js';
import { neoxFixture } from './fixtures-families.js';
import { olmo2Fixture } from './fixtures-gemma.js';

const IDS = [3, 1, 4, 1, 5, 9, 2, 6];

const opened = [];
afterEach(async () => {
  await Promise.all(opened.splice(0).map((m) => m.dispose()));
});
const load = async (fixture, options) => {
  const model = await loadModel(source(fixture, 'bytes'), options);
  opened.push(model);
  return model;
};

/** The spec and resolved tensors of a fixture, as loadModel reads them. */
async function resolved(fixture) {
  const folder = await openFolder(source(fixture, 'bytes'));
  const spec = readSpec(await readJson(folder, 'config.json', parseConfigText));
  const tensors = resolveModel(await openCheckpoint(folder), spec, FAMILIES[spec.family]);
  return { spec, tensors };
}

/** The reference: the largest sum, over workers, of the bytes layerShare gives each and of its LM head's rows. */
function sharesGiven(spec, tensors, count) {
  const floats = (shape) => shape.reduce((a, b) => a * b, 1);
  return Math.max(
    ...shardParts(spec, count).map((part, w) => {
      let bytes = 0;
      for (const [l, entries] of tensors.layers.entries()) {
        const layer = Object.fromEntries(entries.map((e) => [e.slot, { data: new Float32Array(floats(e.shape)) }]));
        for (const t of Object.values(layerShare(spec, layer, part, `layer ${l}`))) bytes += t.data.length * 4;
      }
      if (tensors.head) {
        const [V, d] = tensors.head.shape;
        const rows = (i) => (i === count ? V : 4 * Math.floor((i * V) / (4 * count)));
        bytes += (rows(w + 1) - rows(w)) * (d + (tensors.headBias ? 1 : 0)) * 4;
      }
      return bytes;
    }),
  );
}

describe("loadModel({ workers: 'auto' })", () => {
  const CASES = [
    ['GPT-2: fused q|k|v by blocks, biases, tied head', () => gpt2Fixture({ layers: 2, heads: 4 })],
    ['LLaMA: GQA 4/2, gate, own head', () => llamaFixture()],
    ['GPT-NeoX: q|k|v by head', () => neoxFixture()],
    ['OLMo-2: q/k norms over the whole projection cut with the heads, GQA 4/2', () => olmo2Fixture({ kvHeads: 2 })],
  ];
  for (const [name, make] of CASES) {
    it(`weighs each worker's share as the workers are given it: ${name}`, async () => {
      const { spec, tensors } = await resolved(make());
      for (const count of [1, 2, 3, 5, 8]) {
        expect(workerShareBytes(spec, tensors, count), `${count} workers`).toBe(sharesGiven(spec, tensors, count));
      }
      expect(workerShareBytes(spec, tensors, 2)).toBeLessThan(workerShareBytes(spec, tensors, 1));
    });
  }

  it('picks the first count from the start whose share fits, more workers up to 8, else none', async () => {
    const { spec, tensors } = await resolved(gpt2Fixture({ layers: 2, heads: 4 }));
    const share = (count) => workerShareBytes(spec, tensors, count);
    expect(pickWorkers(share, 3, share(1))).toBe(3); // fits from the start: the start
    expect(pickWorkers(share, 1, share(2))).toBe(2); // one worker's share is too large: one more
    expect(pickWorkers(share, 1, share(8))).toBe(8);
    expect(pickWorkers(share, 1, share(8) - 1)).toBe(0); // not even 8 workers fit: none
    expect(pickWorkers(share, 2, 0)).toBe(0);
    expect(pickWorkers(() => 2 ** 31, 1)).toBe(0); // 2 GiB per worker at every count: more than the real limit
    expect(pickWorkers(() => 2 ** 30, 1)).toBe(1);
  });

  it('takes one less than the processors for a model that fits, and runs as a count does', async () => {
    const cores = platform.cores;
    try {
      installPlatform({ cores: () => 4 });
      const fixture = gpt2Fixture({ layers: 2, heads: 4 });
      const auto = await load(fixture, { workers: 'auto' });
      expect(auto.workers).toBe(3);
      const three = await load(fixture, { workers: 3 });
      expect((await auto.run({ ids: IDS })).logits.data).toEqual((await three.run({ ids: IDS })).logits.data);
      installPlatform({ cores: () => 1 });
      expect((await load(fixture, { workers: 'auto' })).workers).toBe(1);
      installPlatform({ cores: () => 64 });
      expect((await load(fixture, { workers: 'auto' })).workers).toBe(8);
    } finally {
      installPlatform({ cores });
    }
  });

  it('takes workers for OLMo-2 too (its whole q/k norms and its norms after each half split as any layer)', async () => {
    const fixture = olmo2Fixture();
    const cores = platform.cores;
    try {
      installPlatform({ cores: () => 2 });
      const auto = await load(fixture, { workers: 'auto' });
      expect(auto.workers).toBe(1);
      const alone = await load(fixture);
      expect((await auto.run({ ids: IDS })).logits.data).toEqual((await alone.run({ ids: IDS })).logits.data);
    } finally {
      installPlatform({ cores });
    }
  });
});
