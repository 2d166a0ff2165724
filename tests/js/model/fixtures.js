// Tiny random checkpoints in the exact file layout of the Hub's: config.json with the fields the real ones have,
// model.safetensors (or model.safetensors.index.json and shards named model-0000i-of-0000n.safetensors), the tensor
// names of each family's published files (GPT-2 with its causal-mask buffers, BERT for masked LM with its cls.*
// head and pooler, LLaMA/Mistral/Qwen2 with model.* and lm_head), in F32, F16 or BF16 (fixtures-families.js: the families since). Each fixture also returns the
// values exactly as stored (after rounding to the dtype), for the float64 reference (reference.js).
import { safetensorsFile } from '../fixtures/io/writers.js';
import { seededRandom } from '../seeded-random.js';

const utf8 = (text) => new TextEncoder().encode(text);

/** float16 bits of a value (the nearest, ties to even; |x| < 65504, subnormals included), and back. */
function f16Bits(x) {
  const sign = x < 0 || Object.is(x, -0) ? 0x8000 : 0;
  const a = Math.abs(x);
  const exponent = Math.max(Math.floor(Math.log2(a || 1)), -14); // -14: subnormal, no implicit 1
  const scaled = (a / 2 ** exponent - (a < 2 ** -14 ? 0 : 1)) * 1024;
  const floor = Math.floor(scaled);
  const m = scaled - floor > 0.5 || (scaled - floor === 0.5 && floor % 2) ? floor + 1 : floor;
  return sign + ((a < 2 ** -14 ? 0 : exponent + 15) << 10) + m; // m = 1024 carries into the exponent
}
const fromF16 = (bits) => {
  const [e, m] = [(bits >> 10) & 31, bits & 1023];
  return (bits & 0x8000 ? -1 : 1) * (e === 0 ? m * 2 ** -24 : (1 + m / 1024) * 2 ** (e - 15));
};

/** The value stored for x in a dtype: float32, float16 or bfloat16 rounded to nearest even. */
function roundTo(dtype, x) {
  const f = Math.fround(x);
  if (dtype === 'F32') return f;
  if (dtype === 'F16') return fromF16(f16Bits(f));
  if (dtype === 'BOOL') return x;
  const u = new Uint32Array(new Float32Array([f]).buffer)[0];
  const bits = ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) << 16;
  return new Float32Array(new Uint32Array([bits >>> 0]).buffer)[0];
}

/** Little-endian bytes of values already rounded to the dtype. */
function bytesOf(dtype, values) {
  const f32 = Float32Array.from(values);
  if (dtype === 'F32') return new Uint8Array(f32.buffer);
  if (dtype === 'F16') return new Uint8Array(Uint16Array.from(values, f16Bits).buffer);
  if (dtype === 'BOOL') return Uint8Array.from(values);
  const u32 = new Uint32Array(f32.buffer);
  return new Uint8Array(Uint16Array.from(u32, (u) => u >>> 16).buffer);
}

/**
 * A checkpoint builder: add(name, shape, values or a kind) stores a tensor; files() writes the folder.
 * Kinds: 'weight' (random, ±scale), 'norm' (1 ± 0.2), 'bias' (±0.1), 'zeros', 'ones'.
 */
export function builder(dtype, seed, scale) {
  const random = seededRandom(seed);
  const tensors = [];
  const values = {};
  const fill = { weight: () => random() * scale, norm: () => 1 + random() * 0.2, bias: () => random() * 0.1 };
  return {
    values,
    add(name, shape, kind = 'weight', stored = dtype) {
      const size = shape.reduce((a, b) => a * b, 1);
      const data = Float64Array.from({ length: size }, (_, i) =>
        roundTo(
          stored,
          kind === 'zeros' ? 0 : kind === 'ones' ? 1 : typeof kind === 'function' ? kind(i) : fill[kind](),
        ),
      );
      values[name] = { data, shape };
      tensors.push({ name, dtype: stored, shape, bytes: bytesOf(stored, data) });
    },
    /** The folder: { 'config.json', 'model.safetensors' } or, sharded, the index and `shards` shards. */
    files(config, { shards = 1 } = {}) {
      const files = { 'config.json': JSON.stringify(config, null, 2) };
      if (shards === 1) {
        files['model.safetensors'] = safetensorsFile(tensors, { metadata: { format: 'pt' } });
        return files;
      }
      const per = Math.ceil(tensors.length / shards);
      const weightMap = {};
      let total = 0;
      for (let s = 0; s < shards; s++) {
        const name = `model-${String(s + 1).padStart(5, '0')}-of-${String(shards).padStart(5, '0')}.safetensors`;
        const part = tensors.slice(s * per, (s + 1) * per);
        for (const t of part) {
          weightMap[t.name] = name;
          total += t.bytes.length;
        }
        files[name] = safetensorsFile(part, { metadata: { format: 'pt' } });
      }
      files['model.safetensors.index.json'] = JSON.stringify({
        metadata: { total_size: total },
        weight_map: weightMap,
      });
      return files;
    },
  };
}

/** GPT-2's config.json as GPT2LMHeadModel's have it, of these sizes (bench/model/checkpoint.mjs uses it too). */
export function gpt2Config({ d, heads, layers, vocab, positions }) {
  return {
    activation_function: 'gelu_new',
    architectures: ['GPT2LMHeadModel'],
    layer_norm_epsilon: 1e-5,
    model_type: 'gpt2',
    n_ctx: positions,
    n_embd: d,
    n_head: heads,
    n_inner: null,
    n_layer: layers,
    n_positions: positions,
    scale_attn_weights: true,
    vocab_size: vocab,
  };
}

/** GPT-2 as GPT2LMHeadModel saves it (prefix 'transformer.' optional), with each layer's attn.bias buffer. */
export function gpt2Fixture({
  dtype = 'F32',
  seed = 1,
  prefix = '',
  d = 8,
  heads = 2,
  layers = 2,
  vocab = 23,
  positions = 16,
  shards = 1,
} = {}) {
  const config = gpt2Config({ d, heads, layers, vocab, positions });
  const b = builder(dtype, seed, 0.5);
  const p = (name) => `${prefix}${name}`;
  b.add(p('wte.weight'), [vocab, d]);
  b.add(p('wpe.weight'), [positions, d]);
  for (let l = 0; l < layers; l++) {
    const at = p(`h.${l}.`);
    b.add(`${at}ln_1.weight`, [d], 'norm');
    b.add(`${at}ln_1.bias`, [d], 'bias');
    b.add(
      `${at}attn.bias`,
      [1, 1, positions, positions],
      (i) => (i % positions <= Math.floor(i / positions) ? 1 : 0),
      'F32',
    );
    b.add(`${at}attn.c_attn.weight`, [d, 3 * d]);
    b.add(`${at}attn.c_attn.bias`, [3 * d], 'bias');
    b.add(`${at}attn.c_proj.weight`, [d, d]);
    b.add(`${at}attn.c_proj.bias`, [d], 'bias');
    b.add(`${at}ln_2.weight`, [d], 'norm');
    b.add(`${at}ln_2.bias`, [d], 'bias');
    b.add(`${at}mlp.c_fc.weight`, [d, 4 * d]);
    b.add(`${at}mlp.c_fc.bias`, [4 * d], 'bias');
    b.add(`${at}mlp.c_proj.weight`, [4 * d, d]);
    b.add(`${at}mlp.c_proj.bias`, [d], 'bias');
  }
  b.add(p('ln_f.weight'), [d], 'norm');
  b.add(p('ln_f.bias'), [d], 'bias');
  return { config, prefix, values: b.values, files: b.files(config, { shards }) };
}

/** BERT's encoder layers (RoBERTa's too) under `at` (…encoder.layer.), `ln(at)` adding a LayerNorm under at. */
export function bertLayers(b, at, { d, ff, layers }, ln) {
  for (let l = 0; l < layers; l++) {
    const layer = `${at}${l}.`;
    for (const part of ['query', 'key', 'value']) {
      b.add(`${layer}attention.self.${part}.weight`, [d, d]);
      b.add(`${layer}attention.self.${part}.bias`, [d], 'bias');
    }
    b.add(`${layer}attention.output.dense.weight`, [d, d]);
    b.add(`${layer}attention.output.dense.bias`, [d], 'bias');
    ln(`${layer}attention.output.`);
    b.add(`${layer}intermediate.dense.weight`, [ff, d]);
    b.add(`${layer}intermediate.dense.bias`, [ff], 'bias');
    b.add(`${layer}output.dense.weight`, [d, ff]);
    b.add(`${layer}output.dense.bias`, [d], 'bias');
    ln(`${layer}output.`);
  }
}

/** BERT as BertForMaskedLM saves it ('bert.' prefix, cls.* head, pooler); `oldNames`: LayerNorm gamma/beta. */
export function bertFixture({
  dtype = 'F32',
  seed = 2,
  d = 8,
  heads = 2,
  layers = 2,
  ff = 20,
  vocab = 19,
  positions = 12,
  oldNames = false,
  head = true,
  shards = 1,
} = {}) {
  const config = {
    architectures: [head ? 'BertForMaskedLM' : 'BertModel'],
    hidden_act: 'gelu',
    hidden_size: d,
    intermediate_size: ff,
    layer_norm_eps: 1e-12,
    max_position_embeddings: positions,
    model_type: 'bert',
    num_attention_heads: heads,
    num_hidden_layers: layers,
    position_embedding_type: 'absolute',
    type_vocab_size: 2,
    vocab_size: vocab,
  };
  const b = builder(dtype, seed, 0.5);
  const prefix = head ? 'bert.' : '';
  const ln = (at) => {
    b.add(`${at}LayerNorm.${oldNames ? 'gamma' : 'weight'}`, [d], 'norm');
    b.add(`${at}LayerNorm.${oldNames ? 'beta' : 'bias'}`, [d], 'bias');
  };
  b.add(`${prefix}embeddings.word_embeddings.weight`, [vocab, d]);
  b.add(`${prefix}embeddings.position_embeddings.weight`, [positions, d]);
  b.add(`${prefix}embeddings.token_type_embeddings.weight`, [2, d]);
  ln(`${prefix}embeddings.`);
  bertLayers(b, `${prefix}encoder.layer.`, { d, ff, layers }, ln);
  b.add(`${prefix}pooler.dense.weight`, [d, d]);
  b.add(`${prefix}pooler.dense.bias`, [d], 'bias');
  if (head) {
    b.add('cls.predictions.bias', [vocab], 'bias');
    b.add('cls.predictions.transform.dense.weight', [d, d]);
    b.add('cls.predictions.transform.dense.bias', [d], 'bias');
    ln('cls.predictions.transform.');
    b.add('cls.seq_relationship.weight', [2, d]);
    b.add('cls.seq_relationship.bias', [2], 'bias');
  }
  return { config, prefix, values: b.values, files: b.files(config, { shards }) };
}

/**
 * A LLaMA-family model as LlamaForCausalLM (MistralForCausalLM, Qwen2ForCausalLM, Qwen3ForCausalLM) saves it. `type`:
 * 'llama', 'mistral' (a sliding window), 'qwen2' (q/k/v biases, tied head) or 'qwen3' (q_norm, k_norm, head_dim); `ropeScaling`: config.json's rope_scaling.
 */
export function llamaFixture({
  dtype = 'F32',
  seed = 3,
  type = 'llama',
  d = 16,
  heads = 4,
  kvHeads = 2,
  headDim,
  layers = 2,
  ff = 24,
  vocab = 29,
  positions = 32,
  theta = 10000,
  ropeScaling = null,
  slidingWindow = null,
  tied = type === 'qwen2',
  shards = 1,
} = {}) {
  const dk = headDim ?? d / heads;
  const config = {
    architectures: [`${{ llama: 'Llama', mistral: 'Mistral', qwen2: 'Qwen2', qwen3: 'Qwen3' }[type]}ForCausalLM`],
    attention_bias: false,
    hidden_act: 'silu',
    hidden_size: d,
    intermediate_size: ff,
    max_position_embeddings: positions,
    model_type: type,
    num_attention_heads: heads,
    num_hidden_layers: layers,
    num_key_value_heads: kvHeads,
    rms_norm_eps: 1e-6,
    rope_scaling: ropeScaling,
    rope_theta: theta,
    tie_word_embeddings: tied,
    vocab_size: vocab,
  };
  if (headDim || type === 'qwen3') config.head_dim = dk;
  if (type === 'mistral') config.sliding_window = slidingWindow;
  if (type === 'qwen2' || type === 'qwen3')
    Object.assign(config, {
      use_sliding_window: false,
      sliding_window: type === 'qwen2' ? 4096 : null,
      max_window_layers: layers,
    });
  const b = builder(dtype, seed, 0.5);
  b.add('model.embed_tokens.weight', [vocab, d]);
  for (let l = 0; l < layers; l++) {
    const at = `model.layers.${l}.`;
    b.add(`${at}input_layernorm.weight`, [d], 'norm');
    for (const [part, rows] of [
      ['q', heads * dk],
      ['k', kvHeads * dk],
      ['v', kvHeads * dk],
    ]) {
      b.add(`${at}self_attn.${part}_proj.weight`, [rows, d]);
      if (type === 'qwen2') b.add(`${at}self_attn.${part}_proj.bias`, [rows], 'bias');
    }
    b.add(`${at}self_attn.o_proj.weight`, [d, heads * dk]);
    if (type === 'qwen3') b.add(`${at}self_attn.q_norm.weight`, [dk], 'norm');
    if (type === 'qwen3') b.add(`${at}self_attn.k_norm.weight`, [dk], 'norm');
    b.add(`${at}post_attention_layernorm.weight`, [d], 'norm');
    b.add(`${at}mlp.gate_proj.weight`, [ff, d]);
    b.add(`${at}mlp.up_proj.weight`, [ff, d]);
    b.add(`${at}mlp.down_proj.weight`, [d, ff]);
  }
  b.add('model.norm.weight', [d], 'norm');
  if (!tied) b.add('lm_head.weight', [vocab, d]);
  return { config, prefix: 'model.', values: b.values, files: b.files(config, { shards }) };
}

/** The folder's files as Files (browsers and Node 20 both have File), in a list as a dropped folder gives them. */
export function asFiles(files) {
  return Object.entries(files).map(
    ([name, content]) => new File([typeof content === 'string' ? utf8(content) : content], name),
  );
}

/** A fixture's folder as bytes (a record of name → bytes or text) or as a list of Files ('files'). */
export const source = (fixture, how) => (how === 'files' ? asFiles(fixture.files) : fixture.files);

/** A Blob whose slices count the bytes read from them: the test's own measure of what a run reads. */
export class CountingBlob extends Blob {
  constructor(parts, counter) {
    super(parts);
    this.counter = counter;
  }
  slice(begin, end) {
    this.counter.bytes += Math.max(0, Math.min(end ?? this.size, this.size) - (begin ?? 0));
    return super.slice(begin, end);
  }
}

/**
 * A safetensors file rewritten: `edit(tensors)` gets [{ name, dtype, shape, bytes }] in file order and returns the
 * list to write. Parsed here from the format (8-byte length, JSON header), not with the code under test.
 */
export function editSafetensors(file, edit) {
  const length = Number(new DataView(file.buffer, file.byteOffset).getBigUint64(0, true));
  const header = JSON.parse(new TextDecoder().decode(file.subarray(8, 8 + length)));
  const data = file.subarray(8 + length);
  const tensors = Object.entries(header)
    .filter(([name]) => name !== '__metadata__')
    .map(
      ([
        name,
        {
          dtype,
          shape,
          data_offsets: [begin, end],
        },
      ]) => ({ name, dtype, shape, bytes: data.slice(begin, end) }),
    )
    .sort((a, b) => header[a.name].data_offsets[0] - header[b.name].data_offsets[0]);
  return safetensorsFile(edit(tensors));
}
