// DistilBERT (model_type distilbert): BERT's computation (bert.js: post-norm LayerNorms, learned positions) without
// token types, under its own names (transformer.layer.N.attention.q_lin … out_lin, sa_layer_norm, ffn.lin1/lin2,
// output_layer_norm) and its config's (dim, n_heads, n_layers, hidden_dim, activation), LayerNorms of eps 1e-12 (no
// config field), and a masked-LM head (vocab_transform, the activation, vocab_layer_norm, vocab_projector tied to the
// word embeddings).
import { family, row } from './family.js';
import bert from './bert.js';

const norm = (slot, name) => row(slot, name, ['d']);

export default family({
  ...bert,
  name: 'distilbert',
  label: 'DistilBERT',
  modelTypes: ['distilbert'],
  architectures: ['DistilBertForMaskedLM', 'DistilBertModel'],
  prefixes: ['distilbert.', ''],
  sizes: {
    dModel: 'dim',
    numHeads: 'n_heads',
    numLayers: 'n_layers',
    dFf: 'hidden_dim',
    maxPositions: 'max_position_embeddings',
    vocabSize: 'vocab_size',
  },
  optional: { eps: 1e-12, activation: ['activation', 'gelu'] },
  normNames: ['sa_layer_norm', 'output_layer_norm'],
  read(config, { numLayers }) {
    const tied = config.tie_word_embeddings !== false;
    return { windows: Array(numLayers).fill(0), tied, qkvBias: true, oBias: true, mlpBias: true };
  },
  // vocab_projector's weight is the word embeddings' (a file may hold either name)
  embeddings: [
    row('tokens', 'embeddings.word_embeddings.weight', ['V', 'd'], undefined, ['^vocab_projector.weight']),
    row('positions', 'embeddings.position_embeddings.weight', ['P', 'd']),
  ],
  embedNorm: [norm('norm1Weight', 'embeddings.LayerNorm.weight'), norm('norm1Bias', 'embeddings.LayerNorm.bias')],
  layer: (l) => {
    const at = `transformer.layer.${l}.`;
    return [
      row('wQ', `${at}attention.q_lin.weight`, ['q', 'd']),
      row('bQ', `${at}attention.q_lin.bias`, ['q']),
      row('wK', `${at}attention.k_lin.weight`, ['kv', 'd']),
      row('bK', `${at}attention.k_lin.bias`, ['kv']),
      row('wV', `${at}attention.v_lin.weight`, ['kv', 'd']),
      row('bV', `${at}attention.v_lin.bias`, ['kv']),
      row('wO', `${at}attention.out_lin.weight`, ['d', 'q']),
      row('bO', `${at}attention.out_lin.bias`, ['d']),
      norm('norm1Weight', `${at}sa_layer_norm.weight`),
      norm('norm1Bias', `${at}sa_layer_norm.bias`),
      row('wUp', `${at}ffn.lin1.weight`, ['ff', 'd']),
      row('bUp', `${at}ffn.lin1.bias`, ['ff']),
      row('wDown', `${at}ffn.lin2.weight`, ['d', 'ff']),
      row('bDown', `${at}ffn.lin2.bias`, ['d']),
      norm('norm2Weight', `${at}output_layer_norm.weight`),
      norm('norm2Bias', `${at}output_layer_norm.bias`),
    ];
  },
  final: [
    row('wDense', '^vocab_transform.weight', ['d', 'd']),
    row('bDense', '^vocab_transform.bias', ['d']),
    norm('norm1Weight', '^vocab_layer_norm.weight'),
    norm('norm1Bias', '^vocab_layer_norm.bias'),
  ],
  head: {
    weight: (spec) =>
      spec.tied ? ['embeddings.word_embeddings.weight', '^vocab_projector.weight'] : '^vocab_projector.weight',
    bias: '^vocab_projector.bias',
  },
});
