// A float64 reference of issue 36's instruments, written from their definitions and not from the code under test,
// over the fixtures' stored values (fixtures.js) and the float64 forward (reference.js, from transformers'
// modeling_gpt2.py, modeling_bert.py and modeling_llama.py). Each follows, by name:
//   referenceUnembed     the logit lens: the final norm (GPT-2's ln_f LayerNorm; LLaMA's and Qwen2's model.norm
//                        RMSNorm) then the LM head (GPT-2's tied wte; LLaMA's lm_head, or embed_tokens when tied),
//                        as GPT2LMHeadModel / LlamaForCausalLM apply them to the last hidden state; BERT: its MLM
//                        head (cls.predictions: dense, activation, LayerNorm, decoder + bias; `norm` does not apply);
//   referenceHeadResult  TransformerLens's hook_result (ActivationCache.compute_head_results): a head's output z
//                        [n, d_k] times its rows of W_O ([d_k, d_model], W_O as [in, out]), no bias;
//   referenceAttribute   direct logit attribution: TransformerLens's decompose_resid / stack_head_results with
//                        apply_ln_to_stack at the unembed (the final norm's scale frozen at its value on the actual
//                        residual) and logit_attrs, with the final norm's weight folded into the direction as
//                        fold_ln folds it into W_U: each component c contributes ((c − mean(c)) / s) · (γ ⊙ u)
//                        (LayerNorm; s = sqrt(var(x) + eps)) or (c / s) · (γ ⊙ u) (RMSNorm; s = sqrt(mean(x²) + eps)),
//                        x the final residual at `position`, u the LM head's row of a (minus row b); the norm's bias
//                        gives finalBias = β · u (plus the LM head's bias of a − b where one exists);
//   referenceHeadScores  TransformerLens's head_detector.detect_head with error_measure "mul" (previous token: the
//                        sub-diagonal; duplicate token: earlier positions of the same id; induction: the duplicate
//                        pattern shifted one column right, column 0 cleared; score sum(A ⊙ P) / sum(A) after
//                        exclude_bos clears column 0 and exclude_current_token the diagonal; averaged over the
//                        sequences). One difference: detect_head on a list of sequences drops exclude_bos and
//                        exclude_current_token (its recursive call does not pass them); here they apply to each;
//   referenceLoss        TransformerLens's lm_cross_entropy_loss (as transformers' causal LM loss, unreduced): token
//                        i's loss is −log softmax(logits[i])[ids[i + 1]], n − 1 of them, and their mean;
//   referencePatch, referencePatchSweep, referenceCapture, referenceAblate: patch-reference.js.
import { ACT, layerNorm, linear, referenceForward, rmsNorm } from './reference.js';

export { referenceAblate, referenceCapture, referencePatch, referencePatchSweep } from './patch-reference.js';
export { logitMetric } from './patch-reference.js';

/**
 * A fixture's tensors ({ data, shape }) that the instruments read: the final norm ({ kind: 'layer' | 'rms', weight,
 * bias, eps }), the LM head ({ W [V, d], bias }), the embeddings of ids ([n][d]: GPT-2's token + position rows,
 * LLaMA's token rows) and W_O of layer l ({ at(i, o): W_O[i][o] as [H·d_k, d_model] (in, out), bias }).
 */
function parts(fixture) {
  const { config: c, values, prefix = '' } = fixture;
  const t = (name) => values[`${prefix}${name}`] ?? values[name];
  const rowsOf = (table, ids, d) => ids.map((id) => Array.from(table.data.subarray(id * d, (id + 1) * d)));
  if (c.model_type === 'bert') return { d: c.hidden_size, bert: true, t };
  if (c.model_type === 'gpt2') {
    const d = c.n_embd;
    const wpe = t('wpe.weight').data;
    return {
      d,
      norm: { kind: 'layer', weight: t('ln_f.weight'), bias: t('ln_f.bias'), eps: c.layer_norm_epsilon },
      head: { W: t('wte.weight'), bias: undefined },
      embeddings: (ids) => rowsOf(t('wte.weight'), ids, d).map((row, i) => row.map((x, e) => x + wpe[i * d + e])),
      wo: (l) => {
        const W = t(`h.${l}.attn.c_proj.weight`).data; // Conv1D [in, out]
        return { at: (i, o) => W[i * d + o], bias: t(`h.${l}.attn.c_proj.bias`) };
      },
    };
  }
  const d = c.hidden_size;
  return {
    d,
    norm: { kind: 'rms', weight: t('model.norm.weight'), bias: undefined, eps: c.rms_norm_eps },
    head: { W: c.tie_word_embeddings ? t('model.embed_tokens.weight') : t('lm_head.weight'), bias: t('lm_head.bias') },
    embeddings: (ids) => rowsOf(t('model.embed_tokens.weight'), ids, d),
    wo: (l) => {
      const W = t(`model.layers.${l}.self_attn.o_proj.weight`); // nn.Linear [out, in]
      const inner = W.shape[1];
      return { at: (i, o) => W.data[o * inner + i], bias: t(`model.layers.${l}.self_attn.o_proj.bias`) };
    },
  };
}

/** Hidden states as flat rows of d: nested arrays [n][d], { data, shape: [n, d] }, or flat data. */
function flatRows(hidden) {
  if (Array.isArray(hidden)) return Float64Array.from(hidden.flatMap((row) => Array.from(row)));
  return Float64Array.from(hidden.data ?? hidden);
}

/**
 * The logit lens: rows of the residual stream [n, d_model] (nested arrays, { data, shape } or flat data) through
 * the final norm (when `norm`, the default) and the LM head, as reference.js's forward applies them to its last
 * hidden state. BERT: its MLM head (dense, activation, LayerNorm, decoder + bias; `norm` does not apply).
 * @returns {Float64Array} logits [n, V]
 */
export function referenceUnembed(fixture, hidden, { norm = true } = {}) {
  const p = parts(fixture);
  const { config: c } = fixture;
  const x = flatRows(hidden);
  const n = x.length / p.d;
  if (p.bert) {
    const t = (name) => fixture.values[name];
    const ln = (name) => t(`cls.predictions.transform.LayerNorm.${name}`);
    const dense = linear(x, n, t('cls.predictions.transform.dense.weight'), t('cls.predictions.transform.dense.bias'));
    const normed = layerNorm(
      dense.map(ACT[c.hidden_act]),
      n,
      ln('weight') ?? ln('gamma'),
      ln('bias') ?? ln('beta'),
      c.layer_norm_eps,
    );
    return linear(normed, n, p.t('embeddings.word_embeddings.weight'), t('cls.predictions.bias'));
  }
  const { kind, weight, bias, eps } = p.norm;
  const normed = !norm ? x : kind === 'layer' ? layerNorm(x, n, weight, bias, eps) : rmsNorm(x, n, weight, eps);
  return linear(normed, n, p.head.W, p.head.bias);
}

/** Head h's result in layer l from the layer's heads' outputs side by side (concat [n, H·d_k]): [n, d_model]. */
function headResultOf(p, l, concat, n, H, h) {
  const width = concat.length / n;
  const dk = width / H;
  const { at } = p.wo(l);
  const out = new Float64Array(n * p.d);
  for (let i = 0; i < n; i++) {
    for (let o = 0; o < p.d; o++) {
      let sum = 0;
      for (let c = 0; c < dk; c++) sum += concat[i * width + h * dk + c] * at(h * dk + c, o);
      out[i * p.d + o] = sum;
    }
  }
  return out;
}

/**
 * What head `head` of layer `layer` writes into the residual stream: headOutput [n, d_k] · W_O[rows of this head]
 * ([d_k, d_model]), no bias (TransformerLens's hook_result). `options` go to referenceForward (ablate, edits, hook).
 * @returns {Float64Array} [n, d_model]
 */
export function referenceHeadResult(fixture, ids, { layer, head }, options = {}) {
  const run = referenceForward(fixture, ids, options);
  const H = run.attentions[layer].length / ids.length ** 2;
  return headResultOf(parts(fixture), layer, run.steps[layer].concat, ids.length, H, head);
}

/**
 * Direct logit attribution at `position` (default the last) for `target` [a] (logit a) or [a, b] (logit a − logit b).
 * Every part is c's contribution as the header says; they sum to `total`, the forward's logit (difference).
 * BERT: an Error (its MLM head is not linear).
 * @returns {{ total: number, embeddings: number, heads: number[][], attnBiases: number[], mlps: number[],
 *   finalBias: number }}  heads [L][H], attnBiases and mlps [L]
 */
export function referenceAttribute(fixture, ids, { target: [a, b], position = ids.length - 1 }, options = {}) {
  const p = parts(fixture);
  if (p.bert) throw new Error('BERT has no linear LM head: attribution does not apply');
  const { d, norm, head } = p;
  const run = referenceForward(fixture, ids, options);
  const n = ids.length;
  const L = run.steps.length;
  const H = run.attentions[0].length / n ** 2;
  const rowAt = (flat) => Array.from(flat.slice(position * d, (position + 1) * d));
  const W = head.W.data;
  const u = Array.from({ length: d }, (_, e) => W[a * d + e] - (b === undefined ? 0 : W[b * d + e]));
  const x = rowAt(run.steps[L - 1].hidden); // the final residual, before the final norm
  const mean = (row) => (norm.kind === 'layer' ? row.reduce((s, v) => s + v, 0) / d : 0);
  const s = Math.sqrt(x.reduce((sum, v) => sum + (v - mean(x)) ** 2, 0) / d + norm.eps);
  const contribution = (c) => {
    const m = mean(c);
    return c.reduce((sum, v, e) => sum + ((v - m) / s) * norm.weight.data[e] * u[e], 0);
  };
  const zero = new Array(d).fill(0);
  const logit = (id) => run.logits[position * fixture.config.vocab_size + id];
  const headBias = (id) => (head.bias ? head.bias.data[id] : 0);
  return {
    total: logit(a) - (b === undefined ? 0 : logit(b)),
    embeddings: contribution(p.embeddings(ids)[position]),
    heads: run.steps.map((step, l) =>
      Array.from({ length: H }, (_, h) => contribution(rowAt(headResultOf(p, l, step.concat, n, H, h)))),
    ),
    attnBiases: run.steps.map((_, l) => contribution(p.wo(l).bias ? Array.from(p.wo(l).bias.data) : zero)),
    mlps: run.steps.map((step) => contribution(rowAt(step.mlpOutput))),
    finalBias:
      (norm.bias ? u.reduce((sum, v, e) => sum + norm.bias.data[e] * v, 0) : 0) +
      headBias(a) -
      (b === undefined ? 0 : headBias(b)),
  };
}

/**
 * TransformerLens's detection pattern of `kind` for token ids: P [n][n] of 0 and 1.
 *   previousToken  P[i][j] = 1 for j = i − 1
 *   duplicateToken P[i][j] = 1 for j < i with ids[j] = ids[i]
 *   induction      P[i][j] = 1 for 1 ≤ j ≤ i with ids[j − 1] = ids[i]
 */
export function detectionPattern(kind, ids) {
  const rule = {
    previousToken: (i, j) => j === i - 1,
    duplicateToken: (i, j) => j < i && ids[j] === ids[i],
    induction: (i, j) => j >= 1 && j <= i && ids[j - 1] === ids[i],
  }[kind];
  if (!rule) throw new Error(`no detection pattern '${kind}'`);
  return ids.map((_, i) => ids.map((__, j) => (rule(i, j) ? 1 : 0)));
}

/** One head's "mul" score: sum(A ⊙ P) / sum(A), A [n][n] after the exclusions. */
function mulScore(A, P, { excludeBos = false, excludeCurrentToken = false }) {
  let [hit, all] = [0, 0];
  A.forEach((row, i) =>
    row.forEach((w, j) => {
      const kept = (excludeBos && j === 0) || (excludeCurrentToken && i === j) ? 0 : w;
      hit += kept * P[i][j];
      all += kept;
    }),
  );
  return hit / all;
}

/** One layer's attention weights as heads of rows [H][n][n]: flat [H·n·n] data, { data }, or nested arrays. */
function headsOf(weights, n) {
  if (Array.isArray(weights)) return weights.map((head) => head.map((row) => Array.from(row)));
  const flat = weights.data ?? weights;
  return Array.from({ length: flat.length / n ** 2 }, (_, h) =>
    Array.from({ length: n }, (_, i) => Array.from(flat.slice((h * n + i) * n, (h * n + i + 1) * n))),
  );
}

/**
 * Head scores [L][H] of `kind` ('previousToken', 'duplicateToken', 'induction') from the attention weights of each
 * layer (attentions[l]: [H, n, n]) on token ids; for several sequences, `ids` is number[][] and attentions[s] the
 * layers of sequence s, and the score is the mean over the sequences. A head with nothing left after the exclusions
 * (sum(A) = 0) scores NaN.
 * @param {{ excludeBos?: boolean, excludeCurrentToken?: boolean }} [options]
 */
export function referenceHeadScores(attentions, ids, kind, options = {}) {
  const sequences = Array.isArray(ids[0]) ? ids.map((seq, s) => [attentions[s], seq]) : [[attentions, ids]];
  const each = sequences.map(([layers, seq]) => {
    const P = detectionPattern(kind, seq);
    return layers.map((weights) => headsOf(weights, seq.length).map((A) => mulScore(A, P, options)));
  });
  return each[0].map((heads, l) =>
    heads.map((_, h) => each.reduce((sum, scores) => sum + scores[l][h], 0) / each.length),
  );
}

/** referenceHeadScores of the reference forward's attentions on each sequence of `ids` (number[] or number[][]). */
export function referenceModelHeadScores(fixture, ids, kind, options = {}) {
  const many = Array.isArray(ids[0]);
  const attentions = (many ? ids : [ids]).map((seq) => referenceForward(fixture, seq).attentions);
  return referenceHeadScores(many ? attentions : attentions[0], ids, kind, options);
}

/**
 * Next-token cross-entropy of the forward's logits: perToken[i] = −log softmax(logits[i])[ids[i + 1]] for
 * i = 0 … n − 2 (log-sum-exp from the row's maximum), and their mean (NaN for one token).
 * @returns {{ perToken: number[], mean: number }}
 */
export function referenceLoss(fixture, ids, options = {}) {
  const { logits } = referenceForward(fixture, ids, options);
  const V = fixture.config.vocab_size;
  const perToken = ids.slice(1).map((next, i) => {
    const row = logits.subarray(i * V, (i + 1) * V);
    const max = Math.max(...row);
    const logSum = max + Math.log(row.reduce((sum, z) => sum + Math.exp(z - max), 0));
    return logSum - row[next];
  });
  return { perToken, mean: perToken.reduce((a, x) => a + x, 0) / perToken.length };
}
