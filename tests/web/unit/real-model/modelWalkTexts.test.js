// What the steps say of a real model's layer opened in them: X is the layer's normed input (pre-norm) or its input
// (post-norm), computed by the model named (the shipped one is not "your model's file"); positions as the model has
// them. The page's texts read state.modelLayer (shared/provenance.js), which walkState sets.
import { describe, expect, it } from 'vitest';
import { walkState } from '../../../../web/src/real-model/tools/walk/modelWalk.js';
import { embeddingSourceText, sourcesText, xNote } from '../../../../web/src/shared/provenance.js';
import { AS_THE_MODEL } from '../../../../web/src/own-model/modelFile.js';
import { defaultState } from '../../../../web/src/shared/state.js';

const tensor = (rows, cols) => ({ data: new Float32Array(rows * cols).fill(0.5), shape: [rows, cols] });
const spec = (choices, norms) => ({
  numHeads: 2,
  numKvHeads: 2,
  headDim: 2,
  dModel: 4,
  choices: { causal: true, rope: false, ...choices },
  labels: { norms },
});
const layer = (s, name) => ({
  x: tensor(3, 4),
  weights: { wq: tensor(4, 4), wk: tensor(4, 4), wv: tensor(4, 4), wo: tensor(4, 4) },
  tokens: ['a', 'b', 'c'],
  head: 0,
  spec: s,
  name,
});

describe('real model: step 1 for a model’s layer', () => {
  it('a pre-norm layer: X is its normed input, computed by the model named', () => {
    const gpt2 = spec({ placement: 'preNorm' }, ['LayerNorm ln_1', 'LayerNorm ln_2']);
    const state = walkState(defaultState(), layer(gpt2, 'the shipped induction model'));
    expect(embeddingSourceText(state)).toBe(
      "Here X is computed by the shipped induction model, run up to this layer: this layer's input after its first norm (LayerNorm ln_1), not rows of the page's table. They carry the position embeddings the model adds to the first layer's input.",
    );
    expect(xNote(state)).toBe("the layer's normed input · rows: tokens");
    expect(sourcesText(state, ['wq', 'wo'])).toBe("W_q and W_o are read from the shipped induction model's file");
  });

  it('a post-norm layer (BERT): the hidden states entering it; a rotary model: positions in q and k', () => {
    const bert = spec({ placement: 'postNorm', causal: false }, ['LayerNorm (attention.output)', 'LayerNorm (output)']);
    const state = walkState(defaultState(), layer(bert));
    expect(embeddingSourceText(state)).toMatch(
      /^Here X is computed by this model, run up to this layer: the hidden states entering this layer/u,
    );
    expect(xNote(state)).toBe("the layer's input · rows: tokens");
    const llama = spec({ placement: 'preNorm', rope: true }, ['RMSNorm input_layernorm', 'RMSNorm x']);
    expect(embeddingSourceText(walkState(defaultState(), layer(llama)))).toMatch(
      /\(RMSNorm input_layernorm\), not rows of the page's table\. Positions are not added to X here: the model rotates q and k by position \(RoPE\)\.$/u,
    );
  });

  it('a file given to “Use your own model” keeps its words; the examples say embeddings', () => {
    const own = { ...defaultState(), ...AS_THE_MODEL, x: [[1]] };
    expect(embeddingSourceText(own)).toMatch(/^Here X is read from your model's file/u);
    expect(xNote(own)).toBe('embeddings · rows: tokens');
    expect(xNote(defaultState())).toBe('embeddings · rows: tokens');
  });
});
