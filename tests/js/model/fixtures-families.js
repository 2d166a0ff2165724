// Tiny random checkpoints of the families added since GPT-2, BERT and LLaMA, in the exact file layout of the Hub's
// (names, shapes, dtypes, the buffers the published files carry), built as fixtures.js builds its own.
import { builder } from './fixtures.js';

/** A causal mask buffer [1, 1, P, P] of 1 (allowed) and 0, as GPT-2's and GPT-NeoX's files store it (BOOL). */
const causalBuffer = (positions) => (i) => (i % positions <= Math.floor(i / positions) ? 1 : 0);

/**
 * GPT-NeoX / Pythia as GPTNeoXForCausalLM saves it ('gpt_neox.' prefix, embed_out), with the buffers the published
 * files carry (attention.bias, attention.masked_bias, attention.rotary_emb.inv_freq); `parallel`:
 * use_parallel_residual. Pythia's files are F16.
 */
export function neoxFixture({
  dtype = 'F16',
  seed = 7,
  d = 16,
  heads = 4,
  layers = 2,
  vocab = 31,
  positions = 32,
  parallel = true,
  rotaryPct = 0.5,
  shards = 1,
} = {}) {
  const [dk, ff] = [d / heads, 4 * d];
  const config = {
    architectures: ['GPTNeoXForCausalLM'],
    attention_bias: true,
    bos_token_id: 0,
    hidden_act: 'gelu',
    hidden_size: d,
    intermediate_size: ff,
    layer_norm_eps: 1e-5,
    max_position_embeddings: positions,
    model_type: 'gpt_neox',
    num_attention_heads: heads,
    num_hidden_layers: layers,
    rotary_emb_base: 10000,
    rotary_pct: rotaryPct,
    tie_word_embeddings: false,
    use_parallel_residual: parallel,
    vocab_size: vocab,
  };
  const b = builder(dtype, seed, 0.5);
  b.add('gpt_neox.embed_in.weight', [vocab, d]);
  for (let l = 0; l < layers; l++) {
    const at = `gpt_neox.layers.${l}.`;
    b.add(`${at}input_layernorm.weight`, [d], 'norm');
    b.add(`${at}input_layernorm.bias`, [d], 'bias');
    b.add(`${at}post_attention_layernorm.weight`, [d], 'norm');
    b.add(`${at}post_attention_layernorm.bias`, [d], 'bias');
    b.add(`${at}attention.bias`, [1, 1, positions, positions], causalBuffer(positions), 'BOOL');
    b.add(`${at}attention.masked_bias`, [], () => -1e9, 'F32');
    const rot = dk * rotaryPct;
    b.add(`${at}attention.rotary_emb.inv_freq`, [rot / 2], (i) => 1 / 10000 ** ((2 * i) / rot), 'F32');
    b.add(`${at}attention.query_key_value.weight`, [3 * d, d]);
    b.add(`${at}attention.query_key_value.bias`, [3 * d], 'bias');
    b.add(`${at}attention.dense.weight`, [d, d]);
    b.add(`${at}attention.dense.bias`, [d], 'bias');
    b.add(`${at}mlp.dense_h_to_4h.weight`, [ff, d]);
    b.add(`${at}mlp.dense_h_to_4h.bias`, [ff], 'bias');
    b.add(`${at}mlp.dense_4h_to_h.weight`, [d, ff]);
    b.add(`${at}mlp.dense_4h_to_h.bias`, [d], 'bias');
  }
  b.add('gpt_neox.final_layer_norm.weight', [d], 'norm');
  b.add('gpt_neox.final_layer_norm.bias', [d], 'bias');
  b.add('embed_out.weight', [vocab, d]);
  return { config, prefix: 'gpt_neox.', values: b.values, files: b.files(config, { shards }) };
}

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
 * k_norm [H_kv·d_k] over each token's whole q and k, GQA 4/2 as given.
 */
export function olmo2Fixture({ dtype = 'F32', seed = 43, layers = 2, kvHeads = 4, shards = 1 } = {}) {
  const [d, heads, ff, vocab] = [16, 4, 32, 31];
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
