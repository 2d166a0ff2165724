// model.generate() with its KV cache against model.run() on the whole sequence at every step, in Node and
// Chromium: the token, its probability, the next list and every layer's attention row of the query that chose it,
// for GPT-2 and the LLaMA family (GQA, RoPE at each token's position, Mistral's sliding window, Qwen2's biases),
// greedy and sampled (temperature, topK, topP with a seed), with the weights resident and read at every step, and
// with heads switched off (ablate).
// The sampling is done again here from run()'s logits by this file's own sampler (the rule of docs/model.md).
// Also: the cache and resident weights freed however the iterator ends, and every bad option refused.
import { describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/js/model/index.js';
import { expectClose } from '../reference.js';
import { seededRandom } from '../seeded-random.js';
import { bertFixture, gpt2Fixture, llamaFixture } from './fixtures.js';
import { longRopeFactors, neoxFixture, phi3Fixture } from './fixtures-families.js';
import { gemmaFixture, olmo2Fixture } from './fixtures-gemma.js';
import { byteLevelTokenizer } from './tokenizers.js';
import { mulberry32, sample } from '../../../src/js/model/sampling.js';
import { VALUES, WEIGHTS } from './reference.js';

/** softmax(row) in float64. */
function softmax(row) {
  const max = Math.max(...row);
  const e = Array.from(row, (x) => Math.exp(x - max));
  const sum = e.reduce((a, b) => a + b, 0);
  return e.map((x) => x / sum);
}

/**
 * This test's sampler, from the rule docs/model.md states: greedy at temperature 0; else softmax(logits / T), the
 * topK most probable, the fewest most probable reaching topP, then u ∈ [0, 1) from mulberry32(seed) walks the kept
 * ids in increasing order. tests/js/seeded-random.js is mulberry32 scaled to [-1, 1): (r + 1) / 2 undoes it exactly.
 */
function referenceChoice(row, { temperature = 0, topK, topP = 1 }, random) {
  const ranked = Array.from(row, (logit, id) => ({ id, logit })).sort((a, b) => b.logit - a.logit || a.id - b.id);
  if (temperature === 0) return ranked[0].id;
  const p = softmax(Array.from(row, (x) => x / temperature));
  let kept = ranked.slice(0, topK ?? row.length);
  const keptSum = kept.reduce((s, t) => s + p[t.id], 0);
  let cumulative = 0;
  kept = kept.filter((t) => {
    const before = cumulative;
    cumulative += p[t.id] / keptSum;
    return before < topP;
  });
  kept.sort((a, b) => a.id - b.id);
  const u = (random() + 1) / 2;
  const total = kept.reduce((s, t) => s + p[t.id], 0);
  let sum = 0;
  for (const t of kept) {
    sum += p[t.id] / total;
    if (sum > u) return t.id;
  }
  return kept[kept.length - 1].id;
}

/** Each step of generate() checked against run() of the sequence that chose it. */
async function expectStepsMatchRun(model, prompt, options) {
  const random = seededRandom(options.seed ?? 0);
  const steps = [];
  for await (const step of model.generate({ ids: prompt }, options)) steps.push(step);
  expect(steps.length).toBe(options.maxNewTokens);
  let ids = prompt.slice();
  for (const [i, step] of steps.entries()) {
    const full = await model.run({ ids }, { ablate: options.ablate ?? [] });
    const [n, V] = full.logits.shape;
    const row = full.logits.data.subarray((n - 1) * V);
    expect(step.step).toBe(i);
    expect(step.id, `step ${i}'s token`).toBe(referenceChoice(row, options, random));
    expectClose([step.p], [softmax(row)[step.id]], { ...VALUES, what: `step ${i}'s p` });
    expect(step.next.map((t) => t.id)).toEqual(full.next.map((t) => t.id));
    expectClose(
      step.next.map((t) => t.p),
      full.next.map((t) => t.p),
      { ...VALUES, what: `step ${i}'s next` },
    );
    expect(step.attentions).toHaveLength(full.attentions.length);
    step.attentions.forEach((a, l) => {
      const [H] = full.attentions[l].shape;
      expect(a.shape).toEqual([H, 1, n]);
      const last = Array.from({ length: H }, (_, h) =>
        Array.from(full.attentions[l].data.subarray((h * n + n - 1) * n, (h * n + n) * n)),
      ).flat();
      expectClose(a.data, last, { ...WEIGHTS, what: `step ${i}, layer ${l}'s attention row` });
    });
    ids = [...ids, step.id];
    expect(step.ids).toEqual(ids);
  }
  return steps;
}

const FAMILIES = [
  ['GPT-2', () => gpt2Fixture({ positions: 16 })],
  ['LLaMA, GQA 4/2, RoPE', () => llamaFixture()],
  ['LLaMA, GQA 4/1, head_dim 6, rope_theta 500000', () => llamaFixture({ kvHeads: 1, headDim: 6, theta: 500000 })],
  ['Mistral: sliding window 3', () => llamaFixture({ type: 'mistral', slidingWindow: 3 })],
  ['Qwen2: q/k/v biases, tied head', () => llamaFixture({ type: 'qwen2', seed: 6 })],
  [
    'Qwen3: q_norm and k_norm, head_dim 8, tied',
    () => llamaFixture({ type: 'qwen3', headDim: 8, tied: true, seed: 33 }),
  ],
  ['GPT-NeoX: parallel, rotary on half of each head, F16', () => neoxFixture()],
  [
    'GPT-NeoX: sequential residual, rotary on a quarter',
    () => neoxFixture({ parallel: false, rotaryPct: 0.25, d: 32 }),
  ],
  ['Phi-3: fused qkv_proj and gate_up_proj, sliding window 3', () => phi3Fixture({ slidingWindow: 3 })],
  [
    // 5 + 6 tokens pass original_max_position_embeddings 7: the step that does runs the sequence again (long factors)
    'Phi-4-mini layout: GQA, partial rotary, tied, longrope crossing original_max_position_embeddings',
    () => phi3Fixture({ d: 32, kvHeads: 2, partial: 0.75, tied: true, original: 7, ropeScaling: longRopeFactors(3) }),
  ],
  [
    'Phi-3 longrope, the prompt past original_max_position_embeddings',
    () => phi3Fixture({ dtype: 'F32', original: 4, ropeScaling: longRopeFactors(2), seed: 62 }),
  ],
  ['Gemma 2: sandwich, softcaps, window 3 on even layers', () => gemmaFixture({ seed: 47 })],
  ['Gemma 3: q/k norms, two RoPE bases, window 3, BF16', () => gemmaFixture({ version: 3, dtype: 'BF16', seed: 48 })],
  ['Gemma (1): x̂·(1 + w), GeGLU', () => gemmaFixture({ version: 1, seed: 49 })],
  ['OLMo-2: norms after each half, q/k norms over the projection', () => olmo2Fixture({ kvHeads: 2 })],
];

const PROMPT = [3, 1, 4, 1, 5];

describe('model.generate against model.run of the whole sequence at each step', () => {
  it.each(FAMILIES)('%s: greedy, weights resident, read at every step, or a mix', async (name, make) => {
    const model = await loadModel(make().files, { residentBytes: 0 }); // generate()'s own residency
    const baseline = model.heapBytesInUse();
    const resident = await expectStepsMatchRun(model, PROMPT, { maxNewTokens: 6 });
    // 0: every layer read at every step; 4256 bytes: GPT-2's layer 0 and head resident, layer 1 read (a mix)
    for (const residentBytes of [0, 4256]) {
      const read = await expectStepsMatchRun(model, PROMPT, { maxNewTokens: 6, residentBytes });
      expect(read.map((s) => s.id)).toEqual(resident.map((s) => s.id));
    }
    expect(model.heapBytesInUse()).toBe(baseline);
  });

  it.each([
    ['temperature 1', { temperature: 1, seed: 1 }],
    ['temperature 0.7, topK 5', { temperature: 0.7, topK: 5, seed: 2 }],
    ['temperature 1.3, topP 0.8', { temperature: 1.3, topP: 0.8, seed: 3 }],
    ['temperature 2, topK 8, topP 0.5', { temperature: 2, topK: 8, topP: 0.5, seed: 4 }],
  ])('sampling, %s: the same tokens as the rule applied to run()', async (name, options) => {
    for (const make of [FAMILIES[0][1], FAMILIES[1][1]]) {
      const model = await loadModel(make().files);
      await expectStepsMatchRun(model, PROMPT, { maxNewTokens: 8, ...options });
    }
  });

  it.each([FAMILIES[0], FAMILIES[1]])(
    '%s: heads switched off (ablate) at every step, as run with the same ablate; other tokens than with every head on',
    async (name, make) => {
      const model = await loadModel(make().files);
      const ablate = [
        [0, 0],
        [1, 1],
        [1, 0],
      ];
      const off = await expectStepsMatchRun(model, PROMPT, { maxNewTokens: 6, ablate });
      const on = await expectStepsMatchRun(model, PROMPT, { maxNewTokens: 6 });
      expect(off.map((s) => s.next[0].p)).not.toEqual(on.map((s) => s.next[0].p));
      const bad = (options) => model.generate({ ids: PROMPT }, options);
      expect(() => bad({ ablate: [[2, 0]] })).toThrow(/ablate\[0\]/u);
      expect(() => bad({ ablate: [0, 1] })).toThrow(/ablate\[0\] must be \[layer, head\]/u);
      expect(() => bad({ ablate: 'L0H1' })).toThrow(/ablate must be an array/u);
      expect(() => bad({ ablate: [{ layer: 0, head: 1, mode: 'mean' }] })).toThrow(/ablate\[0\].*'mean'.*run\(\)'s/u);
      const zero = [{ layer: 0, head: 0, mode: 'zero' }];
      const modeZero = [];
      for await (const step of model.generate({ ids: PROMPT }, { maxNewTokens: 3, ablate: zero }))
        modeZero.push(step.id);
      const pairs = [];
      for await (const step of model.generate({ ids: PROMPT }, { maxNewTokens: 3, ablate: [[0, 0]] }))
        pairs.push(step.id);
      expect(modeZero).toEqual(pairs);
    },
  );

  it('the same seed gives the same tokens (these, in Node and Chromium); another seed others', async () => {
    const model = await loadModel(llamaFixture().files);
    const tokens = async (seed) => {
      const ids = [];
      for await (const step of model.generate({ ids: PROMPT }, { maxNewTokens: 12, temperature: 1.5, seed }))
        ids.push(step.id);
      return ids;
    };
    const first = await tokens(42);
    expect(await tokens(42)).toEqual(first);
    expect(first).toEqual([18, 12, 27, 20, 5, 17, 6, 17, 27, 13, 9, 27]);
    expect(await tokens(43)).not.toEqual(first);
  });
});

describe('the sampler on tied logits (which random checkpoints do not give)', () => {
  it('topK and topP rank ties by id, the lower first; temperature 0 takes the lowest id of the largest', () => {
    const row = Float32Array.from([0, 2, 1, 2, 2, 2, -1]);
    const chosen = (options) => {
      const random = mulberry32(5);
      return new Set(Array.from({ length: 200 }, () => sample(row, { topK: null, topP: 1, ...options }, random)));
    };
    expect(chosen({ temperature: 0 })).toEqual(new Set([1]));
    expect(chosen({ temperature: 1, topK: 2 })).toEqual(new Set([1, 3]));
    expect(chosen({ temperature: 1, topK: 5 })).toEqual(new Set([1, 2, 3, 4, 5]));
    expect(chosen({ temperature: 1, topP: 0.4 })).toEqual(new Set([1, 3])); // 4 tied at e² / (4e² + e + 2) ≈ 0.23
    expect(chosen({ temperature: 1, topK: 3, topP: 0.5 })).toEqual(new Set([1, 3]));
  });
});

describe('model.generate: text in', () => {
  it("with the folder's tokenizer.json: the prompt's ids, each token as text, the same steps as the ids", async () => {
    const merges = ['Ġ t', 'Ġt h', 'Ġth e', 'c a', 'ca t'];
    const fixture = gpt2Fixture({ vocab: 262 });
    const model = await loadModel({ ...fixture.files, 'tokenizer.json': byteLevelTokenizer(merges) });
    const steps = [];
    for await (const step of model.generate('cat the cat', { maxNewTokens: 3 })) steps.push(step);
    const byIds = [];
    for await (const step of model.generate({ ids: [260, 258, 32, 260] }, { maxNewTokens: 3 })) byIds.push(step);
    expect(steps.map((s) => s.id)).toEqual(byIds.map((s) => s.id));
    const last = steps[2];
    expect(last.ids.slice(0, 4)).toEqual([260, 258, 32, 260]);
    expect(last.tokens.slice(0, 4)).toEqual(['cat', ' the', ' ', 'cat']);
    expect(last.tokens.slice(4)).toEqual(steps.map((s) => s.token));
    expect(typeof last.token).toBe('string');
    expect(last.next[0].token).toBeTypeOf('string');
  });
});

describe('model.generate: what a step reads', () => {
  it('resident weights: a step reads its token’s rows and the final norm; residentBytes 0: every layer again', async () => {
    const d = 8;
    const model = await loadModel(gpt2Fixture({ d }).files, { residentBytes: 0 }); // generate()'s own residency
    const readPerStep = async (options) => {
      const read = [];
      for await (const step of model.generate({ ids: PROMPT }, { maxNewTokens: 4, ...options })) {
        read.push(model.bytesRead);
        if (step.finish) break;
      }
      return read.slice(1).map((bytes, i) => bytes - read[i]);
    };
    // wte and wpe rows, ln_f's weight and bias: 4 rows of d float32
    expect(await readPerStep({})).toEqual([4 * d * 4, 4 * d * 4, 4 * d * 4]);
    const layer = (2 * d + 3 * d * d + 3 * d + d * d + d + 2 * d + 4 * d * d + 4 * d + 4 * d * d + d) * 4;
    const head = 23 * d * 4;
    expect(await readPerStep({ residentBytes: 0 })).toEqual(Array(3).fill(4 * d * 4 + 2 * layer + head));
  });
});

describe('model.generate: how it ends', () => {
  it('stops at maxNewTokens, at a stop token, and when the sequence fills the positions; attentions: false, next', async () => {
    const model = await loadModel(gpt2Fixture({ positions: 9 }).files);
    const all = async (options, prompt = PROMPT) => {
      const steps = [];
      for await (const step of model.generate({ ids: prompt }, options)) steps.push(step);
      return steps;
    };
    const three = await all({ maxNewTokens: 3 });
    expect(three.map((s) => s.finish)).toEqual([null, null, 'maxNewTokens']);
    const first = three.findIndex((s) => s.id === three[2].id); // greedy steps may repeat a token
    const stopped = await all({ maxNewTokens: 3, stop: [three[2].id] });
    expect(stopped).toHaveLength(first + 1);
    expect(stopped[first].finish).toBe('stop');
    const full = await all({ maxNewTokens: 10 });
    expect(full).toHaveLength(4);
    expect(full[3].finish).toBe('positions');
    expect(full[3].ids).toHaveLength(9);
    const [lean] = await all({ maxNewTokens: 1, attentions: false, next: 2 });
    expect('attentions' in lean).toBe(false);
    expect(lean.next).toHaveLength(2);
    expect(lean.id).toBe(three[0].id);
    const error = await all({}, [1, 2, 3, 4, 5, 6, 7, 8, 9]).catch((e) => e);
    expect(error.code).toBe('TOO_MANY_TOKENS');
  });

  it('breaking out, an abort and dispose() free the cache and the resident weights', async () => {
    const model = await loadModel(llamaFixture().files, { residentBytes: 0 }); // generate()'s own residency
    const baseline = model.heapBytesInUse();
    let during = 0;
    for await (const step of model.generate({ ids: PROMPT }, { maxNewTokens: 10 })) {
      during = model.heapBytesInUse();
      if (step.step === 2) break;
    }
    expect(during).toBeGreaterThan(baseline);
    expect(model.heapBytesInUse()).toBe(baseline);

    const controller = new AbortController();
    const reason = new Error('enough');
    const aborted = (async () => {
      for await (const step of model.generate({ ids: PROMPT }, { maxNewTokens: 10, signal: controller.signal }))
        if (step.step === 1) controller.abort(reason);
    })();
    await expect(aborted).rejects.toMatchObject({ code: 'ABORTED', cause: reason }); // as run and loadModel
    expect(model.heapBytesInUse()).toBe(baseline);

    const iterator = model.generate({ ids: PROMPT }, { maxNewTokens: 10 });
    await iterator.next();
    expect(model.heapBytesInUse()).toBeGreaterThan(baseline);
    await model.dispose();
    await expect(iterator.next()).rejects.toMatchObject({ code: 'TERMINATED' });
    expect(() => model.generate({ ids: PROMPT })).toThrow(expect.objectContaining({ code: 'TERMINATED' }));
  });
});

describe('model.generate: bad input', () => {
  it.each([
    [{ maxNewTokens: 0 }, 'maxNewTokens'],
    [{ maxNewTokens: 2.5 }, 'maxNewTokens'],
    [{ temperature: -1 }, 'temperature'],
    [{ temperature: NaN }, 'temperature'],
    [{ topK: 0 }, 'topK'],
    [{ topP: 0 }, 'topP'],
    [{ topP: 1.5 }, 'topP'],
    [{ seed: -1 }, 'seed'],
    [{ seed: 2 ** 32 }, 'seed'],
    [{ stop: 3 }, 'stop'],
    [{ stop: [99] }, 'stop[0]'],
    [{ signal: 'abort' }, 'signal'],
    [{ attentions: 'yes' }, 'attentions'],
    [{ next: 0 }, 'next'],
    [{ residentBytes: -1 }, 'residentBytes'],
  ])('%j: BAD_OPTION naming %s', async (options, name) => {
    const model = await loadModel(gpt2Fixture().files);
    let error;
    try {
      model.generate({ ids: PROMPT }, options);
    } catch (e) {
      error = e;
    }
    expect(error?.code).toBe('BAD_OPTION');
    expect(error.message.startsWith(`${name} must be`)).toBe(true);
  });

  it('an unknown option, BERT, and ids outside the vocabulary are refused when generate() is called', async () => {
    const model = await loadModel(gpt2Fixture().files);
    expect(() => model.generate({ ids: PROMPT }, { maxTokens: 3 })).toThrow(
      expect.objectContaining({ code: 'UNKNOWN_OPTION' }),
    );
    expect(() => model.generate({ ids: [99] })).toThrow(expect.objectContaining({ code: 'BAD_OPTION' }));
    const bert = await loadModel(bertFixture().files);
    expect(() => bert.generate({ ids: PROMPT })).toThrow(expect.objectContaining({ code: 'UNSUPPORTED_MODEL' }));
  });
});
