// The families this package runs, one file each (family.js says what a file holds): everything family-specific is
// in those files. The rest of src/js and the page read the normalized description they make (spec.choices,
// spec.labels, the sizes) and never compare a family's name or a model_type (scripts/check-families.mjs).
// A new family is a new file and one line in FILES.
import { AttentionError, describe } from '../../errors.js';
import { ACTIVATION_LABELS, NORM_LABELS, PLACEMENT_LABELS } from './family.js';
import bert from './bert.js';
import distilbert from './distilbert.js';
import gemma from './gemma.js';
import gemma2 from './gemma2.js';
import gemma3 from './gemma3.js';
import gpt2 from './gpt2.js';
import gptNeox from './gpt_neox.js';
import llama from './llama.js';
import olmo2 from './olmo2.js';
import phi3 from './phi3.js';
import qwen3 from './qwen3.js';
import roberta from './roberta.js';

/** Every family file's table, in the order config.json's model_type and architectures are looked up. */
const FILES = [gpt2, bert, llama, gptNeox, qwen3, roberta, distilbert, phi3, gemma, gemma2, gemma3, olmo2];

/** The families by their name (spec.family, model.family). */
export const FAMILIES = Object.freeze(Object.fromEntries(FILES.map((table) => [table.name, table])));

/**
 * The families this package runs, in lookup order, as a page or a message names them: each family's name
 * (model.family), its label and the config.json model_types it reads.
 */
export const SUPPORTED_FAMILIES = Object.freeze(
  FILES.map((table) =>
    Object.freeze({ family: table.name, label: table.label, modelTypes: Object.freeze([...table.modelTypes]) }),
  ),
);

/** The family of a config.json object: by its model_type, else (no model_type) by its architectures. */
export function familyOf(config, file) {
  const type = config.model_type;
  const byType = FILES.find((table) => table.modelTypes.includes(type));
  if (byType) return byType;
  const architectures = Array.isArray(config.architectures) ? config.architectures : [];
  const byArchitecture = FILES.find((table) => architectures.some((a) => table.architectures.includes(a)));
  if (type === undefined && byArchitecture) return byArchitecture;
  const supported = FILES.flatMap((table) => table.modelTypes).join(', ');
  const what =
    type === undefined
      ? `no model_type (architectures: ${describe(config.architectures)})`
      : `model_type ${describe(type)}`;
  throw new AttentionError('UNSUPPORTED_MODEL', `${file} has ${what}; attention-wasm/model runs ${supported}`);
}

/**
 * What the page shows of a model (spec.labels): the family's name, the activation that runs, the norm, its
 * placement, and the layer's two norms as the checkpoint names them.
 */
export function labelsOf(table, { choices, activation }) {
  const norm = NORM_LABELS[choices.norm];
  return Object.freeze({
    family: table.label,
    activation: ACTIVATION_LABELS[activation],
    norm,
    placement: PLACEMENT_LABELS[choices.placement],
    norms: Object.freeze(table.normNames.map((name) => `${norm} ${name}`)),
  });
}

/** The sizes that shape letters stand for, from a normalized description (spec.js). */
export function shapeSizes(spec) {
  return {
    d: spec.dModel,
    ff: spec.dFf,
    V: spec.vocabSize,
    P: spec.maxPositions + (spec.positions?.offset ?? 0),
    T: spec.typeVocabSize,
    dk: spec.headDim,
    q: spec.numHeads * spec.headDim,
    kv: spec.numKvHeads * spec.headDim,
    qkv: (spec.numHeads + 2 * spec.numKvHeads) * spec.headDim,
  };
}

/**
 * The names a tensor may have in a file, in the order tried: a row's name, then its aliases (older checkpoints' names),
 * each under the base prefix (or at the top for "^…").
 * @param {{ name: string, aliases?: string[] }} row
 */
export function candidateNames({ name, aliases = [] }, prefix) {
  return [name, ...aliases].map((n) => (n.startsWith('^') ? n.slice(1) : `${prefix}${n}`));
}
