// The three families as tables: how config.json names each size, which of the core's choices the family makes
// (abi.h: the norm, where it sits, the activation, the weights' layout, positions), and one row per tensor the
// forward reads: the core's slot, the tensor's name as the Hub checkpoints spell it, and its shape in the sizes
// of the config. Everything family-specific is here; config.js, the checkpoint reader and the forward are one
// each. Names start at the base model's prefix ("transformer.", "bert.", "model.", or none: tried in turn, see
// `prefixes`); a name starting with "^" is at the top of the file (lm_head, BERT's cls.* head).
//
// Shape letters: d d_model, ff d_ff, V vocab, P positions, T token types, q H·d_k, kv H_kv·d_k, qkv (H + 2·H_kv)·d_k.

/** A tensor row: [slot, name, shape, when?]; `when(config)` false leaves the tensor out. */
const row = (slot, name, shape, when) => ({ slot, name, shape, when });

// BERT's and the LLaMA family's names of the sizes (GPT-2 has its own).
const HIDDEN_SIZES = {
  dModel: 'hidden_size',
  numHeads: 'num_attention_heads',
  numLayers: 'num_hidden_layers',
  dFf: 'intermediate_size',
  maxPositions: 'max_position_embeddings',
  vocabSize: 'vocab_size',
};

const gpt2 = {
  modelTypes: ['gpt2'],
  architectures: ['GPT2LMHeadModel', 'GPT2Model', 'GPT2DoubleHeadsModel'],
  prefixes: ['', 'transformer.'],
  choices: { norm: 'layerNorm', placement: 'preNorm', layout: 'inOut', causal: true, rope: false },
  sizes: {
    dModel: 'n_embd',
    numHeads: 'n_head',
    numLayers: 'n_layer',
    maxPositions: ['n_positions', 'n_ctx'],
    vocabSize: 'vocab_size',
  },
  optional: { dFf: 'n_inner', eps: ['layer_norm_epsilon', 1e-5], activation: ['activation_function', 'gelu_new'] },
  embeddings: [row('tokens', 'wte.weight', ['V', 'd']), row('positions', 'wpe.weight', ['P', 'd'])],
  embedNorm: [],
  layer: (l) => [
    row('norm1Weight', `h.${l}.ln_1.weight`, ['d']),
    row('norm1Bias', `h.${l}.ln_1.bias`, ['d']),
    row('wQkv', `h.${l}.attn.c_attn.weight`, ['d', 'qkv']),
    row('bQkv', `h.${l}.attn.c_attn.bias`, ['qkv']),
    row('wO', `h.${l}.attn.c_proj.weight`, ['q', 'd']),
    row('bO', `h.${l}.attn.c_proj.bias`, ['d']),
    row('norm2Weight', `h.${l}.ln_2.weight`, ['d']),
    row('norm2Bias', `h.${l}.ln_2.bias`, ['d']),
    row('wUp', `h.${l}.mlp.c_fc.weight`, ['d', 'ff']),
    row('bUp', `h.${l}.mlp.c_fc.bias`, ['ff']),
    row('wDown', `h.${l}.mlp.c_proj.weight`, ['ff', 'd']),
    row('bDown', `h.${l}.mlp.c_proj.bias`, ['d']),
  ],
  final: [row('norm1Weight', 'ln_f.weight', ['d']), row('norm1Bias', 'ln_f.bias', ['d'])],
  head: { weight: 'wte.weight', bias: null },
};

const bert = {
  modelTypes: ['bert'],
  architectures: ['BertForMaskedLM', 'BertForPreTraining', 'BertModel'],
  prefixes: ['bert.', ''],
  choices: { norm: 'layerNorm', placement: 'postNorm', layout: 'outIn', causal: false, rope: false },
  sizes: HIDDEN_SIZES,
  optional: { typeVocabSize: 'type_vocab_size', eps: ['layer_norm_eps', 1e-12], activation: ['hidden_act', 'gelu'] },
  embeddings: [
    row('tokens', 'embeddings.word_embeddings.weight', ['V', 'd']),
    row('positions', 'embeddings.position_embeddings.weight', ['P', 'd']),
    row('types', 'embeddings.token_type_embeddings.weight', ['T', 'd']),
  ],
  embedNorm: [
    row('norm1Weight', 'embeddings.LayerNorm.weight', ['d']),
    row('norm1Bias', 'embeddings.LayerNorm.bias', ['d']),
  ],
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
      row('norm1Weight', `${at}attention.output.LayerNorm.weight`, ['d']),
      row('norm1Bias', `${at}attention.output.LayerNorm.bias`, ['d']),
      row('wUp', `${at}intermediate.dense.weight`, ['ff', 'd']),
      row('bUp', `${at}intermediate.dense.bias`, ['ff']),
      row('wDown', `${at}output.dense.weight`, ['d', 'ff']),
      row('bDown', `${at}output.dense.bias`, ['d']),
      row('norm2Weight', `${at}output.LayerNorm.weight`, ['d']),
      row('norm2Bias', `${at}output.LayerNorm.bias`, ['d']),
    ];
  },
  // The masked-LM head's transform, when the checkpoint has the head (BertModel alone has none).
  final: [
    row('wDense', '^cls.predictions.transform.dense.weight', ['d', 'd']),
    row('bDense', '^cls.predictions.transform.dense.bias', ['d']),
    row('norm1Weight', '^cls.predictions.transform.LayerNorm.weight', ['d']),
    row('norm1Bias', '^cls.predictions.transform.LayerNorm.bias', ['d']),
  ],
  head: { weight: 'embeddings.word_embeddings.weight', bias: '^cls.predictions.bias' },
};

const llama = {
  modelTypes: ['llama', 'mistral', 'qwen2'],
  architectures: ['LlamaForCausalLM', 'MistralForCausalLM', 'Qwen2ForCausalLM', 'LlamaModel'],
  prefixes: ['model.', ''],
  choices: { norm: 'rmsNorm', placement: 'preNorm', layout: 'outIn', causal: true, rope: true },
  sizes: HIDDEN_SIZES,
  optional: {
    numKvHeads: 'num_key_value_heads',
    headDim: 'head_dim',
    eps: ['rms_norm_eps', 1e-6],
    activation: ['hidden_act', 'silu'],
  },
  embeddings: [row('tokens', 'embed_tokens.weight', ['V', 'd'])],
  embedNorm: [],
  layer: (l) => {
    const at = `layers.${l}.`;
    const qkvBias = (c) => c.qkvBias;
    const oBias = (c) => c.oBias;
    const mlpBias = (c) => c.mlpBias;
    return [
      row('norm1Weight', `${at}input_layernorm.weight`, ['d']),
      row('wQ', `${at}self_attn.q_proj.weight`, ['q', 'd']),
      row('bQ', `${at}self_attn.q_proj.bias`, ['q'], qkvBias),
      row('wK', `${at}self_attn.k_proj.weight`, ['kv', 'd']),
      row('bK', `${at}self_attn.k_proj.bias`, ['kv'], qkvBias),
      row('wV', `${at}self_attn.v_proj.weight`, ['kv', 'd']),
      row('bV', `${at}self_attn.v_proj.bias`, ['kv'], qkvBias),
      row('wO', `${at}self_attn.o_proj.weight`, ['d', 'q']),
      row('bO', `${at}self_attn.o_proj.bias`, ['d'], oBias),
      row('norm2Weight', `${at}post_attention_layernorm.weight`, ['d']),
      row('wGate', `${at}mlp.gate_proj.weight`, ['ff', 'd']),
      row('bGate', `${at}mlp.gate_proj.bias`, ['ff'], mlpBias),
      row('wUp', `${at}mlp.up_proj.weight`, ['ff', 'd']),
      row('bUp', `${at}mlp.up_proj.bias`, ['ff'], mlpBias),
      row('wDown', `${at}mlp.down_proj.weight`, ['d', 'ff']),
      row('bDown', `${at}mlp.down_proj.bias`, ['d'], mlpBias),
    ];
  },
  final: [row('norm1Weight', 'norm.weight', ['d'])],
  head: { weight: (c) => (c.tied ? 'embed_tokens.weight' : '^lm_head.weight'), bias: null },
};

/** The families by their name (model.family). */
export const FAMILIES = { gpt2, bert, llama };

/** The sizes that shape letters stand for, from a normalized config (config.js). */
export function shapeSizes(c) {
  return {
    d: c.dModel,
    ff: c.dFf,
    V: c.vocabSize,
    P: c.maxPositions,
    T: c.typeVocabSize,
    q: c.numHeads * c.headDim,
    kv: c.numKvHeads * c.headDim,
    qkv: (c.numHeads + 2 * c.numKvHeads) * c.headDim,
  };
}

/**
 * The names a tensor may have in a file, in the order tried: the table's name under the base prefix (or at the
 * top for "^…"), and for BERT's older checkpoints LayerNorm's gamma and beta in place of weight and bias.
 */
export function candidateNames(name, prefix) {
  const full = name.startsWith('^') ? name.slice(1) : `${prefix}${name}`;
  const old = full.replace(/LayerNorm\.weight$/, 'LayerNorm.gamma').replace(/LayerNorm\.bias$/, 'LayerNorm.beta');
  return old === full ? [full] : [full, old];
}
