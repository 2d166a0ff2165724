// The float64 reference forwards of the families added since GPT-2, BERT and LLaMA (reference.js runs them by
// model_type), each written from its Hugging Face modeling file and not from the code under test.
import { attendEdited } from './edit-reference.js';
import { referenceInvFreq } from './rope-reference.js';
import { ACT, T, ablatedIn, add, attend, layerNorm, linear, rotateRows, rows, stepWriter } from './reference-ops.js';

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
