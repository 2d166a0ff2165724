// The LLaMA family (model_type llama, mistral, qwen2): RMSNorm before each sub-block, rotary position embeddings,
// SiLU-gated MLP, torch.nn.Linear weights stored [out, in], grouped-query attention (num_key_value_heads); Mistral's
// and Qwen2's sliding windows, Qwen2's q/k/v biases, a head tied or not (tie_word_embeddings).
import { HIDDEN_SIZES, family, row } from './family.js';

/** Each layer's sliding window (0: none): Mistral's on every layer, Qwen2's from max_window_layers, or layer_types. */
function windowsOf(config, modelType, numLayers, reader) {
  const useWindow = modelType === 'mistral' || (modelType === 'qwen2' && config.use_sliding_window === true);
  const window = useWindow ? (reader.optional('sliding_window') ?? 0) : 0;
  const types = config.layer_types;
  if (types !== undefined && types !== null) {
    if (!Array.isArray(types) || types.length !== numLayers) {
      throw reader.badConfig('layer_types', types, `a list of ${numLayers} layer types`);
    }
    return types.map((type) => (type === 'sliding_attention' ? window : 0));
  }
  const first = modelType === 'qwen2' ? (config.max_window_layers ?? 28) : 0;
  return Array.from({ length: numLayers }, (_, l) => (l >= first ? window : 0));
}

export default family({
  name: 'llama',
  label: 'LLaMA',
  modelTypes: ['llama', 'mistral', 'qwen2'],
  architectures: ['LlamaForCausalLM', 'MistralForCausalLM', 'Qwen2ForCausalLM', 'LlamaModel'],
  prefixes: ['model.', ''],
  choices: {
    norm: 'rmsNorm',
    placement: 'preNorm',
    qkvLayout: 'blocks',
    layout: 'outIn',
    causal: true,
    rope: true,
    maskedLm: false,
    finalNorm: true,
    groupedKv: true,
  },
  sizes: HIDDEN_SIZES,
  optional: {
    numKvHeads: 'num_key_value_heads',
    headDim: 'head_dim',
    eps: ['rms_norm_eps', 1e-6],
    activation: ['hidden_act', 'silu'],
  },
  activations: ['siluGated'],
  normNames: ['input_layernorm', 'post_attention_layernorm'],
  read(config, { modelType, numLayers, reader }) {
    return {
      windows: windowsOf(config, modelType, numLayers, reader),
      tied: config.tie_word_embeddings === true,
      qkvBias: modelType === 'qwen2' || config.attention_bias === true,
      oBias: modelType !== 'qwen2' && config.attention_bias === true,
      mlpBias: config.mlp_bias === true,
    };
  },
  embeddings: [row('tokens', 'embed_tokens.weight', ['V', 'd'])],
  embedNorm: [],
  layer: (l) => {
    const at = `layers.${l}.`;
    const qkvBias = (spec) => spec.qkvBias;
    const oBias = (spec) => spec.oBias;
    const mlpBias = (spec) => spec.mlpBias;
    return [
      row('norm1Weight', `${at}input_layernorm.weight`, ['d']),
      row('wQ', `${at}self_attn.q_proj.weight`, ['q', 'd']),
      row('bQ', `${at}self_attn.q_proj.bias`, ['q'], qkvBias),
      row('wK', `${at}self_attn.k_proj.weight`, ['kv', 'd']),
      row('bK', `${at}self_attn.k_proj.bias`, ['kv'], qkvBias),
      row('wV', `${at}self_attn.v_proj.weight`, ['kv', 'd']),
      row('bV', `${at}self_attn.v_proj.bias`, ['kv'], qkvBias),
      row('wO', `${at}self_attn.o_proj.weight`, ['d', 'q']),
      row('bO', `${at}self_attn.o_proj.bias`, ['d'], oBias),
      row('norm2Weight', `${at}post_attention_layernorm.weight`, ['d']),
      row('wGate', `${at}mlp.gate_proj.weight`, ['ff', 'd']),
      row('bGate', `${at}mlp.gate_proj.bias`, ['ff'], mlpBias),
      row('wUp', `${at}mlp.up_proj.weight`, ['ff', 'd']),
      row('bUp', `${at}mlp.up_proj.bias`, ['ff'], mlpBias),
      row('wDown', `${at}mlp.down_proj.weight`, ['d', 'ff']),
      row('bDown', `${at}mlp.down_proj.bias`, ['d'], mlpBias),
    ];
  },
  final: [row('norm1Weight', 'norm.weight', ['d'])],
  head: { weight: (spec) => (spec.tied ? 'embed_tokens.weight' : '^lm_head.weight'), bias: null },
});
