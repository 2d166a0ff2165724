// A float64 forward of each family, written from the Hugging Face modeling code (modeling_gpt2.py, modeling_bert.py,
// modeling_llama.py with Mistral's sliding window and Qwen2's biases, modeling_gpt_neox.py) and not from the code under test: its own
// tensor names, matrix products, norms and attention, over the values a fixture stored (fixtures.js). Returns what
// transformers returns with output_attentions and output_hidden_states, without the batch dimension.
import { attendEdited } from './edit-reference.js';
import { referenceInvFreq } from './rope-reference.js';
import {
  ACT,
  T,
  VALUES,
  WEIGHTS,
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
import { distilbert, gptNeox, phi3, roberta } from './reference-families.js';
import { gemma, olmo2 } from './reference-gemma.js';

export { ACT, VALUES, WEIGHTS, layerNorm, linear, rmsNorm };

/** x [n, in] · W for W [in, out] (GPT-2's Conv1D), + b. */
function conv1d(x, n, W, b) {
  const [inner, out] = W.shape;
  const y = new Float64Array(n * out);
  for (let i = 0; i < n; i++) {
    for (let o = 0; o < out; o++) {
      let sum = b.data[o];
      for (let e = 0; e < inner; e++) sum += x[i * inner + e] * W.data[e * out + o];
      y[i * out + o] = sum;
    }
  }
  return y;
}

function gpt2(fixture, ids, { ablate = [], edits = [], hook } = {}) {
  const { config: c, values, prefix } = fixture;
  const t = (name) => values[`${prefix}${name}`];
  const n = ids.length;
  const [d, H] = [c.n_embd, c.n_head];
  const eps = c.layer_norm_epsilon;
  let h = add(rows(t('wte.weight'), ids), t('wpe.weight').data.subarray(0, n * d));
  const [hiddenStates, attentions, steps] = [[], [], []];
  for (let l = 0; l < c.n_layer; l++) {
    const L = (name) => t(`h.${l}.${name}`);
    const E = stepWriter(edits, hook, l, { n, H, Hkv: H, dk: d / H });
    h = E('input', h.slice());
    hiddenStates.push(h);
    const x = E('x', layerNorm(h, n, L('ln_1.weight'), L('ln_1.bias'), eps));
    const qkv = conv1d(x, n, L('attn.c_attn.weight'), L('attn.c_attn.bias')); // [n, 3d]: q | k | v
    const part = (p) =>
      Float64Array.from({ length: n * d }, (_, i) => qkv[Math.floor(i / d) * 3 * d + p * d + (i % d)]);
    const [q, k, v] = [E('q', part(0)), E('k', part(1)), E('v', part(2))];
    const attention = edits.length || hook ? attendEdited : attend;
    const { weights, context } = attention(q, k, v, n, H, H, d / H, (i, j) => j <= i, ablatedIn(ablate, l), E);
    attentions.push(weights);
    const output = E('output', conv1d(context, n, L('attn.c_proj.weight'), L('attn.c_proj.bias')));
    const residual = E('residual', add(h, output));
    const mlpInput = E('mlpInput', layerNorm(residual, n, L('ln_2.weight'), L('ln_2.bias'), eps));
    const mlpHidden = E(
      'mlpHidden',
      conv1d(mlpInput, n, L('mlp.c_fc.weight'), L('mlp.c_fc.bias')).map(ACT[c.activation_function]),
    );
    const mlpOutput = E('mlpOutput', conv1d(mlpHidden, n, L('mlp.c_proj.weight'), L('mlp.c_proj.bias')));
    h = E('hidden', add(residual, mlpOutput));
    steps.push({ x, q, k, v, concat: context, output, residual, mlpInput, mlpHidden, mlpOutput, hidden: h });
  }
  h = layerNorm(h, n, t('ln_f.weight'), t('ln_f.bias'), eps);
  hiddenStates.push(h);
  return { attentions, hiddenStates, steps, logits: linear(h, n, T(t('wte.weight'))) };
}

function bert(fixture, ids, { tokenTypeIds: types = ids.map(() => 0), ablate = [], edits = [], hook } = {}) {
  const { config: c, values, prefix } = fixture;
  const t = (name) => values[`${prefix}${name}`] ?? values[name];
  const ln = (at) => [
    t(`${at}LayerNorm.weight`) ?? t(`${at}LayerNorm.gamma`),
    t(`${at}LayerNorm.bias`) ?? t(`${at}LayerNorm.beta`),
  ];
  const n = ids.length;
  const [d, H] = [c.hidden_size, c.num_attention_heads];
  const eps = c.layer_norm_eps;
  const word = rows(t('embeddings.word_embeddings.weight'), ids);
  const type = rows(t('embeddings.token_type_embeddings.weight'), types);
  const position = t('embeddings.position_embeddings.weight').data.subarray(0, n * d);
  let h = layerNorm(add(add(word, type), position), n, ...ln('embeddings.'), eps);
  const [hiddenStates, attentions, steps] = [[h], [], []];
  for (let l = 0; l < c.num_hidden_layers; l++) {
    const at = `encoder.layer.${l}.`;
    const L = (name) => t(`${at}${name}`);
    const E = stepWriter(edits, hook, l, { n, H, Hkv: H, dk: d / H });
    h = E('input', h.slice());
    hiddenStates[l] = h;
    const x = E('x', h.slice()); // attention's input: an edit of it reaches q, k and v, not the residual
    const proj = (part, step) =>
      E(step, linear(x, n, L(`attention.self.${part}.weight`), L(`attention.self.${part}.bias`)));
    const [q, k, v] = [proj('query', 'q'), proj('key', 'k'), proj('value', 'v')];
    const attention = edits.length || hook ? attendEdited : attend;
    const { weights, context } = attention(q, k, v, n, H, H, d / H, () => true, ablatedIn(ablate, l), E);
    attentions.push(weights);
    const output = E(
      'output',
      linear(context, n, L('attention.output.dense.weight'), L('attention.output.dense.bias')),
    );
    const residual = E('residual', add(output, h));
    const mlpInput = E('mlpInput', layerNorm(residual, n, ...ln(`${at}attention.output.`), eps));
    const mlpHidden = E(
      'mlpHidden',
      linear(mlpInput, n, L('intermediate.dense.weight'), L('intermediate.dense.bias')).map(ACT[c.hidden_act]),
    );
    const mlpOutput = E('mlpOutput', linear(mlpHidden, n, L('output.dense.weight'), L('output.dense.bias')));
    h = E('hidden', layerNorm(add(mlpOutput, mlpInput), n, ...ln(`${at}output.`), eps));
    hiddenStates.push(h);
    steps.push({ x, q, k, v, concat: context, output, residual, mlpInput, mlpHidden, mlpOutput, hidden: h });
  }
  if (!values['cls.predictions.bias']) return { attentions, hiddenStates, steps, logits: null };
  const transform = linear(
    h,
    n,
    values['cls.predictions.transform.dense.weight'],
    values['cls.predictions.transform.dense.bias'],
  );
  const normed = layerNorm(transform.map(ACT[c.hidden_act]), n, ...ln('cls.predictions.transform.'), eps);
  const logits = linear(normed, n, T(t('embeddings.word_embeddings.weight')), values['cls.predictions.bias']);
  return { attentions, hiddenStates, steps, logits };
}

/** LLaMA's inverse frequencies with rope_scaling (linear, llama3), from modeling_rope_utils. */
function llamaInvFreq(c, dim) {
  const base = referenceInvFreq(c.rope_theta, dim);
  const s = c.rope_scaling;
  const type = s?.rope_type ?? s?.type ?? 'default';
  if (type === 'linear') return base.map((f) => f / s.factor);
  if (type !== 'llama3') return base;
  const [low, high, old] = [
    s.original_max_position_embeddings / s.low_freq_factor,
    s.original_max_position_embeddings / s.high_freq_factor,
    s.original_max_position_embeddings,
  ];
  return base.map((f) => {
    const wavelen = (2 * Math.PI) / f;
    const scaled = wavelen > low ? f / s.factor : f;
    const smooth = (old / wavelen - s.low_freq_factor) / (s.high_freq_factor - s.low_freq_factor);
    const medium = !(wavelen < high) && !(wavelen > low);
    return medium ? ((1 - smooth) * scaled) / s.factor + smooth * scaled : scaled;
  });
}

function llama(fixture, ids, { ablate = [], edits = [], hook } = {}) {
  const { config: c, values } = fixture;
  const t = (name) => values[name];
  const n = ids.length;
  const [d, H, Hkv] = [c.hidden_size, c.num_attention_heads, c.num_key_value_heads];
  const dk = c.head_dim ?? d / H;
  const eps = c.rms_norm_eps;
  const rope = { invFreq: llamaInvFreq(c, dk), dim: dk, style: 'half' };
  const window = c.model_type === 'mistral' ? c.sliding_window : c.use_sliding_window ? c.sliding_window : null;
  const allowed = (i, j) => j <= i && (window === null || window === undefined || i - j < window);
  const rotate = (x, heads) => rotateRows(x, n, heads, dk, rope);
  let h = rows(t('model.embed_tokens.weight'), ids);
  const [hiddenStates, attentions, steps] = [[], [], []];
  for (let l = 0; l < c.num_hidden_layers; l++) {
    const L = (name) => t(`model.layers.${l}.${name}`);
    const E = stepWriter(edits, hook, l, { n, H, Hkv, dk });
    h = E('input', h.slice());
    hiddenStates.push(h);
    const x = E('x', rmsNorm(h, n, L('input_layernorm.weight'), eps));
    // Qwen3: q_norm and k_norm, an RMSNorm of each head's row (n·heads rows of dk), before RoPE
    const headNorm = (p, y, heads) =>
      L(`self_attn.${p}_norm.weight`) ? rmsNorm(y, n * heads, L(`self_attn.${p}_norm.weight`), eps) : y;
    const proj = (p) =>
      E(
        p,
        headNorm(p, linear(x, n, L(`self_attn.${p}_proj.weight`), L(`self_attn.${p}_proj.bias`)), p === 'q' ? H : Hkv),
      );
    const [q, k, v] = [proj('q'), proj('k'), proj('v')];
    const [qRotated, kRotated] = [E('qRotated', rotate(q, H)), E('kRotated', rotate(k, Hkv))];
    const attention = edits.length || hook ? attendEdited : attend;
    const { weights, context } = attention(qRotated, kRotated, v, n, H, Hkv, dk, allowed, ablatedIn(ablate, l), E);
    attentions.push(weights);
    const output = E('output', linear(context, n, L('self_attn.o_proj.weight')));
    const residual = E('residual', add(h, output));
    const mlpInput = E('mlpInput', rmsNorm(residual, n, L('post_attention_layernorm.weight'), eps));
    const gate = linear(mlpInput, n, L('mlp.gate_proj.weight')).map(ACT.silu);
    const up = linear(mlpInput, n, L('mlp.up_proj.weight'));
    const mlpHidden = E(
      'mlpHidden',
      gate.map((g, i) => g * up[i]),
    );
    const mlpOutput = E('mlpOutput', linear(mlpHidden, n, L('mlp.down_proj.weight')));
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
  const head = c.tie_word_embeddings ? t('model.embed_tokens.weight') : t('lm_head.weight');
  return { attentions, hiddenStates, steps, logits: linear(h, n, T(head)) };
}

/**
 * The reference forward of a fixture (fixtures.js) on token ids: { attentions [H, n, n] per layer, hiddenStates
 * [n, d] (num_layers + 1), logits [n, V] or null, steps per layer: { x, q, k, v, qRotated?, kRotated? ([n, heads·d_k],
 * heads side by side), concat, output, residual, mlpInput, mlpHidden, mlpOutput, hidden } }.
 * @param {{ tokenTypeIds?: number[], ablate?: [number, number][], edits?: object[],
 *   hook?: (layer: number, step: string, array: Float64Array, dims: { n, H, Hkv, dk }) => void }} [options]
 *   edits: as model.run's (edit-reference.js). hook: called with each step's array of each layer right after the
 *   forward computes it (and after the edits), in the order the forward computes them, which it may change in place:
 *   'input' (the residual stream entering the layer, hiddenStates[layer]) first, then the steps above and, inside
 *   attention, rawScores, scaledScores, scores, weights and headOutput (edit-reference.js's attendEdited and layouts)
 */
export function referenceForward(fixture, ids, options = {}) {
  const type = fixture.config.model_type;
  if (type === 'gpt2') return gpt2(fixture, ids, options);
  if (type === 'bert') return bert(fixture, ids, options);
  if (type === 'gpt_neox') return gptNeox(fixture, ids, options);
  if (type === 'roberta' || type === 'xlm-roberta') return roberta(fixture, ids, options);
  if (type === 'distilbert') return distilbert(fixture, ids, options);
  if (type === 'phi3') return phi3(fixture, ids, options);
  if (type === 'gemma' || type === 'gemma2' || type === 'gemma3_text') return gemma(fixture, ids, options);
  if (type === 'olmo2') return olmo2(fixture, ids, options);
  return llama(fixture, ids, options);
}
