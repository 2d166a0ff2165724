// The families bench (npm run bench:model -- --family): random checkpoints of Pythia-160M's shapes (GPT-NeoX: 12
// layers, d_model 768, 12 heads, vocab 50 304, rotary_pct 0.25, the parallel residual, its own embed_out) and
// Qwen3-0.6B's (28 layers, d_model 1024, 16 heads of 128 with 8 key-value heads, q_norm and k_norm, vocab 151 936,
// tied) against GPT-2 small's (checkpoint.mjs), each F32 in the Hub's layout, and a forward of 32 tokens with every
// attention and the logits, read at every run (residentBytes 0: Qwen3-0.6B's 2.4 GB of float32 is over WebAssembly's
// 2 GB, so all three are read so), the three interleaved round by round in this process. Per parameter: the time over
// the weights the forward multiplies (every layer's matrices and the LM head; not the embedding rows it looks up).
//   node bench/model/run.mjs --family [--rounds 3] [--quick] [--dir build/bench-model]
import os from 'node:os';
import path from 'node:path';
import { neoxConfig } from '../../tests/js/model/fixtures-families.js';
import { benchIds, gpt2SmallConfig, writeCheckpoint, writeGpt2Checkpoint } from './checkpoint.mjs';

/** Qwen3-0.6B's config.json (Qwen3ForCausalLM), of these sizes. */
const qwen3Config = ({ layers, d, heads, kvHeads, headDim, ff, vocab, positions }) => ({
  architectures: ['Qwen3ForCausalLM'],
  head_dim: headDim,
  hidden_act: 'silu',
  hidden_size: d,
  intermediate_size: ff,
  max_position_embeddings: positions,
  model_type: 'qwen3',
  num_attention_heads: heads,
  num_hidden_layers: layers,
  num_key_value_heads: kvHeads,
  rms_norm_eps: 1e-6,
  rope_theta: 1000000,
  tie_word_embeddings: true,
  use_sliding_window: false,
  vocab_size: vocab,
});

/** GPTNeoXForCausalLM's tensors in order: [name, shape, kind] (checkpoint.mjs's kinds). */
function pythiaTensors(c) {
  const [d, ff] = [c.hidden_size, c.intermediate_size];
  const list = [['gpt_neox.embed_in.weight', [c.vocab_size, d], 'weight']];
  for (let l = 0; l < c.num_hidden_layers; l++) {
    const at = `gpt_neox.layers.${l}.`;
    list.push(
      [`${at}input_layernorm.weight`, [d], 'norm'],
      [`${at}input_layernorm.bias`, [d], 'bias'],
      [`${at}post_attention_layernorm.weight`, [d], 'norm'],
      [`${at}post_attention_layernorm.bias`, [d], 'bias'],
      [`${at}attention.query_key_value.weight`, [3 * d, d], 'weight'],
      [`${at}attention.query_key_value.bias`, [3 * d], 'bias'],
      [`${at}attention.dense.weight`, [d, d], 'weight'],
      [`${at}attention.dense.bias`, [d], 'bias'],
      [`${at}mlp.dense_h_to_4h.weight`, [ff, d], 'weight'],
      [`${at}mlp.dense_h_to_4h.bias`, [ff], 'bias'],
      [`${at}mlp.dense_4h_to_h.weight`, [d, ff], 'weight'],
      [`${at}mlp.dense_4h_to_h.bias`, [d], 'bias'],
    );
  }
  list.push(['gpt_neox.final_layer_norm.weight', [d], 'norm'], ['gpt_neox.final_layer_norm.bias', [d], 'bias']);
  list.push(['embed_out.weight', [c.vocab_size, d], 'weight']);
  return list;
}

/** Qwen3ForCausalLM's tensors in order (tied: no lm_head). */
function qwen3Tensors(c) {
  const [d, ff, dk] = [c.hidden_size, c.intermediate_size, c.head_dim];
  const [q, kv] = [c.num_attention_heads * dk, c.num_key_value_heads * dk];
  const list = [['model.embed_tokens.weight', [c.vocab_size, d], 'weight']];
  for (let l = 0; l < c.num_hidden_layers; l++) {
    const at = `model.layers.${l}.`;
    list.push(
      [`${at}input_layernorm.weight`, [d], 'norm'],
      [`${at}self_attn.q_proj.weight`, [q, d], 'weight'],
      [`${at}self_attn.k_proj.weight`, [kv, d], 'weight'],
      [`${at}self_attn.v_proj.weight`, [kv, d], 'weight'],
      [`${at}self_attn.o_proj.weight`, [d, q], 'weight'],
      [`${at}self_attn.q_norm.weight`, [dk], 'norm'],
      [`${at}self_attn.k_norm.weight`, [dk], 'norm'],
      [`${at}post_attention_layernorm.weight`, [d], 'norm'],
      [`${at}mlp.gate_proj.weight`, [ff, d], 'weight'],
      [`${at}mlp.up_proj.weight`, [ff, d], 'weight'],
      [`${at}mlp.down_proj.weight`, [d, ff], 'weight'],
    );
  }
  list.push(['model.norm.weight', [d], 'norm']);
  return list;
}

const FULL = {
  gpt2: { layers: 12, d: 768, heads: 12, vocab: 50257, positions: 1024 },
  pythia: { layers: 12, d: 768, heads: 12, ff: 3072, vocab: 50304, positions: 2048 },
  qwen3: { layers: 28, d: 1024, heads: 16, kvHeads: 8, headDim: 128, ff: 3072, vocab: 151936, positions: 40960 },
};
const QUICK = {
  gpt2: { layers: 2, d: 64, heads: 2, vocab: 1000, positions: 64 },
  pythia: { layers: 2, d: 64, heads: 2, ff: 256, vocab: 1000, positions: 64 },
  qwen3: { layers: 2, d: 64, heads: 4, kvHeads: 2, headDim: 32, ff: 192, vocab: 1000, positions: 64 },
};

/** The weights a forward multiplies: each layer's matrices and the LM head [V, d] (not the rows it looks up). */
const forwardParams = (tensors, head) =>
  tensors
    .filter(([name, shape]) => shape.length === 2 && /layers?\.|^h\./.test(name))
    .reduce((sum, [, shape]) => sum + shape[0] * shape[1], head[0] * head[1]);

/** The three checkpoints, written once under `base`: [{ name, dir, params }]. */
function checkpoints(base, quick) {
  const shapes = quick ? QUICK : FULL;
  const at = (name) => path.join(base, `${name}${quick ? '-quick' : ''}`);
  const gpt2 = gpt2SmallConfig(shapes.gpt2);
  writeGpt2Checkpoint(at('gpt2-family'), shapes.gpt2);
  const gpt2Params =
    gpt2.n_layer * (gpt2.n_embd * 3 * gpt2.n_embd + gpt2.n_embd ** 2 + 8 * gpt2.n_embd ** 2) +
    gpt2.vocab_size * gpt2.n_embd;
  const pythia = neoxConfig(shapes.pythia); // Pythia's config.json: rotary_pct 0.25, the parallel residual
  const pythiaList = pythiaTensors(pythia);
  writeCheckpoint(at('pythia-160m-shaped'), pythia, pythiaList);
  const qwen3 = qwen3Config(shapes.qwen3);
  const qwen3List = qwen3Tensors(qwen3);
  writeCheckpoint(at('qwen3-0.6b-shaped'), qwen3, qwen3List);
  return [
    { name: `GPT-2 small's shapes`, dir: at('gpt2-family'), params: gpt2Params, vocab: gpt2.vocab_size },
    {
      name: `Pythia-160M's shapes (GPT-NeoX)`,
      dir: at('pythia-160m-shaped'),
      params: forwardParams(pythiaList, [pythia.vocab_size, pythia.hidden_size]),
      vocab: pythia.vocab_size,
    },
    {
      name: `Qwen3-0.6B's shapes`,
      dir: at('qwen3-0.6b-shaped'),
      params: forwardParams(qwen3List, [qwen3.vocab_size, qwen3.hidden_size]),
      vocab: qwen3.vocab_size,
    },
  ];
}

/** Runs the bench and prints its table. */
export async function benchFamilies({ base, quick, rounds, n, loadModel }) {
  console.error(`writing the three checkpoints under ${base} (once)`);
  const models = checkpoints(base, quick);
  const load0 = os.loadavg()[0].toFixed(1);
  for (const m of models) {
    m.model = await loadModel(m.dir, { residentBytes: 0 });
    m.ids = benchIds(n, Math.min(m.vocab, 50257));
    await m.model.run({ ids: m.ids }, { attentions: true, logits: true }); // a first run: compiled, files opened
    m.wall = [];
    m.cpu = [];
  }
  for (let round = 0; round < rounds; round++) {
    const order = round % 2 ? [...models].reverse() : models;
    for (const m of order) {
      const cpu0 = process.cpuUsage();
      const t0 = performance.now();
      await m.model.run({ ids: m.ids }, { attentions: true, logits: true });
      m.wall.push(performance.now() - t0);
      const cpu = process.cpuUsage(cpu0);
      m.cpu.push((cpu.user + cpu.system) / 1000);
    }
  }
  const load1 = os.loadavg()[0].toFixed(1);
  const median = (t) => [...t].sort((a, b) => a - b)[t.length >> 1];
  const [first] = models;
  const per = (m, key) => median(m[key]) / m.params;
  console.log(
    `\nA forward of ${n} tokens with every attention and the logits, read at every run (residentBytes 0), F32, ` +
      `${rounds} rounds interleaved, Node ${process.version}; load average ${load0} before, ${load1} after` +
      `${quick ? ' (--quick: 2-layer, d_model 64 versions of the shapes)' : ''}\n`,
  );
  console.log(
    '| checkpoint | weights multiplied | wall ms (median) | CPU ms (median) | per parameter, wall | per parameter, CPU |',
  );
  console.log('|---|---|---|---|---|---|');
  for (const m of models) {
    const ratio = (key) => (per(m, key) / per(first, key)).toFixed(2);
    console.log(
      `| ${m.name} | ${(m.params / 1e6).toFixed(1)} M | ${median(m.wall).toFixed(0)} | ${median(m.cpu).toFixed(0)} | ` +
        `${m === first ? '1 (the base)' : `${ratio('wall')}×`} | ${m === first ? '1 (the base)' : `${ratio('cpu')}×`} |`,
    );
  }
  for (const m of models) await m.model.dispose();
}
