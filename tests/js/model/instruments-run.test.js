// model.run's instruments (issue 36): `patches` of every step, `loss`, `ablate` modes, a capture's headResult and the
// result's export, against the float64 reference of the instruments (instruments-reference.js, patch-reference.js),
// on GPT-2, LLaMA (GQA + RoPE) and Qwen2 (q/k/v biases, tied head), with the weights resident and read at every run.
// Tolerances: reference.js (WEIGHTS, VALUES).
import { beforeAll, describe, expect, it } from 'vitest';
import { readNpz, readSafetensors } from '../../../src/js/io/index.js';
import { loadModel } from '../../../src/js/model/index.js';
import { PATCH_STEPS } from '../../../src/js/model/patches.js';
import { expectClose } from '../reference.js';
import { expectLikeReference } from './expect-run.js';
import { FAMILIES, RESIDENCY } from './instruments-families.js';
import {
  referenceAblate,
  referenceCapture,
  referenceHeadResult,
  referenceLoss,
  referencePatch,
} from './instruments-reference.js';
import { VALUES } from './reference.js';
import { withWeightEdits } from './edit-reference.js';

const ids = [3, 1, 4, 1, 5, 9, 2];
const other = [7, 2, 8, 1, 8, 2, 8];
const n = ids.length;
const HEAD_STEPS = new Set(['q', 'k', 'v', 'qRotated', 'kRotated', 'rawScores', 'scaledScores', 'scores']);
HEAD_STEPS.add('weights').add('headOutput');
const WEIGHT_STEPS = new Set(['wq', 'wk', 'wv', 'wo']);

/** Rows [n][cols] as a { data, shape } value. */
const asValue = (rows) => ({ data: Float32Array.from(rows.flat()), shape: [rows.length, rows[0].length] });

describe.each(FAMILIES)('%s', (name, make) => {
  describe.each(RESIDENCY)('weights %s', (how, residentBytes) => {
    let fixture;
    let model;
    let plain;
    let donor; // the other prompt's every step, in the reference
    beforeAll(async () => {
      fixture = make();
      model = await loadModel(fixture.files, { residentBytes });
      plain = await model.run({ ids });
      donor = referenceCapture(fixture, other);
    });

    it("a patch of each step with another prompt's value: everything after it follows, as in the reference", async () => {
      const steps = PATCH_STEPS.filter(
        (step) => (model.spec.rope || !step.endsWith('Rotated')) && !WEIGHT_STEPS.has(step),
      );
      expect(steps.length).toBe(model.spec.rope ? 19 : 17);
      const head = model.spec.numHeads - 1;
      for (const [i, step] of steps.entries()) {
        const at = { layer: 1, ...(HEAD_STEPS.has(step) ? { head } : {}), step };
        // the value has every row; rows 2 and n − 1 (what `next` reads) are replaced
        const value = donor.activation(at.layer, step, at.head);
        const rows = [2, n - 1];
        // as nested arrays of float64 (−Infinity in the masked scores) or as { data: Float32Array, shape }
        const given = i % 2 ? value : asValue(value);
        const r = await model.run({ ids }, { patches: [{ ...at, rows, value: given }] });
        expectLikeReference(r, referencePatch(fixture, ids, [{ ...at, rows, value }]), step);
        const last = (x) => Array.from(x.logits.data.subarray((n - 1) * model.spec.vocabSize));
        expect(last(r), step).not.toEqual(last(plain));
      }
    });

    it('a patch of a weight replaces its rows for this run; several patches of one run apply in order', async () => {
      const { numHeads: H, headDim: dK, dModel: d } = model.spec;
      const wo = { data: new Float32Array(H * dK * d).map((_, i) => Math.sin(i) / 4), shape: [H * dK, d] };
      const patches = [
        { layer: 0, step: 'wo', rows: [1, 3], value: wo },
        { layer: 1, step: 'input', rows: [4], value: asValue(donor.activation(1, 'input')) },
        {
          layer: 1,
          step: 'input',
          rows: [4, 6],
          value: asValue(donor.activation(1, 'input').map((row) => row.map((x) => -x))),
        },
      ];
      const r = await model.run({ ids }, { patches });
      const edits = [1, 3].flatMap((row) =>
        Array.from({ length: d }, (_, col) => ({ layer: 0, step: 'wo', row, col, value: wo.data[row * d + col] })),
      );
      const negated = donor.activation(1, 'input').map((row) => row.map((x) => -x));
      const edited = withWeightEdits(fixture, edits);
      const ref = referencePatch(edited, ids, [{ layer: 1, step: 'input', rows: [4, 6], value: negated }]);
      expectLikeReference(r, ref, 'wo and two input patches');
      // the weights are the checkpoint's again in the next run
      expectClose((await model.run({ ids })).logits.data, plain.logits.data, { atol: 0, rtol: 0, what: 'next run' });
    });

    it('loss: the next-token cross-entropy of each position and its mean, with the logits asked for', async () => {
      const r = await model.run({ ids }, { loss: true, logits: 'last' });
      const ref = referenceLoss(fixture, ids);
      expect(r.loss.perToken).toBeInstanceOf(Float32Array);
      expectClose(r.loss.perToken, ref.perToken, { ...VALUES, what: 'perToken' });
      expect(r.loss.mean).toBeCloseTo(ref.mean, 5);
      expect(r.logits.shape).toEqual([1, model.spec.vocabSize]);
      const ablated = await model.run({ ids }, { loss: true, ablate: [[1, 0]], logits: false });
      expect(ablated.logits).toBeNull();
      expect(ablated.loss.mean).toBeCloseTo(referenceLoss(fixture, ids, { ablate: [[1, 0]] }).mean, 5);
      expect((await model.run({ ids: [5] }, { loss: true })).loss).toEqual({
        perToken: new Float32Array(0),
        mean: NaN,
      });
    });

    it('ablation modes: zero, mean over this run, mean over a reference run and resample, as in the reference', async () => {
      const cases = [
        [{ layer: 1, head: 0, mode: 'zero' }],
        [{ layer: 1, head: 1, mode: 'mean' }],
        [
          { layer: 0, head: 0, mode: 'mean', ids: other },
          { layer: 1, head: 1, mode: 'mean' },
        ],
        [{ layer: 1, head: model.spec.numHeads - 1, mode: 'resample', ids: other }],
      ];
      for (const ablations of cases) {
        const ablate = ablations.map(({ ids: ref, ...a }) => (ref ? { ...a, reference: { ids: ref } } : a));
        const r = await model.run({ ids }, { ablate });
        expectLikeReference(r, referenceAblate(fixture, ids, ablations), JSON.stringify(ablate));
        expect(r.logits.data).not.toEqual(plain.logits.data);
      }
      // [layer, head] is zero, as before
      const pair = await model.run({ ids }, { ablate: [[1, 0]] });
      expectLikeReference(pair, referenceAblate(fixture, ids, [{ layer: 1, head: 0, mode: 'zero' }]), 'pair');
    });

    it("a capture's headResult: headOutput · W_O's rows of the head, no bias; they and the bias sum to the output", async () => {
      const { numHeads: H, dModel: d } = model.spec;
      const capture = Array.from({ length: H }, (_, head) => ({ layer: 1, head }));
      const r = await model.run({ ids }, { capture, ablate: [{ layer: 1, head: 0, mode: 'mean' }] });
      const sum = new Float64Array(n * d);
      r.captures.forEach((c, head) => {
        expect(c.headResult.shape).toEqual([n, d]);
        const ref = referenceHeadResult(fixture, ids, { layer: 1, head }, {});
        if (head > 0) expectClose(c.headResult.data, ref, { ...VALUES, what: `head ${head}` });
        c.headResult.data.forEach((x, i) => (sum[i] += x));
      });
      const bias = r.captures[0].output.data.map((x, i) => x - sum[i]); // W_O's bias in every row, or 0
      for (let i = 0; i < n; i++) {
        expectClose(bias.subarray(i * d, (i + 1) * d), bias.subarray(0, d), { atol: 2e-6, rtol: 0, what: `row ${i}` });
      }
      expect(bias.some((x) => Math.abs(x) > 1e-6)).toBe(name === 'GPT-2'); // c_proj's bias; o_proj has none
    });

    it('toNpz and toSafetensors write the ids, attentions, hidden states, logits, captures and loss', async () => {
      const r = await model.run({ ids }, { capture: [{ layer: 1, head: 0 }], loss: true });
      expect(Object.keys(r)).not.toContain('toNpz');
      const npz = await readNpz(await r.toNpz());
      const st = readSafetensors(await r.toSafetensors());
      for (const file of [npz, st]) {
        const get = (key) => (file instanceof Map ? file.get(key) : file[key]);
        expect(Array.from(get('ids').data)).toEqual(ids);
        expect(get('attentions.1').data).toEqual(r.attentions[1].data);
        expect(get('hiddenStates.0').shape).toEqual([n, model.spec.dModel]);
        expect(get('logits').data).toEqual(r.logits.data);
        expect(get('captures.0.headResult').data).toEqual(r.captures[0].headResult.data);
        expect(get('loss.perToken').data).toEqual(r.loss.perToken);
        expect(get('loss.mean').data[0]).toBeCloseTo(r.loss.mean, 6);
      }
    });
  });
});
