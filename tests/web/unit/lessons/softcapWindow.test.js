// Step 15, softcapping and sliding windows: the lesson's numbers (from the API's `window` and `softcap` options)
// against a float64 layer written here apart from the library and the page, its texts, the open model's note and the
// link.
import { beforeAll, describe, expect, it } from 'vitest';
import { createAttention } from '../../../../src/js/index.js';
import { EXAMPLES, activeExample } from '../../../../web/src/shared/examples.js';
import { currentMatrix } from '../../../../web/src/shared/matrices.js';
import {
  keysSeen,
  scoresComputed,
  softcapWindowStep,
} from '../../../../web/src/lessons/softcap-window/softcapWindow.js';
import {
  modelPair,
  realModelText,
  softcapText,
  windowText,
} from '../../../../web/src/lessons/softcap-window/softcapText.js';
import { decodeState, encodeState } from '../../../../web/src/shared/link.js';
import { SLIDING } from '../../../../web/src/shared/state.js';

let attn;
beforeAll(async () => {
  attn = await createAttention();
});

const example = () => EXAMPLES.find((e) => e.id === 'gemma').state();

/** x · W's columns [from, from + width), in float64. */
const project = (x, w, from, width) =>
  x.map((row) => Array.from({ length: width }, (_, c) => row.reduce((sum, v, r) => sum + v * w[r][from + c], 0)));

/**
 * One head of a causal layer by Gemma 2's definition, in float64: s = q·kᵀ / √d_k; with a cap c, s ← tanh(s / c)·c;
 * then query i keeps keys j ≤ i (and j > i − w with a window w), the others −Infinity; softmax by rows.
 */
function reference(state, { window = Infinity, softcap = 0 } = {}) {
  const { dK, head } = state;
  const x = currentMatrix(state, 'x');
  const q = project(x, currentMatrix(state, 'wq'), head * dK, dK);
  const k = project(x, currentMatrix(state, 'wk'), head * dK, dK);
  const scaled = q.map((qi) => k.map((kj) => qi.reduce((sum, v, t) => sum + v * kj[t], 0) / Math.sqrt(dK)));
  const scores = scaled.map((row, i) =>
    row.map((s, j) => {
      if (j > i || j <= i - window) return -Infinity;
      return softcap > 0 ? Math.tanh(s / softcap) * softcap : s;
    }),
  );
  const weights = scores.map((row) => {
    const top = Math.max(...row);
    const e = row.map((s) => (s === -Infinity ? 0 : Math.exp(s - top)));
    const total = e.reduce((a, b) => a + b, 0);
    return e.map((v) => v / total);
  });
  return { scaled, scores, weights };
}

/** Every number within `tol` of the reference's (−Infinity where it has −Infinity). */
function expectClose(got, want, tol, what) {
  want.forEach((row, i) =>
    row.forEach((v, j) => {
      if (v === -Infinity) expect(got[i][j], `${what} [${i}, ${j}]`).toBe(-Infinity);
      else expect(Math.abs(got[i][j] - v), `${what} [${i}, ${j}]: ${got[i][j]} against ${v}`).toBeLessThan(tol);
    }),
  );
}

describe('softcapWindowStep', () => {
  it('gives the global, sliding and capped layers of the example as a float64 layer does', () => {
    const state = example();
    const step = softcapWindowStep(attn, state);
    const global = reference(state);
    const sliding = reference(state, { window: 3 });
    const capped = reference(state, { softcap: 1 });
    const lost = global.weights[5].slice(0, 3).reduce((a, b) => a + b, 0);
    expectClose(step.globalWeights, global.weights, 1e-6, 'global weights');
    expectClose(step.slidingWeights, sliding.weights, 1e-6, 'sliding weights');
    expectClose(step.scaled, global.scaled, 1e-5, 'scaled scores');
    expectClose(step.capped, capped.scores, 1e-6, 'capped scores');
    expectClose(step.cappedWeights, capped.weights, 1e-6, 'capped weights');
    // The numbers the text says: 21 and 15 scores; the largest score 3.902 (“time” → “a”) capped to 0.999; the
    // sharpest row “time” from 0.935 to 0.468; “fox” loses keys 0 to 2.
    expect(step.scores).toEqual({ global: 21, sliding: 15 });
    expect([step.largest.i, step.largest.j]).toEqual([3, 2]);
    expect(step.largest.value).toBeCloseTo(global.scaled[3][2], 5);
    expect(step.largest.capped).toBeCloseTo(Math.tanh(global.scaled[3][2]), 6);
    expect([step.sharpest.i, step.sharpest.j]).toEqual([3, 2]);
    expect(step.sharpest.top).toBeCloseTo(global.weights[3][2], 6);
    expect(step.sharpest.cappedTop).toBeCloseTo(capped.weights[3][2], 6);
    expect(step.lost.weight).toBeCloseTo(lost, 6);
    const text = windowText(state, step) + softcapText(state, step);
    expect(lost).toBeCloseTo(0.723, 3);
    expect([global.scaled[3][2], global.weights[3][2], capped.weights[3][2]].map((v) => v.toFixed(3))).toEqual([
      '3.902',
      '0.935',
      '0.468',
    ]);
    for (const shown of [
      'computes 15 scores where the global one computes 21',
      `“fox” no longer sees its first 3 keys, which had ${lost.toFixed(3)} of its weight`,
      `The largest scaled score, ${global.scaled[3][2].toFixed(3)} (“time” → “a”, query 3 and key 2), becomes ${Math.tanh(global.scaled[3][2]).toFixed(3)}`,
      `gave ${global.weights[3][2].toFixed(3)} of its weight to “a”; capped, it gives ${capped.weights[3][2].toFixed(3)}`,
    ])
      expect(text).toContain(shown);
  });

  it('bounds every capped score to (−c, c) and flattens the sharpest row, for every cap of the slider', () => {
    const state = { ...example(), sentence: 'the cat sat on the mat', n: 6, seed: 7, numHeads: 2, dModel: 16, head: 1 };
    for (let c = SLIDING.minSoftcap; c <= SLIDING.maxSoftcap; c += 2.5) {
      const step = softcapWindowStep(attn, { ...state, softcap: c });
      const want = reference(state, { softcap: c });
      expectClose(step.capped, want.scores, 1e-5, `capped scores at c = ${c}`);
      expectClose(step.cappedWeights, want.weights, 1e-6, `capped weights at c = ${c}`);
      expect(step.widest).toBeLessThan(c);
      expect(step.sharpest.cappedTop).toBeLessThanOrEqual(step.sharpest.top + 1e-7);
    }
    for (const w of [1, 2, 5, 6, 9]) {
      const step = softcapWindowStep(attn, { ...state, slidingWindow: w });
      expectClose(step.slidingWeights, reference(state, { window: w }).weights, 1e-6, `sliding weights at w = ${w}`);
      expect(step.scores.sliding).toBe(scoresComputed(6, w));
    }
    expect(windowText(state, softcapWindowStep(attn, { ...state, slidingWindow: 6 }))).toMatch(
      /^With w = 6 and 6 tokens, .* the sliding layer equals the global one\./u,
    );
  });

  it('says when float32 rounds a capped score to c itself, and counts one token as one', () => {
    const hot = { ...example(), dModel: 16, numHeads: 4, kvHeads: 2, head: 3, temperature: 0.2 };
    const step = softcapWindowStep(attn, hot);
    expect(Math.abs(step.largest.capped)).toBe(1);
    expect(softcapText(hot, step)).toMatch(/becomes -?1\.000 \(tanh rounds to ±1 in float32's 7 digits\)/u);
    const one = { ...example(), sentence: 'hello', n: 1 };
    expect(windowText(one, softcapWindowStep(attn, one))).toMatch(/^With w = 3 and 1 token, /u);
  });

  it('counts the keys and scores: min(i + 1, w)', () => {
    expect([0, 1, 2, 3, 4].map((i) => keysSeen(i, 3))).toEqual([1, 2, 3, 3, 3]);
    expect(scoresComputed(5)).toBe(15);
    expect(scoresComputed(8192, 4096)).toBe((4096 * 4097) / 2 + 4096 * 4096);
  });
});

describe('realModelText', () => {
  it('names the sliding layers, counted from 0, and the cap; null without a model', () => {
    const windows = Array.from({ length: 26 }, (_, l) => (l % 2 === 0 ? 4096 : 0));
    expect(realModelText({ spec: { windows, softcap: 50, numLayers: 26 }, name: 'gemma-2-2b (gemma2)' })).toBe(
      'The open model, gemma-2-2b (gemma2): layers 0, 2, 4, 6, 8, 10, 12, …, 24 slide (w = 4096) and layers 1, 3, 5, 7, 9, 11, 13, …, 25 are global, of 26; its attention scores are capped at c = 50.',
    );
    expect(realModelText({ spec: { windows: [0, 0], softcap: 0, numLayers: 2 }, name: 'gpt2' })).toBe(
      'The open model, gpt2: none of its 2 layers slides: each sees every earlier token; its attention scores are not capped.',
    );
    expect(realModelText(null)).toBeNull();
  });
});

describe('modelPair', () => {
  const layer = (l) => ({ data: Float32Array.from({ length: 2 * 3 * 3 }, (_, i) => 100 * l + i), shape: [2, 3, 3] });
  it('picks the first sliding layer and the global layer after it, head 0; null without both kinds or their runs', () => {
    const pair = modelPair({ windows: [0, 4, 0, 4] }, [0, 1, 2, 3].map(layer));
    expect([pair.n, pair.sliding.layer, pair.sliding.window, pair.global.layer]).toEqual([3, 1, 4, 2]);
    expect(Array.from(pair.sliding.data)).toEqual([100, 101, 102, 103, 104, 105, 106, 107, 108]);
    expect(Array.from(pair.global.data)).toEqual([200, 201, 202, 203, 204, 205, 206, 207, 208]);
    expect(modelPair({ windows: [0, 0, 0, 5] }, [0, 1, 2, 3].map(layer)).global.layer).toBe(0);
    expect(modelPair({ windows: [0, 0] }, [0, 1].map(layer))).toBeNull();
    expect(modelPair({ windows: [3, 3] }, [0, 1].map(layer))).toBeNull();
    expect(modelPair({ windows: [3, 0] }, [null, layer(1)])).toBeNull();
  });
});

describe('the link and the example', () => {
  it('writes w and c when they are not the defaults, reads them back, and warns on bad ones', () => {
    const state = { ...example(), slidingWindow: 2, softcap: 4.5 };
    expect(encodeState(example())).not.toMatch(/win=|cap=/u);
    expect(encodeState(state)).toContain('&win=2&cap=4.5');
    const read = decodeState(`#${encodeState(state)}`).state;
    expect([read.slidingWindow, read.softcap]).toEqual([2, 4.5]);
    expect(activeExample(decodeState(`#${encodeState(example())}`).state)?.id).toBe('gemma');
    expect(decodeState('#win=0&cap=99').warnings).toEqual([
      'win=0 is not a sliding window from 1 to 256',
      'cap=99 is not a softcap from 0.5 to 20',
    ]);
  });
});
