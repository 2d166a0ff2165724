// The engine's tools on Gemma 2, Gemma 3 and OLMo-2 (tiny checkpoints in their Hub layouts, fixtures-families.js),
// against the float64 reference (reference-gemma.js) or against runs of the model itself: a capture's steps, zero
// ablation, direct logit attribution (its parts sum to the logit, before Gemma 2's final softcap), the logit lens,
// the head detectors and activation patching (a sweep's cell is the run with that patch, with the sliding windows and
// softcaps of the cells' attention).
import { beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/js/model/index.js';
import { expectClose } from '../reference.js';
import { gemmaFixture, olmo2Fixture } from './fixtures-gemma.js';
import { VALUES, WEIGHTS, referenceForward } from './reference.js';

const FAMILIES = [
  ['Gemma 2 (sandwich, softcaps, window 3)', () => gemmaFixture({ layers: 3, seed: 51 })],
  ['Gemma 3 (q/k norms, two RoPE bases, BF16)', () => gemmaFixture({ version: 3, dtype: 'BF16', seed: 52 })],
  ['OLMo-2 (post-branch norms, whole q/k norms)', () => olmo2Fixture({ seed: 53, kvHeads: 2 })],
];
const ids = [3, 1, 4, 1, 5, 9, 2, 6];
const n = ids.length;

/** Columns [h·dk, (h + 1)·dk) of rows [n, heads·dk]. */
const headOf = (x, h, heads, dk) =>
  Float64Array.from({ length: n * dk }, (_, i) => x[Math.floor(i / dk) * heads * dk + h * dk + (i % dk)]);

/** The LM head's rows a − b (tied: the embeddings) as float64. */
function headRow(fixture, [a, b]) {
  const W = fixture.values['lm_head.weight'] ?? fixture.values['model.embed_tokens.weight'];
  const d = W.shape[1];
  return Float64Array.from({ length: d }, (_, e) => W.data[a * d + e] - (b === undefined ? 0 : W.data[b * d + e]));
}

describe.each(FAMILIES)('%s', (name, make) => {
  let fixture;
  let model;
  let plain;
  beforeAll(async () => {
    fixture = make();
    model = await loadModel(fixture.files);
    plain = await model.run({ ids });
  });

  it('a capture holds its head’s steps as the reference computes them', async () => {
    const { numHeads: H, numKvHeads: Hkv, headDim: dk } = model.spec;
    const [layer, head] = [1, 2];
    const [c] = (await model.run({ ids }, { capture: [{ layer, head }] })).captures;
    const ref = referenceForward(fixture, ids).steps[layer];
    const kv = Math.floor(head / (H / Hkv));
    expectClose(c.q.data, headOf(ref.q, head, H, dk), { ...VALUES, what: 'q' });
    expectClose(c.kRotated.data, headOf(ref.kRotated, kv, Hkv, dk), { ...VALUES, what: 'kRotated' });
    expectClose(c.weights.data, plain.attentions[layer].data.subarray(head * n * n, (head + 1) * n * n), {
      ...WEIGHTS,
      what: 'weights',
    });
    for (const step of ['output', 'residual', 'mlpInput', 'mlpOutput', 'hidden']) {
      expectClose(c[step].data, ref[step], { ...VALUES, what: step });
    }
  });

  it('ablate: zeroed heads give the reference’s hidden states and logits', async () => {
    const ablate = [
      [0, 1],
      [1, 3],
    ];
    const r = await model.run({ ids }, { ablate });
    const ref = referenceForward(fixture, ids, { ablate });
    r.hiddenStates.forEach((h, l) => expectClose(h.data, ref.hiddenStates[l], { ...VALUES, what: `hidden ${l}` }));
    expectClose(r.logits.data, ref.logits, { ...VALUES, what: 'logits' });
    expect(r.logits.data).not.toEqual(plain.logits.data);
  });

  it('attribute: the parts sum to the total, the logit before a final softcap', async () => {
    const cap = model.spec.finalSoftcap;
    const ref = referenceForward(fixture, ids);
    const beforeCap = ref.beforeCap ?? ref.logits;
    const V = model.spec.vocabSize;
    for (const [target, position] of [
      [[7], n - 1],
      [[7, 11], n - 1],
      [[0, 2], 3],
    ]) {
      const a = await model.attribute({ ids }, { target, position });
      const parts = [a.embeddings, ...a.heads.data, ...a.attnBiases, ...a.mlps, a.finalBias];
      const sum = parts.reduce((s, x) => s + x, 0);
      const scale = parts.reduce((s, x) => s + Math.abs(x), 0);
      expect(Math.abs(sum - a.total), `${target} at ${position}`).toBeLessThan(2e-6 * (1 + scale));
      const expected =
        beforeCap[position * V + target[0]] - (target[1] === undefined ? 0 : beforeCap[position * V + target[1]]);
      expect(Math.abs(a.total - expected)).toBeLessThan(1e-5 * (1 + Math.abs(expected)));
      if (cap && target.length === 1) {
        // the run's logit is the capped total
        expect(Math.tanh(a.total / cap) * cap).toBeCloseTo(plain.logits.data[position * V + target[0]], 5);
      }
    }
  });

  it('unembed of the last hidden state (after the final norm) is the run’s logits, softcap included', async () => {
    const L = model.spec.numLayers;
    const lens = await model.unembed(plain.hiddenStates[L], { norm: false });
    expectClose(lens.data, plain.logits.data, { ...VALUES, what: 'lens' });
  });

  it('headScores gives a finite score per head', async () => {
    const scores = await model.headScores('previousToken', { ids });
    expect(scores.shape).toEqual([model.spec.numLayers, model.spec.numHeads]);
    expect(Array.from(scores.data).every(Number.isFinite)).toBe(true);
  });

  it('patchSweep: a cell is the corrupted run with that patch, through the windows and softcaps', async () => {
    const corrupted = [3, 1, 4, 8, 5, 9, 2, 6];
    const target = [7, 11];
    const u = headRow(fixture, target);
    const metric = (r) => {
      const row = r.hiddenStates[r.hiddenStates.length - 1].data.subarray((n - 1) * u.length, n * u.length);
      return row.reduce((s, v, e) => s + v * u[e], 0);
    };
    const clean = await model.run({ ids });
    const bad = await model.run({ ids: corrupted });
    const [mClean, mBad] = [metric(clean), metric(bad)];
    const sweep = await model.patchSweep({ clean: { ids }, corrupted: { ids: corrupted }, target, step: 'input' });
    expect(sweep.clean).toBeCloseTo(mClean, 4);
    expect(sweep.corrupted).toBeCloseTo(mBad, 4);
    for (const [layer, row] of [
      [1, 3],
      [1, 5],
      [0, 3],
    ]) {
      const patches = [{ layer, step: 'input', rows: [row], value: clean.hiddenStates[layer] }];
      const patched = await model.run({ ids: corrupted }, { patches });
      const expected = (metric(patched) - mBad) / (mClean - mBad);
      expect(sweep.scores.data[layer * n + row], `layer ${layer}, row ${row}`).toBeCloseTo(expected, 4);
    }
  });
});

describe('Gemma 2: the softcaps and windows are there', () => {
  it('without its final softcap (a config without it), the logits leave (−c, c)', async () => {
    const capped = await loadModel(gemmaFixture({ seed: 54 }).files);
    const uncapped = await loadModel(gemmaFixture({ seed: 54, finalSoftcap: null }).files);
    const [a, b] = [await capped.run({ ids }), await uncapped.run({ ids })];
    expect(Math.max(...a.logits.data.map(Math.abs))).toBeLessThan(2);
    expect(a.logits.data.map((x, i) => x - Math.tanh(b.logits.data[i] / 2) * 2).every((x) => Math.abs(x) < 1e-5)).toBe(
      true,
    );
    // layer 0 slides (window 3): row 6 gives keys 0 … 3 weight 0; layer 1 sees every key
    const w0 = a.attentions[0].data.subarray(6 * n, 7 * n);
    expect(Array.from(w0.subarray(0, 4))).toEqual([0, 0, 0, 0]);
    expect(Array.from(a.attentions[1].data.subarray(6 * n, 7 * n)).every((x) => x > 0 || x === 0)).toBe(true);
    expect(a.attentions[1].data[6 * n]).toBeGreaterThan(0);
  });
});
