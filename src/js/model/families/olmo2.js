// OLMo-2 (model_type olmo2), as transformers' modeling_olmo2.py computes it: the LLaMA family's tensors and RoPE
// (llama.js) with no norm before attention or the MLP, the norm of each half's output inside the residual branch
// (post_attention_layernorm after attention, post_feedforward_layernorm after the MLP: x + norm(f(x))), and q and k
// normed over each token's whole projection (self_attn.q_norm [H·d_k], k_norm [H_kv·d_k]) before being split into
// heads; an LM head of its own.
import { family, row } from './family.js';
import llama from './llama.js';

export default family({
  ...llama,
  name: 'olmo2',
  label: 'OLMo-2',
  modelTypes: ['olmo2'],
  architectures: ['Olmo2ForCausalLM', 'Olmo2Model'],
  choices: { ...llama.choices, placement: 'postBranch' },
  normNames: ['post_attention_layernorm', 'post_feedforward_layernorm'],
  read(config, { numLayers }) {
    return {
      windows: Array(numLayers).fill(0),
      tied: config.tie_word_embeddings === true,
      qkvBias: config.attention_bias === true,
      oBias: config.attention_bias === true,
      mlpBias: false,
      qkNormWhole: true,
    };
  },
  layer: (l) => [
    // LLaMA's q, k, v, o and MLP, without its two norms before them
    ...llama.layer(l).filter((r) => r.slot !== 'norm1Weight' && r.slot !== 'norm2Weight'),
    row('qNorm', `layers.${l}.self_attn.q_norm.weight`, ['q']),
    row('kNorm', `layers.${l}.self_attn.k_norm.weight`, ['kv']),
    row('attentionPostNorm', `layers.${l}.post_attention_layernorm.weight`, ['d']),
    row('mlpPostNorm', `layers.${l}.post_feedforward_layernorm.weight`, ['d']),
  ],
});
