// The forward pass of GPT-2, BERT, the LLaMA family and GPT-NeoX, one call per step so that the caller can hold one
// layer's weights in memory at a time: embed → layer × L → final norm → logits (the LM head, by blocks of the
// vocabulary). The families differ only in the named choices of ModelConfig (abi.h lists them); there is one forward.
//
//   family   norm        placement  activation   positions         weights
//   GPT-2    kLayerNorm  kPreNorm   kGeluTanh    learned (embed)   kInOut, fused q|k|v (w_qkv)
//   BERT     kLayerNorm  kPostNorm  kGeluErf     learned + types   kOutIn
//   LLaMA    kRmsNorm    kPreNorm   kSiluGated   RoPE kHalf        kOutIn, H_kv ≤ H; Qwen2 q/k/v biases
//   Qwen3    as LLaMA, with q_norm and k_norm: an RMSNorm of each head's q and k (over d_k) before RoPE
//   NeoX     kLayerNorm  kParallel  kGeluErf     RoPE kHalf, partial  kOutIn, fused q|k|v kPerHead (query_key_value)
//   Gemma    kRmsNormPlusOne  kPreNorm (1) or kSandwich (2, 3)  kGeluTanhGated  RoPE kHalf  kOutIn; embeddings ·
//            embed_scale; Gemma 2's attention softcap and final_softcap, sliding windows; Gemma 3's q/k norms
//   OLMo-2   kRmsNorm    kPostBranch  kSiluGated  RoPE kHalf       kOutIn; q/k norms over the whole projection
//
// Shape names: n tokens, d d_model, H / H_kv query and key-value heads, d_k head width, d_ff the MLP's width.
#pragma once

#include <cstdint>

#include "../abi.h"
#include "../attention.h"
#include "../rope.h"

namespace attention::model {

struct ModelConfig {
  int32_t len = 0;  // n
  int32_t d_model = 0;
  int32_t num_heads = 1;
  int32_t num_kv_heads = 1;
  int32_t d_k = 0;  // per head (LLaMA's head_dim; else d_model / num_heads)
  int32_t d_ff = 0;
  NormKind norm = NormKind::kLayerNorm;
  NormPlacement placement = NormPlacement::kPreNorm;
  Activation activation = Activation::kGeluTanh;
  WeightLayout layout = WeightLayout::kOutIn;
  QkvLayout qkv_layout = QkvLayout::kBlocks;  // w_qkv's columns: [q | k | v], or by head (kPerHead, H_kv = H)
  bool mlp_panels = false;  // w_up, w_gate, w_down packed by gemm.h's pack_panels (kInOut; d, d_ff multiples of 16)
  float eps = 1e-5f;
  bool causal = false;
  int32_t sliding_window = 0;  // > 0: query i also sees only keys j with i − j < sliding_window (Mistral, Gemma 2)
  float attention_scale = 0;   // > 0: the scores' scale (Gemma's query_pre_attn_scalar^-½); 0: 1/√d_k
  float softcap = 0;           // > 0: attention logit softcapping, tanh(s / softcap) · softcap before the masks
  bool qk_norm_whole = false;  // q_norm, k_norm over each token's whole q and k rows (OLMo-2), not head by head
  float embed_scale = 0;       // > 0: the token embeddings are multiplied by it (Gemma's √d_model); 0: not
  float final_softcap = 0;     // > 0: the logits become tanh(l / final_softcap) · final_softcap (Gemma 2)
  Rope rope;                   // tables [n, rope.dim / 2] for positions 0 … n − 1
};

// One layer's weights, row-major in `layout`. Biases and the norms' biases may be null.
//   norm1_*  [d]   before attention (kPreNorm), or after its residual sum (kPostNorm); norm2_* likewise for the MLP
//   w_qkv    q|k|v fused: [d, (H + 2·H_kv)·d_k] in kInOut, [(H + 2·H_kv)·d_k, d] in kOutIn, its columns in
//            c.qkv_layout (kBlocks [q | k | v]; kPerHead [q_h | k_h | v_h] for h = 0 … H − 1); or null, and then
//   w_q      [d, H·d_k]   w_k, w_v [d, H_kv·d_k]   (transposed in kOutIn)
//   w_o      [H·d_k, d]   w_up, w_gate [d, d_ff]   w_down [d_ff, d]   (transposed in kOutIn)
//   head_mask [H]  multiplies each head's output (0 ablates a head); null = every head kept
//   q_norm, k_norm [d_k]  a norm (c.norm, no bias) of each head's q and k rows after the projection, before RoPE
//                         (Qwen3's, Gemma 3's); [H·d_k], [H_kv·d_k] with c.qk_norm_whole: of each token's whole q
//                         and k rows (OLMo-2's); null = none
//   attention_post_norm, mlp_post_norm [d]  kSandwich, kPostBranch: the norm of each half's output before the
//                         residual sum (Gemma 2's post_attention_layernorm and post_feedforward_layernorm); with
//                         kPostBranch a half given none runs without it (loadModel's workers: their caller norms the
//                         sum of their parts)
//   qk_scales [2, n] double  with c.qk_norm_whole (an RMS norm): each token's 1 / √(mean(q²) + eps) of its whole q
//                         row, then of its whole k row, computed by the caller from every part's qk_squares (norms.h's
//                         rms_scale): the q and k columns of w_q, w_k are then a part of the heads (a worker's), and
//                         q_norm, k_norm those columns' weights; null = the norm over the columns given
//   qk_projected [n, H·d_k] then [n, H_kv·d_k]  with qk_scales: the q and k projections a first call kept
//                         (result.qk_projections), read instead of projecting again; null = projected here
struct LayerWeights {
  const float *norm1_weight = nullptr, *norm1_bias = nullptr;
  const float *w_qkv = nullptr, *b_qkv = nullptr;
  const float *w_q = nullptr, *w_k = nullptr, *w_v = nullptr, *w_o = nullptr;
  const float *b_q = nullptr, *b_k = nullptr, *b_v = nullptr, *b_o = nullptr;
  const float *norm2_weight = nullptr, *norm2_bias = nullptr;
  const float *w_up = nullptr, *b_up = nullptr, *w_gate = nullptr, *b_gate = nullptr, *w_down = nullptr,
              *b_down = nullptr;
  const float* head_mask = nullptr;
  const float *q_norm = nullptr, *k_norm = nullptr;
  const float *attention_post_norm = nullptr, *mlp_post_norm = nullptr;
  const double* qk_scales = nullptr;
  const float* qk_projected = nullptr;
};

// Whether norm1 comes before attention (kPreNorm, kParallel, kSandwich), and whether each half's output is normed
// before its residual sum (kSandwich, kPostBranch).
inline bool norm_before_attention(NormPlacement p) {
  return p == NormPlacement::kPreNorm || p == NormPlacement::kParallel || p == NormPlacement::kSandwich;
}
inline bool norm_after_branch(NormPlacement p) {
  return p == NormPlacement::kSandwich || p == NormPlacement::kPostBranch;
}

// Where layer() writes: `output` is required, every other buffer optional (null = not wanted).
//   output            [n, d]          the layer's output (the next hidden state)
//   weights           [H, n, n]       attention weights; raw_scores, scaled_scores, scores likewise
//   normed            [n, d]          attention's input: norm1(x), or x (kPostNorm, kPostBranch)
//   q                 [H, n, d_k]     q_rotated likewise (with a rope); after q_norm when there is one
//   k, v              [H_kv, n, d_k]  k_rotated likewise
//   heads             [H, n, d_k]     each head's output, after head_mask
//   concat            [n, H·d_k]
//   attention_output  [n, d]          concat·W_o + b_o, then attention_post_norm (kSandwich, kPostBranch)
//   residual          [n, d]          x + attention_output
//   mlp_input         [n, d]          norm2(residual) (kPreNorm, kSandwich), norm1(residual) (kPostNorm), the
//                                     residual (kPostBranch)
//   mlp_hidden        [n, d_ff]       the activation that W_down reads
//   mlp_output        [n, d]          down(…) + b_down, then mlp_post_norm (kSandwich, kPostBranch)
//   qk_squares        [2, n] double   with c.qk_norm_whole: each token's Σ q² over the q columns given, then Σ k²
//                                     (norms.h's square_sums); layer_attention then stops there (loadModel's
//                                     workers' first call of an OLMo-2 layer: their caller sums the parts)
//   qk_projections    [n, H·d_k] then [n, H_kv·d_k]  with qk_squares: the q and k projections (before their norms),
//                                     for the call with qk_scales (w.qk_projected)
struct LayerResult {
  float* output = nullptr;
  float *weights = nullptr, *raw_scores = nullptr, *scaled_scores = nullptr, *scores = nullptr;
  float *normed = nullptr, *q = nullptr, *k = nullptr, *v = nullptr, *q_rotated = nullptr, *k_rotated = nullptr;
  float *heads = nullptr, *concat = nullptr, *attention_output = nullptr, *residual = nullptr;
  float *mlp_input = nullptr, *mlp_hidden = nullptr, *mlp_output = nullptr;
  double* qk_squares = nullptr;
  float* qk_projections = nullptr;
};

// The embeddings' output: tokens + positions (+ types), then the norm when norm_weight is given (BERT).
//   tokens, positions, types, out  [n, d]   positions and types may be null
//   norm_weight, norm_bias        [d]      may be null (no norm)
void embed(const ModelConfig& c, const float* tokens, const float* positions, const float* types,
           const float* norm_weight, const float* norm_bias, float* out);

// A KV cache for one layer (decode.h): the keys (after RoPE) and values of the tokens at positions 0 … past − 1,
// kept by the caller between calls.
//   k, v  [H_kv, capacity, d_k]   rows past … past + n − 1 are written by the layer call that is given it
struct KvCache {
  float* k = nullptr;
  float* v = nullptr;
  int32_t past = 0;
  int32_t capacity = 0;
};

// The attention options of a layer under c: its scale, softcap and sliding window, and `causal` when c.causal (no rope,
// no mask).
AttentionOptions attention_options(const ModelConfig& c, Causal causal);

struct LayerEdits;  // edits.h
struct Cells;       // cells.h

// One transformer layer on x [n, d], with `edits` (edits.h; null = none) written into its steps as it goes. Throws
// AttentionError (attention.h) for bad sizes or edits, and PROJECTION_OVERFLOW when a value leaves float32.
// With a cache, x holds the n new tokens at positions past … past + n − 1 (c.rope's tables hold those n rows): their
// k and v are appended to the cache and their queries attend over all past + n cached keys (decode.h), so a decode
// step computes one row. Then weights (and the score buffers) are [H, n, past + n]; q_rotated [H, n, d_k] holds the
// rotated queries and k_rotated is not written (the cache holds the rotated keys). Edits take no cache.
void layer(const ModelConfig& c, const LayerWeights& w, const float* x, const LayerResult& result,
           const KvCache* cache = nullptr, const LayerEdits* edits = nullptr);

// The weights of `w` that one half of a layer reads under `placement` (abi.h's ATTENTION_LAYER_ATTENTION_WEIGHTS and
// ATTENTION_LAYER_MLP_WEIGHTS), every other one null: layer_attention and layer_mlp read theirs through these, so
// that a weight missing from its list is missing from the forward too, whoever calls it.
LayerWeights attention_half(const LayerWeights& w, NormPlacement placement);
LayerWeights mlp_half(const LayerWeights& w, NormPlacement placement);

// layer() as its two halves, one call each from the JS layer, so that one call holds half a layer's weights (a
// LLaMA-7B layer's 772 MiB of float32 are 256 MiB of attention and 516 MiB of MLP). layer() is the one, then the other.
//   layer_attention  x → result.residual (required): norm1 (kPreNorm), q, k, v, attention (with `cache` as layer()'s),
//                    W_o, the residual sum; writes the steps normed … residual of `result`, edits of kX … kResidual.
//                    With result.qk_squares, only the projections of q and k and their sums of squares (then
//                    result.residual may be null).
//                    Reads attention_half(w): the attention's weights, and norm1 with kPreNorm. With `cells` (cells.h),
//                    x holds the rows of a batch of cells, each attending over a base run's keys and its own; then only
//                    result.weights of attention's inner steps may be given (cell by cell), and no edit of them.
//   layer_mlp        residual → result.output: the norm before the MLP (norm2 with kPreNorm, norm1 with kPostNorm,
//                    norm2 of the layer's input `x` with kParallel), the MLP, the residual sum (and norm2 with
//                    kPostNorm); writes mlp_input … output, edits of kMlpInput … kHidden. Reads mlp_half(w): the MLP's
//                    weights and norms. Checks the output as layer() does. `x` [n, d]: kParallel's only (else null).
void layer_attention(const ModelConfig& c, const LayerWeights& w, const float* x, const LayerResult& result,
                     const KvCache* cache = nullptr, const LayerEdits* edits = nullptr, const Cells* cells = nullptr);
void layer_mlp(const ModelConfig& c, const LayerWeights& w, const float* residual, const LayerResult& result,
               const LayerEdits* edits = nullptr, const float* x = nullptr);

// out = norm(x), or norm(act(x·W_dense + b_dense)) with a dense matrix (BERT's prediction-head transform).
//   x, out  [n, d]   w_dense [d, d] in c.layout, or null   norm_weight, norm_bias [d]
void final_norm(const ModelConfig& c, const float* x, const float* w_dense, const float* b_dense,
                const float* norm_weight, const float* norm_bias, float* out);

// The LM head on a block of `rows` vocabulary entries: out = x · W_headᵀ (+ b_head), softcapped by c.final_softcap.
//   x [n, d]   w_head [rows, d] (an embedding's or lm_head's rows)   b_head [rows] or null   out [n, rows]
void logits(const ModelConfig& c, const float* x, const float* w_head, const float* b_head, int64_t rows, float* out);

}  // namespace attention::model
