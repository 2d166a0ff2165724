// The float64 reference forwards of the families added since GPT-2, BERT and LLaMA (reference.js runs them by
// model_type), each written from its Hugging Face modeling file and not from the code under test.
import { attendEdited } from './edit-reference.js';
import { referenceInvFreq } from './rope-reference.js';
import {
  ACT,
  T,
  ablatedIn,
  add,
  attend,
  layerNorm,
  linear,
  rmsNorm,
  rotateRows,
  rows,
  stepWriter,
} from './reference-ops.js';

/** GPT-NeoX from modeling_gpt_neox.py: qkv viewed [n, H, 3·dk], partial rotate_half, parallel or sequential. */
export function gptNeox(fixture, ids, { ablate = [], edits = [], hook } = {}) {
  const { config: c, values: t } = fixture;
  const [n, d, H, eps] = [ids.length, c.hidden_size, c.num_attention_heads, c.layer_norm_eps];
  const dk = d / H;
  const rot = Math.floor(dk * c.rotary_pct);
  const rope = { invFreq: referenceInvFreq(c.rotary_emb_base, rot), dim: rot, style: 'half' };
  let h = rows(t['gpt_neox.embed_in.weight'], ids);
  const [hiddenStates, attentions, steps] = [[], [], []];
  for (let l = 0; l < c.num_hidden_layers; l++) {
    const L = (name) => t[`gpt_neox.layers.${l}.${name}`];
    const E = stepWriter(edits, hook, l, { n, H, Hkv: H, dk });
    h = E('input', h.slice());
    hiddenStates.push(h);
    const x = E('x', layerNorm(h, n, L('input_layernorm.weight'), L('input_layernorm.bias'), eps));
    const qkv = linear(x, n, L('attention.query_key_value.weight'), L('attention.query_key_value.bias'));
    // view [n, H, 3·dk]: head j's q, k, v are its 3·dk columns' thirds
    const part = (p) => Float64Array.from({ length: n * d }, (_, i) => qkv[3 * (i - (i % dk)) + p * dk + (i % dk)]);
    const [q, k, v] = [E('q', part(0)), E('k', part(1)), E('v', part(2))];
    const rotate = (a) => rotateRows(a, n, H, dk, rope);
    const [qRotated, kRotated] = [E('qRotated', rotate(q)), E('kRotated', rotate(k))];
    const attention = edits.length || hook ? attendEdited : attend;
    const { weights, context } = attention(
      qRotated,
      kRotated,
      v,
      n,
      H,
      H,
      dk,
      (i, j) => j <= i,
      ablatedIn(ablate, l),
      E,
    );
    attentions.push(weights);
    const output = E('output', linear(context, n, L('attention.dense.weight'), L('attention.dense.bias')));
    const residual = E('residual', add(h, output));
    const norm2 = [L('post_attention_layernorm.weight'), L('post_attention_layernorm.bias')];
    const mlpInput = E('mlpInput', layerNorm(c.use_parallel_residual ? h : residual, n, ...norm2, eps));
    const up = linear(mlpInput, n, L('mlp.dense_h_to_4h.weight'), L('mlp.dense_h_to_4h.bias'));
    const mlpHidden = E('mlpHidden', up.map(ACT[c.hidden_act]));
    const mlpOutput = E('mlpOutput', linear(mlpHidden, n, L('mlp.dense_4h_to_h.weight'), L('mlp.dense_4h_to_h.bias')));
    h = E('hidden', add(residual, mlpOutput)); // parallel: x + attn(ln1(x)) + mlp(ln2(x)); else x + attn + mlp(ln2(·))
    steps.push({
      x,
      q,
      k,
      v,
      qRotated,
      kRotated,
      concat: context,
      output,
      residual,
      mlpInput,
      mlpHidden,
      mlpOutput,
      hidden: h,
    });
  }
  h = layerNorm(h, n, t['gpt_neox.final_layer_norm.weight'], t['gpt_neox.final_layer_norm.bias'], eps);
  hiddenStates.push(h);
  return { attentions, hiddenStates, steps, logits: linear(h, n, T(t['embed_out.weight'])) };
}

/**
 * A post-norm encoder layer stack as modeling_roberta.py's and modeling_distilbert.py's (BERT's computation):
 * `names` gives each tensor's name in layer l; returns the hidden states, attentions, steps and the last h.
 */
function postNormEncoder(h, n, { layers, H, d, eps, act, name }, { ablate = [], edits = [], hook } = {}) {
  const [hiddenStates, attentions, steps] = [[h], [], []];
  for (let l = 0; l < layers; l++) {
    const L = (key) => name(l, key);
    const E = stepWriter(edits, hook, l, { n, H, Hkv: H, dk: d / H });
    h = E('input', h.slice());
    hiddenStates[l] = h;
    const x = E('x', h.slice());
    const [q, k, v] = ['q', 'k', 'v'].map((p) => E(p, linear(x, n, L(`${p}.weight`), L(`${p}.bias`))));
    const attention = edits.length || hook ? attendEdited : attend;
    const { weights, context } = attention(q, k, v, n, H, H, d / H, () => true, ablatedIn(ablate, l), E);
    attentions.push(weights);
    const output = E('output', linear(context, n, L('o.weight'), L('o.bias')));
    const residual = E('residual', add(output, h));
    const mlpInput = E('mlpInput', layerNorm(residual, n, L('norm1.weight'), L('norm1.bias'), eps));
    const mlpHidden = E('mlpHidden', linear(mlpInput, n, L('up.weight'), L('up.bias')).map(act));
    const mlpOutput = E('mlpOutput', linear(mlpHidden, n, L('down.weight'), L('down.bias')));
    h = E('hidden', layerNorm(add(mlpOutput, mlpInput), n, L('norm2.weight'), L('norm2.bias'), eps));
    hiddenStates.push(h);
    steps.push({ x, q, k, v, concat: context, output, residual, mlpInput, mlpHidden, mlpOutput, hidden: h });
  }
  return { hiddenStates, attentions, steps, h };
}

/** A masked-LM head: dense, activation, LayerNorm, then the decoder (the word embeddings) and its bias. */
function maskedLmHead(h, n, [dense, norm, decoder, bias], t, act, eps) {
  const x = linear(h, n, t(`${dense}.weight`), t(`${dense}.bias`)).map(act);
  const normed = layerNorm(x, n, t(`${norm}.weight`), t(`${norm}.bias`), eps);
  return linear(normed, n, T(decoder), bias);
}

/** RoBERTa from modeling_roberta.py: create_position_ids_from_input_ids, token type 0, BERT's layers, lm_head. */
export function roberta(fixture, ids, options = {}) {
  const { config: c, values, prefix } = fixture;
  const t = (name) => values[`${prefix}${name}`] ?? values[name];
  const n = ids.length;
  const [d, H, eps, pad] = [c.hidden_size, c.num_attention_heads, c.layer_norm_eps, c.pad_token_id];
  // mask = ids != padding_idx; (cumsum(mask) · mask) + padding_idx
  let sum = 0;
  const positionIds = ids.map((id) => {
    const m = id !== pad ? 1 : 0;
    sum += m;
    return sum * m + pad;
  });
  const types = rows(
    t('embeddings.token_type_embeddings.weight'),
    ids.map(() => 0),
  );
  const embedded = add(
    add(rows(t('embeddings.word_embeddings.weight'), ids), types),
    rows(t('embeddings.position_embeddings.weight'), positionIds),
  );
  const h0 = layerNorm(embedded, n, t('embeddings.LayerNorm.weight'), t('embeddings.LayerNorm.bias'), eps);
  const parts = { q: 'attention.self.query', k: 'attention.self.key', v: 'attention.self.value' };
  Object.assign(parts, { o: 'attention.output.dense', norm1: 'attention.output.LayerNorm' });
  Object.assign(parts, { up: 'intermediate.dense', down: 'output.dense', norm2: 'output.LayerNorm' });
  const name = (l, key) => {
    const [part, tensor] = key.split('.');
    return t(`encoder.layer.${l}.${parts[part]}.${tensor}`);
  };
  const act = ACT[c.hidden_act];
  const dims = { layers: c.num_hidden_layers, H, d, eps, act, name };
  const { hiddenStates, attentions, steps, h } = postNormEncoder(h0, n, dims, options);
  const head = ['lm_head.dense', 'lm_head.layer_norm', t('embeddings.word_embeddings.weight'), values['lm_head.bias']];
  const logits = values['lm_head.bias'] ? maskedLmHead(h, n, head, (x) => values[x], ACT.gelu, eps) : null;
  return { attentions, hiddenStates, steps, logits };
}

/** DistilBERT from modeling_distilbert.py: words + positions, LayerNorm (eps 1e-12), q_lin … out_lin, vocab_*. */
export function distilbert(fixture, ids, options = {}) {
  const { config: c, values, prefix } = fixture;
  const t = (name) => values[`${prefix}${name}`] ?? values[name];
  const n = ids.length;
  const [d, H, eps] = [c.dim, c.n_heads, 1e-12];
  const embedded = add(
    rows(t('embeddings.word_embeddings.weight'), ids),
    rows(
      t('embeddings.position_embeddings.weight'),
      ids.map((_, i) => i),
    ),
  );
  const h0 = layerNorm(embedded, n, t('embeddings.LayerNorm.weight'), t('embeddings.LayerNorm.bias'), eps);
  const parts = { q: 'attention.q_lin', k: 'attention.k_lin', v: 'attention.v_lin', o: 'attention.out_lin' };
  Object.assign(parts, { norm1: 'sa_layer_norm', up: 'ffn.lin1', down: 'ffn.lin2', norm2: 'output_layer_norm' });
  const name = (l, key) => {
    const [part, tensor] = key.split('.');
    return t(`transformer.layer.${l}.${parts[part]}.${tensor}`);
  };
  const act = ACT[c.activation];
  const dims = { layers: c.n_layers, H, d, eps, act, name };
  const { hiddenStates, attentions, steps, h } = postNormEncoder(h0, n, dims, options);
  const bias = values['vocab_projector.bias'];
  const head = ['vocab_transform', 'vocab_layer_norm', t('embeddings.word_embeddings.weight'), bias];
  const logits = bias ? maskedLmHead(h, n, head, (x) => values[x], act, eps) : null;
  return { attentions, hiddenStates, steps, logits };
}

/**
 * Phi-3's RoPE from modeling_rope_utils.py: default inv_freq, or longrope's 1 / (ext_factors · base^(2i/dim)) with the
 * long factors when seq_len > original_max_position_embeddings, and its attention factor.
 */
function phi3Rope(c, dk, seqLen) {
  const dim = Math.floor(dk * (c.partial_rotary_factor ?? 1));
  const s = c.rope_scaling;
  if (!s) return { invFreq: referenceInvFreq(c.rope_theta, dim), dim, style: 'half', scale: 1 };
  const original = c.original_max_position_embeddings;
  const factor = s.factor ?? c.max_position_embeddings / original;
  const scale = s.attention_factor ?? (factor <= 1 ? 1 : Math.sqrt(1 + Math.log(factor) / Math.log(original)));
  const ext = seqLen > original ? s.long_factor : s.short_factor;
  const invFreq = [];
  for (let i = 0; i < dim; i += 2) invFreq.push(1 / (ext[i / 2] * c.rope_theta ** (i / dim)));
  return { invFreq, dim, style: 'half', scale };
}

/** Phi-3 from modeling_phi3.py: qkv_proj split [q | k | v], partial RoPE (× attention factor), window, gate_up chunk. */
export function phi3(fixture, ids, { ablate = [], edits = [], hook } = {}) {
  const { config: c, values: t } = fixture;
  const n = ids.length;
  const [d, H, Hkv, eps] = [c.hidden_size, c.num_attention_heads, c.num_key_value_heads, c.rms_norm_eps];
  const [dk, ff] = [d / H, c.intermediate_size];
  const rope = phi3Rope(c, dk, n);
  const window = c.sliding_window;
  const allowed = (i, j) => j <= i && (window === null || i - j < window);
  // q_embed = q_rot·cos·s + rotate_half(q_rot)·sin·s, q_pass as it is
  const rotate = (x, heads) =>
    rotateRows(x, n, heads, dk, rope).map((value, i) => (i % dk < rope.dim ? value * rope.scale : value));
  let h = rows(t['model.embed_tokens.weight'], ids);
  const [hiddenStates, attentions, steps] = [[], [], []];
  for (let l = 0; l < c.num_hidden_layers; l++) {
    const L = (name) => t[`model.layers.${l}.${name}`];
    const E = stepWriter(edits, hook, l, { n, H, Hkv, dk });
    h = E('input', h.slice());
    hiddenStates.push(h);
    const x = E('x', rmsNorm(h, n, L('input_layernorm.weight'), eps));
    const qkv = linear(x, n, L('self_attn.qkv_proj.weight')); // [n, (H + 2·Hkv)·dk]
    const width = (H + 2 * Hkv) * dk;
    const cols = (from, count) =>
      Float64Array.from({ length: n * count }, (_, i) => qkv[Math.floor(i / count) * width + from + (i % count)]);
    const q = E('q', cols(0, H * dk));
    const k = E('k', cols(H * dk, Hkv * dk));
    const v = E('v', cols((H + Hkv) * dk, Hkv * dk));
    const [qRotated, kRotated] = [E('qRotated', rotate(q, H)), E('kRotated', rotate(k, Hkv))];
    const attention = edits.length || hook ? attendEdited : attend;
    const { weights, context } = attention(qRotated, kRotated, v, n, H, Hkv, dk, allowed, ablatedIn(ablate, l), E);
    attentions.push(weights);
    const output = E('output', linear(context, n, L('self_attn.o_proj.weight')));
    const residual = E('residual', add(h, output));
    const mlpInput = E('mlpInput', rmsNorm(residual, n, L('post_attention_layernorm.weight'), eps));
    const upStates = linear(mlpInput, n, L('mlp.gate_up_proj.weight')); // [n, 2·ff]: gate | up
    const mlpHidden = E(
      'mlpHidden',
      Float64Array.from({ length: n * ff }, (_, i) => {
        const [r, j] = [Math.floor(i / ff), i % ff];
        return upStates[r * 2 * ff + ff + j] * ACT.silu(upStates[r * 2 * ff + j]);
      }),
    );
    const mlpOutput = E('mlpOutput', linear(mlpHidden, n, L('mlp.down_proj.weight')));
    h = E('hidden', add(residual, mlpOutput));
    steps.push({ x, q, k, v, qRotated, kRotated, concat: context, output, residual, mlpInput, mlpHidden, mlpOutput });
    steps[l].hidden = h;
  }
  h = rmsNorm(h, n, t['model.norm.weight'], eps);
  hiddenStates.push(h);
  const head = c.tie_word_embeddings ? t['model.embed_tokens.weight'] : t['lm_head.weight'];
  return { attentions, hiddenStates, steps, logits: linear(h, n, T(head)) };
}
