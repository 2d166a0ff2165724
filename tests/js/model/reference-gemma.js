// The float64 reference forwards of Gemma (1, 2 and 3's text model) and OLMo-2, written from transformers'
// modeling_gemma.py, modeling_gemma2.py, modeling_gemma3.py and modeling_olmo2.py, not from the code under test.
import { attendEdited } from './edit-reference.js';
import { referenceInvFreq } from './rope-reference.js';
import { ACT, T, ablatedIn, add, attend, linear, rmsNorm, rotateRows, rows, stepWriter } from './reference-ops.js';

/** Gemma's RMSNorm of the rows of x [count, d]: x / sqrt(mean(x²) + eps) · (1 + w). */
function gemmaNorm(x, count, w, eps) {
  return rmsNorm(x, count, { data: w.data.map((v) => 1 + v), shape: w.shape }, eps);
}

/** A float32 value rounded to bfloat16 (nearest, ties to even) or float16's 10 bits of mantissa (normal values). */
function toDtype(x, dtype) {
  const f = Math.fround(x);
  if (dtype === 'bfloat16') {
    const u = new Uint32Array(new Float32Array([f]).buffer)[0];
    const bits = ((u + 0x7fff + ((u >>> 16) & 1)) >>> 16) << 16;
    return new Float32Array(new Uint32Array([bits >>> 0]).buffer)[0];
  }
  if (dtype === 'float16') {
    const step = 2 ** (Math.floor(Math.log2(f)) - 10);
    const m = f / step;
    const floor = Math.floor(m);
    return (m - floor > 0.5 || (m - floor === 0.5 && floor % 2) ? floor + 1 : floor) * step;
  }
  return f;
}

/** Attention with Gemma's scale and softcap (reference-ops.js), through attendEdited with edits or a hook. */
function attention(q, k, v, n, H, Hkv, dk, allowed, ablated, E, options, edited) {
  if (edited) return attendEdited(q, k, v, n, H, Hkv, dk, allowed, ablated, E, options);
  return attend(q, k, v, n, H, Hkv, dk, allowed, ablated, options);
}

/** Whether layer l of a Gemma 2 or 3 config slides: layer_types, else Gemma 2's even layers, Gemma 3's pattern. */
function slides(c, l) {
  if (c.layer_types) return c.layer_types[l] === 'sliding_attention';
  if (c.model_type === 'gemma2') return l % 2 === 0; // is_sliding = not bool(layer_idx % 2)
  return (l + 1) % (c.sliding_window_pattern ?? 6) !== 0;
}

/** Gemma 1, 2 and 3 (text) from their modeling files. */
export function gemma(fixture, ids, { ablate = [], edits = [], hook } = {}) {
  const { config: c, values } = fixture;
  const t = (name) => values[name];
  const version = { gemma: 1, gemma2: 2, gemma3_text: 3 }[c.model_type];
  const [n, d, H, Hkv, dk, eps] = [
    ids.length,
    c.hidden_size,
    c.num_attention_heads,
    c.num_key_value_heads,
    c.head_dim,
    c.rms_norm_eps,
  ];
  const scale = version === 1 ? dk ** -0.5 : c.query_pre_attn_scalar ** -0.5;
  const softcap = version === 1 ? null : c.attn_logit_softcapping;
  // normalizer = torch.tensor(hidden_size ** 0.5, dtype=hidden_states.dtype)
  const normalizer = toDtype(Math.sqrt(d), c.torch_dtype);
  const embed = t('model.embed_tokens.weight');
  let h = rows(embed, ids).map((x) => x * normalizer);
  const [hiddenStates, attentions, steps] = [[], [], []];
  for (let l = 0; l < c.num_hidden_layers; l++) {
    const L = (name) => t(`model.layers.${l}.${name}`);
    const E = stepWriter(edits, hook, l, { n, H, Hkv, dk });
    h = E('input', h.slice());
    hiddenStates.push(h);
    const sliding = version > 1 && slides(c, l);
    const window = sliding ? c.sliding_window : null;
    // Gemma 3's sliding layers turn by rope_local_base_freq, the others by rope_theta
    const base = version === 3 && sliding ? c.rope_local_base_freq : c.rope_theta;
    const rope = { invFreq: referenceInvFreq(base, dk), dim: dk, style: 'half' };
    const x = E('x', gemmaNorm(h, n, L('input_layernorm.weight'), eps));
    const headNorm = (p, y, heads) =>
      version === 3 && p !== 'v' ? gemmaNorm(y, n * heads, L(`self_attn.${p}_norm.weight`), eps) : y;
    const proj = (p, heads) => E(p, headNorm(p, linear(x, n, L(`self_attn.${p}_proj.weight`)), heads));
    const [q, k, v] = [proj('q', H), proj('k', Hkv), proj('v', Hkv)];
    const [qRotated, kRotated] = [
      E('qRotated', rotateRows(q, n, H, dk, rope)),
      E('kRotated', rotateRows(k, n, Hkv, dk, rope)),
    ];
    // causal, and with a window: kv_idx > q_idx − sliding_window
    const allowed = (i, j) => j <= i && (window === null || i - j < window);
    const edited = edits.length > 0 || hook !== undefined;
    const { weights, context } = attention(
      qRotated,
      kRotated,
      v,
      n,
      H,
      Hkv,
      dk,
      allowed,
      ablatedIn(ablate, l),
      E,
      { scale, softcap },
      edited,
    );
    attentions.push(weights);
    let attnOut = linear(context, n, L('self_attn.o_proj.weight'));
    if (version > 1) attnOut = gemmaNorm(attnOut, n, L('post_attention_layernorm.weight'), eps);
    const output = E('output', attnOut);
    const residual = E('residual', add(h, output));
    const preMlp = version === 1 ? 'post_attention_layernorm.weight' : 'pre_feedforward_layernorm.weight';
    const mlpInput = E('mlpInput', gemmaNorm(residual, n, L(preMlp), eps));
    const gate = linear(mlpInput, n, L('mlp.gate_proj.weight')).map(ACT.gelu_new); // gelu_pytorch_tanh
    const up = linear(mlpInput, n, L('mlp.up_proj.weight'));
    const mlpHidden = E(
      'mlpHidden',
      gate.map((g, i) => g * up[i]),
    );
    let down = linear(mlpHidden, n, L('mlp.down_proj.weight'));
    if (version > 1) down = gemmaNorm(down, n, L('post_feedforward_layernorm.weight'), eps);
    const mlpOutput = E('mlpOutput', down);
    h = E('hidden', add(residual, mlpOutput));
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
  h = gemmaNorm(h, n, t('model.norm.weight'), eps);
  hiddenStates.push(h);
  let logits = linear(h, n, T(embed)); // tied
  const cap = version === 1 ? null : c.final_logit_softcapping;
  const beforeCap = logits;
  if (cap) logits = logits.map((x) => Math.tanh(x / cap) * cap);
  return { attentions, hiddenStates, steps, logits, beforeCap };
}

/** OLMo-2 from modeling_olmo2.py: q_norm and k_norm over the whole projection, norms after each half only. */
export function olmo2(fixture, ids, { ablate = [], edits = [], hook } = {}) {
  const { config: c, values } = fixture;
  const t = (name) => values[name];
  const [n, d, H, Hkv, eps] = [ids.length, c.hidden_size, c.num_attention_heads, c.num_key_value_heads, c.rms_norm_eps];
  const dk = d / H;
  const rope = { invFreq: referenceInvFreq(c.rope_theta, dk), dim: dk, style: 'half' };
  let h = rows(t('model.embed_tokens.weight'), ids);
  const [hiddenStates, attentions, steps] = [[], [], []];
  for (let l = 0; l < c.num_hidden_layers; l++) {
    const L = (name) => t(`model.layers.${l}.${name}`);
    const E = stepWriter(edits, hook, l, { n, H, Hkv, dk });
    h = E('input', h.slice());
    hiddenStates.push(h);
    const x = E('x', h.slice()); // no norm before attention
    // query_states = self.q_norm(self.q_proj(hidden_states)): one RMSNorm over H·dk (H_kv·dk for k)
    const proj = (p) => linear(x, n, L(`self_attn.${p}_proj.weight`));
    const q = E('q', rmsNorm(proj('q'), n, L('self_attn.q_norm.weight'), eps));
    const k = E('k', rmsNorm(proj('k'), n, L('self_attn.k_norm.weight'), eps));
    const v = E('v', proj('v'));
    const [qRotated, kRotated] = [
      E('qRotated', rotateRows(q, n, H, dk, rope)),
      E('kRotated', rotateRows(k, n, Hkv, dk, rope)),
    ];
    const edited = edits.length > 0 || hook !== undefined;
    const options = { scale: dk ** -0.5, softcap: null };
    const args = [qRotated, kRotated, v, n, H, Hkv, dk, (i, j) => j <= i, ablatedIn(ablate, l), E];
    const { weights, context } = attention(...args, options, edited);
    attentions.push(weights);
    const output = E(
      'output',
      rmsNorm(linear(context, n, L('self_attn.o_proj.weight')), n, L('post_attention_layernorm.weight'), eps),
    );
    const residual = E('residual', add(h, output));
    const mlpInput = E('mlpInput', residual.slice());
    const gate = linear(mlpInput, n, L('mlp.gate_proj.weight')).map(ACT.silu);
    const up = linear(mlpInput, n, L('mlp.up_proj.weight'));
    const mlpHidden = E(
      'mlpHidden',
      gate.map((g, i) => g * up[i]),
    );
    const mlpOutput = E(
      'mlpOutput',
      rmsNorm(linear(mlpHidden, n, L('mlp.down_proj.weight')), n, L('post_feedforward_layernorm.weight'), eps),
    );
    h = E('hidden', add(residual, mlpOutput));
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
  h = rmsNorm(h, n, t('model.norm.weight'), eps);
  hiddenStates.push(h);
  return { attentions, hiddenStates, steps, logits: linear(h, n, T(t('lm_head.weight'))) };
}
