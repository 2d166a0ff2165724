// Phi-3 and Phi-4-mini (model_type phi3): the LLaMA family's computation (llama.js: RMSNorm before each sub-block,
// SiLU-gated MLP, grouped-query attention) with q, k and v fused in one qkv_proj whose rows are [q | k | v]
// (H·d_k, H_kv·d_k, H_kv·d_k), gate and up fused in one gate_up_proj ([gate | up]), RoPE on the first
// partial_rotary_factor of each head, the longrope (older: su) rope scaling of the long-context variants with
// original_max_position_embeddings (4096 when the config has none, as Phi3Config), sliding_window on every layer
// when set (Phi-3-mini-4k's 2047), no biases, and lm_head or (Phi-4-mini) the tied embeddings.
import { family, row, rowsOf } from './family.js';
import llama from './llama.js';

export default family({
  ...llama,
  name: 'phi3',
  label: 'Phi-3',
  modelTypes: ['phi3'],
  architectures: ['Phi3ForCausalLM', 'Phi3Model'],
  choices: { ...llama.choices, qkvLayout: 'blocks' },
  optional: {
    numKvHeads: 'num_key_value_heads',
    headDim: 'head_dim',
    eps: ['rms_norm_eps', 1e-5],
    activation: ['hidden_act', 'silu'],
    ropeTypes: { su: 'longrope', yarn: 'longrope' }, // Phi3Config reads its older names so
    original: 4096, // Phi3Config's original_max_position_embeddings
  },
  read(config, { numLayers, reader }) {
    const window = reader.optional('sliding_window') ?? 0;
    return {
      windows: Array(numLayers).fill(window),
      tied: config.tie_word_embeddings === true,
      qkvBias: false,
      oBias: false,
      mlpBias: false,
    };
  },
  layer: (l) => {
    const at = `layers.${l}.`;
    const gateUp = row(undefined, `${at}mlp.gate_up_proj.weight`, ['ff', 'd']);
    return [
      row('norm1Weight', `${at}input_layernorm.weight`, ['d']),
      row('wQkv', `${at}self_attn.qkv_proj.weight`, ['qkv', 'd']),
      row('wO', `${at}self_attn.o_proj.weight`, ['d', 'q']),
      row('norm2Weight', `${at}post_attention_layernorm.weight`, ['d']),
      rowsOf({ ...gateUp, slot: 'wGate' }, ['ff', 'ff'], 0),
      rowsOf({ ...gateUp, slot: 'wUp' }, ['ff', 'ff'], 1),
      row('wDown', `${at}mlp.down_proj.weight`, ['d', 'ff']),
    ];
  },
});
