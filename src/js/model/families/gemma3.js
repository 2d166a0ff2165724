// Gemma 3's text model (model_type gemma3_text, as gemma-3-1b-it), as transformers' modeling_gemma3.py computes it:
// Gemma 2's layer (gemma2.js: the sandwich's four norms, query_pre_attn_scalar, softcaps when the config has them) with
// an RMSNorm x̂·(1 + w) of each head's q and k (self_attn.q_norm, k_norm) before RoPE, and five sliding layers to one of
// full attention (layer_types, or sliding_window_pattern: layer l slides unless (l + 1) % pattern is 0), the sliding
// layers turning by their own RoPE base (rope_local_base_freq), the others by rope_theta (and its rope_scaling).
import { family, row } from './family.js';
import gemma2, { gemma2Read, sandwichLayer } from './gemma2.js';

export default family({
  ...gemma2,
  name: 'gemma3',
  label: 'Gemma 3',
  modelTypes: ['gemma3_text'],
  architectures: ['Gemma3ForCausalLM', 'Gemma3TextModel'],
  read(config, context) {
    const pattern = context.reader.optional('sliding_window_pattern') ?? 6;
    const local = context.reader.number(
      'rope_local_base_freq',
      10000,
      'a number above 0',
      (b) => b > 0 && b < Infinity,
    );
    return { ...gemma2Read(config, context, (l) => (l + 1) % pattern !== 0), slidingRopeTheta: local };
  },
  layer: (l) => {
    const rows = sandwichLayer(l);
    const at = rows.findIndex((r) => r.slot === 'wO');
    return [
      ...rows.slice(0, at),
      row('qNorm', `layers.${l}.self_attn.q_norm.weight`, ['dk']),
      row('kNorm', `layers.${l}.self_attn.k_norm.weight`, ['dk']),
      ...rows.slice(at),
    ];
  },
});
