// The instruments that read a run (issue 36): the logit lens (model.unembed), direct logit attribution
// (model.attribute) and the head detectors (model.headScores), against the float64 reference of the instruments
// (instruments-reference.js), on GPT-2, LLaMA (GQA + RoPE) and Qwen2, resident and not. Attribution's parts sum to the
// logit (difference) the run computes, for every family, within float32 rounding. Tolerances: reference.js.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/js/model/index.js';
import { expectClose } from '../reference.js';
import { bertFixture } from './fixtures.js';
import { referenceAttribute, referenceModelHeadScores, referenceUnembed } from './instruments-reference.js';
import { VALUES, referenceForward } from './reference.js';
import { FAMILIES, RESIDENCY } from './instruments-families.js';

const ids = [3, 1, 4, 1, 5, 9, 2, 6, 5, 3];
const n = ids.length;
const sumOf = (a) =>
  a.embeddings + [...a.heads.data, ...a.attnBiases, ...a.mlps].reduce((s, x) => s + x, 0) + a.finalBias;

describe.each(FAMILIES)('%s', (name, make) => {
  describe.each(RESIDENCY)('weights %s', (how, residentBytes) => {
    let fixture;
    let model;
    let plain;
    beforeAll(async () => {
      fixture = make();
      model = await loadModel(fixture.files, { residentBytes });
      plain = await model.run({ ids });
    });

    it("unembed: each layer's hidden state through the final norm and the LM head; without the norm, the rows as they are", async () => {
      const { dModel: d, vocabSize: V } = model.spec;
      const ref = referenceForward(fixture, ids);
      for (let l = 0; l < model.spec.numLayers; l++) {
        const lens = await model.unembed(plain.hiddenStates[l]);
        expect(lens.shape).toEqual([n, V]);
        expectClose(lens.data, referenceUnembed(fixture, ref.hiddenStates[l]), { ...VALUES, what: `layer ${l}` });
      }
      // the normed last hidden state without the norm again: the run's logits; nested arrays as input
      const rows = plain.hiddenStates.at(-1).toArray();
      expectClose((await model.unembed(rows, { norm: false })).data, plain.logits.data, { ...VALUES, what: 'logits' });
      expect(
        (await model.unembed({ data: new Float32Array(d), shape: [1, d] }, { norm: false })).data.every((x) => x === 0),
      ).toBe(true);
    });

    it('attribute: every part as in the reference, and the parts sum to the logit and to the logit difference', async () => {
      const { numLayers: L, numHeads: H } = model.spec;
      for (const [target, position] of [
        [[7], undefined],
        [[7, 11], undefined],
        [[0, 2], 3],
      ]) {
        const a = await model.attribute({ ids }, { target, position });
        const ref = referenceAttribute(fixture, ids, { target, position });
        const what = `${JSON.stringify(target)} at ${position ?? 'the last'}`;
        expect(a.heads.shape).toEqual([L, H]);
        expect(a.attnBiases).toHaveLength(L);
        expect(a.mlps).toHaveLength(L);
        expectClose(a.heads.data, ref.heads.flat(), { ...VALUES, what: `${what}: heads` });
        expectClose(a.mlps, ref.mlps, { ...VALUES, what: `${what}: mlps` });
        expectClose(a.attnBiases, ref.attnBiases, { ...VALUES, what: `${what}: attnBiases` });
        expectClose([a.embeddings, a.finalBias, a.total], [ref.embeddings, ref.finalBias, ref.total], {
          ...VALUES,
          what: `${what}: embeddings, finalBias, total`,
        });
        // the total is the run's own logit (difference)
        const row = plain.logits.data.subarray((position ?? n - 1) * model.spec.vocabSize);
        expect(a.total).toBe(row[target[0]] - (target[1] === undefined ? 0 : row[target[1]]));
        // the parts sum to it within float32 rounding of the forward's sums
        const scale = Math.abs(a.embeddings) + [...a.heads.data, ...a.mlps].reduce((s, x) => s + Math.abs(x), 0);
        expect(Math.abs(sumOf(a) - a.total), what).toBeLessThan(2e-6 * (1 + scale));
      }
    });

    it('attribute with an ablation: the ablated head gives 0, and the parts still sum to the ablated logit', async () => {
      const a = await model.attribute({ ids }, { target: [7, 11], ablate: [[1, 0]] });
      expect(a.heads.data[model.spec.numHeads]).toBe(0);
      expect(Math.abs(sumOf(a) - a.total)).toBeLessThan(1e-5);
      expect(a.total).toBeCloseTo(referenceAttribute(fixture, ids, { target: [7, 11] }, { ablate: [[1, 0]] }).total, 5);
    });

    it('headScores: previous-token, duplicate-token and induction scores of one sequence and of several', async () => {
      const repeated = [5, 8, 2, 7, 5, 8, 2, 7];
      const sequences = [repeated, ids];
      for (const kind of ['previousToken', 'duplicateToken', 'induction']) {
        for (const options of [{}, { excludeBos: true }, { excludeBos: true, excludeCurrentToken: true }]) {
          const one = await model.headScores(kind, { ids: repeated, ...options });
          expect(one.shape).toEqual([model.spec.numLayers, model.spec.numHeads]);
          const what = `${kind} ${JSON.stringify(options)}`;
          expectClose(one.data, referenceModelHeadScores(fixture, repeated, kind, options).flat(), { ...VALUES, what });
          const many = await model.headScores(kind, { ids: sequences, ...options });
          const ref = referenceModelHeadScores(fixture, sequences, kind, options).flat();
          expectClose(many.data, ref, { ...VALUES, what: `${what}, two sequences` });
        }
      }
    });
  });
});

describe('BERT', () => {
  it('attribute is UNSUPPORTED_MODEL (its masked-LM head is not linear); unembed is its MLM head', async () => {
    const fixture = bertFixture();
    const model = await loadModel(fixture.files);
    const before = model.bytesRead;
    await expect(model.attribute({ ids: [1, 2, 3] }, { target: [4] })).rejects.toMatchObject({
      code: 'UNSUPPORTED_MODEL',
    });
    expect(model.bytesRead).toBe(before);
    const r = await model.run({ ids: [1, 2, 3] });
    expectClose((await model.unembed(r.hiddenStates.at(-1))).data, r.logits.data, { ...VALUES, what: 'BERT lens' });
    expectClose(
      (await model.unembed(r.hiddenStates[1], { norm: false })).data,
      referenceUnembed(fixture, r.hiddenStates[1]),
      {
        ...VALUES,
        what: 'BERT lens of layer 0',
      },
    );
  });
});
