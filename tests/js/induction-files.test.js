// The shipped induction model's files (web/public/models/induction, written by scripts/train/train_tiny.py and
// evaluate_tiny.py) are a Hub GPT-2 checkpoint as transformers saves one: config.json's sizes, model.safetensors' F32
// tensors with GPT2LMHeadModel's names and Conv1D [in, out] shapes (read by attention-wasm/io), a tokenizer.json
// whose vocabulary has config.json's size, and held-out sequences whose repeats are where heldout.json says.
import { beforeAll, describe, expect, it } from 'vitest';
import { openSafetensors } from '../../src/js/io/index.js';

// One file's URL (Vite rewrites new URL('<folder>/', import.meta.url) without its final slash, so name the file).
const fileUrl = (name) => new URL(`../../web/public/models/induction/${name}`, import.meta.url);
const inBrowser = typeof window !== 'undefined';

async function bytesOf(name) {
  const url = fileUrl(name);
  if (inBrowser) return new Uint8Array(await (await fetch(url)).arrayBuffer());
  const { readFile } = await import(/* @vite-ignore */ 'node:fs/promises');
  return new Uint8Array(await readFile(url));
}
const jsonOf = async (name) => JSON.parse(new TextDecoder().decode(await bytesOf(name)));

/** The tensors transformers saves for GPT2LMHeadModel (lm_head is tied to wte and not stored), with their shapes. */
function gpt2Tensors({ n_embd: d, n_layer: layers, n_positions: positions, vocab_size: vocab }) {
  const shapes = {
    'transformer.wte.weight': [vocab, d],
    'transformer.wpe.weight': [positions, d],
    'transformer.ln_f.weight': [d],
    'transformer.ln_f.bias': [d],
  };
  for (let l = 0; l < layers; l++) {
    const h = `transformer.h.${l}.`;
    Object.assign(shapes, {
      [`${h}ln_1.weight`]: [d],
      [`${h}ln_1.bias`]: [d],
      [`${h}attn.c_attn.weight`]: [d, 3 * d],
      [`${h}attn.c_attn.bias`]: [3 * d],
      [`${h}attn.c_proj.weight`]: [d, d],
      [`${h}attn.c_proj.bias`]: [d],
      [`${h}ln_2.weight`]: [d],
      [`${h}ln_2.bias`]: [d],
      [`${h}mlp.c_fc.weight`]: [d, 4 * d],
      [`${h}mlp.c_fc.bias`]: [4 * d],
      [`${h}mlp.c_proj.weight`]: [4 * d, d],
      [`${h}mlp.c_proj.bias`]: [d],
    });
  }
  return shapes;
}

describe('the induction model files', () => {
  let config, tokenizer, weights;
  beforeAll(async () => {
    config = await jsonOf('config.json');
    tokenizer = await jsonOf('tokenizer.json');
    weights = await bytesOf('model.safetensors');
  });

  it('config.json is a small GPT-2 config', () => {
    expect(config).toMatchObject({
      model_type: 'gpt2',
      architectures: ['GPT2LMHeadModel'],
      activation_function: 'gelu_new',
      layer_norm_epsilon: 1e-5,
      tie_word_embeddings: true,
      n_layer: 2,
    });
    expect(config.n_embd % config.n_head).toBe(0);
    expect(config.n_embd).toBeGreaterThanOrEqual(32);
    expect(config.n_embd).toBeLessThanOrEqual(128);
  });

  it('model.safetensors holds exactly GPT2LMHeadModel tensors, F32, in at most 2 MB', async () => {
    expect(weights.byteLength).toBeLessThanOrEqual(2 * 1024 * 1024);
    const file = await openSafetensors(weights);
    const expected = gpt2Tensors(config);
    const found = Object.fromEntries(file.tensors.map((t) => [t.name, t.shape]));
    expect(found).toEqual(expected);
    expect(new Set(file.tensors.map((t) => t.dtype))).toEqual(new Set(['F32']));
    const wte = await file.read('transformer.wte.weight');
    expect(wte.data.every(Number.isFinite)).toBe(true);
  });

  it('tokenizer.json is a word-level vocabulary of config.json vocab_size ids, with <|endoftext|> as bos and eos', async () => {
    const vocab = tokenizer.model.vocab;
    const ids = Object.values(vocab).sort((a, b) => a - b);
    expect(ids).toEqual(Array.from({ length: config.vocab_size }, (_, i) => i));
    expect(vocab['<|endoftext|>']).toBe(config.bos_token_id);
    expect(vocab['<|endoftext|>']).toBe(config.eos_token_id);
    expect(vocab[tokenizer.model.unk_token]).toBeTypeOf('number');
    const tokenizerConfig = await jsonOf('tokenizer_config.json');
    expect(tokenizerConfig.model_max_length).toBe(config.n_positions);
  });

  it('heldout.json: each sequence repeats its span where it says, and nothing else recurs', async () => {
    const heldout = await jsonOf('heldout.json');
    expect(heldout.sequences.length).toBeGreaterThanOrEqual(32);
    for (const { ids, first, second, length } of heldout.sequences) {
      expect(ids.length).toBeLessThanOrEqual(config.n_positions);
      expect(ids.every((id) => Number.isInteger(id) && id >= 0 && id < config.vocab_size)).toBe(true);
      expect(second).toBeGreaterThanOrEqual(first + length);
      expect(ids.slice(second, second + length)).toEqual(ids.slice(first, first + length));
      const rest = [...ids.slice(0, second), ...ids.slice(second + length)];
      expect(new Set(rest).size).toBe(rest.length);
    }
  });
});
