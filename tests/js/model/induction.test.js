// The shipped induction model (web/public/models/induction, made by scripts/train/train_tiny.py), read through the
// public model API like any Hub GPT-2 checkpoint: on the held-out sequences of heldout.json (which the training never
// saw), every head's previous-token, induction, duplicate and first-token scores are the figures evaluate_tiny.py
// measured in PyTorch, the heads named there reach their threshold, and zeroing the induction heads (or the
// previous-token head they read) removes in-context copying (top-1 accuracy and loss on the second copy of the
// repeated span, before and after); from text, it continues a repeated sentence.
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadModel } from '../../../src/js/model/index.js';

// One file's URL (Vite rewrites new URL('<folder>/', import.meta.url) without its final slash, so name the file).
const fileUrl = (name) => new URL(`../../../web/public/models/induction/${name}`, import.meta.url);
const inBrowser = typeof window !== 'undefined';

// Float32 here and in PyTorch, summed in other orders: a mean of attention weights moves by ~1e-6; 2e-3 is ample
// and still far below any gap that matters (a head's job is decided at 0.5).
const SCORE_TOLERANCE = 2e-3;

async function heldoutJson() {
  const url = fileUrl('heldout.json');
  if (inBrowser) return (await fetch(url)).json();
  const { readFile } = await import(/* @vite-ignore */ 'node:fs/promises');
  return JSON.parse(await readFile(url, 'utf8'));
}

/** The folder's files as a Map of names to bytes, as a page that picked them would hand them over. */
async function source() {
  const names = ['config.json', 'model.safetensors', 'tokenizer.json', 'tokenizer_config.json'];
  const read = async (name) => {
    if (inBrowser) return new Uint8Array(await (await fetch(fileUrl(name))).arrayBuffer());
    const { readFile } = await import(/* @vite-ignore */ 'node:fs/promises');
    return new Uint8Array(await readFile(fileUrl(name)));
  };
  return new Map(await Promise.all(names.map(async (name) => [name, await read(name)])));
}

/** Weight of query i on key j of head h in one layer's [heads, n, n] attention Tensor. */
const weight = (tensor, h, i, j) => {
  const n = tensor.shape[1];
  return tensor.data[(h * n + i) * n + j];
};

/** Each head's mean scores over the sequences, as evaluate_tiny.py's head_scores computes them. */
function headScores(runs, sequences, layers, heads) {
  const sums = { previousToken: 0, induction: 0, duplicate: 0, first: 0 };
  const out = [];
  for (let l = 0; l < layers; l++) {
    for (let h = 0; h < heads; h++) {
      const s = { ...sums };
      let positions = 0;
      let copies = 0;
      runs.forEach((r, k) => {
        const { ids, first, second, length } = sequences[k];
        const a = r.attentions[l];
        for (let i = 1; i < ids.length; i++) {
          s.previousToken += weight(a, h, i, i - 1);
          s.first += weight(a, h, i, 0);
        }
        positions += ids.length - 1;
        const offset = second - first;
        for (let i = second; i < second + length; i++) {
          s.induction += weight(a, h, i, i - offset + 1);
          s.duplicate += weight(a, h, i, i - offset);
        }
        copies += length;
      });
      out.push({
        layer: l,
        head: h,
        previousToken: s.previousToken / positions,
        first: s.first / positions,
        induction: s.induction / copies,
        duplicate: s.duplicate / copies,
      });
    }
  }
  return out;
}

/** Top-1 accuracy and mean loss (nats) of predicting each token of the second copy after its first. */
function copying(runs, sequences) {
  let hits = 0;
  let loss = 0;
  let total = 0;
  runs.forEach((r, k) => {
    const { ids, second, length } = sequences[k];
    const vocab = r.logits.shape[1];
    for (let i = second; i < second + length - 1; i++) {
      const row = r.logits.data.subarray(i * vocab, (i + 1) * vocab);
      let best = 0;
      let max = -Infinity;
      for (let v = 0; v < vocab; v++) if (row[v] > max) [max, best] = [row[v], v];
      let sum = 0;
      for (let v = 0; v < vocab; v++) sum += Math.exp(row[v] - max);
      const target = ids[i + 1];
      hits += best === target ? 1 : 0;
      loss += Math.log(sum) - (row[target] - max);
      total += 1;
    }
  });
  return { accuracy: hits / total, loss: loss / total, total };
}

describe('the induction model through attention-wasm/model', () => {
  let model, heldout;
  const runAll = (options) => Promise.all(heldout.sequences.map(({ ids }) => model.run({ ids }, options)));

  beforeAll(async () => {
    heldout = await heldoutJson();
    model = await loadModel(await source());
  }, 120_000);
  afterAll(async () => {
    await model?.dispose();
  });

  it('is read as a GPT-2 checkpoint', () => {
    expect(model.family).toBe('gpt2');
    expect(model.config.n_layer).toBe(2);
  });

  it("every head's scores on the held-out sequences are evaluate_tiny.py's, and the named heads do their job", async () => {
    const { n_layer: layers, n_head: heads } = model.config;
    const runs = await runAll({ attentions: true });
    const measured = headScores(runs, heldout.sequences, layers, heads);
    for (const [k, expected] of heldout.heads.entries()) {
      for (const score of ['previousToken', 'induction', 'duplicate', 'first']) {
        expect(measured[k][score], `L${expected.layer}H${expected.head} ${score}`).toBeCloseTo(expected[score], 2);
        expect(Math.abs(measured[k][score] - expected[score])).toBeLessThan(SCORE_TOLERANCE);
      }
    }
    const named = (job) => heldout.heads.filter((h) => h.job === job);
    expect(named('previous token').length).toBeGreaterThanOrEqual(1);
    expect(named('induction').length).toBeGreaterThanOrEqual(1);
    for (const h of named('previous token')) {
      expect(measured[h.layer * heads + h.head].previousToken).toBeGreaterThanOrEqual(heldout.threshold);
    }
    for (const h of named('induction')) {
      expect(measured[h.layer * heads + h.head].induction).toBeGreaterThanOrEqual(heldout.threshold);
    }
  }, 120_000);

  it('ablating the induction heads removes in-context copying', async () => {
    const recorded = Object.fromEntries(heldout.copying.ablations.map((a) => [a.name, a]));
    const ablate = recorded['induction heads'].ablate;
    expect(ablate.length).toBeGreaterThanOrEqual(1);

    const before = copying(await runAll({ logits: true }), heldout.sequences);
    const after = copying(await runAll({ logits: true, ablate }), heldout.sequences);
    // A near-tie may flip one prediction between float32 engines: allow two of the ~900.
    expect(Math.abs(before.accuracy - recorded.none.accuracy)).toBeLessThanOrEqual(2 / before.total);
    expect(Math.abs(after.accuracy - recorded['induction heads'].accuracy)).toBeLessThanOrEqual(2 / after.total);
    expect(before.loss).toBeCloseTo(recorded.none.loss, 2);
    expect(after.loss).toBeCloseTo(recorded['induction heads'].loss, 2);

    // The model card's figures: 1.000 and 0.273 nats before, 0.004 and 6.2 nats after (chance: 1/320, ln 320).
    expect(before.accuracy).toBeGreaterThanOrEqual(0.95);
    expect(after.accuracy).toBeLessThanOrEqual(0.05);
    expect(after.loss - before.loss).toBeGreaterThan(4);
  }, 120_000);

  it('zeroing the previous-token head alone also removes the copying (the induction heads read what it writes)', async () => {
    const recorded = Object.fromEntries(heldout.copying.ablations.map((a) => [a.name, a]));
    const { ablate, accuracy } = recorded['previous-token heads'];
    expect(ablate.length).toBe(1);
    const after = copying(await runAll({ logits: true, ablate }), heldout.sequences);
    expect(Math.abs(after.accuracy - accuracy)).toBeLessThanOrEqual(2 / after.total);
    expect(after.accuracy).toBeLessThanOrEqual(0.15);
  }, 120_000);

  it('from text: continues a repeated sentence, and guesses another word once the induction heads are zeroed', async () => {
    const text = 'The cat saw a red ball near the old tree. The cat saw a red';
    const r = await model.run(text, { logits: true });
    expect(r.tokens.slice(0, 4)).toEqual(['the', 'cat', 'saw', 'a']);
    expect(r.next[0].token).toBe('ball');
    const ablate = heldout.copying.ablations.find((a) => a.name === 'induction heads').ablate;
    const ablated = await model.run(text, { logits: true, ablate });
    expect(ablated.next[0].token).not.toBe('ball');
  }, 120_000);
});
