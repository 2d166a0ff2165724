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
  layer: (l) => {
    const at = `layers.${l}.`;
    const qkvBias = (spec) => spec.qkvBias;
    return [
      row('wQ', `${at}self_attn.q_proj.weight`, ['q', 'd']),
      row('bQ', `${at}self_attn.q_proj.bias`, ['q'], qkvBias),
      row('wK', `${at}self_attn.k_proj.weight`, ['kv', 'd']),
      row('bK', `${at}self_attn.k_proj.bias`, ['kv'], qkvBias),
      row('wV', `${at}self_attn.v_proj.weight`, ['kv', 'd']),
      row('bV', `${at}self_attn.v_proj.bias`, ['kv'], qkvBias),
      row('qNorm', `${at}self_attn.q_norm.weight`, ['q']),
      row('kNorm', `${at}self_attn.k_norm.weight`, ['kv']),
      row('wO', `${at}self_attn.o_proj.weight`, ['d', 'q']),
      row('bO', `${at}self_attn.o_proj.bias`, ['d'], (spec) => spec.oBias),
      row('attentionPostNorm', `${at}post_attention_layernorm.weight`, ['d']),
      row('wGate', `${at}mlp.gate_proj.weight`, ['ff', 'd']),
      row('wUp', `${at}mlp.up_proj.weight`, ['ff', 'd']),
      row('wDown', `${at}mlp.down_proj.weight`, ['d', 'ff']),
      row('mlpPostNorm', `${at}post_feedforward_layernorm.weight`, ['d']),
    ];
  },
});
