#include "forward.h"

#include <algorithm>
#include <string>
#include <vector>

#include "../attention.h"
#include "../gemm.h"
#include "../kernels.h"
#include "cells.h"
#include "decode.h"
#include "edits.h"
#include "linear.h"
#include "mlp.h"
#include "norms.h"

namespace attention::model {
namespace {

[[noreturn]] void fail(const char* code, const std::string& message) { throw AttentionError(code, message); }

void require(bool ok, const char* code, const char* message) {
  if (!ok) fail(code, message);
}

float* buffer(float* given, std::vector<float>& own, int64_t size) {
  if (given) return given;
  own.resize(size);
  return own.data();
}

// The sizes and choices every call reads; `heads` also the layer's.
void check_config(const ModelConfig& c, bool heads) {
  require(c.len > 0 && c.d_model > 0, "BAD_DIMENSION", "len and d_model must be positive");
  require(c.norm == NormKind::kLayerNorm || c.norm == NormKind::kRmsNorm || c.norm == NormKind::kRmsNormPlusOne,
          "BAD_OPTION", "norm must be kLayerNorm, kRmsNorm or kRmsNormPlusOne");
  require(c.activation == Activation::kGeluTanh || c.activation == Activation::kGeluErf || gated(c.activation),
          "BAD_OPTION", "activation must be kGeluTanh, kGeluErf, kSiluGated or kGeluTanhGated");
  require(c.embed_scale >= 0 && c.final_softcap >= 0, "BAD_OPTION",
          "embed_scale and final_softcap must not be negative");
  require(c.layout == WeightLayout::kInOut || c.layout == WeightLayout::kOutIn, "BAD_OPTION",
          "layout must be kInOut or kOutIn");
  require(c.eps >= 0 && c.eps < 1, "BAD_OPTION", "eps must be in [0, 1)");
  if (!heads) return;
  require(c.num_heads > 0 && c.num_kv_heads > 0 && c.d_k > 0 && c.d_ff > 0, "BAD_DIMENSION",
          "num_heads, num_kv_heads, d_k and d_ff must be positive");
  require(c.num_heads % c.num_kv_heads == 0, "HEADS_DO_NOT_DIVIDE", "num_kv_heads must divide num_heads");
  require(norm_before_attention(c.placement) || c.placement == NormPlacement::kPostNorm ||
              c.placement == NormPlacement::kPostBranch,
          "BAD_OPTION", "placement must be kPreNorm, kPostNorm, kParallel, kSandwich or kPostBranch");
  require(c.qkv_layout == QkvLayout::kBlocks || (c.qkv_layout == QkvLayout::kPerHead && c.num_kv_heads == c.num_heads),
          "BAD_OPTION", "qkv_layout must be kBlocks, or kPerHead with num_kv_heads = num_heads");
  require(c.sliding_window >= 0, "BAD_OPTION", "sliding_window must not be negative");
  require(c.attention_scale >= 0 && c.softcap >= 0, "BAD_OPTION", "attention_scale and softcap must not be negative");
}

void require_finite(const float* values, int64_t n, const char* what) {
  if (!kernels::all_finite(values, n)) {
    fail("PROJECTION_OVERFLOW", std::string(what) + " overflowed float32 (weights too large for float32?)");
  }
}

// [n, heads·d_k] → [heads, n, d_k]
void split_heads(const float* flat, int64_t n, int64_t heads, int64_t d_k, float* out) {
  for (int64_t h = 0; h < heads; ++h) {
    for (int64_t i = 0; i < n; ++i) std::copy_n(flat + i * heads * d_k + h * d_k, d_k, out + (h * n + i) * d_k);
  }
}

// [heads, n, d_k] → [n, heads·d_k]
void merge_heads(const float* split, int64_t n, int64_t heads, int64_t d_k, float* out) {
  for (int64_t h = 0; h < heads; ++h) {
    for (int64_t i = 0; i < n; ++i) std::copy_n(split + (h * n + i) * d_k, d_k, out + i * heads * d_k + h * d_k);
  }
}

// Keeps weight `name` of `w` in `half` when a list of abi.h (ATTENTION_LAYER_*_WEIGHTS) has it under `bit`.
#define ATTENTION_KEEP_WEIGHT(name, placements) \
  if ((placements)&bit) half.name = w.name;

}  // namespace

LayerWeights attention_half(const LayerWeights& w, NormPlacement placement) {
  const int bit = 1 << static_cast<int>(placement);
  LayerWeights half;
  ATTENTION_LAYER_ATTENTION_WEIGHTS(ATTENTION_KEEP_WEIGHT)
  return half;
}

LayerWeights mlp_half(const LayerWeights& w, NormPlacement placement) {
  const int bit = 1 << static_cast<int>(placement);
  LayerWeights half;
  ATTENTION_LAYER_MLP_WEIGHTS(ATTENTION_KEEP_WEIGHT)
  return half;
}
#undef ATTENTION_KEEP_WEIGHT

AttentionOptions attention_options(const ModelConfig& c, Causal causal) {
  AttentionOptions options;
  options.causal = c.causal ? causal : Causal::kNone;
  options.has_scale = c.attention_scale > 0;
  options.scale = c.attention_scale;
  options.softcap = c.softcap;
  options.window = c.causal ? c.sliding_window : 0;
  return options;
}

void embed(const ModelConfig& c, const float* tokens, const float* positions, const float* types,
           const float* norm_weight, const float* norm_bias, float* out) {
  check_config(c, false);
  require(tokens && out, "NULL_ARGUMENT", "tokens and out must not be null");
  const int64_t size = int64_t{c.len} * c.d_model;
  for (int64_t i = 0; i < size; ++i) {
    const float token = c.embed_scale > 0 ? tokens[i] * c.embed_scale : tokens[i];
    out[i] = token + (types ? types[i] : 0.0f) + (positions ? positions[i] : 0.0f);
  }
  if (norm_weight) norm(c.norm, out, c.len, c.d_model, norm_weight, norm_bias, c.eps, out);
  require_finite(out, size, "the embeddings' output");
}

void layer_attention(const ModelConfig& c, const LayerWeights& all, const float* x, const LayerResult& result,
                     const KvCache* cache, const LayerEdits* edits_or_null, const Cells* cells) {
  check_config(c, true);
  const LayerWeights w = attention_half(all, c.placement);
  const LayerEdits none;
  const LayerEdits& edits = edits_or_null ? *edits_or_null : none;
  const bool fused = w.w_qkv != nullptr;
  const bool pre = norm_before_attention(c.placement), post = norm_after_branch(c.placement);
  const bool post_branch = c.placement == NormPlacement::kPostBranch;
  const bool squares = result.qk_squares != nullptr;  // the projections' sums of squares only
  require(x && (result.residual || squares) && w.w_o && (w.norm1_weight || !pre) &&
              (w.attention_post_norm || !post || post_branch) && (fused || (w.w_q && w.w_k && w.w_v)),
          "NULL_ARGUMENT", "x, result.residual, the attention's weight matrices and its norm weights must not be null");
  require(!(squares || w.qk_scales) ||
              (c.qk_norm_whole && !fused && c.norm != NormKind::kLayerNorm && w.q_norm && w.k_norm),
          "BAD_OPTION", "qk_squares and qk_scales go with whole q and k RMS norms (qk_norm_whole) of separate q, k, v");
  require((!result.qk_projections || squares) && (!w.qk_projected || w.qk_scales), "BAD_OPTION",
          "qk_projections go with qk_squares, qk_projected with qk_scales");
  const int64_t n = c.len, d = c.d_model, H = c.num_heads, H_kv = c.num_kv_heads, d_k = c.d_k;
  std::vector<float> normed_own, q_own, k_own, v_own, flat, heads_own, concat_own, attn_own;

  // attention's input
  const bool copy = pre || edits.any(LayerStep::kX);
  float* normed = copy ? buffer(result.normed, normed_own, n * d) : result.normed;  // [n, d]
  if (pre) {
    norm(c.norm, x, n, d, w.norm1_weight, w.norm1_bias, c.eps, normed);
  } else if (normed) {
    std::copy_n(x, n * d, normed);
  }
  edits.apply(LayerStep::kX, normed, 1, n, d);
  const float* input = copy ? normed : x;

  // q, k, v: the projections, split into heads
  const int64_t widths[3] = {H * d_k, H_kv * d_k, H_kv * d_k};
  const Matrix qkv = matrix(w.w_qkv, d, widths[0] + widths[1] + widths[2], c.layout);
  const Matrix separate[3] = {matrix(w.w_q, d, widths[0], c.layout), matrix(w.w_k, d, widths[1], c.layout),
                              matrix(w.w_v, d, widths[2], c.layout)};
  const float* biases[3] = {w.b_q, w.b_k, w.b_v};
  float* split[3] = {buffer(result.q, q_own, H * n * d_k), buffer(result.k, k_own, H_kv * n * d_k),
                     buffer(result.v, v_own, H_kv * n * d_k)};
  if (fused && c.qkv_layout == QkvLayout::kPerHead) {  // [n, H, 3·d_k]: head h's q, k and v side by side
    flat.resize(n * 3 * widths[0]);
    linear(input, n, qkv, w.b_qkv, flat.data());  // [n, 3·H·d_k]
    for (int64_t h = 0; h < H; ++h) {
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t part = 0; part < 3; ++part) {
          std::copy_n(flat.data() + (i * H + h) * 3 * d_k + part * d_k, d_k, split[part] + (h * n + i) * d_k);
        }
      }
    }
  } else {
    flat.resize(n * widths[0]);  // [n, H·d_k], the largest of the three
    for (int64_t part = 0, first = 0; part < (squares ? 2 : 3); first += widths[part], ++part) {
      const Matrix m = fused ? columns(qkv, first, widths[part]) : separate[part];
      const float* bias = fused ? (w.b_qkv ? w.b_qkv + first : nullptr) : biases[part];
      const int64_t kept = part == 0 ? 0 : n * widths[0];  // q's, then k's projections in qk_projected
      if (w.qk_projected && part < 2) {
        std::copy_n(w.qk_projected + kept, n * widths[part], flat.data());  // a first call's
      } else {
        linear(input, n, m, bias, flat.data());  // [n, heads·d_k]
      }
      const float* whole_norm = !c.qk_norm_whole ? nullptr : part == 0 ? w.q_norm : part == 1 ? w.k_norm : nullptr;
      if (whole_norm && squares) {  // a part of each token's row: its Σ x², for the caller to sum
        square_sums(flat.data(), n, widths[part], result.qk_squares + part * n);
        if (result.qk_projections) std::copy_n(flat.data(), n * widths[part], result.qk_projections + kept);
        continue;
      }
      if (whole_norm && w.qk_scales) {  // a part of each token's row, with the whole row's scale (OLMo-2 on workers)
        rms_scale(c.norm, flat.data(), n, widths[part], whole_norm, w.qk_scales + part * n, flat.data());
      } else if (whole_norm) {
        norm(c.norm, flat.data(), n, widths[part], whole_norm, nullptr, c.eps, flat.data());  // OLMo-2
      }
      split_heads(flat.data(), n, widths[part] / d_k, d_k, split[part]);
    }
  }
  if (squares) return;
  // Qwen3's and Gemma 3's q and k norms: each head's row over d_k, before RoPE
  if (w.q_norm && !c.qk_norm_whole) norm(c.norm, split[0], H * n, d_k, w.q_norm, nullptr, c.eps, split[0]);
  if (w.k_norm && !c.qk_norm_whole) norm(c.norm, split[1], H_kv * n, d_k, w.k_norm, nullptr, c.eps, split[1]);
  edits.apply(LayerStep::kQ, split[0], H, n, d_k);
  edits.apply(LayerStep::kK, split[1], H_kv, n, d_k);
  edits.apply(LayerStep::kV, split[2], H_kv, n, d_k);

  // attention, with the existing kernels: over this call's n tokens, or over a KV cache (decode.h)
  float* heads = buffer(result.heads, heads_own, H * n * d_k);  // [H, n, d_k]
  if (cells) {
    require(!cache && !edits.inner(), "BAD_OPTION", "cells take no KV cache and no edit of attention's inner steps");
    require(!result.raw_scores && !result.scaled_scores && !result.scores && !result.q_rotated && !result.k_rotated,
            "BAD_OPTION", "cells give attention's weights only, of its inner steps");
    cells_attention(c, *cells, split[0], split[1], split[2], heads, result.weights);
  } else if (cache) {
    require(edits.count == 0, "BAD_OPTION", "edits take no KV cache");
    cached_attention(c, *cache, split[0], split[1], split[2], heads, result);
  } else {
    AttentionOptions options = attention_options(c, Causal::kTopLeft);
    options.rope = c.rope;
    AttentionResult attention{
        heads,           result.weights, result.scores, result.scaled_scores, result.raw_scores, result.q_rotated,
        result.k_rotated};
    std::vector<float> inner_own[6];  // an edit of an inner step needs every one of them
    if (edits.inner()) {
      const bool rope = c.rope.style != RopeStyle::kNone;
      attention = {heads,
                   buffer(result.weights, inner_own[0], H * n * n),
                   buffer(result.scores, inner_own[1], H * n * n),
                   buffer(result.scaled_scores, inner_own[2], H * n * n),
                   buffer(result.raw_scores, inner_own[3], H * n * n),
                   rope ? buffer(result.q_rotated, inner_own[4], H * n * d_k) : nullptr,
                   rope ? buffer(result.k_rotated, inner_own[5], H_kv * n * d_k) : nullptr};
    }
    scaled_dot_product_attention({1, c.num_heads, c.num_kv_heads, c.len, c.len, c.d_k, c.d_k}, split[0], split[1],
                                 split[2], options, attention);
    if (edits.inner()) {
      redo_attention(c, edits,
                     {split[0], split[1], split[2], attention.q_rotated, attention.k_rotated, attention.raw_scores,
                      attention.scaled_scores, attention.scores, attention.weights, heads});
    }
  }
  if (w.head_mask) {
    for (int64_t h = 0; h < H; ++h) {
      for (int64_t i = 0; i < n * d_k; ++i) heads[h * n * d_k + i] *= w.head_mask[h];
    }
  }
  edits.apply(LayerStep::kHeadOutput, heads, H, n, d_k);
  float* concat = buffer(result.concat, concat_own, n * H * d_k);  // [n, H·d_k]
  merge_heads(heads, n, H, d_k, concat);
  edits.apply(LayerStep::kConcat, concat, 1, n, H * d_k);
  float* attention_output = buffer(result.attention_output, attn_own, n * d);  // [n, d]
  linear(concat, n, matrix(w.w_o, H * d_k, d, c.layout), w.b_o, attention_output);
  if (post && w.attention_post_norm) {
    norm(c.norm, attention_output, n, d, w.attention_post_norm, nullptr, c.eps, attention_output);
  }
  edits.apply(LayerStep::kOutput, attention_output, 1, n, d);

  // residual sum
  float* residual = result.residual;  // [n, d]
  for (int64_t i = 0; i < n * d; ++i) residual[i] = x[i] + attention_output[i];
  edits.apply(LayerStep::kResidual, residual, 1, n, d);
}

void layer_mlp(const ModelConfig& c, const LayerWeights& all, const float* residual, const LayerResult& result,
               const LayerEdits* edits_or_null, const float* x) {
  check_config(c, true);
  const LayerWeights w = mlp_half(all, c.placement);
  const LayerEdits none;
  const LayerEdits& edits = edits_or_null ? *edits_or_null : none;
  const bool pre = norm_before_attention(c.placement);  // norm2 before the MLP
  const bool parallel = c.placement == NormPlacement::kParallel;
  const bool post_norm = c.placement == NormPlacement::kPostNorm, post = norm_after_branch(c.placement);
  require(!parallel || x, "NULL_ARGUMENT", "x (the layer's input) must not be null with kParallel");
  require(residual && result.output && w.w_up && w.w_down && (w.norm2_weight || !(pre || post_norm)) &&
              (!post_norm || w.norm1_weight) &&
              (!post || w.mlp_post_norm || c.placement == NormPlacement::kPostBranch) &&
              (!gated(c.activation) || w.w_gate),
          "NULL_ARGUMENT", "residual, result.output, the MLP's weight matrices and its norm weights must not be null");
  const int64_t n = c.len, d = c.d_model;
  require(!c.mlp_panels || (c.layout == WeightLayout::kInOut && d % kPanelColumns == 0 && c.d_ff % kPanelColumns == 0),
          "BAD_OPTION", "mlp_panels go with kInOut weights and d_model, d_ff multiples of 16");
  std::vector<float> mlp_in_own, hidden_own, mlp_out_own;

  // norm, MLP, residual sum
  float* mlp_input = buffer(result.mlp_input, mlp_in_own, n * d);  // [n, d]
  if (pre) {
    norm(c.norm, parallel ? x : residual, n, d, w.norm2_weight, w.norm2_bias, c.eps, mlp_input);
  } else if (post_norm) {
    norm(c.norm, residual, n, d, w.norm1_weight, w.norm1_bias, c.eps, mlp_input);
  } else {
    std::copy_n(residual, n * d, mlp_input);  // kPostBranch: no norm before the MLP
  }
  edits.apply(LayerStep::kMlpInput, mlp_input, 1, n, d);
  const auto weight = [&](const float* data, int64_t in, int64_t out) {
    return c.mlp_panels ? panels(data, in, out) : matrix(data, in, out, c.layout);
  };
  const MlpWeights mlp_weights{
      weight(w.w_up, d, c.d_ff), weight(w.w_gate, d, c.d_ff), weight(w.w_down, c.d_ff, d), w.b_up, w.b_gate, w.b_down};
  float* hidden = buffer(result.mlp_hidden, hidden_own, n * c.d_ff);  // [n, d_ff]
  float* mlp_output = buffer(result.mlp_output, mlp_out_own, n * d);  // [n, d]
  mlp(c.activation, mlp_input, n, mlp_weights, hidden, mlp_output);
  if (edits.any(LayerStep::kMlpHidden)) {  // W_down again, on the edited activation
    edits.apply(LayerStep::kMlpHidden, hidden, 1, n, c.d_ff);
    linear(hidden, n, mlp_weights.down, w.b_down, mlp_output);
  }
  if (post && w.mlp_post_norm) norm(c.norm, mlp_output, n, d, w.mlp_post_norm, nullptr, c.eps, mlp_output);
  edits.apply(LayerStep::kMlpOutput, mlp_output, 1, n, d);
  const float* before = post_norm ? mlp_input : residual;  // what the MLP's output is added to
  for (int64_t i = 0; i < n * d; ++i) result.output[i] = before[i] + mlp_output[i];
  if (post_norm) norm(c.norm, result.output, n, d, w.norm2_weight, w.norm2_bias, c.eps, result.output);
  edits.apply(LayerStep::kHidden, result.output, 1, n, d);
  require_finite(result.output, n * d, "the layer's output");
}

void layer(const ModelConfig& c, const LayerWeights& w, const float* x, const LayerResult& result, const KvCache* cache,
           const LayerEdits* edits) {
  check_config(c, true);
  const bool fused = w.w_qkv != nullptr;
  const bool post_branch = c.placement == NormPlacement::kPostBranch, post = norm_after_branch(c.placement);
  require(x && result.output && w.w_o && w.w_up && w.w_down && (post_branch || (w.norm1_weight && w.norm2_weight)) &&
              (!post || (w.attention_post_norm && w.mlp_post_norm)) && (fused || (w.w_q && w.w_k && w.w_v)) &&
              (!gated(c.activation) || w.w_gate),
          "NULL_ARGUMENT", "x, result.output and every weight matrix and norm weight must not be null");
  std::vector<float> residual_own;
  LayerResult steps = result;
  steps.residual = buffer(result.residual, residual_own, int64_t{c.len} * c.d_model);  // [n, d]
  layer_attention(c, w, x, steps, cache, edits);
  layer_mlp(c, w, steps.residual, steps, edits, c.placement == NormPlacement::kParallel ? x : nullptr);
}

void final_norm(const ModelConfig& c, const float* x, const float* w_dense, const float* b_dense,
                const float* norm_weight, const float* norm_bias, float* out) {
  check_config(c, false);
  require(x && norm_weight && out, "NULL_ARGUMENT", "x, norm_weight and out must not be null");
  const int64_t n = c.len, d = c.d_model;
  std::vector<float> dense;  // [n, d]
  if (w_dense) {
    dense.resize(n * d);
    linear(x, n, matrix(w_dense, d, d, c.layout), b_dense, dense.data());
    activate(c.activation, dense.data(), n * d);
  }
  norm(c.norm, w_dense ? dense.data() : x, n, d, norm_weight, norm_bias, c.eps, out);
  require_finite(out, n * d, "the final norm's output");
}

void logits(const ModelConfig& c, const float* x, const float* w_head, const float* b_head, int64_t rows, float* out) {
  require(c.len > 0 && c.d_model > 0 && rows > 0, "BAD_DIMENSION", "len, d_model and rows must be positive");
  require(x && w_head && out, "NULL_ARGUMENT", "x, w_head and out must not be null");
  linear(x, c.len, matrix(w_head, c.d_model, rows, WeightLayout::kOutIn), b_head, out);  // [n, rows]
  require_finite(out, c.len * rows, "the logits");
  if (c.final_softcap > 0) kernels::softcap_row(out, c.len * rows, c.final_softcap);  // Gemma 2's
}

}  // namespace attention::model
