import { describe, expect, it } from 'vitest';
import {
  checkMapping,
  extract,
  guessMapping,
  sourceShape,
  widenKvHeads,
} from '../../../../web/src/own-model/modelFile.js';

const tensor = (rows, cols, base = 0) => ({
  data: Float32Array.from({ length: rows * cols }, (_, k) => base + k),
  shape: [rows, cols],
});
const info = (entries) => Object.entries(entries).map(([name, shape]) => ({ name, shape }));

describe('guessMapping', () => {
  it("recognises GPT-2's fused c_attn, its layers, X and the attentions", () => {
    const tensors = info({
      tokens_x: [5],
      hidden_states: [1, 5, 6],
      'h.0.attn.c_attn.weight': [6, 18],
      'h.0.attn.c_attn.bias': [18],
      'h.0.attn.c_proj.weight': [6, 6],
      'h.3.attn.c_attn.weight': [6, 18],
      'h.3.attn.c_proj.weight': [6, 6],
      'attentions.3': [1, 2, 5, 5],
    });
    const m = guessMapping(tensors, { layer: 3 });
    expect(m.layout).toBe('gpt2');
    expect(m.layers).toEqual([0, 3]);
    expect(m.layer).toBe(3);
    expect(m.slots.wk).toEqual({ name: 'h.3.attn.c_attn.weight', part: { axis: 1, index: 1, of: 3, blocks: true } });
    expect(m.slots.wo).toEqual({ name: 'h.3.attn.c_proj.weight' });
    expect(m.slots.bq).toBeUndefined(); // layer 3 has no bias in this file
    expect(m.slots.x).toEqual({ name: 'hidden_states' });
    expect(m.slots.attentions).toEqual({ name: 'attentions.3' });
    expect(m.numHeads).toBe(2);
    expect(guessMapping(tensors).layer).toBe(0);
    expect(guessMapping(tensors).slots.bq).toEqual({
      name: 'h.0.attn.c_attn.bias',
      part: { axis: 0, index: 0, of: 3, blocks: true },
    });
  });

  it("transposes nn.MultiheadAttention's in_proj_weight and BERT's Linear weights, and says so", () => {
    const mha = guessMapping(info({ 'attn.in_proj_weight': [12, 4], 'attn.out_proj.weight': [4, 4], x: [3, 4] }));
    expect(mha.layout).toBe('mha');
    expect(mha.slots.wv).toEqual({ name: 'attn.in_proj_weight', part: { axis: 0, index: 2, of: 3 }, transpose: true });
    expect(mha.notes.join()).toMatch(/\[out, in\]/u);
    const bert = guessMapping(
      info({
        'encoder.layer.1.attention.self.query.weight': [4, 4],
        'encoder.layer.1.attention.self.key.weight': [4, 4],
        'encoder.layer.1.attention.self.value.weight': [4, 4],
        'encoder.layer.1.attention.self.value.bias': [4],
      }),
      { config: { num_attention_heads: 2 } },
    );
    expect(bert.layout).toBe('bert');
    expect(bert.layers).toEqual([1]);
    expect(bert.slots.wq).toEqual({ name: 'encoder.layer.1.attention.self.query.weight', transpose: true });
    expect(bert.slots.bv).toEqual({ name: 'encoder.layer.1.attention.self.value.bias' });
    expect(bert.numHeads).toBe(2);
  });

  it('finds the key/value heads of a grouped-query LLaMA layer', () => {
    const m = guessMapping(
      info({
        'model.layers.0.self_attn.q_proj.weight': [8, 8],
        'model.layers.0.self_attn.k_proj.weight': [4, 8],
        'model.layers.0.self_attn.v_proj.weight': [4, 8],
        'model.layers.0.self_attn.o_proj.weight': [8, 8],
      }),
      { config: { num_attention_heads: 4 } },
    );
    expect(m.layout).toBe('llama');
    expect(m.numHeads).toBe(4);
    expect(m.numKvHeads).toBe(2);
  });

  it("takes the JSON's layer, and only ever maps the attentions of the layer chosen", () => {
    const tensors = info({
      hidden_states: [1, 5, 6],
      'h.0.attn.c_attn.weight': [6, 18],
      'h.1.attn.c_attn.weight': [6, 18],
      'attentions.1': [1, 2, 5, 5],
    });
    const json = { layer: 1, num_attention_heads: 2 };
    expect(guessMapping(tensors, { config: json }).layer).toBe(1);
    expect(guessMapping(tensors, { config: json }).slots.attentions).toEqual({ name: 'attentions.1' });
    const other = guessMapping(tensors, { layer: 0, config: json });
    expect(other.slots.attentions).toBeUndefined();
    expect(other.notes.join(' ')).toMatch(/another layer's attention probabilities, so layer 0 is not compared/u);
    expect(other.notes.join(' ')).toMatch(/exported for layer 1/u);
    // A name without a layer belongs to the JSON's layer only.
    const unnamed = info({
      ...Object.fromEntries(tensors.slice(0, 3).map((t) => [t.name, t.shape])),
      attn_probs: [2, 5, 5],
    });
    expect(guessMapping(unnamed, { config: json }).slots.attentions).toEqual({ name: 'attn_probs' });
    expect(guessMapping(unnamed, { layer: 0, config: json }).slots.attentions).toBeUndefined();
  });

  it("recognises attention-wasm's own names (x, wq, wk, wv, wo), as <attention-explorer src> reads them", () => {
    const m = guessMapping(info({ x: [5, 8], wq: [8, 8], wk: [8, 8], wv: [8, 8], wo: [8, 8] }));
    expect(m.layout).toBe('plain');
    expect(m.slots).toEqual({
      x: { name: 'x' },
      wq: { name: 'wq' },
      wk: { name: 'wk' },
      wv: { name: 'wv' },
      wo: { name: 'wo' },
    });
    expect(m.notes).toEqual([]);
  });

  it('says where the heads came from: the JSON, the attentions, or nowhere (a guess)', () => {
    const mha = info({ 'attn.in_proj_weight': [12, 4], x: [3, 4] });
    expect(guessMapping(mha)).toMatchObject({ numHeads: null, headsFrom: null });
    expect(guessMapping(mha, { config: { num_attention_heads: 2 } })).toMatchObject({
      numHeads: 2,
      headsFrom: 'config',
    });
    expect(guessMapping([...mha, { name: 'attentions', shape: [2, 3, 3] }])).toMatchObject({
      numHeads: 2,
      headsFrom: 'attentions',
    });
  });

  it('says when no layout is known', () => {
    const m = guessMapping(info({ a: [2, 2] }));
    expect(m.layout).toBeNull();
    expect(m.notes.join()).toMatch(/No known layout/u);
  });
});

describe('extract', () => {
  it('takes the third of a fused [d, 3d] weight by columns', () => {
    const w = tensor(2, 6);
    expect(extract(w, { name: 'w', part: { axis: 1, index: 1, of: 3 } })).toEqual([
      [2, 3],
      [8, 9],
    ]);
  });

  it('takes the third of [3d, d] by rows and transposes it', () => {
    const w = tensor(6, 2);
    expect(extract(w, { name: 'w', part: { axis: 0, index: 2, of: 3 }, transpose: true })).toEqual([
      [8, 10],
      [9, 11],
    ]);
    expect(sourceShape({ name: 'w', part: { axis: 0, index: 2, of: 3 }, transpose: true }, [6, 4])).toEqual([4, 2]);
  });

  it('cuts biases and drops a batch of one', () => {
    expect(
      extract({ data: Float32Array.of(1, 2, 3, 4, 5, 6), shape: [6] }, { part: { axis: 0, index: 2, of: 3 } }),
    ).toEqual([5, 6]);
    expect(extract({ data: Float32Array.of(1, 2, 3, 4), shape: [1, 2, 2] }, {})).toEqual([
      [1, 2],
      [3, 4],
    ]);
  });

  it('widens grouped key/value heads to the page’s shape, the kv heads first', () => {
    // two kv heads of width 1 first (what grouped-query attention reads), then the same again for the unread blocks
    expect(widenKvHeads([[10, 20]], 2, 4)).toEqual([[10, 20, 10, 20]]);
  });
});

describe('checkMapping', () => {
  const shapes = { x: [5, 6], w: [6, 18], o: [6, 6], b: [18], p: [2, 5, 5] };
  const slots = {
    x: { name: 'x' },
    wq: { name: 'w', part: { axis: 1, index: 0, of: 3 } },
    wk: { name: 'w', part: { axis: 1, index: 1, of: 3 } },
    wv: { name: 'w', part: { axis: 1, index: 2, of: 3 } },
    wo: { name: 'o' },
    bq: { name: 'b', part: { axis: 0, index: 0, of: 3 } },
    attentions: { name: 'p' },
  };
  it('accepts a fitting mapping', () => {
    expect(checkMapping(slots, (n) => shapes[n], { numHeads: 2 })).toEqual([]);
  });

  it('needs X only: a weight left out comes from the seed, and one chosen alone is still checked', () => {
    expect(checkMapping({ x: { name: 'x' } }, (n) => shapes[n], { numHeads: 2 })).toEqual([]);
    expect(checkMapping({}, (n) => shapes[n], { numHeads: 2 })).toEqual([
      'X (hidden states entering attention): no tensor chosen',
    ]);
    expect(checkMapping({ x: { name: 'x' }, wk: { name: 'o' } }, (n) => shapes[n], { numHeads: 2 })).toEqual([]);
    expect(checkMapping({ x: { name: 'x' }, wv: { name: 'b' } }, (n) => shapes[n], { numHeads: 2 })[0]).toMatch(/W_v/u);
    expect(checkMapping({ x: { name: 'x' }, wk: { name: 'p' } }, (n) => shapes[n], { numHeads: 2 })).not.toEqual([]);
  });

  it('names the tensor and both shapes when one does not fit', () => {
    const bad = { ...slots, wk: { name: 'x' } };
    expect(checkMapping(bad, (n) => shapes[n], { numHeads: 2 })).toEqual([
      "W_k: “x” is [5, 6] after the page's reading, but W_q [6, 6] with 2 key/value heads needs [6, 6]",
    ]);
    expect(checkMapping({ ...slots, attentions: { name: 'x' } }, (n) => shapes[n], { numHeads: 2 })[0]).toMatch(
      /“x” is \[5, 6\].*needs \[2, 5, 5\]/u,
    );
    expect(checkMapping({ ...slots, wq: { name: 'gone' } }, (n) => shapes[n], { numHeads: 2 })[0]).toMatch(
      /no tensor “gone”/u,
    );
    expect(checkMapping(slots, (n) => shapes[n], { numHeads: 4 })).toContainEqual(
      expect.stringMatching(/do not split into 4 heads/u),
    );
  });
});
