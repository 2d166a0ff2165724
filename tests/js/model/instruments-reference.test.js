// The float64 reference of the instruments (instruments-reference.js, patch-reference.js) checked against itself and
// against hand-made cases, in ways that fail when a definition is wrong: attribution's parts sum to the logit
// (difference) of the forward for GPT-2, LLaMA (GQA + RoPE) and Qwen2 (q/k/v biases, tied head); the heads' results
// and the bias sum to the attention output; the logit lens of the last residual is the forward's logits; a patch
// with the run's own value changes nothing and the clean input patched into the corrupted run gives the clean run;
// head scores of hand-made attention patterns; the loss against a naive softmax and a known answer; each ablation mode.
import { describe, expect, it } from 'vitest';
import { bertFixture, gpt2Fixture, llamaFixture } from './fixtures.js';
import {
  detectionPattern,
  logitMetric,
  referenceAblate,
  referenceAttribute,
  referenceCapture,
  referenceHeadResult,
  referenceHeadScores,
  referenceLoss,
  referenceModelHeadScores,
  referencePatch,
  referencePatchSweep,
  referenceUnembed,
} from './instruments-reference.js';
import { referenceForward } from './reference.js';

const FAMILIES = [
  ['GPT-2', () => gpt2Fixture()],
  ['LLaMA, GQA 4/2, RoPE', () => llamaFixture()],
  ['Qwen2: q/k/v biases, tied head', () => llamaFixture({ type: 'qwen2', seed: 6 })],
];
const ids = [3, 1, 4, 1, 5, 9, 2];

/** Expects two arrays of numbers to agree within float64 rounding of sums of a few hundred terms. */
function expectNear(actual, expected, what, tolerance = 1e-10) {
  expect(actual.length, what).toBe(expected.length);
  for (let i = 0; i < expected.length; i++) {
    if (!(Math.abs(actual[i] - expected[i]) <= tolerance * (1 + Math.abs(expected[i])))) {
      expect.fail(`${what}[${i}] is ${actual[i]} but ${expected[i]} was expected`);
    }
  }
}

const sum = (values) => values.flat().reduce((a, x) => a + x, 0);

describe.each(FAMILIES)('the instruments reference on %s', (name, make) => {
  const fixture = make();
  const run = referenceForward(fixture, ids);
  const L = run.steps.length;
  const d = run.hiddenStates[0].length / ids.length;
  const H = run.attentions[0].length / ids.length ** 2;

  it('attribution: the parts sum to the logit and to the logit difference, at the last and a middle position', () => {
    for (const [target, position] of [
      [[7], undefined],
      [[7, 11], undefined],
      [[0, 2], 3],
    ]) {
      const a = referenceAttribute(fixture, ids, { target, position });
      const at = position ?? ids.length - 1;
      expect(a.heads).toHaveLength(L);
      expect(a.heads[0]).toHaveLength(H);
      const logit = (id) => run.logits[at * fixture.config.vocab_size + id];
      expect(a.total).toBeCloseTo(logit(target[0]) - (target[1] === undefined ? 0 : logit(target[1])), 12);
      const parts = a.embeddings + sum(a.heads) + sum(a.attnBiases) + sum(a.mlps) + a.finalBias;
      expect(Math.abs(parts - a.total), `${JSON.stringify(a)}`).toBeLessThan(1e-10);
      // Not trivially: every kind of part is there, and the heads are not all alike.
      expect(Math.abs(a.embeddings)).toBeGreaterThan(1e-6);
      expect(new Set(a.heads.flat().map((x) => x.toFixed(9))).size).toBe(L * H);
      expect(a.mlps.every((x) => Math.abs(x) > 1e-9)).toBe(true);
      expect(Math.abs(a.finalBias) > 1e-9).toBe(name === 'GPT-2'); // ln_f's bias; RMSNorm has none
      expect(a.attnBiases.every((x) => Math.abs(x) > 1e-9)).toBe(name === 'GPT-2'); // c_proj's bias; o_proj has none
    }
  });

  it("attribution of an ablated head is 0, and the others still sum to the ablated run's logit", () => {
    const a = referenceAttribute(fixture, ids, { target: [7, 11] }, { ablate: [[1, 0]] });
    expect(a.heads[1][0]).toBe(0);
    expect(
      Math.abs(a.embeddings + sum(a.heads) + sum(a.attnBiases) + sum(a.mlps) + a.finalBias - a.total),
    ).toBeLessThan(1e-10);
    expect(a.total).not.toBeCloseTo(referenceAttribute(fixture, ids, { target: [7, 11] }).total, 6);
  });

  it("the heads' results plus W_O's bias are the attention output of each layer", () => {
    for (let l = 0; l < L; l++) {
      const total = new Float64Array(ids.length * d);
      for (let h = 0; h < H; h++) {
        const result = referenceHeadResult(fixture, ids, { layer: l, head: h });
        expect(result).toHaveLength(ids.length * d);
        result.forEach((x, i) => (total[i] += x));
      }
      const bias = fixture.values[`${fixture.prefix}h.${l}.attn.c_proj.bias`]?.data;
      total.forEach((x, i) => (total[i] += bias ? bias[i % d] : 0));
      expectNear(total, run.steps[l].output, `layer ${l} output`);
    }
  });

  it("the logit lens of the last layer's output is the forward's logits; without the norm, of the normed state", () => {
    expectNear(referenceUnembed(fixture, run.steps[L - 1].hidden), run.logits, 'logits');
    const rows = Array.from({ length: ids.length }, (_, i) =>
      Array.from(run.hiddenStates[L].slice(i * d, (i + 1) * d)),
    );
    expectNear(referenceUnembed(fixture, rows, { norm: false }), run.logits, 'logits of the normed rows');
    const lens = referenceUnembed(fixture, { data: run.hiddenStates[1], shape: [ids.length, d] });
    expect(lens).toHaveLength(run.logits.length);
    expect(Math.abs(lens[0] - run.logits[0])).toBeGreaterThan(1e-6); // an earlier layer predicts otherwise
  });

  it("a capture's activation of a step is that step's part of the forward's arrays", () => {
    const { activation } = referenceCapture(fixture, ids);
    const n = ids.length;
    const Hkv = run.steps[0].v.length / n / (run.steps[0].q.length / n / H);
    const dk = run.steps[0].q.length / n / H;
    const block = (flat, width, from, cols) =>
      ids.map((_, r) => Array.from(flat.slice(r * width + from, r * width + from + cols)));
    expect(activation(1, 'input')).toEqual(block(run.hiddenStates[1], d, 0, d));
    expect(activation(0, 'mlpOutput')).toEqual(block(run.steps[0].mlpOutput, d, 0, d));
    for (let h = 0; h < H; h++) {
      const group = Math.floor(h / (H / Hkv));
      expect(activation(0, 'q', h)).toEqual(block(run.steps[0].q, H * dk, h * dk, dk));
      expect(activation(1, 'v', h)).toEqual(block(run.steps[1].v, Hkv * dk, group * dk, dk));
      expect(activation(1, 'headOutput', h)).toEqual(block(run.steps[1].concat, H * dk, h * dk, dk));
      const weights = activation(1, 'weights', h);
      weights.forEach((row, r) => expectNear(row, run.attentions[1].slice((h * n + r) * n, (h * n + r + 1) * n), 'w'));
    }
  });

  it('a patch of any step with the run’s own value changes nothing', () => {
    const own = referenceCapture(fixture, ids);
    const patches = [
      { layer: 0, step: 'input' },
      { layer: 1, step: 'output', rows: [2, 5] },
      { layer: 0, step: 'mlpOutput', rows: [6] },
      { layer: 1, head: H - 1, step: 'headOutput' },
      { layer: 1, head: 1, step: 'weights', rows: [4] },
      { layer: 0, head: H - 1, step: 'v' }, // with GQA, head 3 reads key-value head 1
    ].map((p) => ({ ...p, value: own.activation(p.layer, p.step, p.head) }));
    expectNear(referencePatch(fixture, ids, patches).logits, run.logits, 'logits', 1e-12);
  });

  it('a patch changes only its rows and, causally, the later rows; the clean input of every row gives the clean run', () => {
    const corrupted = [3, 1, 4, 1, 5, 6, 2];
    const clean = referenceCapture(fixture, ids);
    const patched = referencePatch(fixture, corrupted, [
      { layer: 1, step: 'input', rows: [5], value: clean.activation(1, 'input') }, // the prompts differ at token 5
    ]);
    const plain = referencePatch(fixture, corrupted, []); // the same float64 steps, without the patch
    const last = (r) => r.hiddenStates[L];
    expectNear(last(patched).slice(0, 5 * d), last(plain).slice(0, 5 * d), 'rows before the patch', 0);
    expect(Math.abs(last(patched)[5 * d] - last(plain)[5 * d])).toBeGreaterThan(1e-9);
    const whole = referencePatch(fixture, corrupted, [
      { layer: 0, step: 'input', value: clean.activation(0, 'input') },
    ]);
    expectNear(whole.logits, run.logits, 'logits', 1e-12);
  });

  it('a sweep over the input: 1 where the prompts differ at layer 0, 0 where they agree, 0 after the position', () => {
    const corrupted = [3, 1, 4, 1, 8, 9, 2]; // differs at token 4 only
    const position = 5;
    const {
      scores,
      clean,
      corrupted: bad,
    } = referencePatchSweep(fixture, {
      clean: ids,
      corrupted,
      target: [7, 11],
      step: 'input',
      position,
    });
    expect(clean).toBeCloseTo(logitMetric(fixture, run.logits, position, [7, 11]), 12);
    expect(bad).toBeCloseTo(logitMetric(fixture, referenceForward(fixture, corrupted).logits, position, [7, 11]), 12);
    expect(scores).toHaveLength(L);
    expect(scores[0][4]).toBeCloseTo(1, 10);
    for (const p of [0, 1, 2, 3, 5, 6]) expect(Math.abs(scores[0][p]), `layer 0, token ${p}`).toBeLessThan(1e-12);
    for (let l = 0; l < L; l++) expect(Math.abs(scores[l][6])).toBeLessThan(1e-12);
    expect(Math.abs(scores[1][4]) + Math.abs(scores[1][5])).toBeGreaterThan(1e-6);
  });

  it('sweeps over the attention and MLP outputs and over the heads: cells as single patches score them', () => {
    const corrupted = [3, 1, 4, 1, 8, 9, 2];
    const clean = referenceCapture(fixture, ids);
    const m = (logits) => logitMetric(fixture, logits, 6, [7, 11]);
    const [mClean, mBad] = [m(run.logits), m(referenceForward(fixture, corrupted).logits)];
    const score = (patch) => (m(referencePatch(fixture, corrupted, [patch]).logits) - mBad) / (mClean - mBad);
    for (const step of ['output', 'mlpOutput']) {
      const { scores } = referencePatchSweep(fixture, { clean: ids, corrupted, target: [7, 11], step });
      expect(scores[1][5]).toBeCloseTo(score({ layer: 1, step, rows: [5], value: clean.activation(1, step) }), 12);
      for (const p of [0, 1, 2, 3]) expect(Math.abs(scores[0][p])).toBeLessThan(1e-12); // the prompts agree there
    }
    const { scores } = referencePatchSweep(fixture, { clean: ids, corrupted, target: [7, 11], step: 'headOutput' });
    expect(scores.map((row) => row.length)).toEqual(new Array(L).fill(H));
    const head = { layer: 0, head: 1, step: 'headOutput' };
    expect(scores[0][1]).toBeCloseTo(score({ ...head, value: clean.activation(0, 'headOutput', 1) }), 12);
    expect(() => referencePatchSweep(fixture, { clean: ids, corrupted: [1, 2], target: [1], step: 'input' })).toThrow(
      'differ in length',
    );
  });

  it('ablation modes: zero as `ablate`, mean and resample write what they say into the head’s output', () => {
    const zero = referenceAblate(fixture, ids, [{ layer: 1, head: 0, mode: 'zero' }]);
    expectNear(zero.logits, referenceForward(fixture, ids, { ablate: [[1, 0]] }).logits, 'zero', 1e-12);
    const same = referenceAblate(fixture, ids, [{ layer: 1, head: 1, mode: 'resample', ids }]);
    expectNear(same.logits, run.logits, 'resampled from the same prompt', 1e-12);

    const seen = {};
    const keep = (layer, step, array, dims) => {
      if (step === 'headOutput') seen[layer] = { array: array.slice(), dims };
    };
    const headRows = (layer, head) => {
      const { array, dims } = seen[layer];
      return ids.map((_, r) =>
        Array.from(array.slice(r * dims.H * dims.dk + head * dims.dk, r * dims.H * dims.dk + (head + 1) * dims.dk)),
      );
    };
    const before = referenceCapture(fixture, ids).activation(0, 'headOutput', 1);
    const mean = before[0].map((_, c) => before.reduce((s, row) => s + row[c], 0) / before.length);
    const meaned = referenceAblate(fixture, ids, [{ layer: 0, head: 1, mode: 'mean' }], { hook: keep });
    for (const row of headRows(0, 1)) expectNear(row, mean, 'mean-ablated row', 1e-12);
    const zeroed = referenceAblate(fixture, ids, [{ layer: 0, head: 1, mode: 'zero' }]);
    expect(Math.abs(meaned.logits[0] - zeroed.logits[0])).toBeGreaterThan(1e-9);
    const fromSelf = referenceAblate(fixture, ids, [{ layer: 0, head: 1, mode: 'mean', ids }]);
    expectNear(fromSelf.logits, meaned.logits, 'mean over a reference run of the same prompt', 1e-12);

    const other = [2, 7, 1, 8, 2, 8, 1];
    const otherRows = referenceCapture(fixture, other).activation(1, 'headOutput', 0);
    referenceAblate(fixture, ids, [{ layer: 1, head: 0, mode: 'resample', ids: other }], { hook: keep });
    headRows(1, 0).forEach((row, r) => expectNear(row, otherRows[r], `resampled row ${r}`, 0));
    const meanOfOther = otherRows[0].map((_, c) => otherRows.reduce((s, row) => s + row[c], 0) / otherRows.length);
    referenceAblate(fixture, ids, [{ layer: 1, head: 0, mode: 'mean', ids: other }], { hook: keep });
    headRows(1, 0).forEach((row) => expectNear(row, meanOfOther, 'mean over another run', 1e-12));
  });

  it('the loss is −log softmax of the next token, against a naive softmax of the forward’s logits', () => {
    const { perToken, mean } = referenceLoss(fixture, ids);
    const V = fixture.config.vocab_size;
    const naive = ids.slice(1).map((next, i) => {
      const row = Array.from(run.logits.slice(i * V, (i + 1) * V));
      return -Math.log(Math.exp(row[next]) / row.reduce((s, z) => s + Math.exp(z), 0));
    });
    expectNear(perToken, naive, 'loss per token', 1e-12);
    expect(mean).toBeCloseTo(naive.reduce((a, x) => a + x, 0) / naive.length, 12);
    expect(referenceLoss(fixture, [5]).perToken).toEqual([]);
  });
});

describe('the instruments reference: known answers', () => {
  it('an LM head of zeros: every logit 0, every token’s loss log V', () => {
    const fixture = llamaFixture();
    const head = fixture.values['lm_head.weight'];
    fixture.values['lm_head.weight'] = { ...head, data: new Float64Array(head.data.length) };
    const { perToken, mean } = referenceLoss(fixture, ids);
    expectNear(perToken, new Array(ids.length - 1).fill(Math.log(fixture.config.vocab_size)), 'log V', 1e-14);
    expect(mean).toBeCloseTo(Math.log(29), 14);
  });

  it('BERT: its MLM head is the logit lens of its last hidden state; attribution does not apply', () => {
    const fixture = bertFixture();
    const run = referenceForward(fixture, [3, 1, 4]);
    expectNear(referenceUnembed(fixture, run.hiddenStates.at(-1)), run.logits, 'BERT logits');
    expect(() => referenceAttribute(fixture, [3, 1, 4], { target: [1] })).toThrow('BERT');
  });

  it('the detection patterns, as TransformerLens builds them', () => {
    expect(detectionPattern('previousToken', [5, 6, 7])).toEqual([
      [0, 0, 0],
      [1, 0, 0],
      [0, 1, 0],
    ]);
    expect(detectionPattern('duplicateToken', [5, 6, 5, 5])).toEqual([
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [1, 0, 0, 0],
      [1, 0, 1, 0],
    ]);
    // induction: duplicate shifted one right; a token repeated at once marks the diagonal (roll, then tril).
    expect(detectionPattern('induction', [5, 6, 5, 5])).toEqual([
      [0, 0, 0, 0],
      [0, 0, 0, 0],
      [0, 1, 0, 0],
      [0, 1, 0, 1],
    ]);
  });

  // A repeated sequence 1 2 3 1 2 3 and heads built by hand: [n][n] rows.
  const rep = [1, 2, 3, 1, 2, 3];
  const n = rep.length;
  const oneHot = (to) => rep.map((_, i) => rep.map((__, j) => (j === to(i) ? 1 : 0)));
  const previous = oneHot((i) => Math.max(0, i - 1)); // row 0 on itself (BOS)
  const induction = oneHot((i) => (i >= 3 ? i - 2 : 0)); // the token after the earlier copy; else BOS
  const duplicate = oneHot((i) => (i >= 3 ? i - 3 : 0));
  const uniform = rep.map((_, i) => rep.map((__, j) => (j <= i ? 1 / (i + 1) : 0)));
  const layers = [[previous, induction, duplicate, uniform]];

  // The uniform head's weight of row i is 1 / (i + 1): its column 0 and its diagonal each hold 1 + 1/2 + … + 1/6.
  const h6 = 1 + 1 / 2 + 1 / 3 + 1 / 4 + 1 / 5 + 1 / 6;
  // [kind, options, scores of previous, induction, duplicate and uniform]: the previous-token head's row 1 and the
  // other two heads' rows 0–2 look at token 0, which is row 1's previous token.
  it.each([
    ['previousToken', {}, [5 / 6, 1 / 6, 1 / 6, (h6 - 1) / 6]],
    ['previousToken', { excludeBos: true }, [1, 0, 0, (h6 - 1 - 1 / 2) / (6 - h6)]],
    ['previousToken', { excludeCurrentToken: true }, [1, 1 / 5, 1 / 5, (h6 - 1) / (6 - h6)]],
    ['induction', {}, [0, 3 / 6, 0, (1 / 4 + 1 / 5 + 1 / 6) / 6]],
    ['induction', { excludeBos: true }, [0, 1, 0, (1 / 4 + 1 / 5 + 1 / 6) / (6 - h6)]],
    ['duplicateToken', {}, [0, 0, 3 / 6, (1 / 4 + 1 / 5 + 1 / 6) / 6]],
    ['duplicateToken', { excludeBos: true, excludeCurrentToken: true }, [0, 0, 1, (1 / 5 + 1 / 6) / (6 - 2 * h6 + 1)]],
  ])('head scores: %s %o of hand-made heads', (kind, options, expected) => {
    const [scores] = referenceHeadScores(layers, rep, kind, options);
    expectNear(scores, expected, `${kind} ${JSON.stringify(options)}`, 1e-14);
    // The same heads as flat [H, n, n] data give the same scores.
    const flat = Float64Array.from(layers[0].flat(2));
    expectNear(referenceHeadScores([{ data: flat }], rep, kind, options)[0], expected, 'flat', 1e-14);
    expect(n).toBe(6);
  });

  it('head scores: the mean over sequences; NaN where the exclusions leave nothing; the model’s own heads', () => {
    const other = [4, 4, 4, 4, 4, 4]; // every earlier token is a duplicate
    const two = referenceHeadScores([layers, layers], [rep, other], 'duplicateToken');
    const [one] = referenceHeadScores(layers, other, 'duplicateToken');
    expectNear(
      two[0],
      referenceHeadScores(layers, rep, 'duplicateToken')[0].map((x, h) => (x + one[h]) / 2),
      'mean',
    );
    const causal = [[[1, 0], [0.5, 0.5]]]; // prettier-ignore
    expect(
      referenceHeadScores([causal], [1, 2], 'previousToken', { excludeBos: true, excludeCurrentToken: true })[0][0],
    ).toBeNaN();
    const fixture = gpt2Fixture();
    const seqs = [rep, [2, 5, 7, 2, 5, 7]];
    const fromRuns = seqs.map((seq) => referenceForward(fixture, seq).attentions);
    expect(referenceModelHeadScores(fixture, seqs, 'induction', { excludeBos: true })).toEqual(
      referenceHeadScores(fromRuns, seqs, 'induction', { excludeBos: true }),
    );
  });
});
