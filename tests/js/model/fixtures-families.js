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
