// The bench's checkpoint: GPT-2 small's shapes (12 layers, d_model 768, 12 heads, vocab 50 257, 1024 positions)
// with random weights, written in the Hub's layout (config.json and model.safetensors with GPT2LMHeadModel's
// tensor names, each layer's causal-mask buffer h.{l}.attn.bias included) tensor by tensor, so that 500 MB of
// weights are never in memory at once. Also writes weights.txt for the native driver (model/native.cc): one line
// "name byte_offset count" per tensor, the offsets from the file's start.
import fs from 'node:fs';
import path from 'node:path';
import { gpt2Config } from '../../tests/js/model/fixtures.js';

/** GPT-2 small's config.json (the test fixtures' fields), with `layers` layers. */
export const gpt2SmallConfig = ({ layers = 12, d = 768, heads = 12, vocab = 50257, positions = 1024 } = {}) =>
  gpt2Config({ layers, d, heads, vocab, positions });

/** The tensors of the file in order: [name, shape, kind]; kinds as fill() below. */
function gpt2Tensors(c) {
  const d = c.n_embd;
  const P = c.n_positions;
  const list = [
    ['wte.weight', [c.vocab_size, d], 'weight'],
    ['wpe.weight', [P, d], 'position'],
  ];
  for (let l = 0; l < c.n_layer; l++) {
    const at = `h.${l}.`;
    list.push(
      [`${at}ln_1.weight`, [d], 'norm'],
      [`${at}ln_1.bias`, [d], 'bias'],
      [`${at}attn.bias`, [1, 1, P, P], 'causal'],
      [`${at}attn.c_attn.weight`, [d, 3 * d], 'weight'],
      [`${at}attn.c_attn.bias`, [3 * d], 'bias'],
      [`${at}attn.c_proj.weight`, [d, d], 'weight'],
      [`${at}attn.c_proj.bias`, [d], 'bias'],
      [`${at}ln_2.weight`, [d], 'norm'],
      [`${at}ln_2.bias`, [d], 'bias'],
      [`${at}mlp.c_fc.weight`, [d, 4 * d], 'weight'],
      [`${at}mlp.c_fc.bias`, [4 * d], 'bias'],
      [`${at}mlp.c_proj.weight`, [4 * d, d], 'weight'],
      [`${at}mlp.c_proj.bias`, [d], 'bias'],
    );
  }
  list.push(['ln_f.weight', [d], 'norm'], ['ln_f.bias', [d], 'bias']);
  return list;
}

/** A fast seeded generator of roughly normal values (the sum of 4 uniforms, scaled to unit variance). */
function normals(seed) {
  let s = seed >>> 0 || 1;
  const uniform = () => {
    s ^= s << 13;
    s ^= s >>> 17;
    s ^= s << 5;
    return (s >>> 0) / 4294967296;
  };
  return () => (uniform() + uniform() + uniform() + uniform() - 2) * 1.7320508;
}

/** Values of one tensor, by its kind: GPT-2's initialization (weights N(0, 0.02)), norms near 1, small biases. */
function fill(kind, shape, random) {
  const size = shape.reduce((a, b) => a * b, 1);
  const out = new Float32Array(size);
  if (kind === 'causal') {
    const P = shape[3];
    for (let i = 0; i < P; i++) out.fill(1, i * P, i * P + i + 1);
    return out;
  }
  const [center, scale] = { weight: [0, 0.02], position: [0, 0.01], norm: [1, 0.1], bias: [0, 0.02] }[kind];
  for (let i = 0; i < size; i++) out[i] = center + random() * scale;
  return out;
}

/**
 * Writes the folder (config.json, model.safetensors, weights.txt) into `dir`, unless it is there already with
 * the same config. Returns the config.
 */
export function writeGpt2Checkpoint(dir, options = {}, seed = 7) {
  const config = gpt2SmallConfig(options);
  return writeCheckpoint(dir, config, gpt2Tensors(config), seed);
}

/**
 * Writes config.json, model.safetensors (F32, `tensors` [name, shape, kind] in order, each filled by its kind as
 * fill() does) and weights.txt into `dir`, tensor by tensor, unless the folder is there with the same config.
 */
export function writeCheckpoint(dir, config, tensors, seed = 7) {
  const configText = JSON.stringify(config, null, 2);
  const file = path.join(dir, 'model.safetensors');
  if (
    fs.existsSync(path.join(dir, 'weights.txt')) &&
    fs.readFileSync(path.join(dir, 'config.json'), 'utf8') === configText
  )
    return config;
  fs.mkdirSync(dir, { recursive: true });
  const header = { __metadata__: { format: 'pt' } };
  let offset = 0;
  for (const [name, shape] of tensors) {
    const bytes = shape.reduce((a, b) => a * b, 1) * 4;
    header[name] = { dtype: 'F32', shape, data_offsets: [offset, offset + bytes] };
    offset += bytes;
  }
  let json = JSON.stringify(header);
  json += ' '.repeat((8 - ((8 + json.length) % 8)) % 8); // data 8-byte aligned, as the safetensors writer pads
  const start = 8 + json.length;
  const fd = fs.openSync(file, 'w');
  const length = Buffer.alloc(8);
  length.writeBigUInt64LE(BigInt(json.length));
  fs.writeSync(fd, length);
  fs.writeSync(fd, Buffer.from(json, 'latin1'));
  const random = normals(seed);
  const lines = [];
  for (const [name, shape, kind] of tensors) {
    const values = fill(kind, shape, random);
    lines.push(`${name} ${start + header[name].data_offsets[0]} ${values.length}`);
    fs.writeSync(fd, new Uint8Array(values.buffer));
  }
  fs.closeSync(fd);
  fs.writeFileSync(path.join(dir, 'config.json'), configText);
  fs.writeFileSync(path.join(dir, 'weights.txt'), `${lines.join('\n')}\n`);
  return config;
}

/** The bench's token ids: `n` seeded ids below `vocab`. */
export function benchIds(n, vocab, seed = 11) {
  let s = seed;
  return Array.from({ length: n }, () => {
    s = (Math.imul(s, 1103515245) + 12345) >>> 0;
    return s % vocab;
  });
}
