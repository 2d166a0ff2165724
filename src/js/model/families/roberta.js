// RoBERTa and XLM-RoBERTa (model_type roberta, xlm-roberta): BERT's computation (bert.js: post-norm LayerNorms,
// learned positions and token types, torch.nn.Linear weights) under the 'roberta.' prefix, with positions that start
// after padding_idx (pad_token_id): token i takes position padding_idx + 1 + i, a pad token padding_idx
// (transformers' create_position_ids_from_input_ids), and a masked-LM head of its own names (lm_head.dense,
// lm_head.layer_norm, the decoder tied to the word embeddings, lm_head.bias).
import { AttentionError, describe } from '../../errors.js';
import { family, row } from './family.js';
import bert from './bert.js';

export default family({
  ...bert,
  name: 'roberta',
  label: 'RoBERTa',
  modelTypes: ['roberta', 'xlm-roberta'],
  architectures: ['RobertaForMaskedLM', 'RobertaModel', 'XLMRobertaForMaskedLM', 'XLMRobertaModel'],
  prefixes: ['roberta.', ''],
  read(config, context) {
    const padId = config.pad_token_id ?? 1;
    if (!Number.isInteger(padId) || padId < 0) {
      throw new AttentionError(
        'BAD_CONFIG',
        `${context.file}: pad_token_id is ${describe(padId)}, but must be an integer from 0`,
      );
    }
    const own = bert.read(config, context);
    return { ...own, tied: config.tie_word_embeddings !== false, positions: { offset: padId + 1, padId } };
  },
  // The word embeddings and the decoder are one tensor, and lm_head.bias and lm_head.decoder.bias another: a file
  // may hold either name of each (safetensors keeps one name of a shared tensor).
  embeddings: [
    row('tokens', 'embeddings.word_embeddings.weight', ['V', 'd'], undefined, ['^lm_head.decoder.weight']),
    ...bert.embeddings.slice(1),
  ],
  final: [
    row('wDense', '^lm_head.dense.weight', ['d', 'd']),
    row('bDense', '^lm_head.dense.bias', ['d']),
    row('norm1Weight', '^lm_head.layer_norm.weight', ['d']),
    row('norm1Bias', '^lm_head.layer_norm.bias', ['d']),
  ],
  head: {
    weight: (spec) =>
      spec.tied ? ['embeddings.word_embeddings.weight', '^lm_head.decoder.weight'] : '^lm_head.decoder.weight',
    bias: ['^lm_head.bias', '^lm_head.decoder.bias'],
  },
});
