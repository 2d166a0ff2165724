// A layer is two calls into the core, its attention and then its MLP (layer-call.js), so the largest call holds the
// larger half: a layer whose one call would pass MAX_CALL_BYTES (1 GiB) runs when each half fits. Here a LLaMA-family
// layer over 2048 tokens, shaped so its halves are large in activations rather than weights (a test cannot write a
// 7B checkpoint): the attention call holds 16 heads' [2048, 2048] weights and scratch (530 MiB), the MLP call
// 2048 rows of d_ff 38 400 (600 MiB); as one call it needed 1130 MiB and was TOO_LARGE. The model is causal, so the
// first tokens' rows of the long run are the forward of those tokens alone, held to the float64 reference
// (reference.js's tolerances; measured here: 5e-7 on the hidden states and logits).
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/js/model/index.js';
import { expectClose } from '../reference.js';
import { llamaFixture } from './fixtures.js';
import { VALUES, WEIGHTS, referenceForward } from './reference.js';

const n = 2048;
const H = 16;
const first = 6; // rows held to the reference
const shape = { d: 2, heads: H, kvHeads: H, headDim: 2, ff: 38400, layers: 1, positions: n };
/** Rows [0, rows) of a [.., n, cols] block of `data`: the first rows of every leading block. */
function topRows(data, blocks, length, cols, rows, keep = cols) {
  const out = new Float32Array(blocks * rows * keep);
  for (let b = 0; b < blocks; b++) {
    for (let i = 0; i < rows; i++) {
      out.set(data.subarray((b * length + i) * cols, (b * length + i) * cols + keep), (b * rows + i) * keep);
    }
  }
  return out;
}

describe('a layer over MAX_CALL_BYTES as one call', () => {
  it.each([
    ['its weights resident', undefined],
    ['its weights read at every run', 0],
  ])('runs as its attention and MLP calls, %s', async (_, residentBytes) => {
    const fixture = llamaFixture({ ...shape, seed: 11 });
    const model = await loadModel(fixture.files, { residentBytes });
    const ids = Array.from({ length: n }, (_, i) => (i * 7 + 3) % fixture.config.vocab_size);
    const r = await model.run({ ids }, { hiddenStates: true });
    const ref = referenceForward(fixture, ids.slice(0, first));
    const { vocab_size: V, hidden_size: d } = fixture.config;
    // attention rows of the first tokens: their first columns as the reference, then nothing (causal)
    const weights = r.attentions[0].data;
    expect(r.attentions[0].shape).toEqual([H, n, n]);
    expectClose(topRows(weights, H, n, n, first, first), ref.attentions[0], { ...WEIGHTS, what: 'attentions[0]' });
    expect(topRows(weights, H, n, n, first).reduce((s, x) => s + x, 0)).toBeCloseTo(H * first, 3);
    r.hiddenStates.forEach((h, l) =>
      expectClose(h.data.subarray(0, first * d), ref.hiddenStates[l], { ...VALUES, what: `hiddenStates[${l}]` }),
    );
    expectClose(r.logits.data.subarray(0, first * V), ref.logits, { ...VALUES, what: 'logits' });
    // the last token's row too: a distribution over all n keys
    const last = weights.subarray((n - 1) * n, n * n);
    expect(last.reduce((s, x) => s + x, 0)).toBeCloseTo(1, 4);
    expect(r.logits.data.subarray((n - 1) * V).every(Number.isFinite)).toBe(true);
    await model.dispose();
  });

  it("generates from such a prompt: the decode step's prefill is the same two calls", async () => {
    const fixture = llamaFixture({ ...shape, seed: 12 });
    const model = await loadModel(fixture.files);
    const ids = Array.from({ length: n - 1 }, (_, i) => (i * 5 + 1) % fixture.config.vocab_size);
    const r = await model.run({ ids });
    const steps = [];
    for await (const step of model.generate({ ids }, { maxNewTokens: 1 })) steps.push(step);
    expect(steps).toHaveLength(1);
    // greedy: the run's most probable next token, with the same attention row of the last query
    expect(steps[0].id).toBe(r.next[0].id);
    expect(steps[0].p).toBeCloseTo(r.next[0].p, 5);
    const row = (h) => r.attentions[0].data.subarray((h * (n - 1) + n - 2) * (n - 1), (h * (n - 1) + n - 1) * (n - 1));
    const rows = Float32Array.from({ length: H * (n - 1) }, (_, i) => row(Math.floor(i / (n - 1)))[i % (n - 1)]);
    expectClose(steps[0].attentions[0].data, rows, { ...WEIGHTS, what: 'the prefill’s last attention row' });
    await model.dispose();
  });
});
