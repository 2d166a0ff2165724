// Qwen3 (model_type qwen3): the LLaMA family's layout (llama.js) with an RMSNorm of each head's q and k over head_dim
// (self_attn.q_norm, self_attn.k_norm) before RoPE, and a head_dim of its own (H·d_k need not be d_model).
import { AttentionError } from '../../errors.js';
import { family, row } from './family.js';
import llama from './llama.js';

export default family({
  ...llama,
  name: 'qwen3',
  label: 'Qwen3',
  modelTypes: ['qwen3'],
  architectures: ['Qwen3ForCausalLM', 'Qwen3Model'],
  read(config, context) {
    if (config.use_sliding_window === true) {
      throw new AttentionError('UNSUPPORTED_MODEL', `${context.file}: Qwen3 with use_sliding_window is not run`);
    }
    return llama.read(config, context);
  },
  layer: (l) => [
    ...llama.layer(l),
    row('qNorm', `layers.${l}.self_attn.q_norm.weight`, ['dk']),
    row('kNorm', `layers.${l}.self_attn.k_norm.weight`, ['dk']),
  ],
});
