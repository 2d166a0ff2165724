// The head view's and the block view's layouts (web/src/real-model/tools/layer/headLayout.js, blockLayout.js), without the DOM.
import { describe, expect, it } from 'vitest';
import { readSpec } from '../../../../src/js/model/spec.js';
import {
  blockParts,
  normBars,
  residualNorms,
  tensorPreview,
} from '../../../../web/src/real-model/tools/layer/blockLayout.js';
import {
  focusShares,
  headColor,
  headLines,
  strongestLinks,
} from '../../../../web/src/real-model/tools/layer/headLayout.js';

// [H = 2, n = 3, n]: head 0 looks back one token, head 1 spreads evenly over what it sees (causal)
const weights = {
  shape: [2, 3, 3],
  data: Float32Array.from([1, 0, 0, 1, 0, 0, 0, 1, 0, 1, 0, 0, 0.5, 0.5, 0, 1 / 3, 1 / 3, 1 / 3]),
};

describe('headLines', () => {
  it('draws a line per weight over the threshold, of the chosen heads, lightest first', () => {
    const lines = headLines(weights, { heads: [0, 1] });
    expect(lines).toHaveLength(3 + 6);
    expect(lines.map((l) => l.weight)).toEqual([...lines.map((l) => l.weight)].sort((a, b) => a - b));
    expect(headLines(weights, { heads: [1] }).every((l) => l.head === 1)).toBe(true);
    expect(headLines(weights, { heads: [] })).toEqual([]);
  });

  it('keeps only a focused query’s lines, or only those into a focused key', () => {
    const from = headLines(weights, { heads: [0, 1], focus: { side: 'left', token: 2 } });
    expect(from.map(({ head, i, j }) => [head, i, j])).toEqual([
      [1, 2, 0],
      [1, 2, 1],
      [1, 2, 2],
      [0, 2, 1],
    ]);
    const into = headLines(weights, { heads: [0], focus: { side: 'right', token: 0 } });
    expect(into.map(({ i, j }) => [i, j])).toEqual([
      [0, 0],
      [1, 0],
    ]);
  });

  it('shares and strongest links of a focus, over the chosen heads', () => {
    expect(focusShares(weights, { heads: [0, 1], focus: null })).toBeNull();
    const shares = focusShares(weights, { heads: [0, 1], focus: { side: 'left', token: 1 } });
    expect(Array.from(shares)).toEqual([0.75, 0.25, 0]);
    expect(strongestLinks(weights, { heads: [0, 1], focus: { side: 'left', token: 2 }, count: 2 })).toEqual([
      { head: 0, token: 1, weight: 1 },
      { head: 1, token: 2, weight: Math.fround(1 / 3) },
    ]);
  });

  it('gives every head of a large model its own colour', () => {
    const colours = Array.from({ length: 32 }, (_, h) => headColor(h));
    expect(new Set(colours).size).toBe(32);
  });
});

describe('blockParts', () => {
  // model.spec of each family, with the same small sizes
  const sizes = { dModel: 8, numHeads: 2, numKvHeads: 1, headDim: 4, dFf: 32 };
  const hidden = { hidden_size: 8, num_attention_heads: 2, num_hidden_layers: 1, intermediate_size: 32 };
  const specs = {
    gpt2: { model_type: 'gpt2', n_embd: 8, n_head: 2, n_layer: 1, n_positions: 8, vocab_size: 10 },
    bert: { model_type: 'bert', ...hidden, max_position_embeddings: 8, vocab_size: 10 },
    llama: { model_type: 'llama', ...hidden, max_position_embeddings: 8, vocab_size: 10 },
    gemma2: { model_type: 'gemma2', ...hidden, max_position_embeddings: 8, vocab_size: 10 },
    olmo2: { model_type: 'olmo2', ...hidden, max_position_embeddings: 8, vocab_size: 10 },
  };
  const specOf = (family, config = {}) => ({ ...readSpec({ ...specs[family], ...config }), ...sizes });
  const tensors = (family) => blockParts(specOf(family), 5).filter((p) => p.kind === 'tensor');
  const up = (spec) => blockParts(spec, 5).find((p) => p.label === 'MLP up').detail;

  it('pre-norm (GPT-2, LLaMA): norm → attention → + residual → norm → MLP → + residual, with the real sizes', () => {
    expect(blockParts(specOf('gpt2'), 5).map((p) => p.kind)).toEqual(
      ['tensor', 'norm', 'tensor', 'attention', 'tensor', 'add', 'tensor', 'norm', 'tensor'].concat([
        'mlp',
        'tensor',
        'mlp',
        'tensor',
        'add',
        'tensor',
      ]),
    );
    const keys = tensors('llama').map((p) => `${p.key} ${p.shape.join('×')}`);
    expect(keys).toEqual(
      ['input 5×8', 'x 5×8', 'output 5×8', 'residual 5×8', 'mlpInput 5×8'].concat([
        'mlpHidden 5×32',
        'mlpOutput 5×8',
        'hidden 5×8',
      ]),
    );
    const attention = blockParts(specOf('llama'), 5).find((p) => p.kind === 'attention');
    expect(attention.detail).toMatch(/W_q \[8 × 8\], W_k and W_v \[8 × 4\] \(1·4, 1 key-value head\)/);
    expect(blockParts(specOf('llama'), 5)[1].label).toBe('RMSNorm input_layernorm');
    expect(up(specOf('llama'))).toBe('SiLU(x·W_gate)·(x·W_up), W_gate and W_up [8 × 32]');
  });

  it('post-norm (BERT): attention first, each norm after its residual sum, no x of its own', () => {
    expect(tensors('bert').map((p) => p.key)).toEqual([
      'input',
      'output',
      'residual',
      'mlpInput',
      'mlpHidden',
      'mlpOutput',
      'hidden',
    ]);
    expect(blockParts(specOf('bert'), 5)[1].kind).toBe('attention');
    expect(blockParts(specOf('bert'), 5)[5].label).toBe('LayerNorm (attention.output)');
  });

  it('the sandwich (Gemma 2): a norm before and after each half; OLMo-2: after each half only', () => {
    const labels = (family) => blockParts(specOf(family), 5).map((p) => (p.kind === 'tensor' ? p.key : p.label));
    expect(labels('gemma2')).toEqual([
      'input',
      'RMSNorm (1 + w) input_layernorm',
      'x',
      'attention: 2 heads of d_k = 4',
      'RMSNorm (1 + w) post_attention_layernorm',
      'output',
      '+ residual',
      'residual',
      'RMSNorm (1 + w) pre_feedforward_layernorm',
      'mlpInput',
      'MLP up',
      'mlpHidden',
      'MLP down',
      'RMSNorm (1 + w) post_feedforward_layernorm',
      'mlpOutput',
      '+ residual',
      'hidden',
    ]);
    expect(up(specOf('gemma2'))).toBe('GELU (tanh)(x·W_gate)·(x·W_up), W_gate and W_up [8 × 32]');
    const olmo2 = labels('olmo2');
    expect(olmo2.slice(0, 4)).toEqual([
      'input',
      'attention: 2 heads of d_k = 4',
      'RMSNorm post_attention_layernorm',
      'output',
    ]);
    expect(olmo2).not.toContain('x');
    expect(olmo2.filter((l) => l.includes('RMSNorm'))).toEqual([
      'RMSNorm post_attention_layernorm',
      'RMSNorm post_feedforward_layernorm',
    ]);
  });

  it('names the activation that runs: GPT-2 with activation_function "gelu" runs erf, not tanh', () => {
    expect(up(specOf('gpt2'))).toBe('GELU (tanh)(x·W_up + b), W_up [8 × 32]');
    expect(up(specOf('gpt2', { activation_function: 'gelu' }))).toBe('GELU (erf)(x·W_up + b), W_up [8 × 32]');
    expect(up(specOf('bert'))).toBe('GELU (erf)(x·W_up + b), W_up [8 × 32]');
    expect(up(specOf('bert', { hidden_act: 'gelu_new' }))).toBe('GELU (tanh)(x·W_up + b), W_up [8 × 32]');
  });
});

describe('normBars: the residual stream chart’s bars, each labelled as what it is', () => {
  const h = (value) => ({ shape: [1, 1], data: [value] });
  const states = [h(1), h(2), h(3)]; // the embeddings, layer 0's output, then layer 1's (or after the final norm)
  const show = (bars) => bars.map(({ label, value, current }) => `${label} ${value}${current ? ' *' : ''}`);

  it('without a final norm (BERT): the embeddings, then each layer’s output, counted from 0', () => {
    expect(show(normBars(states, { layer: 1, normed: false }))).toEqual(['emb 1', 'L0 2 *', 'L1 3 *']);
    expect(normBars(states, { layer: 0, normed: false })[2].what).toBe("layer 1's output");
  });

  it('after a final norm: the last bar is that norm’s output, never the last layer’s; its own output when given', () => {
    const bars = normBars(states, { layer: 0, normed: true });
    expect(show(bars)).toEqual(['emb 1 *', 'L0 2 *', 'final 3']);
    expect(bars[2].what).toMatch(/^after the final norm/u);
    expect(show(normBars(states, { layer: 1, normed: true, lastOutput: h(-7) }))).toEqual([
      'emb 1',
      'L0 2 *',
      'L1 7 *',
      'final 3',
    ]);
  });
});

describe('residualNorms and tensorPreview', () => {
  it('the mean over tokens of each row’s L2 norm, per hidden state', () => {
    const h = { shape: [2, 2], data: [3, 4, 0, 1] };
    expect(residualNorms([h, { shape: [1, 2], data: [0, 0] }])).toEqual([3, 0]);
  });

  it('the first columns of each row, and how many are left out', () => {
    const t = { shape: [2, 3], data: [1, 2, 3, 4, 5, 6] };
    expect(tensorPreview(t, 2)).toEqual({
      rows: [
        [1, 2],
        [4, 5],
      ],
      more: 1,
    });
    expect(tensorPreview(t)).toEqual({
      rows: [
        [1, 2, 3],
        [4, 5, 6],
      ],
      more: 0,
    });
  });
});
