// config.json (`config`, the raw object) read into one normalized description of the model (`spec`) for every
// family: the family (families/), the sizes (checked: positive integers that divide as they must, and the field
// each was read from), the choices the forward reads and the labels the page shows, the activation, the norm's eps,
// RoPE's inverse frequencies (rope_theta or rope_parameters, with rope_scaling of type linear, llama3 or longrope),
// and what the family file reads (each layer's sliding window, the biases, a tied head). UNSUPPORTED_MODEL for what this
// package does not run, BAD_CONFIG for what is malformed; each names the field.
import { AttentionError, describe } from '../errors.js';
import { inverseFrequencies } from '../rope.js';
import { familyOf, labelsOf } from './families/index.js';

// Past these a config is no model that fits in WebAssembly memory: refused before anything is sized from it.
const MAX_SIZE = 2 ** 24;

// config.json's activation names → the core's activation (abi.h).
const ACTIVATIONS = {
  gelu_new: 'geluTanh',
  gelu_pytorch_tanh: 'geluTanh',
  gelu_fast: 'geluTanh',
  gelu: 'geluErf',
  silu: 'siluGated',
  swish: 'siluGated',
};

const isRecord = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** config.json's text as its object (`config`), or BAD_CONFIG. */
export function parseConfigText(text, file = 'config.json') {
  let config;
  try {
    config = JSON.parse(text);
  } catch (cause) {
    throw new AttentionError('BAD_CONFIG', `${file} is not JSON: ${String(cause?.message ?? cause).slice(0, 80)}`, {
      cause,
    });
  }
  if (!isRecord(config)) throw new AttentionError('BAD_CONFIG', `${file} is not a JSON object`);
  return config;
}

/** How config.json's fields are read and checked, with messages that name the file and the field. */
function readerOf(config, file) {
  const badConfig = (field, value, rule) =>
    new AttentionError('BAD_CONFIG', `${file}: ${field} is ${describe(value)}, but must be ${rule}`);
  const size = (field, value) => {
    if (!Number.isInteger(value) || value < 1 || value > MAX_SIZE) {
      throw badConfig(field, value, `an integer from 1 to ${MAX_SIZE}`);
    }
    return value;
  };
  return {
    badConfig,
    /** A required size under one of its names: [value, the field it was read from]. */
    required(names) {
      const list = [names].flat();
      const field = list.find((name) => config[name] !== undefined && config[name] !== null);
      if (field === undefined) {
        throw new AttentionError('BAD_CONFIG', `${file} has no ${list.join(' (nor ')}${list.length > 1 ? ')' : ''}`);
      }
      return [size(field, config[field]), field];
    },
    /** An optional size: undefined when absent or null. */
    optional(field) {
      return config[field] === undefined || config[field] === null ? undefined : size(field, config[field]);
    },
    number(field, fallback, rule, ok) {
      const value = config[field] ?? fallback;
      if (typeof value !== 'number' || !ok(value)) throw badConfig(field, value, rule);
      return value;
    },
  };
}

/**
 * LongRoPE (transformers' _compute_longrope_parameters): inv_freq_i = 1 / (factor_i · theta^(2i/dim)) with the short
 * factors, and the long ones for a sequence longer than original_max_position_embeddings; cos and sin scaled by the
 * attention factor (attention_factor, else √(1 + ln s / ln original) for s = factor, or max / original, above 1).
 */
function longRope(scaling, context) {
  const { config, field, reader, dim, theta, original, maxPositions } = context;
  const factors = (key) => {
    const list = scaling[key];
    if (!Array.isArray(list) || list.length !== dim / 2 || !list.every((x) => typeof x === 'number' && x > 0)) {
      throw reader.badConfig(`${field}.${key}`, list, `a list of ${dim / 2} numbers above 0 (one per rotated pair)`);
    }
    return Float64Array.from(list, (f, i) => 1 / (f * theta ** ((2 * i) / dim)));
  };
  const after = scaling.original_max_position_embeddings ?? config.original_max_position_embeddings ?? original;
  if (!Number.isInteger(after) || after < 1) {
    throw reader.badConfig('original_max_position_embeddings', after, 'an integer from 1');
  }
  const factor = scaling.factor ?? maxPositions / after;
  const given = scaling.attention_factor;
  if (given !== undefined && given !== null && !(typeof given === 'number' && given > 0)) {
    throw reader.badConfig(`${field}.attention_factor`, given, 'a number above 0');
  }
  const scale = given ?? (factor <= 1 ? 1 : Math.sqrt(1 + Math.log(factor) / Math.log(after)));
  return { invFreq: factors('short_factor'), long: { invFreq: factors('long_factor'), after }, scale };
}

/** RoPE's inverse frequencies and rotated dims from rope_theta/rope_scaling or rope_parameters. */
function ropeOf(config, file, headDim, reader, { ropeTheta, rotaryFactor, ropeTypes = {}, original }, maxPositions) {
  const parameters = isRecord(config.rope_parameters) ? config.rope_parameters : null;
  const scaling = parameters ?? (isRecord(config.rope_scaling) ? config.rope_scaling : {});
  const field = parameters ? 'rope_parameters' : 'rope_scaling';
  const theta = parameters?.rope_theta ?? config.rope_theta ?? config[ropeTheta] ?? 10000;
  if (typeof theta !== 'number' || !(theta > 0) || theta === Infinity) {
    throw reader.badConfig('rope_theta', theta, 'a number above 0');
  }
  const partialField = [scaling, config].some((o) => o.partial_rotary_factor !== undefined)
    ? 'partial_rotary_factor'
    : (rotaryFactor ?? 'partial_rotary_factor');
  const partial = scaling.partial_rotary_factor ?? config.partial_rotary_factor ?? config[rotaryFactor] ?? 1;
  const dim = Math.floor(headDim * partial);
  if (!(dim >= 2 && dim % 2 === 0 && dim <= headDim)) {
    throw reader.badConfig(partialField, partial, `such that head_dim · it is even, from 2 to ${headDim}`);
  }
  const invFreq = inverseFrequencies(theta, dim);
  const named = scaling.rope_type ?? scaling.type ?? 'default';
  const type = Object.hasOwn(ropeTypes, named) ? ropeTypes[named] : named; // Phi-3's older su (and yarn): longrope
  const number = (key) => {
    const value = scaling[key];
    if (typeof value !== 'number' || !(value > 0)) throw reader.badConfig(`${field}.${key}`, value, 'a number above 0');
    return value;
  };
  if (type === 'linear') return { dim, theta, invFreq: invFreq.map((f) => f / number('factor')) };
  if (type === 'llama3') {
    // transformers' _compute_llama3_parameters
    const [factor, low, high] = [number('factor'), number('low_freq_factor'), number('high_freq_factor')];
    const context = number('original_max_position_embeddings');
    const [lowWavelen, highWavelen] = [context / low, context / high];
    const scaled = invFreq.map((f) => {
      const wavelen = (2 * Math.PI) / f;
      if (wavelen < highWavelen) return f;
      if (wavelen > lowWavelen) return f / factor;
      const smooth = (context / wavelen - low) / (high - low);
      return (1 - smooth) * (f / factor) + smooth * f;
    });
    return { dim, theta, invFreq: scaled };
  }
  if (type === 'longrope') {
    return { dim, theta, ...longRope(scaling, { config, field, reader, dim, theta, original, maxPositions }) };
  }
  if (type !== 'default') {
    throw new AttentionError(
      'UNSUPPORTED_MODEL',
      `${file}: ${field} has the rope type ${describe(named)}; attention-wasm/model runs default, linear, llama3 and longrope`,
    );
  }
  return { dim, theta, invFreq };
}

/**
 * Layer l's RoPE frequencies for a sequence of `length` tokens: Gemma 3's sliding layers turn by a base of their own
 * (spec.rope.slidingInvFreq); LongRoPE's long factors past rope.long.after tokens (spec.rope.long, Phi-3's longrope).
 */
export function layerInvFreq(spec, l, length = 0) {
  const { rope } = spec;
  if (rope.slidingInvFreq && spec.windows[l] > 0) return rope.slidingInvFreq;
  return rope.long && length > rope.long.after ? rope.long.invFreq : rope.invFreq;
}

/**
 * The normalized description (`spec`) of a config.json object (`config`).
 * @returns {{ family: string, modelType: string, dModel: number, numHeads: number, numKvHeads: number,
 *   headDim: number, dFf: number, numLayers: number, maxPositions: number, vocabSize: number, typeVocabSize: number,
 *   fields: Record<string, string>, eps: number, activation: string, choices: object, labels: object,
 *   rope: { dim: number, theta: number, invFreq: Float64Array, slidingInvFreq?: Float64Array, long?: { invFreq:
 *   Float64Array, after: number }, scale?: number } | null, windows: number[], tied: boolean, qkvBias: boolean,
 *   oBias: boolean, mlpBias: boolean, attentionScale: number, softcap: number, finalSoftcap: number,
 *   embedScale: number, qkNormWhole: boolean, positions: { offset: number, padId: number | null } }}
 *   attentionScale: the scores' scale (0: 1/√d_k); softcap, finalSoftcap: attention and final logit softcapping (0:
 *   none); embedScale: the token embeddings' factor (0: none); qkNormWhole: q and k norms over the whole projection;
 *   maxPositions: the most tokens a run takes (the position table's rows past positions.offset); positions: token i's
 *   position id is offset + i, or with a padId (RoBERTa's padding_idx), offset + the tokens before it that are not
 *   padId, and padId's own tokens take offset − 1 (positions.js)
 */
export function readSpec(config, file = 'config.json') {
  const family = familyOf(config, file);
  const reader = readerOf(config, file);
  const read = Object.entries(family.sizes).map(([key, names]) => [key, ...reader.required(names)]);
  const sizes = Object.fromEntries(read.map(([key, value]) => [key, value]));
  const fields = Object.fromEntries(read.map(([key, , field]) => [key, field]));
  const { dModel, numHeads, numLayers } = sizes;
  const { optional } = family;
  const numKvHeads = optional.numKvHeads ? (reader.optional(optional.numKvHeads) ?? numHeads) : numHeads;
  const headDim = optional.headDim ? reader.optional(optional.headDim) : undefined;
  if (headDim === undefined && dModel % numHeads !== 0) {
    throw reader.badConfig(fields.numHeads, numHeads, `a divisor of ${fields.dModel} (${dModel})`);
  }
  if (numHeads % numKvHeads !== 0) {
    throw reader.badConfig(optional.numKvHeads, numKvHeads, `a divisor of ${fields.numHeads} (${numHeads})`);
  }
  // eps: [field, default], or a number the family fixes (DistilBERT's LayerNorms: 1e-12, no field)
  const [epsField, epsDefault] = typeof optional.eps === 'number' ? [null, optional.eps] : optional.eps;
  const eps =
    epsField === null
      ? epsDefault
      : reader.number(epsField, epsDefault, 'a number from 0 below 1', (x) => x >= 0 && x < 1);
  const [actField, actDefault] = optional.activation;
  const activationName = config[actField] ?? actDefault;
  const names = { ...ACTIVATIONS, ...family.activationNames }; // a family's own reading of a name (Gemma's GeGLU)
  const activation = Object.hasOwn(names, activationName) ? names[activationName] : undefined;
  if (!family.activations.includes(activation)) {
    throw new AttentionError(
      'UNSUPPORTED_MODEL',
      `${file}: ${actField} is ${describe(activationName)}, which attention-wasm/model does not run for ${family.name}`,
    );
  }
  const dims = headDim ?? dModel / numHeads;
  const modelType = config.model_type ?? family.name;
  const own = family.read(config, { file, modelType, numLayers, reader }); // its checks, windows, tied head, biases
  const choices = own.choices ? Object.freeze({ ...family.choices, ...own.choices }) : family.choices;
  const rope = choices.rope ? ropeOf(config, file, dims, reader, optional, sizes.maxPositions) : null;
  if (rope && own.slidingRopeTheta) rope.slidingInvFreq = inverseFrequencies(own.slidingRopeTheta, rope.dim);
  // Learned positions from own.positions.offset (RoBERTa's padding_idx + 1): the table's first rows are no token's
  const positions = Object.freeze(own.positions ?? { offset: 0, padId: null });
  if (positions.offset >= sizes.maxPositions) {
    throw reader.badConfig(fields.maxPositions, sizes.maxPositions, `above the first position (${positions.offset})`);
  }
  return {
    family: family.name,
    modelType,
    ...sizes,
    maxPositions: sizes.maxPositions - positions.offset,
    positions,
    dFf: sizes.dFf ?? (optional.dFf ? reader.optional(optional.dFf) : undefined) ?? 4 * dModel,
    numKvHeads,
    headDim: dims,
    typeVocabSize: optional.typeVocabSize ? (reader.optional(optional.typeVocabSize) ?? 2) : 0,
    fields,
    eps,
    activation,
    choices,
    labels: labelsOf(family, { choices, activation }),
    rope,
    windows: own.windows,
    tied: own.tied,
    qkvBias: own.qkvBias,
    oBias: own.oBias,
    mlpBias: own.mlpBias,
    attentionScale: own.attentionScale ?? 0,
    softcap: own.softcap ?? 0,
    finalSoftcap: own.finalSoftcap ?? 0,
    embedScale: own.embedScale ?? 0,
    qkNormWhole: own.qkNormWhole === true,
  };
}
