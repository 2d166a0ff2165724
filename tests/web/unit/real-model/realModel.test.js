// The real-model source's pure parts: its link parameters, tokens shown readably, a tokenizer.json's vocabulary, the
// top tokens of a logits row and an ablation's changes, and a layer's captures in selfAttention's layout.
import { describe, expect, it } from 'vitest';
import { captureResult, walkSizes } from '../../../../web/src/real-model/tools/walk/modelWalk.js';
import { editedWeights, walkEdit, withEdit } from '../../../../web/src/real-model/tools/walk/walkEdits.js';
import {
  loadMessage,
  maskId,
  predictionChanges,
  probabilityOf,
  readModelLink,
  readableToken,
  toggleHead,
  topTokens,
  vocabulary,
  writeModelLink,
} from '../../../../web/src/real-model/realModel.js';

describe('real model: links', () => {
  it('writes and reads back the model, sentence, head and ablations, keeping other parameters', () => {
    const link = {
      model: 'builtin',
      text: 'the cat & the “dog”',
      layer: 1,
      head: 3,
      ablate: [
        [1, 0],
        [0, 2],
      ],
    };
    const search = writeModelLink('?nowarm', link);
    expect(new URLSearchParams(search).get('nowarm')).toBe('');
    expect(readModelLink(search)).toEqual({
      ...link,
      ablate: [
        [1, 0],
        [0, 2],
      ],
      edits: [],
      ablateMode: 'zero',
      ablateReference: '',
      section: null,
      warnings: [],
    });
    expect(readModelLink(writeModelLink('', { ...link, section: 'generate' })).section).toBe('generate');
    expect(readModelLink('?model=builtin&section=nowhere').warnings).toEqual([
      'section=nowhere is not a part of the real-model section (tokens, next, heads, investigate, generate, layer)',
    ]);
    expect(readModelLink('?nowarm')).toBeNull();
    expect(writeModelLink(search, null)).toBe('?nowarm=');
  });

  it('leaves out what it cannot read, and names it: bad layer or head, bad ablation pairs', () => {
    expect(readModelLink('?model=files&layer=x&head=2&ablate=1.0,a.b,2')).toEqual({
      model: 'files',
      text: null,
      layer: null,
      head: 2,
      ablate: [[1, 0]],
      edits: [],
      ablateMode: 'zero',
      ablateReference: '',
      section: null,
      warnings: [
        'layer=x is not a layer from 0 to 9999',
        'ablate=1.0,a.b,2 holds parts that are not layer.head pairs such as 1.0,1.2: they are left out',
      ],
    });
  });

  it('writes the walk’s edits compactly (floats as short as they read back) and reads them back', () => {
    const edits = [
      { layer: 0, step: 'wq', row: 1, col: 34, value: Math.fround(0.1) },
      { layer: 1, step: 'x', row: 14, col: 3, value: -2.5 },
      { layer: 1, step: 'wo', row: 0, col: 2, value: Math.fround(1e-7) },
    ];
    const search = writeModelLink('', { model: 'builtin', text: null, edits });
    expect(new URLSearchParams(search).get('edits')).toBe('0.wq.1.34_0.1*1.x.14.3_-2.5*1.wo.0.2_1e-7');
    expect(search).not.toMatch(/%/u); // nothing a query string escapes
    expect(readModelLink(search).edits).toEqual(edits);
    // parts it cannot read are left out: an unknown step, a value that is not a number, a missing part
    const bad = '?model=builtin&edits=0.q.1.2_1*0.x.1.2_abc*0.x.1_2*0.wk.3.4_-1';
    expect(readModelLink(bad).edits).toEqual([{ layer: 0, step: 'wk', row: 3, col: 4, value: -1 }]);
  });

  it('says which origin to allow in connect-src when a model cannot be fetched', () => {
    const error = Object.assign(
      new Error('https://hub.example.org/a/b/resolve/main/config.json could not be fetched'),
      {
        code: 'FETCH_FAILED',
      },
    );
    const message = loadMessage(error, 'https://hub.example.org/a/b/resolve/main/');
    expect(message).toMatch(/^This model could not be opened, and the page is as it was\. FETCH_FAILED: /u);
    expect(message).toMatch(/could not be fetched\. This page reads only/u);
    expect(message).toMatch(/its host adds https:\/\/hub\.example\.org \(for the Hub/u);
    expect(message).toMatch(/download the files and drop them here/u);
    expect(loadMessage(error)).not.toMatch(/its host adds/u);
  });

  it('never advises a CSP change for a folder on the page’s own origin, nor for one the CSP did not refuse', () => {
    const error = Object.assign(new Error('https://site.example/models/induction/model.safetensors: bytes 0-7'), {
      code: 'FETCH_FAILED',
    });
    const own = loadMessage(error, 'https://site.example/models/induction/', { page: 'https://site.example' });
    expect(own).not.toMatch(/Content-Security-Policy|connect-src|CORS|its host adds/u);
    expect(own).toMatch(/on the page's own server: check that it holds the model's files/u);
    expect(own).toMatch(/download the files and drop them here/u);
    const hub = 'https://huggingface.co/openai-community/gpt2/resolve/main/';
    const reachable = loadMessage(error, hub, { page: 'https://site.example', blocked: false });
    expect(reachable).not.toMatch(/Content-Security-Policy|connect-src|its host adds/u);
    expect(reachable).toMatch(/Check the connection: the server must be reachable/u);
    const refused = loadMessage(error, hub, { page: 'https://site.example', blocked: true });
    expect(refused).toMatch(/connect-src\): to read this model there, its host adds https:\/\/huggingface\.co/u);
  });
});

describe('real model: tokens and predictions', () => {
  it('shows markers readably', () => {
    expect(readableToken('Ġcat', ' cat')).toBe('␣cat');
    expect(readableToken('▁the')).toBe('␣the');
    expect(readableToken('##s', 's')).toBe('+s');
    expect(readableToken('Ċ', '\n')).toBe('↵');
    expect(readableToken('Ġ', ' ')).toBe('␣');
  });

  it("reads a tokenizer.json's vocabulary with its added tokens", () => {
    const json = { model: { vocab: { a: 0, b: 1 } }, added_tokens: [{ id: 2, content: '[MASK]' }] };
    expect(vocabulary(json)).toEqual(['a', 'b', '[MASK]']);
    // the mask token: BERT's [MASK], or RoBERTa's <mask> (its masked-LM head is a family of its own)
    expect(maskId(vocabulary(json))).toBe(2);
    expect(maskId(['<s>', '<pad>', '</s>', 'a', '<mask>'])).toBe(4);
    expect(maskId(['a', 'b'])).toBe(-1);
    expect(
      vocabulary({
        model: {
          vocab: [
            ['▁x', -1],
            ['▁y', -2],
          ],
        },
      }),
    ).toEqual(['▁x', '▁y']);
  });

  it('lists the top tokens of a row and what an ablation changed', () => {
    const logits = Float32Array.from([0, 0, 0, Math.log(3), 0, Math.log(2)]); // rows of 3
    const top = topTokens(logits, 3, 1, 2);
    expect(top.map((t) => t.id)).toEqual([0, 2]);
    expect(top[0].p).toBeCloseTo(0.5, 6);
    const base = [
      { id: 1, p: 0.9 },
      { id: 0, p: 0.1 },
    ];
    const { rows, gone } = predictionChanges(top, base, (id) => ({ 0: 0.1, 2: 0 })[id]);
    expect(rows[0].delta).toBeCloseTo(0.4, 6);
    expect(gone.map((t) => t.id)).toEqual([1]);
    // A token that left the list says its p now, beside its p before.
    const after = predictionChanges(
      top,
      base,
      () => 0,
      (id) => ({ 1: 0.02 })[id],
    ).gone;
    expect(after).toEqual([{ id: 1, p: 0.9, now: 0.02 }]);
    expect(toggleHead(toggleHead([], 1, 2), 0, 3)).toEqual([
      [0, 3],
      [1, 2],
    ]);
    expect(toggleHead([[0, 3]], 0, 3)).toEqual([]);
  });

  it('keeps the top k of a row in one pass as a sort would: by logit, ties by id; p from the whole row', () => {
    const V = 997;
    const logits = Float32Array.from({ length: 2 * V }, (_, i) => Math.round(Math.sin(i * 12.9898) * 40) / 8);
    for (const row of [0, 1]) {
      const values = Array.from(logits.subarray(row * V, (row + 1) * V));
      const order = values.map((_, id) => id).sort((a, b) => values[b] - values[a] || a - b);
      const max = Math.max(...values);
      const sum = values.reduce((s, x) => s + Math.exp(x - max), 0);
      const top = topTokens(logits, V, row, 10);
      expect(top.map((t) => t.id)).toEqual(order.slice(0, 10));
      top.forEach((t) => expect(t.p).toBeCloseTo(Math.exp(values[t.id] - max) / sum, 12));
      expect(probabilityOf(logits, V, row, order[50])).toBeCloseTo(Math.exp(values[order[50]] - max) / sum, 12);
    }
  });
});

describe('real model: a layer in the walk', () => {
  it('stacks the heads’ captures as selfAttention returns them, k and v once per key/value head', () => {
    const t = (value, shape) => ({ data: new Float32Array(shape[0] * shape[1]).fill(value), shape });
    const spec = { numHeads: 4, numKvHeads: 2, headDim: 2, dModel: 8 };
    const captures = [0, 1, 2, 3].map((h) => ({
      q: t(h, [3, 2]),
      k: t(10 + Math.floor(h / 2), [3, 2]),
      v: t(20 + Math.floor(h / 2), [3, 2]),
      rawScores: t(h, [3, 3]),
      scaledScores: t(h, [3, 3]),
      scores: t(h, [3, 3]),
      weights: t(h, [3, 3]),
      headOutput: t(h, [3, 2]),
      concat: t(9, [3, 8]),
      output: t(8, [3, 8]),
    }));
    const r = captureResult(captures, spec);
    expect(r.q.shape).toEqual([4, 3, 2]);
    expect(r.k.shape).toEqual([2, 3, 2]);
    expect([r.k.data[0], r.k.data[6]]).toEqual([10, 11]);
    expect(r.weights.data[9 * 3]).toBe(3);
    expect(r.output.shape).toEqual([3, 8]);
    expect(walkSizes({ ...spec, dModel: 2048 }, 3).errors).toHaveLength(1);
  });
});

describe('real model: edits in the walk', () => {
  const state = { numHeads: 4, kvHeads: 2, head: 3, dModel: 8, dK: 2, dV: 2 };
  it('maps a cell of the shown head’s block to the engine’s edit (grouped W_k: its key-value head’s block)', () => {
    expect(walkEdit(state, 1, 'wq', 5, 1, 0.5)).toEqual({ layer: 1, step: 'wq', row: 5, col: 7, value: 0.5 });
    expect(walkEdit(state, 1, 'wk', 5, 1, 0.5)).toEqual({ layer: 1, step: 'wk', row: 5, col: 3, value: 0.5 });
    expect(walkEdit(state, 0, 'x', 2, 6, 0.1)).toEqual({
      layer: 0,
      step: 'x',
      row: 2,
      col: 6,
      value: Math.fround(0.1),
    });
    expect(walkEdit(state, 0, 'wo', 7, 6, 2)).toEqual({ layer: 0, step: 'wo', row: 7, col: 6, value: 2 });
  });

  it('keeps the last number typed in a cell, and applies a layer’s weight edits to copies of its weights', () => {
    const a = { layer: 0, step: 'wq', row: 0, col: 1, value: 1 };
    const edits = withEdit(withEdit([a], { ...a, col: 0, value: 3 }), { ...a, value: 2 });
    expect(edits).toEqual([
      { ...a, col: 0, value: 3 },
      { ...a, value: 2 },
    ]);
    const wq = { data: new Float32Array(4), shape: [2, 2] };
    const out = editedWeights({ wq }, [...edits, { layer: 1, step: 'wq', row: 1, col: 1, value: 9 }], 0);
    expect(Array.from(out.wq.data)).toEqual([3, 2, 0, 0]);
    expect(Array.from(wq.data)).toEqual([0, 0, 0, 0]);
  });
});
