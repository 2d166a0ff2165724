// Gemma 2 (model_type gemma2), as transformers' modeling_gemma2.py computes it: Gemma's embeddings × √d_model, RMSNorm
// x̂·(1 + w) and GeGLU (gemma.js), four norms a layer (input_layernorm and post_attention_layernorm around attention,
// pre_feedforward_layernorm and post_feedforward_layernorm around the MLP: the sandwich), scores scaled by
// query_pre_attn_scalar^-½, attention logit softcapping (attn_logit_softcapping: tanh(s / c)·c before the mask) and
// final logit softcapping (final_logit_softcapping), a sliding window (sliding_window) on the even layers (or as
// layer_types says), grouped-query attention and an LM head tied to the embeddings.
import { family, row } from './family.js';
import gemma, { embedScaleOf } from './gemma.js';
import llama from './llama.js';

/** Each layer's window: config.layer_types when given, else `sliding(l)`; 0 for a layer of full attention. */
export function slidingWindows(config, numLayers, reader, sliding) {
  const window = reader.optional('sliding_window') ?? 0;
  const types = config.layer_types;
  if (types === undefined || types === null)
    return Array.from({ length: numLayers }, (_, l) => (sliding(l) ? window : 0));
  if (!Array.isArray(types) || types.length !== numLayers) {
    throw reader.badConfig('layer_types', types, `a list of ${numLayers} layer types`);
  }
  return types.map((type) => (type === 'sliding_attention' ? window : 0));
}

/** A softcap of config.json (null or absent: none). */
const softcapOf = (config, field, reader) =>
  config[field] === null ? 0 : reader.number(field, 0, 'a number from 0 (null: none)', (c) => c >= 0 && c < Infinity);

/** What Gemma 2 and 3 read of their config.json beyond the sizes (gemma3.js adds its own). */
export function gemma2Read(config, { numLayers, reader }, sliding) {
  const scalar = reader.number('query_pre_attn_scalar', 256, 'a number above 0', (s) => s > 0);
  return {
    windows: slidingWindows(config, numLayers, reader, sliding),
    tied: config.tie_word_embeddings !== false,
    qkvBias: config.attention_bias === true,
    oBias: config.attention_bias === true,
    mlpBias: false,
    attentionScale: scalar ** -0.5,
    softcap: softcapOf(config, 'attn_logit_softcapping', reader),
    finalSoftcap: softcapOf(config, 'final_logit_softcapping', reader),
    embedScale: embedScaleOf(config),
  };
}

/**
 * A layer's tensors of Gemma 2 (and 3): LLaMA's q, k, v, o and gated MLP, with the sandwich's four norms — the
 * attention output's norm after o_proj, the MLP's input norm named pre_feedforward_layernorm, and its output's.
 */
export function sandwichLayer(l) {
  const at = `layers.${l}.`;
  return [
    ...llama
      .layer(l)
      .flatMap((r) =>
        r.slot === 'norm2Weight'
          ? [
              row('attentionPostNorm', `${at}post_attention_layernorm.weight`, ['d']),
              row('norm2Weight', `${at}pre_feedforward_layernorm.weight`, ['d']),
            ]
          : [r],
      ),
    row('mlpPostNorm', `${at}post_feedforward_layernorm.weight`, ['d']),
  ];
}

export default family({
  ...gemma,
  name: 'gemma2',
  label: 'Gemma 2',
  modelTypes: ['gemma2'],
  architectures: ['Gemma2ForCausalLM', 'Gemma2Model'],
  choices: { ...gemma.choices, placement: 'sandwich' },
  normNames: ['input_layernorm', 'post_attention_layernorm', 'pre_feedforward_layernorm', 'post_feedforward_layernorm'],
  read: (config, context) => gemma2Read(config, context, (l) => l % 2 === 0), // even layers slide
  layer: sandwichLayer,
});
