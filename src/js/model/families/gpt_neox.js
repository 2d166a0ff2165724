// GPT-NeoX and Pythia (model_type gpt_neox): LayerNorm before each sub-block, run side by side on the layer's input
// (use_parallel_residual: x + attn(ln1(x)) + mlp(ln2(x)); in sequence when false), q, k and v fused in one
// query_key_value laid out by head ([q_h | k_h | v_h], d_k rows each), rotary embeddings on the first rotary_pct of
// each head (rotary_emb_base), biases everywhere, GELU (erf), torch.nn.Linear weights stored [out, in], and an LM
// head of its own (embed_out). The buffers the published files carry (attention.rotary_emb.inv_freq,
// attention.masked_bias, attention.bias) are no weights and are not read.
import { HIDDEN_SIZES, family, row } from './family.js';

export default family({
  name: 'gpt_neox',
  label: 'GPT-NeoX',
  modelTypes: ['gpt_neox'],
  architectures: ['GPTNeoXForCausalLM', 'GPTNeoXModel'],
  prefixes: ['gpt_neox.', ''],
  choices: {
    norm: 'layerNorm',
    placement: 'parallel', // preNorm when use_parallel_residual is false (read below)
    layout: 'outIn',
    qkvLayout: 'perHead',
    causal: true,
    rope: true,
    maskedLm: false,
    finalNorm: true,
    groupedKv: false,
  },
  sizes: HIDDEN_SIZES,
  optional: {
    eps: ['layer_norm_eps', 1e-5],
    activation: ['hidden_act', 'gelu'],
    ropeTheta: 'rotary_emb_base',
    rotaryFactor: 'rotary_pct',
  },
  activations: ['geluErf', 'geluTanh'],
  normNames: ['input_layernorm', 'post_attention_layernorm'],
  read(config, { numLayers }) {
    const bias = config.attention_bias !== false;
    return {
      choices: { placement: config.use_parallel_residual === false ? 'preNorm' : 'parallel' },
      windows: Array(numLayers).fill(0),
      tied: config.tie_word_embeddings === true,
      qkvBias: bias,
      oBias: bias,
      mlpBias: true,
    };
  },
  embeddings: [row('tokens', 'embed_in.weight', ['V', 'd'])],
  embedNorm: [],
  layer: (l) => {
    const at = `layers.${l}.`;
    const bias = (spec) => spec.qkvBias;
    return [
      row('norm1Weight', `${at}input_layernorm.weight`, ['d']),
      row('norm1Bias', `${at}input_layernorm.bias`, ['d']),
      row('wQkv', `${at}attention.query_key_value.weight`, ['qkv', 'd']),
      row('bQkv', `${at}attention.query_key_value.bias`, ['qkv'], bias),
      row('wO', `${at}attention.dense.weight`, ['d', 'q']),
      row('bO', `${at}attention.dense.bias`, ['d'], bias),
      row('norm2Weight', `${at}post_attention_layernorm.weight`, ['d']),
      row('norm2Bias', `${at}post_attention_layernorm.bias`, ['d']),
      row('wUp', `${at}mlp.dense_h_to_4h.weight`, ['ff', 'd']),
      row('bUp', `${at}mlp.dense_h_to_4h.bias`, ['ff']),
      row('wDown', `${at}mlp.dense_4h_to_h.weight`, ['d', 'ff']),
      row('bDown', `${at}mlp.dense_4h_to_h.bias`, ['d']),
    ];
  },
  final: [row('norm1Weight', 'final_layer_norm.weight', ['d']), row('norm1Bias', 'final_layer_norm.bias', ['d'])],
  head: { weight: (spec) => (spec.tied ? 'embed_in.weight' : '^embed_out.weight'), bias: null },
});
