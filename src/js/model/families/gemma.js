// Gemma (model_type gemma): the LLaMA family's layout (llama.js) with Gemma's differences, as transformers'
// modeling_gemma.py computes them: the token embeddings times √d_model (rounded to the checkpoint's dtype, config.json's
// torch_dtype, as transformers multiplies them in it), RMSNorm as x̂·(1 + w), GeGLU (GELU's tanh form on the gate:
// hidden_activation gelu_pytorch_tanh), a head_dim of its own and an LM head tied to the embeddings.
import { family } from './family.js';
import llama from './llama.js';

/** config.json's activation names as Gemma reads them: a GELU (tanh) on the gate of a gated MLP. */
export const GEGLU = Object.freeze({
  gelu_pytorch_tanh: 'geluTanhGated',
  gelu_new: 'geluTanhGated',
  gelu_fast: 'geluTanhGated',
});

/** x rounded to the nearest float with `bits` bits of mantissa, ties to even (x normal and positive). */
function roundMantissa(x, bits) {
  const unit = 2 ** (Math.floor(Math.log2(x)) - bits);
  const scaled = x / unit;
  const below = Math.floor(scaled);
  const up = scaled - below > 0.5 || (scaled - below === 0.5 && below % 2 === 1);
  return (up ? below + 1 : below) * unit;
}

/** √d_model in the checkpoint's dtype (torch_dtype): transformers' normalizer, e.g. √3072 = 55.4256 → 55.5 in bfloat16. */
export function embedScaleOf(config) {
  const root = Math.sqrt(config.hidden_size);
  const dtype = config.torch_dtype ?? config.dtype;
  if (dtype === 'bfloat16') return roundMantissa(root, 7);
  if (dtype === 'float16') return roundMantissa(root, 10);
  return Math.fround(root);
}

export default family({
  ...llama,
  name: 'gemma',
  label: 'Gemma',
  modelTypes: ['gemma'],
  architectures: ['GemmaForCausalLM', 'GemmaModel'],
  choices: { ...llama.choices, norm: 'rmsNormPlusOne', groupedKv: true },
  optional: { ...llama.optional, activation: ['hidden_activation', 'gelu_pytorch_tanh'] },
  activations: ['geluTanhGated'],
  activationNames: GEGLU,
  read(config, { numLayers }) {
    return {
      windows: Array(numLayers).fill(0),
      tied: config.tie_word_embeddings !== false,
      qkvBias: config.attention_bias === true,
      oBias: config.attention_bias === true,
      mlpBias: false,
      embedScale: embedScaleOf(config),
    };
  },
});
