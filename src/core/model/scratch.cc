#include "scratch.h"

#include <algorithm>

#include "cells.h"
#include "mlp.h"

namespace attention::model {
namespace {

constexpr int64_t kFloat = sizeof(float);

// Bytes of a buffer of `floats` that a call allocates when the caller gives none.
int64_t own(const void* given, int64_t floats) { return given ? 0 : floats * kFloat; }

bool edited(uint32_t steps, LayerStep step) { return (steps >> static_cast<uint32_t>(step)) & 1u; }

// Bytes of one scaled_dot_product_attention call's own buffer (attention.cc's SdpaRun): it streams when it keeps no
// weights and no score.
int64_t sdpa_bytes(int64_t len_q, int64_t len_k, int64_t d_k, bool weights, bool scores) {
  return sdpa_scratch_floats(len_q, len_k, d_k, d_k, weights, !weights && !scores) * kFloat;
}

}  // namespace

// forward.cc's layer_attention, in its three phases: the projections, attention, the output projection. Held
// throughout: attention's input (a norm's output, or a copy of x to edit), q, k, v, the projection's [n, H·d_k] rows,
// then each head's output. (kPerHead: the projection's [n, 3·H·d_k] rows.)
int64_t layer_attention_scratch_bytes(const ModelConfig& c, const LayerResult& result, const KvCache* cache,
                                      uint32_t edited_steps, const Cells* cells) {
  const int64_t n = c.len, d = c.d_model, H = c.num_heads, H_kv = c.num_kv_heads, d_k = c.d_k;
  const bool pre = norm_before_attention(c.placement);
  const bool rope = c.rope.style != RopeStyle::kNone;
  const int64_t rows = c.qkv_layout == QkvLayout::kPerHead ? 3 : 1;  // the projection's rows: H·d_k or 3·H·d_k wide
  int64_t held = (pre || edited(edited_steps, LayerStep::kX) ? own(result.normed, n * d) : 0) +
                 own(result.q, H * n * d_k) + own(result.k, H_kv * n * d_k) + own(result.v, H_kv * n * d_k) +
                 rows * n * H * d_k * kFloat;
  const int64_t projections = held;
  if (result.qk_squares) return projections;  // the projections' sums of squares only
  held += own(result.heads, H * n * d_k);
  const bool scores = result.scores || result.scaled_scores || result.raw_scores;
  int64_t attention = held;
  if (cells) {  // cells.cc's cells_attention
    attention += cells_scratch_bytes(c, *cells, result.weights != nullptr);
  } else if (cache) {  // decode.cc's cached_attention: the rotated queries, one kv head's call at a time
    const int64_t L = int64_t{cache->past} + n;
    attention += (rope ? own(result.q_rotated, H * n * d_k) : 0) + sdpa_bytes(n, L, d_k, result.weights, scores);
  } else {
    const bool inner = edited_steps & ((2u << static_cast<uint32_t>(LayerStep::kWeights)) -
                                       (1u << static_cast<uint32_t>(LayerStep::kQRotated)));
    if (inner) {  // every inner step kept, for redo_attention: the rotations too, so rotate_qk copies nothing
      attention += own(result.weights, H * n * n) + own(result.scores, H * n * n) +
                   own(result.scaled_scores, H * n * n) + own(result.raw_scores, H * n * n) +
                   (rope ? own(result.q_rotated, H * n * d_k) + own(result.k_rotated, H_kv * n * d_k) : 0) +
                   sdpa_bytes(n, n, d_k, true, true);
    } else {
      attention += (rope ? own(result.q_rotated, H * n * d_k) + own(result.k_rotated, H_kv * n * d_k) : 0) +
                   sdpa_bytes(n, n, d_k, result.weights, scores);
    }
  }
  const int64_t output = held + own(result.concat, n * H * d_k) + own(result.attention_output, n * d);
  return std::max({projections, attention, output});
}

// forward.cc's layer_mlp: its input, activation and output unless given, and mlp.cc's gate rows.
int64_t layer_mlp_scratch_bytes(const ModelConfig& c, const LayerResult& result) {
  const int64_t n = c.len, d = c.d_model, d_ff = c.d_ff;
  const int64_t held = own(result.mlp_input, n * d) + own(result.mlp_hidden, n * d_ff) + own(result.mlp_output, n * d);
  const int64_t gate = gated(c.activation) ? n * d_ff * kFloat : 0;
  return held + gate;
}

int64_t final_norm_scratch_bytes(const ModelConfig& c, bool dense) {
  return dense ? int64_t{c.len} * c.d_model * kFloat : 0;
}

int64_t logits_scratch_bytes(const ModelConfig&) { return 0; }

}  // namespace attention::model
