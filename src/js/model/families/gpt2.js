// GPT-2 (model_type gpt2): LayerNorm before each sub-block, learned positions, Conv1D weights stored [in, out] with
// q, k and v fused in one c_attn, the LM head tied to the token embeddings.
import { AttentionError } from '../../errors.js';
import { family, row } from './family.js';

export default family({
  name: 'gpt2',
  label: 'GPT-2',
  modelTypes: ['gpt2'],
  architectures: ['GPT2LMHeadModel', 'GPT2Model', 'GPT2DoubleHeadsModel'],
  prefixes: ['', 'transformer.'],
  choices: {
    norm: 'layerNorm',
    placement: 'preNorm',
    qkvLayout: 'blocks',
    layout: 'inOut',
    causal: true,
    rope: false,
    maskedLm: false,
    finalNorm: true,
    groupedKv: false,
  },
  sizes: {
    dModel: 'n_embd',
    numHeads: 'n_head',
    numLayers: 'n_layer',
    maxPositions: ['n_positions', 'n_ctx'],
    vocabSize: 'vocab_size',
  },
  optional: { dFf: 'n_inner', eps: ['layer_norm_epsilon', 1e-5], activation: ['activation_function', 'gelu_new'] },
  activations: ['geluTanh', 'geluErf'],
  normNames: ['ln_1', 'ln_2'],
  read(config, { file, numLayers }) {
    if (config.scale_attn_by_inverse_layer_idx === true || config.scale_attn_weights === false) {
      throw new AttentionError(
        'UNSUPPORTED_MODEL',
        `${file}: GPT-2 with scale_attn_by_inverse_layer_idx or without scale_attn_weights is not run`,
      );
    }
    return { windows: Array(numLayers).fill(0), tied: true, qkvBias: true, oBias: true, mlpBias: true };
  },
  embeddings: [row('tokens', 'wte.weight', ['V', 'd']), row('positions', 'wpe.weight', ['P', 'd'])],
  embedNorm: [],
  layer: (l) => [
    row('norm1Weight', `h.${l}.ln_1.weight`, ['d']),
    row('norm1Bias', `h.${l}.ln_1.bias`, ['d']),
    row('wQkv', `h.${l}.attn.c_attn.weight`, ['d', 'qkv']),
    row('bQkv', `h.${l}.attn.c_attn.bias`, ['qkv']),
    row('wO', `h.${l}.attn.c_proj.weight`, ['q', 'd']),
    row('bO', `h.${l}.attn.c_proj.bias`, ['d']),
    row('norm2Weight', `h.${l}.ln_2.weight`, ['d']),
    row('norm2Bias', `h.${l}.ln_2.bias`, ['d']),
    row('wUp', `h.${l}.mlp.c_fc.weight`, ['d', 'ff']),
    row('bUp', `h.${l}.mlp.c_fc.bias`, ['ff']),
    row('wDown', `h.${l}.mlp.c_proj.weight`, ['ff', 'd']),
    row('bDown', `h.${l}.mlp.c_proj.bias`, ['d']),
  ],
  final: [row('norm1Weight', 'ln_f.weight', ['d']), row('norm1Bias', 'ln_f.bias', ['d'])],
  head: { weight: 'wte.weight', bias: null },
});
