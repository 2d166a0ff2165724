// model.run's `edits`: a number of any editable step replaced inside the forward, and everything after it (the rest
// of its layer, the later layers, the logits, `next`) following from it, against the float64 reference with the same
// edit (edit-reference.js), for GPT-2 and the LLaMA family (GQA, RoPE); and every bad edit a BAD_OPTION naming it.
// Tolerances: reference.js (WEIGHTS, VALUES).
import { beforeAll, describe, expect, it } from 'vitest';
import { EDITABLE_STEPS } from '../../../src/js/model/edits.js';
import { loadModel } from '../../../src/js/model/index.js';
import { expectLikeReference } from './expect-run.js';
import { bertFixture, gpt2Fixture, llamaFixture } from './fixtures.js';
import { distilbertFixture, neoxFixture, phi3Fixture, robertaFixture } from './fixtures-families.js';
import { gemmaFixture, olmo2Fixture } from './fixtures-gemma.js';
import { withWeightEdits } from './edit-reference.js';
import { referenceForward } from './reference.js';

const FAMILIES = [
  ['GPT-2', () => gpt2Fixture({ layers: 3, seed: 11 })],
  ['LLaMA (GQA 4/2, RoPE)', () => llamaFixture({ seed: 12 })],
  ['BERT (post-norm: x feeds q, k and v only)', () => bertFixture({ seed: 13 })],
  ['Qwen3 (q and k normed per head before RoPE)', () => llamaFixture({ type: 'qwen3', headDim: 8, seed: 15 })],
  ['GPT-NeoX (parallel: x feeds the MLP too; q|k|v by head)', () => neoxFixture({ seed: 14 })],
  ['RoBERTa (positions past padding_idx; pads among the ids)', () => robertaFixture({ seed: 16 })],
  ['DistilBERT (its own names, no token types)', () => distilbertFixture({ seed: 17 })],
  [
    'Phi-3 (qkv_proj rows q | k | v with GQA, partial rotary)',
    () => phi3Fixture({ d: 32, kvHeads: 2, partial: 0.5, seed: 63 }),
  ],
  ['Gemma 2 (sandwich, softcap, window)', () => gemmaFixture({ seed: 16 })],
  ['Gemma 3 (q/k norms, two RoPE bases)', () => gemmaFixture({ version: 3, seed: 17 })],
  ['OLMo-2 (norms after each half; x feeds q, k and v unnormed)', () => olmo2Fixture({ seed: 18, kvHeads: 2 })],
];
const ids = [3, 1, 4, 1, 5, 9];
const n = ids.length;
const WEIGHTS_OF = { wq: true, wk: true, wv: true, wo: true };
const HEAD_STEPS = new Set(['q', 'k', 'v', 'qRotated', 'kRotated', 'rawScores', 'scaledScores', 'scores']);
HEAD_STEPS.add('weights').add('headOutput');

/** One edit of `step` in layer 0 at the last token (what `next` reads), column 1, to a value far from its own. */
const editOf = (step, head) => ({ layer: 0, ...(HEAD_STEPS.has(step) ? { head } : {}), step, row: n - 1, col: 1 });

describe.each(FAMILIES)('%s', (name, make) => {
  let fixture;
  let model;
  let plain;
  beforeAll(async () => {
    fixture = make();
    model = await loadModel(fixture.files);
    plain = await model.run({ ids });
  });

  it('an edit of each step: the rest of the layer, the later layers and the logits follow, as in the reference', async () => {
    const steps = EDITABLE_STEPS.filter((step) => (model.spec.rope || !step.endsWith('Rotated')) && !WEIGHTS_OF[step]);
    expect(steps.length).toBe(model.spec.rope ? 18 : 16);
    const head = model.spec.numHeads - 1;
    for (const step of steps) {
      const edit = { ...editOf(step, head), value: step === 'weights' ? 0.9 : 2.5 };
      const r = await model.run({ ids }, { edits: [edit], capture: [{ layer: 0, head }] });
      expectLikeReference(r, referenceForward(fixture, ids, { edits: [edit] }), step);
      // the edit changed what follows: the last layer's output and the logits of the last token
      const last = r.logits.data.subarray((n - 1) * model.spec.vocabSize);
      expect(last, step).not.toEqual(plain.logits.data.subarray((n - 1) * model.spec.vocabSize));
      // and the capture shows the edited value where the step is [n, cols] (a head's, or the layer's)
      const [steps] = r.captures;
      const width = steps[step].shape[1];
      expect(steps[step].data[edit.row * width + edit.col], step).toBeCloseTo(edit.value, 6);
    }
  });

  it('edits of W_q, W_k, W_v and W_o ([in, out]) change those weights for this run only', async () => {
    const { headDim: dK, numLayers: L } = model.spec;
    const edits = [
      { layer: 0, step: 'wq', row: 1, col: dK + 1, value: 1.5 },
      { layer: 0, step: 'wk', row: 2, col: 0, value: -1.25 },
      { layer: L - 1, step: 'wv', row: 0, col: 1, value: 2 },
      { layer: L - 1, step: 'wo', row: dK + 2, col: 3, value: -2 },
    ];
    const r = await model.run({ ids }, { edits });
    expectLikeReference(r, referenceForward(withWeightEdits(fixture, edits), ids, { edits }), 'weights');
    expect(r.logits.data).not.toEqual(plain.logits.data);
    const again = await model.run({ ids });
    expect(again.logits.data).toEqual(plain.logits.data); // the checkpoint's weights are as they were
  });

  it('several edits in several layers, with an ablated head, and next follows them', async () => {
    const { numLayers: L, numHeads: H, dModel: d } = model.spec;
    const edits = [
      { layer: 0, head: 1, step: 'weights', row: 2, col: 0, value: 0.75 },
      { layer: 0, head: 1, step: 'weights', row: 2, col: 1, value: 0.25 },
      { layer: 0, step: 'residual', row: 4, col: d - 1, value: -3 },
      { layer: L - 1, head: H - 1, step: 'scores', row: n - 1, col: 0, value: 4 },
      { layer: L - 1, step: 'hidden', row: n - 1, col: 0, value: 6 },
    ];
    const ablate = [[L - 1, 0]];
    const r = await model.run({ ids }, { edits, ablate });
    const ref = referenceForward(fixture, ids, { edits, ablate });
    expectLikeReference(r, ref, 'several');
    const V = model.spec.vocabSize;
    const best = Array.from(ref.logits.slice((n - 1) * V)).reduce((b, x, id, row) => (x > row[b] ? id : b), 0);
    expect(r.next[0].id).toBe(best);
  });

  it.runIf(!/BERT/.test(name))(
    // the encoders (BERT, RoBERTa, DistilBERT) mask no score
    'an edit of a masked score to a number lets the query see that later key',
    async () => {
      const edit = { layer: 0, head: 0, step: 'scores', row: 0, col: 2, value: 1 };
      const r = await model.run({ ids }, { edits: [edit] });
      expect(r.attentions[0].data[2]).toBeGreaterThan(0.1); // head 0, query 0, key 2: masked without the edit
      expectLikeReference(r, referenceForward(fixture, ids, { edits: [edit] }), 'masked score');
    },
  );
});

it('Mistral’s sliding window: after an edit of the raw scores, the window masks them again as the kernel does', async () => {
  const fixture = llamaFixture({ type: 'mistral', slidingWindow: 3, seed: 14 });
  const model = await loadModel(fixture.files);
  const edits = [
    { layer: 0, head: 1, step: 'rawScores', row: n - 1, col: 0, value: 9 }, // outside the window: masked again
    { layer: 0, head: 2, step: 'rawScores', row: n - 1, col: n - 2, value: 9 },
  ];
  const r = await model.run({ ids }, { edits });
  expect(r.attentions[0].data[(1 * n + n - 1) * n]).toBe(0);
  expectLikeReference(r, referenceForward(fixture, ids, { edits }), 'mistral');
});

describe('bad edits are BAD_OPTION errors that name the edit', () => {
  let gpt2;
  beforeAll(async () => {
    gpt2 = await loadModel(gpt2Fixture().files);
  });
  const good = { layer: 0, head: 0, step: 'q', row: 0, col: 0, value: 1 };
  it.each([
    ['not an array', { layer: 0 }, /edits must be an array/],
    ['an unknown step', [good, { ...good, step: 'keys' }], /edits\[1\] \(step 'keys'\): step must be one of x, q, k/],
    ['a RoPE step of GPT-2', [{ ...good, step: 'qRotated' }], /edits\[0\] .*RoPE models only/],
    ['a head step without a head', [{ ...good, head: undefined }], /edits\[0\] \(step 'q'\): head undefined is not/],
    ['a layer step with a head', [{ ...good, step: 'hidden' }], /edits\[0\] \(step 'hidden'\): .*leave head out/],
    ['a layer out of range', [{ ...good, layer: 2 }], /edits\[0\] .*layer the number 2 is not a layer.*\(0 to 1\)/],
    ['a row past the tokens', [{ ...good, row: 3 }], /row the number 3 is not a token of this input \(0 to 2\)/],
    [
      'a row past a weight',
      [{ ...good, head: undefined, step: 'wo', row: 8 }],
      /row the number 8 is not a row of wo \(0 to 7\)/,
    ],
    ['a column past the step', [{ ...good, step: 'weights', col: 3 }], /col the number 3 is not a column of weights/],
    ['a value that is not a number', [{ ...good, value: '1' }], /value must be a finite float32 number/],
    ['a value beyond float32', [{ ...good, value: 1e39 }], /value must be a finite float32 number/],
    ['an unknown key', [{ ...good, colum: 1 }], /colum/],
  ])('%s', async (what, edits, message) => {
    const heap = gpt2.heapBytesInUse();
    const error = await gpt2.run({ ids: [1, 2, 3] }, { edits }).catch((e) => e);
    expect(error.code, String(error)).toBe(what === 'an unknown key' ? 'UNKNOWN_OPTION' : 'BAD_OPTION');
    expect(error.message).toMatch(message);
    expect(gpt2.heapBytesInUse()).toBe(heap); // and the model still runs
    await expect(gpt2.run({ ids: [1, 2, 3] }, { edits: [good] })).resolves.toBeTruthy();
  });
});
