// Bad input to the instruments (issue 36) is an AttentionError naming it, raised before any weight is read: the
// model's bytesRead does not move. Patches, loss and ablation modes of run; unembed; attribute; headScores; patchSweep.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/js/model/index.js';
import { bertFixture, gpt2Fixture, llamaFixture } from './fixtures.js';
import { distilbertFixture, robertaFixture } from './fixtures-families.js';

const ids = [3, 1, 4, 1, 5];
const n = ids.length;

/** Expects `call()` to reject with `code` and a message matching `message`, having read nothing. */
async function expectRefused(model, call, code, message) {
  const before = model.bytesRead;
  const error = await call().then(
    () => null,
    (e) => e,
  );
  expect(error, `expected ${code}`).not.toBeNull();
  expect(error.name).toBe('AttentionError');
  expect({ code: error.code, message: error.message }).toMatchObject({ code, message: expect.stringMatching(message) });
  expect(model.bytesRead).toBe(before);
}

describe('bad instruments input, on GPT-2 (read at every run)', () => {
  let model;
  let d;
  let V;
  beforeAll(async () => {
    model = await loadModel(gpt2Fixture().files, { residentBytes: 0 });
    ({ dModel: d, vocabSize: V } = model.spec);
  });
  const rows = (r, c, x = 0.5) => ({ data: new Float32Array(r * c).fill(x), shape: [r, c] });

  it('patches: a step it lacks, a RoPE step, a wrong shape, a value not finite, a row, layer or head out of range', async () => {
    const run = (patch) => () => model.run({ ids }, { patches: [patch] });
    await expectRefused(
      model,
      run({ layer: 0, step: 'attn', value: rows(n, d) }),
      'BAD_OPTION',
      /patches\[0\] \(step 'attn'\): step the string "attn" is not one of input, x, q/,
    );
    await expectRefused(
      model,
      run({ layer: 0, head: 0, step: 'qRotated', value: rows(n, 4) }),
      'BAD_OPTION',
      /'qRotated' is a step of RoPE models only/,
    );
    await expectRefused(
      model,
      run({ layer: 1, step: 'input', value: rows(n, d - 1) }),
      'SHAPE_MISMATCH',
      /patches\[0\] \(step 'input'\)\.value has shape \[5, 7\], but input of layer 1 is \[5, 8\]/,
    );
    await expectRefused(
      model,
      run({ layer: 0, head: 1, step: 'weights', value: rows(n, n + 1) }),
      'SHAPE_MISMATCH',
      /weights of layer 0 is \[5, 5\]/,
    );
    const nan = rows(n, d);
    nan.data[2 * d + 3] = NaN;
    await expectRefused(
      model,
      run({ layer: 0, step: 'mlpOutput', value: nan }),
      'NON_FINITE',
      /patches\[0\] \(step 'mlpOutput'\)\.value\[2\]\[3\] is NaN/,
    );
    await expectRefused(
      model,
      run({ layer: 0, step: 'output', value: rows(n, d, -Infinity) }),
      'NON_FINITE',
      /value\[0\]\[0\] is -Infinity/,
    );
    await expectRefused(
      model,
      run({ layer: 0, step: 'output', rows: [n], value: rows(n, d) }),
      'BAD_OPTION',
      /rows\[0\] the number 5 is not a token of this input \(0 to 4\)/,
    );
    await expectRefused(
      model,
      run({ layer: 2, step: 'output', value: rows(n, d) }),
      'BAD_OPTION',
      /layer the number 2 is not a layer of this model \(0 to 1\)/,
    );
    await expectRefused(
      model,
      run({ layer: 0, step: 'headOutput', value: rows(n, 4) }),
      'BAD_OPTION',
      /head undefined is not a head/,
    );
    await expectRefused(
      model,
      run({ layer: 0, head: 0, step: 'output', value: rows(n, d) }),
      'BAD_OPTION',
      /leave head out/,
    );
    await expectRefused(
      model,
      () =>
        model.run(
          { ids },
          { patches: [{ layer: 0, step: 'input', value: rows(n, d) }], from: { layer: 1, hiddenState: rows(n, d) } },
        ),
      'BAD_OPTION',
      /a patch of layer 0, but the run starts at layer 1/,
    );
  });

  it('ablate: a mode it lacks, resample without a reference or of another length, zero with one', async () => {
    const run = (entry) => () => model.run({ ids }, { ablate: [entry] });
    await expectRefused(
      model,
      run({ layer: 0, head: 0, mode: 'noise' }),
      'BAD_OPTION',
      /ablate\[0\]: mode the string "noise" is not one of zero, mean, resample/,
    );
    await expectRefused(model, run({ layer: 0, head: 0, mode: 'resample' }), 'BAD_OPTION', /needs a reference/);
    await expectRefused(
      model,
      run({ layer: 0, head: 0, mode: 'resample', reference: { ids: [1, 2] } }),
      'SHAPE_MISMATCH',
      /the reference has 2 tokens, but resampling takes a prompt of the run's 5/,
    );
    await expectRefused(
      model,
      run({ layer: 0, head: 0, mode: 'mean', reference: { ids: [1, V] } }),
      'BAD_OPTION',
      /ablate\[0\]\.reference\.ids\[1\] is 23, outside the vocabulary/,
    );
    await expectRefused(
      model,
      run({ layer: 0, head: 0, reference: { ids } }),
      'BAD_OPTION',
      /mode 'zero' takes no reference/,
    );
    await expectRefused(model, run([0, 2]), 'BAD_OPTION', /ablate\[0\]: head the number 2 is not a head of this model/);
  });

  it('loss: of fewer layers than all; unembed: a wrong width, a value not finite, a norm not boolean', async () => {
    await expectRefused(
      model,
      () => model.run({ ids }, { loss: true, layers: 1 }),
      'BAD_OPTION',
      /loss needs every layer's output/,
    );
    await expectRefused(model, () => model.run({ ids }, { loss: 'yes' }), 'BAD_OPTION', /loss must be true or false/);
    await expectRefused(
      model,
      () => model.unembed(rows(3, d + 1)),
      'SHAPE_MISMATCH',
      /hidden has shape \[3, 9\], but .* d_model = 8/,
    );
    const inf = rows(2, d);
    inf.data[d] = Infinity;
    await expectRefused(model, () => model.unembed(inf), 'NON_FINITE', /hidden\[1\]\[0\] is Infinity/);
    await expectRefused(
      model,
      () => model.unembed(rows(2, d), { norm: 1 }),
      'BAD_OPTION',
      /norm must be true or false/,
    );
  });

  it('attribute: a target outside the vocabulary, a position out of range, an unknown option', async () => {
    await expectRefused(
      model,
      () => model.attribute({ ids }, { target: [1, V] }),
      'BAD_OPTION',
      /attribute: target\[1\] is the number 23, not a token id of the vocabulary \[0, 23\)/,
    );
    await expectRefused(
      model,
      () => model.attribute({ ids }, { target: [] }),
      'BAD_OPTION',
      /target must be \[a\] or \[a, b\]/,
    );
    await expectRefused(
      model,
      () => model.attribute({ ids }, { target: [1], position: n }),
      'BAD_OPTION',
      /position the number 5 is not a token of the input \(0 to 4\)/,
    );
    await expectRefused(model, () => model.attribute({ ids }, { target: [1], layer: 0 }), 'UNKNOWN_OPTION', /layer/);
  });

  it('headScores: a kind it lacks, a sequence with an id outside the vocabulary', async () => {
    await expectRefused(
      model,
      () => model.headScores('copying', { ids }),
      'BAD_OPTION',
      /kind the string "copying" is not one of previousToken, duplicateToken, induction/,
    );
    await expectRefused(
      model,
      () => model.headScores('induction', { ids: [ids, [1, -1]] }),
      'BAD_OPTION',
      /ids\[1\]: ids\[1\] is -1/,
    );
    await expectRefused(
      model,
      () => model.headScores('induction', { ids, excludeBos: 'yes' }),
      'BAD_OPTION',
      /excludeBos must be true or false/,
    );
  });

  it('patchSweep: prompts of different lengths, a step it does not sweep, a target or position out of range', async () => {
    const sweep = (o) => () =>
      model.patchSweep({ clean: { ids }, corrupted: { ids: [5, 1, 4, 1, 3] }, target: [1, 2], step: 'input', ...o });
    await expectRefused(
      model,
      sweep({ corrupted: { ids: [1, 2] } }),
      'SHAPE_MISMATCH',
      /the clean prompt has 5 tokens and the corrupted one 2/,
    );
    await expectRefused(
      model,
      sweep({ step: 'q' }),
      'BAD_OPTION',
      /step the string "q" is not one of input, output, mlpOutput, headOutput/,
    );
    await expectRefused(model, sweep({ target: [V] }), 'BAD_OPTION', /target\[0\] is the number 23/);
    await expectRefused(model, sweep({ position: -1 }), 'BAD_OPTION', /position the number -1 is not a token/);
    await expectRefused(model, sweep({ onProgress: 1 }), 'BAD_OPTION', /onProgress must be a function/);
    await expectRefused(model, sweep({ clean: { ids: [1, 2, 3, 4, 99] } }), 'BAD_OPTION', /clean\.ids\[4\] is 99/);
  });
});

describe('bad instruments input, by family', () => {
  it('BERT: attribute and loss are UNSUPPORTED_MODEL; LLaMA: a patch of kRotated is refused on GPT-2 only', async () => {
    const bert = await loadModel(bertFixture().files, { residentBytes: 0 });
    await expectRefused(
      bert,
      () => bert.attribute({ ids }, { target: [1] }),
      'UNSUPPORTED_MODEL',
      /masked-LM head is not linear/,
    );
    await expectRefused(
      bert,
      () => bert.run({ ids }, { loss: true }),
      'UNSUPPORTED_MODEL',
      /next-token cross-entropy of a decoder/,
    );
    for (const encoder of [robertaFixture(), distilbertFixture()]) {
      const model = await loadModel(encoder.files, { residentBytes: 0 });
      await expectRefused(
        model,
        () => model.attribute({ ids }, { target: [1] }),
        'UNSUPPORTED_MODEL',
        /masked-LM head is not linear/,
      );
      expect(() => model.generate({ ids })).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_MODEL' }));
    }
    const llama = await loadModel(llamaFixture().files, { residentBytes: 0 });
    const value = { data: new Float32Array(n * 4).fill(Infinity), shape: [n, 4] };
    await expectRefused(
      llama,
      () => llama.run({ ids }, { patches: [{ layer: 0, head: 3, step: 'kRotated', value }] }),
      'NON_FINITE',
      /kRotated/,
    );
  });
});
