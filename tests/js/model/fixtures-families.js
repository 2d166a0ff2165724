// Tiny random checkpoints of the families added since GPT-2, BERT and LLaMA, in the exact file layout of the Hub's
// (names, shapes, dtypes, the buffers the published files carry), built as fixtures.js builds its own.
import { bertLayers, builder } from './fixtures.js';

/** A causal mask buffer [1, 1, P, P] of 1 (allowed) and 0, as GPT-2's and GPT-NeoX's files store it (BOOL). */
const causalBuffer = (positions) => (i) => (i % positions <= Math.floor(i / positions) ? 1 : 0);

/** GPT-NeoX's config.json as Pythia's have it, of these sizes (bench/model/families.mjs uses it too). */
export const neoxConfig = ({ d, heads, layers, ff, vocab, positions, parallel = true, rotaryPct = 0.25 }) => ({
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
});

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
  const config = neoxConfig({ d, heads, layers, ff, vocab, positions, parallel, rotaryPct });
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

/** A LayerNorm's weight and bias under `at` (`name`: LayerNorm, layer_norm, sa_layer_norm, …). */
const layerNormOf = (b, at, d) => {
  b.add(`${at}.weight`, [d], 'norm');
  b.add(`${at}.bias`, [d], 'bias');
};

/**
 * RoBERTa as RobertaForMaskedLM saves it ('roberta.' prefix, no pooler, lm_head.dense / layer_norm / bias, the
 * decoder tied to the word embeddings and so not in the file), max_position_embeddings = positions + padding_idx + 1
 * as roberta-base's 514, type_vocab_size 1. `xlm`: XLM-RoBERTa's config; `decoderNames`: the shared tensors under
 * their other names (lm_head.decoder.weight, lm_head.decoder.bias).
 */
export function robertaFixture({
  dtype = 'F32',
  seed = 41,
  d = 16,
  heads = 4,
  layers = 2,
  ff = 24,
  vocab = 23,
  positions = 12,
  padId = 1,
  xlm = false,
  decoderNames = false,
  head = true,
  shards = 1,
} = {}) {
  const name = xlm ? 'XLMRoberta' : 'Roberta';
  const config = {
    architectures: [`${name}${head ? 'ForMaskedLM' : 'Model'}`],
    attention_probs_dropout_prob: 0.1,
    bos_token_id: 0,
    eos_token_id: 2,
    hidden_act: 'gelu',
    hidden_dropout_prob: 0.1,
    hidden_size: d,
    intermediate_size: ff,
    layer_norm_eps: 1e-5,
    max_position_embeddings: positions + padId + 1,
    model_type: xlm ? 'xlm-roberta' : 'roberta',
    num_attention_heads: heads,
    num_hidden_layers: layers,
    pad_token_id: padId,
    position_embedding_type: 'absolute',
    type_vocab_size: 1,
    vocab_size: vocab,
  };
  const b = builder(dtype, seed, 0.5);
  const prefix = head ? 'roberta.' : '';
  const words = `${prefix}embeddings.word_embeddings.weight`;
  if (!decoderNames) b.add(words, [vocab, d]);
  b.add(`${prefix}embeddings.position_embeddings.weight`, [positions + padId + 1, d]);
  b.add(`${prefix}embeddings.token_type_embeddings.weight`, [1, d]);
  layerNormOf(b, `${prefix}embeddings.LayerNorm`, d);
  bertLayers(b, `${prefix}encoder.layer.`, { d, ff, layers }, (at) => layerNormOf(b, `${at}LayerNorm`, d));
  if (!head) b.add('pooler.dense.weight', [d, d]);
  if (!head) b.add('pooler.dense.bias', [d], 'bias');
  if (head) {
    b.add(decoderNames ? 'lm_head.decoder.bias' : 'lm_head.bias', [vocab], 'bias');
    b.add('lm_head.dense.weight', [d, d]);
    b.add('lm_head.dense.bias', [d], 'bias');
    layerNormOf(b, 'lm_head.layer_norm', d);
    if (decoderNames) b.add('lm_head.decoder.weight', [vocab, d]);
  }
  // the reference reads the shared tensors by one name each
  if (decoderNames) {
    b.values[words] = b.values['lm_head.decoder.weight'];
    b.values['lm_head.bias'] = b.values['lm_head.decoder.bias'];
  }
  return { config, prefix, values: b.values, files: b.files(config, { shards }) };
}

/**
 * DistilBERT as DistilBertForMaskedLM saves it ('distilbert.' prefix, transformer.layer.N with q_lin … out_lin,
 * sa_layer_norm, ffn.lin1/lin2, output_layer_norm, the head's vocab_transform / vocab_layer_norm / vocab_projector,
 * whose weight is the word embeddings' and not in the file), with its config's own names (dim, n_layers, …).
 */
export function distilbertFixture({
  dtype = 'F32',
  seed = 51,
  d = 16,
  heads = 4,
  layers = 2,
  ff = 24,
  vocab = 23,
  positions = 12,
  head = true,
  shards = 1,
} = {}) {
  const config = {
    activation: 'gelu',
    architectures: [head ? 'DistilBertForMaskedLM' : 'DistilBertModel'],
    attention_dropout: 0.1,
    dim: d,
    dropout: 0.1,
    hidden_dim: ff,
    initializer_range: 0.02,
    max_position_embeddings: positions,
    model_type: 'distilbert',
    n_heads: heads,
    n_layers: layers,
    pad_token_id: 0,
    qa_dropout: 0.1,
    seq_classif_dropout: 0.2,
    sinusoidal_pos_embds: false,
    tie_weights_: true,
    vocab_size: vocab,
  };
  const b = builder(dtype, seed, 0.5);
  const prefix = head ? 'distilbert.' : '';
  b.add(`${prefix}embeddings.word_embeddings.weight`, [vocab, d]);
  b.add(`${prefix}embeddings.position_embeddings.weight`, [positions, d]);
  layerNormOf(b, `${prefix}embeddings.LayerNorm`, d);
  for (let l = 0; l < layers; l++) {
    const at = `${prefix}transformer.layer.${l}.`;
    for (const part of ['q_lin', 'k_lin', 'v_lin', 'out_lin']) {
      b.add(`${at}attention.${part}.weight`, [d, d]);
      b.add(`${at}attention.${part}.bias`, [d], 'bias');
    }
    layerNormOf(b, `${at}sa_layer_norm`, d);
    b.add(`${at}ffn.lin1.weight`, [ff, d]);
    b.add(`${at}ffn.lin1.bias`, [ff], 'bias');
    b.add(`${at}ffn.lin2.weight`, [d, ff]);
    b.add(`${at}ffn.lin2.bias`, [d], 'bias');
    layerNormOf(b, `${at}output_layer_norm`, d);
  }
  if (head) {
    b.add('vocab_transform.weight', [d, d]);
    b.add('vocab_transform.bias', [d], 'bias');
    layerNormOf(b, 'vocab_layer_norm', d);
    b.add('vocab_projector.bias', [vocab], 'bias');
  }
  return { config, prefix, values: b.values, files: b.files(config, { shards }) };
}

/** LongRoPE's factors for `pairs` rotated pairs: short ones near 1, long ones growing (as Phi-3's 128k files). */
export const longRopeFactors = (pairs) => ({
  short_factor: Array.from({ length: pairs }, (_, i) => 1 + 0.05 * i),
  long_factor: Array.from({ length: pairs }, (_, i) => 1.5 + 0.75 * i),
  type: 'longrope',
});

/**
 * Phi-3 / Phi-4-mini as Phi3ForCausalLM saves it ('model.' prefix, qkv_proj [(H + 2·H_kv)·d_k, d], gate_up_proj
 * [2·ff, d], lm_head unless tied), with Phi-3-mini-4k's config fields (original_max_position_embeddings,
 * sliding_window) or Phi-4-mini's (partial_rotary_factor, GQA, tied, longrope: `original` < `positions`).
 */
export function phi3Fixture({
  dtype = 'BF16',
  seed = 61,
  d = 16,
  heads = 4,
  kvHeads = 4,
  layers = 2,
  ff = 24,
  vocab = 29,
  positions = 32,
  original = positions,
  partial = 1,
  slidingWindow = null,
  ropeScaling = null,
  tied = false,
  shards = 1,
} = {}) {
  const dk = d / heads;
  const config = {
    architectures: ['Phi3ForCausalLM'],
    attention_bias: false,
    attention_dropout: 0,
    bos_token_id: 1,
    embd_pdrop: 0,
    eos_token_id: 2,
    hidden_act: 'silu',
    hidden_size: d,
    initializer_range: 0.02,
    intermediate_size: ff,
    max_position_embeddings: positions,
    model_type: 'phi3',
    num_attention_heads: heads,
    num_hidden_layers: layers,
    num_key_value_heads: kvHeads,
    original_max_position_embeddings: original,
    pad_token_id: 0,
    resid_pdrop: 0,
    rms_norm_eps: 1e-5,
    rope_scaling: ropeScaling,
    rope_theta: 10000,
    sliding_window: slidingWindow,
    tie_word_embeddings: tied,
    vocab_size: vocab,
  };
  if (partial !== 1) config.partial_rotary_factor = partial;
  const b = builder(dtype, seed, 0.5);
  b.add('model.embed_tokens.weight', [vocab, d]);
  for (let l = 0; l < layers; l++) {
    const at = `model.layers.${l}.`;
    b.add(`${at}input_layernorm.weight`, [d], 'norm');
    b.add(`${at}self_attn.qkv_proj.weight`, [(heads + 2 * kvHeads) * dk, d]);
    b.add(`${at}self_attn.o_proj.weight`, [d, heads * dk]);
    b.add(`${at}post_attention_layernorm.weight`, [d], 'norm');
    b.add(`${at}mlp.gate_up_proj.weight`, [2 * ff, d]);
    b.add(`${at}mlp.down_proj.weight`, [d, ff]);
  }
  b.add('model.norm.weight', [d], 'norm');
  if (!tied) b.add('lm_head.weight', [vocab, d]);
  return { config, prefix: 'model.', values: b.values, files: b.files(config, { shards }) };
}
