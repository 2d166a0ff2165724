// What a family file (gpt2.js, bert.js, llama.js, …) holds, and the helpers for writing one. A family is a table:
//
// | key            | what                                                                                       |
// |----------------|--------------------------------------------------------------------------------------------|
// | name, label    | its name (spec.family, e.g. 'gpt2') and as people write it ('GPT-2')                        |
// | modelTypes     | config.json's model_type values it runs; architectures: those recognised without one        |
// | prefixes       | the base model's prefixes of its tensor names, tried in turn                                |
// | choices        | the choices the forward reads and the page shows (spec.choices: see CHOICES)                 |
// | sizes          | config.json's field (or fields, tried in turn) of each required size                         |
// | optional       | the fields of optional sizes, [field, default] of eps (or eps itself, fixed) and of the      |
// |                | activation, and the fields of RoPE's base and rotated fraction where they are not rope_theta |
// |                | and partial_rotary_factor                                                                    |
// | activations    | the core's activations it runs (the config's activation must be one)                         |
// | normNames      | its two norms in a layer as its checkpoints name them (spec.labels.norms)                     |
// | read(config, ctx) | the rest of the spec that is the family's (checks, windows, tied head, biases; scale,    |
// |                | softcaps, embedding scale, q/k norm scope, sliding layers' RoPE base; positions: { offset,  |
// |                | padId } of learned positions that do not start at 0) and the choices that its config sets  |
// |                | (choices: merged over the table's)                                                          |
// | activationNames | (optional) config.json's activation names read its own way (Gemma's gated GELU)           |
// | embeddings, embedNorm, layer(l), final, head | the tensors the forward reads: rows of [slot, name, shape, when?] |
// |                | (a row may be a part of a tensor's rows: rowsOf)                                             |
//
// A tensor's name starts at the base model's prefix, or with "^" at the top of the file (lm_head, BERT's cls.*).
// Shape letters: d d_model, ff d_ff, V vocab, P positions, T token types, dk d_k, q H·d_k, kv H_kv·d_k,
// qkv (H + 2·H_kv)·d_k.

/**
 * A tensor row: the core's slot, its name, its shape in shape letters, and `when(spec)`: false leaves it out.
 * `aliases`: other names of the same tensor (older checkpoints), tried after `name`.
 */
export const row = (slot, name, shape, when, aliases = []) => ({ slot, name, shape, when, aliases });

/**
 * A row that is rows of a tensor holding several side by side (Phi-3's gate_up_proj [gate | up]): `of` the shape letters
 * of the parts, in order (the tensor's first size is their sum), `index` this row's; its shape gives the part's.
 */
export const rowsOf = (r, of, index) => ({ ...r, part: Object.freeze({ of, index }) });

/** The names of the sizes in the config.json of BERT, the LLaMA family and most models since (GPT-2 has its own). */
export const HIDDEN_SIZES = Object.freeze({
  dModel: 'hidden_size',
  numHeads: 'num_attention_heads',
  numLayers: 'num_hidden_layers',
  dFf: 'intermediate_size',
  maxPositions: 'max_position_embeddings',
  vocabSize: 'vocab_size',
});

/**
 * The choices of a family (spec.choices), each read by the forward or the page:
 * norm, placement, layout   the core's (abi.h: NORM_KINDS, NORM_PLACEMENTS, WEIGHT_LAYOUTS)
 * qkvLayout                 a fused q|k|v tensor's columns (abi.h: QKV_LAYOUTS): 'blocks' [q | k | v], 'perHead'
 * causal                    a decoder: each token attends to itself and the tokens before it; generate() runs it
 * rope                      rotary position embeddings on q and k (else learned positions, added to the embeddings)
 * maskedLm                  its LM head predicts masked tokens ([MASK]) from the whole sentence, not the next token
 * finalNorm                 a norm after the last layer, which the last hidden state includes
 * groupedKv                 may have fewer key-value heads than query heads (grouped-query attention)
 */
export const CHOICES = Object.freeze([
  'norm',
  'placement',
  'layout',
  'qkvLayout',
  'causal',
  'rope',
  'maskedLm',
  'finalNorm',
  'groupedKv',
]);

const KEYS = ['name', 'label', 'modelTypes', 'architectures', 'prefixes', 'choices', 'sizes', 'optional'].concat([
  'activations',
  'normNames',
  'read',
  'embeddings',
  'embedNorm',
  'layer',
  'final',
  'head',
]);

/** A family file's table, checked for every key and choice, frozen. */
export function family(table) {
  const missing = KEYS.find((key) => table[key] === undefined) ?? CHOICES.find((key) => !(key in table.choices));
  if (missing !== undefined) throw new Error(`the family table ${table.name} has no ${missing}`);
  return Object.freeze({ ...table, choices: Object.freeze({ ...table.choices }) });
}

/** The labels the page shows for a core's choice (spec.labels). */
export const ACTIVATION_LABELS = Object.freeze({
  geluTanh: 'GELU (tanh)',
  geluErf: 'GELU (erf)',
  siluGated: 'SiLU-gated',
  geluTanhGated: 'GELU-gated (tanh)',
});
export const NORM_LABELS = Object.freeze({
  layerNorm: 'LayerNorm',
  rmsNorm: 'RMSNorm',
  rmsNormPlusOne: 'RMSNorm (1 + w)',
});
export const PLACEMENT_LABELS = Object.freeze({
  preNorm: 'pre-norm',
  postNorm: 'post-norm',
  parallel: 'parallel',
  sandwich: 'sandwich',
  postBranch: 'norm after each branch',
});
