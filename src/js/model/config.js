// config.json read into one normalized config for every family: the family (from model_type, else the
// architectures), the sizes (checked: positive integers that divide as they must), the core's choices, the
// activation, the norm's eps, RoPE's inverse frequencies (rope_theta or rope_parameters, with rope_scaling of type
// linear or llama3), each layer's sliding window (Mistral, Qwen2), and which tensors exist (biases, a tied head).
// UNSUPPORTED_MODEL for what this package does not run, BAD_CONFIG for what is malformed; each names the field.
import { AttentionError, describe } from '../errors.js';
import { inverseFrequencies } from '../rope.js';
import { FAMILIES } from './families.js';

// Past these a config is no model that fits in WebAssembly memory: refused before anything is sized from it.
const MAX_SIZE = 2 ** 24;

const ACTIVATIONS = {
  gelu_new: 'geluTanh',
  gelu_pytorch_tanh: 'geluTanh',
  gelu_fast: 'geluTanh',
  gelu: 'geluErf',
  silu: 'siluGated',
  swish: 'siluGated',
};

const isRecord = (value) => value !== null && typeof value === 'object' && !Array.isArray(value);

/** The family's name for a config.json object: model_type first, then the architectures. */
function familyOf(json, file) {
  const type = json.model_type;
  const byType = Object.keys(FAMILIES).find((name) => FAMILIES[name].modelTypes.includes(type));
  if (byType) return byType;
  const architectures = Array.isArray(json.architectures) ? json.architectures : [];
  const byArchitecture = Object.keys(FAMILIES).find((name) =>
    architectures.some((a) => FAMILIES[name].architectures.includes(a)),
  );
  if (type === undefined && byArchitecture) return byArchitecture;
  const supported = Object.values(FAMILIES)
    .flatMap((f) => f.modelTypes)
    .join(', ');
  const what =
    type === undefined
      ? `no model_type (architectures: ${describe(json.architectures)})`
      : `model_type ${describe(type)}`;
  throw new AttentionError('UNSUPPORTED_MODEL', `${file} has ${what}; attention-wasm/model runs ${supported}`);
}

/** The config's JSON: an object, or BAD_CONFIG. */
export function parseConfigText(text, file = 'config.json') {
  let json;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new AttentionError('BAD_CONFIG', `${file} is not JSON: ${String(cause?.message ?? cause).slice(0, 80)}`, {
      cause,
    });
  }
  if (!isRecord(json)) throw new AttentionError('BAD_CONFIG', `${file} is not a JSON object`);
  return json;
}

function reader(json, file) {
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
    /** A required size under one of its names. */
    required(names) {
      const list = [names].flat();
      const field = list.find((name) => json[name] !== undefined && json[name] !== null);
      if (field === undefined) {
        throw new AttentionError('BAD_CONFIG', `${file} has no ${list.join(' (nor ')}${list.length > 1 ? ')' : ''}`);
      }
      return size(field, json[field]);
    },
    /** An optional size: undefined when absent or null. */
    optional(field) {
      return json[field] === undefined || json[field] === null ? undefined : size(field, json[field]);
    },
    number(field, fallback, rule, ok) {
      const value = json[field] ?? fallback;
      if (typeof value !== 'number' || !ok(value)) throw badConfig(field, value, rule);
      return value;
    },
  };
}

/** RoPE's inverse frequencies and rotated dims from rope_theta/rope_scaling or rope_parameters. */
function ropeOf(json, file, headDim, read) {
  const parameters = isRecord(json.rope_parameters) ? json.rope_parameters : null;
  const scaling = parameters ?? (isRecord(json.rope_scaling) ? json.rope_scaling : {});
  const field = parameters ? 'rope_parameters' : 'rope_scaling';
  const theta = parameters?.rope_theta ?? json.rope_theta ?? 10000;
  if (typeof theta !== 'number' || !(theta > 0) || theta === Infinity) {
    throw read.badConfig('rope_theta', theta, 'a number above 0');
  }
  const partial = scaling.partial_rotary_factor ?? json.partial_rotary_factor ?? 1;
  const dim = Math.floor(headDim * partial);
  if (!(dim >= 2 && dim % 2 === 0 && dim <= headDim)) {
    throw read.badConfig('partial_rotary_factor', partial, `such that head_dim · it is even, from 2 to ${headDim}`);
  }
  const invFreq = inverseFrequencies(theta, dim);
  const type = scaling.rope_type ?? scaling.type ?? 'default';
  const number = (key) => {
    const value = scaling[key];
    if (typeof value !== 'number' || !(value > 0)) throw read.badConfig(`${field}.${key}`, value, 'a number above 0');
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
  if (type !== 'default') {
    throw new AttentionError(
      'UNSUPPORTED_MODEL',
      `${file}: ${field} has the rope type ${describe(type)}; attention-wasm/model runs default, linear and llama3`,
    );
  }
  return { dim, theta, invFreq };
}

/** Each layer's sliding window (0: none): Mistral's on every layer, Qwen2's from max_window_layers, or layer_types. */
function windowsOf(json, modelType, numLayers, read) {
  const useWindow = modelType === 'mistral' || (modelType === 'qwen2' && json.use_sliding_window === true);
  const window = useWindow ? (read.optional('sliding_window') ?? 0) : 0;
  const types = json.layer_types;
  if (types !== undefined && types !== null) {
    if (!Array.isArray(types) || types.length !== numLayers) {
      throw read.badConfig('layer_types', types, `a list of ${numLayers} layer types`);
    }
    return types.map((type) => (type === 'sliding_attention' ? window : 0));
  }
  const first = modelType === 'qwen2' ? (json.max_window_layers ?? 28) : 0;
  return Array.from({ length: numLayers }, (_, l) => (l >= first ? window : 0));
}

/**
 * The normalized config of a config.json object.
 * @returns {{ family: string, modelType: string, dModel: number, numHeads: number, numKvHeads: number,
 *   headDim: number, dFf: number, numLayers: number, maxPositions: number, vocabSize: number, typeVocabSize: number,
 *   eps: number, activation: string, choices: object, rope: { dim: number, theta: number, invFreq: Float64Array } | null,
 *   windows: number[], tied: boolean, qkvBias: boolean, oBias: boolean, mlpBias: boolean }}
 */
export function readConfig(json, file = 'config.json') {
  const family = familyOf(json, file);
  const spec = FAMILIES[family];
  const read = reader(json, file);
  const sizes = Object.fromEntries(Object.entries(spec.sizes).map(([key, names]) => [key, read.required(names)]));
  const { dModel, numHeads, numLayers } = sizes;
  const numKvHeads = spec.optional.numKvHeads ? (read.optional(spec.optional.numKvHeads) ?? numHeads) : numHeads;
  const headDim = spec.optional.headDim ? read.optional(spec.optional.headDim) : undefined;
  if (headDim === undefined && dModel % numHeads !== 0) {
    throw read.badConfig(spec.sizes.numHeads, numHeads, `a divisor of ${spec.sizes.dModel} (${dModel})`);
  }
  if (numHeads % numKvHeads !== 0) {
    throw read.badConfig(spec.optional.numKvHeads, numKvHeads, `a divisor of ${spec.sizes.numHeads} (${numHeads})`);
  }
  const [epsField, epsDefault] = spec.optional.eps;
  const eps = read.number(epsField, epsDefault, 'a number from 0 below 1', (x) => x >= 0 && x < 1);
  const [actField, actDefault] = spec.optional.activation;
  const activationName = json[actField] ?? actDefault;
  const activation = ACTIVATIONS[activationName];
  if (!activation || (activation === 'siluGated') !== (family === 'llama')) {
    throw new AttentionError(
      'UNSUPPORTED_MODEL',
      `${file}: ${actField} is ${describe(activationName)}, which attention-wasm/model does not run for ${family}`,
    );
  }
  if (family === 'gpt2' && (json.scale_attn_by_inverse_layer_idx === true || json.scale_attn_weights === false)) {
    throw new AttentionError(
      'UNSUPPORTED_MODEL',
      `${file}: GPT-2 with scale_attn_by_inverse_layer_idx or without scale_attn_weights is not run`,
    );
  }
  if (family === 'bert' && (json.position_embedding_type ?? 'absolute') !== 'absolute') {
    throw new AttentionError(
      'UNSUPPORTED_MODEL',
      `${file}: position_embedding_type ${describe(json.position_embedding_type)} is not run (only absolute)`,
    );
  }
  const dims = headDim ?? dModel / numHeads;
  const modelType = json.model_type ?? family;
  return {
    family,
    modelType,
    ...sizes,
    dFf: sizes.dFf ?? (spec.optional.dFf ? read.optional(spec.optional.dFf) : undefined) ?? 4 * dModel,
    numKvHeads,
    headDim: dims,
    typeVocabSize: spec.optional.typeVocabSize ? (read.optional(spec.optional.typeVocabSize) ?? 2) : 0,
    eps,
    activation,
    choices: spec.choices,
    rope: spec.choices.rope ? ropeOf(json, file, dims, read) : null,
    windows: family === 'llama' ? windowsOf(json, modelType, numLayers, read) : Array(numLayers).fill(0),
    tied: family !== 'llama' || json.tie_word_embeddings === true,
    qkvBias: modelType === 'qwen2' || json.attention_bias === true,
    oBias: modelType !== 'qwen2' && json.attention_bias === true,
    mlpBias: json.mlp_bias === true,
  };
}
