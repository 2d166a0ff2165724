// model.run's `edits` in the float64 reference (reference.js): an editor that writes a layer's edits into the
// reference's own arrays, and its attention computed one step at a time, so that an edit of any step lands between
// them. Written from what each step means (docs/model.md), not from src/core/model/edits.cc.

/**
 * The writer of layer l's edits: edit(step, array) writes every edit of `step` into `array` (the reference's layout:
 * [n, heads·d_k] for q, k, v and their rotations and for the heads' outputs side by side, [H, n, n] for the scores
 * and weights, [n, width] for the rest) and returns it.
 */
export function editorFor(edits = [], l, { n, H, Hkv, dk }) {
  const mine = edits.filter((e) => e.layer === l);
  const at = {
    perHead: (e) => e.row * H * dk + e.head * dk + e.col,
    perKvHead: (e) => e.row * Hkv * dk + Math.floor(e.head / (H / Hkv)) * dk + e.col,
    square: (e) => (e.head * n + e.row) * n + e.col,
  };
  const layouts = {
    q: at.perHead,
    qRotated: at.perHead,
    headOutput: at.perHead,
    k: at.perKvHead,
    kRotated: at.perKvHead,
    v: at.perKvHead,
    rawScores: at.square,
    scaledScores: at.square,
    scores: at.square,
    weights: at.square,
  };
  return (step, array) => {
    for (const e of mine) {
      if (e.step !== step) continue;
      const index = layouts[step] ? layouts[step](e) : e.row * (array.length / n) + e.col;
      array[index] = e.value;
    }
    return array;
  };
}

/**
 * Attention of [n, H·dk] q and [n, Hkv·dk] k, v one step at a time, with `edit` (editorFor) after each: q·kᵀ, · scale
 * (1/√dk unless given), the softcap (Gemma 2's tanh(s / c)·c, when given), the mask (`allowed(i, j)` false: −∞), the
 * softmax of each row (all −∞: 0), each head's weights·v (ablated: 0).
 * @returns {{ weights: Float64Array [H, n, n], context: Float64Array [n, H·dk] }}
 */
export function attendEdited(q, k, v, n, H, Hkv, dk, allowed, ablated, edit, { scale, softcap } = {}) {
  const g = (h) => Math.floor(h / (H / Hkv));
  const raw = new Float64Array(H * n * n);
  for (let h = 0; h < H; h++) {
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        let dot = 0;
        for (let c = 0; c < dk; c++) dot += q[i * H * dk + h * dk + c] * k[j * Hkv * dk + g(h) * dk + c];
        raw[(h * n + i) * n + j] = dot;
      }
    }
  }
  edit('rawScores', raw);
  const scaled = edit(
    'scaledScores',
    raw.map((x) => (scale === undefined ? x / Math.sqrt(dk) : x * scale)),
  );
  const cap = (x) => (softcap ? Math.tanh(x / softcap) * softcap : x);
  const scores = edit(
    'scores',
    scaled.map((x, at) => (allowed(Math.floor(at / n) % n, at % n) ? cap(x) : -Infinity)),
  );
  const weights = new Float64Array(H * n * n);
  for (let row = 0; row < H * n; row++) {
    const s = scores.subarray(row * n, (row + 1) * n);
    const max = Math.max(...s);
    if (max === -Infinity) continue;
    const sum = s.reduce((a, x) => a + Math.exp(x - max), 0);
    s.forEach((x, j) => (weights[row * n + j] = Math.exp(x - max) / sum));
  }
  edit('weights', weights);
  const context = new Float64Array(n * H * dk);
  for (let h = 0; h < H; h++) {
    if (ablated.has(h)) continue;
    for (let i = 0; i < n; i++) {
      for (let j = 0; j < n; j++) {
        const w = weights[(h * n + i) * n + j];
        for (let c = 0; c < dk; c++) context[i * H * dk + h * dk + c] += w * v[j * Hkv * dk + g(h) * dk + c];
      }
    }
  }
  edit('headOutput', context);
  return { weights, context: edit('concat', context) };
}

const PROJECTIONS = { wq: 0, wk: 1, wv: 2 };

/**
 * A copy of a fixture whose stored weights carry the edits of wq, wk, wv and wo ([in, out], as attentionWeightsFrom
 * gives them), each written into its family's own tensor: GPT-2's Conv1D c_attn [d, 3·d] (q | k | v) and c_proj
 * [in, out]; BERT's and LLaMA's nn.Linear [out, in] (query/key/value or q/k/v_proj, and the output projection).
 */
export function withWeightEdits(fixture, edits = []) {
  const mine = edits.filter((e) => e.step in PROJECTIONS || e.step === 'wo');
  if (!mine.length) return fixture;
  const { config: c, prefix = '' } = fixture;
  const values = { ...fixture.values };
  const named = (name) => (`${prefix}${name}` in values ? `${prefix}${name}` : name);
  for (const { layer: l, step, row, col, value } of mine) {
    let name;
    let index;
    if (c.model_type === 'gpt2') {
      name = named(`h.${l}.attn.${step === 'wo' ? 'c_proj' : 'c_attn'}.weight`);
      const [, out] = values[name].shape;
      index = row * out + (step === 'wo' ? 0 : PROJECTIONS[step] * c.n_embd) + col;
    } else if (c.model_type === 'gpt_neox') {
      // query_key_value [3·d, d]: rows by head, q_h | k_h | v_h of d_k each; dense [d, d]
      const at = `gpt_neox.layers.${l}.attention.`;
      name = `${at}${step === 'wo' ? 'dense' : 'query_key_value'}.weight`;
      const dk = c.hidden_size / c.num_attention_heads;
      const out = step === 'wo' ? col : Math.floor(col / dk) * 3 * dk + PROJECTIONS[step] * dk + (col % dk);
      index = out * c.hidden_size + row;
    } else if (c.model_type === 'phi3') {
      // qkv_proj [(H + 2·Hkv)·dk, d]: rows q | k | v; o_proj [d, H·dk]
      const at = `model.layers.${l}.self_attn.`;
      name = `${at}${step === 'wo' ? 'o_proj' : 'qkv_proj'}.weight`;
      const [H, Hkv] = [c.num_attention_heads, c.num_key_value_heads];
      const dk = c.hidden_size / H;
      const out = step === 'wo' ? col : [0, H * dk, (H + Hkv) * dk][PROJECTIONS[step]] + col;
      index = out * values[name].shape[1] + row;
    } else if (c.model_type === 'distilbert') {
      const part = step === 'wo' ? 'out_lin' : ['q_lin', 'k_lin', 'v_lin'][PROJECTIONS[step]];
      name = named(`transformer.layer.${l}.attention.${part}.weight`);
      index = col * values[name].shape[1] + row;
    } else {
      const bert = ['bert', 'roberta', 'xlm-roberta'].includes(c.model_type);
      const parts = bert ? ['query', 'key', 'value'] : ['q_proj', 'k_proj', 'v_proj'];
      const proj = step === 'wo' ? (bert ? 'output.dense' : 'o_proj') : parts[PROJECTIONS[step]];
      name = bert
        ? named(`encoder.layer.${l}.attention.${step === 'wo' ? '' : 'self.'}${proj}.weight`)
        : `model.layers.${l}.self_attn.${proj}.weight`;
      const [, inner] = values[name].shape;
      index = col * inner + row;
    }
    if (values[name] === fixture.values[name]) values[name] = { ...values[name], data: values[name].data.slice() };
    values[name].data[index] = value;
  }
  return { ...fixture, values };
}
