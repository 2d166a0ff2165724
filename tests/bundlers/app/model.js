// The model part of the bundler and runtime apps: a tiny GPT-2 checkpoint made in memory in the Hub's layout
// (config.json, model.safetensors, a byte-level BPE tokenizer.json), loaded with attention-wasm/model and run on
// text, so that a bundle must carry the model's module and @huggingface/tokenizers. No DOM and no Node built-in:
// the tests compute the same run in Node to compare.
import { byteLevelTokenizer } from './tokenizers.js';

const D = 8;
const V = 257 + 2; // the 256 byte characters, 2 merges, <|endoftext|>
const POSITIONS = 16;

/** Deterministic values in [-0.5, 0.5). */
const values = (n, seed) =>
  Float32Array.from({ length: n }, (_, i) => (Math.sin((i + 1) * 12.9898 + seed) * 43758.5453) % 0.5);

/** A safetensors file of float32 tensors: [name, shape, Float32Array]. */
function safetensors(tensors) {
  const header = {};
  let at = 0;
  for (const [name, shape, data] of tensors) {
    header[name] = { dtype: 'F32', shape, data_offsets: [at, at + data.byteLength] };
    at += data.byteLength;
  }
  let text = JSON.stringify(header);
  while (text.length % 8) text += ' ';
  const json = new TextEncoder().encode(text);
  const file = new Uint8Array(8 + json.length + at);
  new DataView(file.buffer).setUint32(0, json.length, true);
  file.set(json, 8);
  let offset = 8 + json.length;
  for (const [, , data] of tensors) {
    file.set(new Uint8Array(data.buffer), offset);
    offset += data.byteLength;
  }
  return file;
}

/** The checkpoint's files: name → text or bytes, as loadModel takes them. */
export function tinyCheckpoint() {
  const config = {
    architectures: ['GPT2LMHeadModel'],
    model_type: 'gpt2',
    activation_function: 'gelu_new',
    layer_norm_epsilon: 1e-5,
    n_ctx: POSITIONS,
    n_embd: D,
    n_head: 2,
    n_inner: null,
    n_layer: 1,
    n_positions: POSITIONS,
    vocab_size: V,
  };
  let seed = 0;
  const t = (name, shape) => [
    name,
    shape,
    values(
      shape.reduce((a, b) => a * b, 1),
      seed++,
    ),
  ];
  const ones = (name) => [name, [D], new Float32Array(D).fill(1)];
  const tensors = [
    t('wte.weight', [V, D]),
    t('wpe.weight', [POSITIONS, D]),
    ones('h.0.ln_1.weight'),
    t('h.0.ln_1.bias', [D]),
    t('h.0.attn.c_attn.weight', [D, 3 * D]),
    t('h.0.attn.c_attn.bias', [3 * D]),
    t('h.0.attn.c_proj.weight', [D, D]),
    t('h.0.attn.c_proj.bias', [D]),
    ones('h.0.ln_2.weight'),
    t('h.0.ln_2.bias', [D]),
    t('h.0.mlp.c_fc.weight', [D, 4 * D]),
    t('h.0.mlp.c_fc.bias', [4 * D]),
    t('h.0.mlp.c_proj.weight', [4 * D, D]),
    t('h.0.mlp.c_proj.bias', [D]),
    ones('ln_f.weight'),
    t('ln_f.bias', [D]),
  ];
  return {
    'config.json': JSON.stringify(config),
    'model.safetensors': safetensors(tensors),
    'tokenizer.json': byteLevelTokenizer(['h e', 'l l']),
  };
}

/**
 * What the apps report of the model: the tokens of a text and the last position's logits (`options`: loadModel's,
 * `{ workers: 2 }` where the bundler builds module workers).
 */
export async function runModel(loadModel, options) {
  const model = await loadModel(tinyCheckpoint(), options);
  const r = await model.run('hello', { attentions: true });
  await model.dispose();
  const [n, vocab] = r.logits.shape;
  return {
    family: model.family,
    ids: r.ids,
    tokens: r.tokens,
    attentions: r.attentions.length,
    lastLogits: Array.from(r.logits.data.subarray((n - 1) * vocab)),
  };
}
