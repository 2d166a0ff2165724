// Tiny checkpoints of Gemma (1, 2, 3) and OLMo-2 in their published layouts (the other families' are in
// fixtures-families.js).
import { builder } from './fixtures.js';

/**
 * Gemma as GemmaForCausalLM (version 1), Gemma2ForCausalLM (2) or Gemma3ForCausalLM's text model (3, gemma3_text) save
 * it: 'model.' names, no lm_head (tied), head_dim 8 with H·d_k (32) ≠ d_model (24), GQA 4/2, the norms' weights stored
 * as offsets from 1 (x̂·(1 + w)). Version 2 and 3: the four norms of a layer, query_pre_attn_scalar 24 (≠ head_dim),
 * sliding windows of `window` (even layers for 2; for 3 `layerTypes` as given, else sliding_window_pattern 3), Gemma
 * 3's q_norm and k_norm and its two RoPE bases; softcaps as given (2's are small, to bend these small scores).
 * torch_dtype follows the dtype: √24 = 4.899 is multiplied as 4.90625 in bfloat16.
 */
export function gemmaFixture({
  version = 2,
  dtype = 'F32',
  seed = 41,
  layers = version === 3 ? 3 : 2,
  window = 3,
  softcap = version === 2 ? 1.5 : null,
  finalSoftcap = version === 2 ? 2 : null,
  layerTypes,
  shards = 1,
} = {}) {
  const [d, heads, kvHeads, dk, ff, vocab] = [24, 4, 2, 8, 40, 31];
  const torchDtype = { F32: 'float32', BF16: 'bfloat16', F16: 'float16' }[dtype];
  const common = {
    attention_bias: false,
    attention_dropout: 0,
    bos_token_id: 2,
    eos_token_id: 1,
    head_dim: dk,
    hidden_act: 'gelu_pytorch_tanh',
    hidden_activation: 'gelu_pytorch_tanh',
    hidden_size: d,
    initializer_range: 0.02,
    intermediate_size: ff,
    max_position_embeddings: 64,
    num_attention_heads: heads,
    num_hidden_layers: layers,
    num_key_value_heads: kvHeads,
    pad_token_id: 0,
    rms_norm_eps: 1e-6,
    rope_theta: 10000,
    torch_dtype: torchDtype,
    vocab_size: vocab,
  };
  const config =
    version === 1
      ? { architectures: ['GemmaForCausalLM'], model_type: 'gemma', ...common, hidden_act: 'gelu' }
      : {
          architectures: [version === 2 ? 'Gemma2ForCausalLM' : 'Gemma3ForCausalLM'],
          model_type: version === 2 ? 'gemma2' : 'gemma3_text',
          ...common,
          attn_logit_softcapping: softcap,
          cache_implementation: 'hybrid',
          final_logit_softcapping: finalSoftcap,
          query_pre_attn_scalar: 24,
          sliding_window: window,
          ...(version === 3
            ? { rope_local_base_freq: 10000, rope_scaling: null, rope_theta: 1000000, sliding_window_pattern: 3 }
            : {}),
          ...(layerTypes ? { layer_types: layerTypes } : {}),
        };
  const b = builder(dtype, seed, 0.5);
  b.add('model.embed_tokens.weight', [vocab, d]);
  for (let l = 0; l < layers; l++) {
    const at = `model.layers.${l}.`;
    b.add(`${at}input_layernorm.weight`, [d], 'bias');
    b.add(`${at}self_attn.q_proj.weight`, [heads * dk, d]);
    b.add(`${at}self_attn.k_proj.weight`, [kvHeads * dk, d]);
    b.add(`${at}self_attn.v_proj.weight`, [kvHeads * dk, d]);
    b.add(`${at}self_attn.o_proj.weight`, [d, heads * dk]);
    if (version === 3) {
      b.add(`${at}self_attn.q_norm.weight`, [dk], 'bias');
      b.add(`${at}self_attn.k_norm.weight`, [dk], 'bias');
    }
    b.add(`${at}post_attention_layernorm.weight`, [d], 'bias');
    if (version > 1) {
      b.add(`${at}pre_feedforward_layernorm.weight`, [d], 'bias');
      b.add(`${at}post_feedforward_layernorm.weight`, [d], 'bias');
    }
    b.add(`${at}mlp.gate_proj.weight`, [ff, d]);
    b.add(`${at}mlp.up_proj.weight`, [ff, d]);
    b.add(`${at}mlp.down_proj.weight`, [d, ff]);
  }
  b.add('model.norm.weight', [d], 'bias');
  return { config, prefix: 'model.', values: b.values, files: b.files(config, { shards }) };
}

/**
 * OLMo-2 as Olmo2ForCausalLM saves it ('model.' names, lm_head): no norm before attention or the MLP, each half's
 * output normed (post_attention_layernorm, post_feedforward_layernorm) inside the residual branch, q_norm [H·d_k] and
 * k_norm [H_kv·d_k] over each token's whole q and k, GQA 4/2 as given; d, heads, ff and vocab as given (a benchmark's).
 */
export function olmo2Fixture({
  dtype = 'F32',
  seed = 43,
  layers = 2,
  kvHeads = 4,
  shards = 1,
  d = 16,
  heads = 4,
  ff = 32,
  vocab = 31,
} = {}) {
  const dk = d / heads;
  const config = {
    architectures: ['Olmo2ForCausalLM'],
    attention_bias: false,
    attention_dropout: 0,
    bos_token_id: null,
    eos_token_id: 1,
    hidden_act: 'silu',
    hidden_size: d,
    initializer_range: 0.02,
    intermediate_size: ff,
    max_position_embeddings: 64,
    model_type: 'olmo2',
    num_attention_heads: heads,
    num_hidden_layers: layers,
    num_key_value_heads: kvHeads,
    pad_token_id: 0,
    rms_norm_eps: 1e-6,
    rope_scaling: null,
    rope_theta: 500000,
    tie_word_embeddings: false,
    torch_dtype: { F32: 'float32', BF16: 'bfloat16', F16: 'float16' }[dtype],
    vocab_size: vocab,
  };
  const b = builder(dtype, seed, 0.5);
  b.add('model.embed_tokens.weight', [vocab, d]);
  for (let l = 0; l < layers; l++) {
    const at = `model.layers.${l}.`;
    b.add(`${at}self_attn.q_proj.weight`, [heads * dk, d]);
    b.add(`${at}self_attn.k_proj.weight`, [kvHeads * dk, d]);
    b.add(`${at}self_attn.v_proj.weight`, [kvHeads * dk, d]);
    b.add(`${at}self_attn.o_proj.weight`, [d, heads * dk]);
    b.add(`${at}self_attn.q_norm.weight`, [heads * dk], 'norm');
    b.add(`${at}self_attn.k_norm.weight`, [kvHeads * dk], 'norm');
    b.add(`${at}post_attention_layernorm.weight`, [d], 'norm');
    b.add(`${at}mlp.gate_proj.weight`, [ff, d]);
    b.add(`${at}mlp.up_proj.weight`, [ff, d]);
    b.add(`${at}mlp.down_proj.weight`, [d, ff]);
    b.add(`${at}post_feedforward_layernorm.weight`, [d], 'norm');
  }
  b.add('model.norm.weight', [d], 'norm');
  b.add('lm_head.weight', [vocab, d]);
  return { config, prefix: 'model.', values: b.values, files: b.files(config, { shards }) };
}
