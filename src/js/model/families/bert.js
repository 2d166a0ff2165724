// BERT (model_type bert): LayerNorm after each residual sum (post-norm), learned positions and token types,
// torch.nn.Linear weights stored [out, in], and a masked-LM head (cls.predictions) whose transform runs as the final
// step when the checkpoint has it (BertModel alone has none: no logits).
import { AttentionError, describe } from '../../errors.js';
import { HIDDEN_SIZES, family, row } from './family.js';

/** A LayerNorm's row: older checkpoints name its weight and bias gamma and beta. */
const norm = (slot, name) =>
  row(slot, name, ['d'], undefined, [name.replace(/weight$/, 'gamma').replace(/bias$/, 'beta')]);

export default family({
  name: 'bert',
  label: `BERT`, // in backticks: tests/js/abi.test.js reads any 'CAPITALS' as an error code
  modelTypes: ['bert'],
  architectures: ['BertForMaskedLM', 'BertForPreTraining', 'BertModel'],
  prefixes: ['bert.', ''],
  choices: {
    norm: 'layerNorm',
    placement: 'postNorm',
    qkvLayout: 'blocks',
    layout: 'outIn',
    causal: false,
    rope: false,
    maskedLm: true,
    finalNorm: false,
    groupedKv: false,
  },
  sizes: HIDDEN_SIZES,
  optional: { typeVocabSize: 'type_vocab_size', eps: ['layer_norm_eps', 1e-12], activation: ['hidden_act', 'gelu'] },
  activations: ['geluTanh', 'geluErf'],
  normNames: ['(attention.output)', '(output)'],
  read(config, { file, numLayers }) {
    if ((config.position_embedding_type ?? 'absolute') !== 'absolute') {
      throw new AttentionError(
        'UNSUPPORTED_MODEL',
        `${file}: position_embedding_type ${describe(config.position_embedding_type)} is not run (only absolute)`,
      );
    }
    return { windows: Array(numLayers).fill(0), tied: true, qkvBias: true, oBias: true, mlpBias: true };
  },
  embeddings: [
    row('tokens', 'embeddings.word_embeddings.weight', ['V', 'd']),
    row('positions', 'embeddings.position_embeddings.weight', ['P', 'd']),
    row('types', 'embeddings.token_type_embeddings.weight', ['T', 'd']),
  ],
  embedNorm: [norm('norm1Weight', 'embeddings.LayerNorm.weight'), norm('norm1Bias', 'embeddings.LayerNorm.bias')],
  layer: (l) => {
    const at = `encoder.layer.${l}.`;
    return [
      row('wQ', `${at}attention.self.query.weight`, ['q', 'd']),
      row('bQ', `${at}attention.self.query.bias`, ['q']),
      row('wK', `${at}attention.self.key.weight`, ['kv', 'd']),
      row('bK', `${at}attention.self.key.bias`, ['kv']),
      row('wV', `${at}attention.self.value.weight`, ['kv', 'd']),
      row('bV', `${at}attention.self.value.bias`, ['kv']),
      row('wO', `${at}attention.output.dense.weight`, ['d', 'q']),
      row('bO', `${at}attention.output.dense.bias`, ['d']),
      norm('norm1Weight', `${at}attention.output.LayerNorm.weight`),
      norm('norm1Bias', `${at}attention.output.LayerNorm.bias`),
      row('wUp', `${at}intermediate.dense.weight`, ['ff', 'd']),
      row('bUp', `${at}intermediate.dense.bias`, ['ff']),
      row('wDown', `${at}output.dense.weight`, ['d', 'ff']),
      row('bDown', `${at}output.dense.bias`, ['d']),
      norm('norm2Weight', `${at}output.LayerNorm.weight`),
      norm('norm2Bias', `${at}output.LayerNorm.bias`),
    ];
  },
  // The masked-LM head's transform, when the checkpoint has the head (BertModel alone has none).
  final: [
    row('wDense', '^cls.predictions.transform.dense.weight', ['d', 'd']),
    row('bDense', '^cls.predictions.transform.dense.bias', ['d']),
    norm('norm1Weight', '^cls.predictions.transform.LayerNorm.weight'),
    norm('norm1Bias', '^cls.predictions.transform.LayerNorm.bias'),
  ],
  head: { weight: 'embeddings.word_embeddings.weight', bias: '^cls.predictions.bias' },
});
