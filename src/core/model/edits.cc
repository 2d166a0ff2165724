#include "edits.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>

#include "../attention.h"

namespace attention::model {
namespace {

constexpr int kFields = 5;  // step, block, row, col, value

bool is_inner(LayerStep step) { return step >= LayerStep::kQRotated && step <= LayerStep::kWeights; }

}  // namespace

bool LayerEdits::any(LayerStep step) const {
  for (int32_t e = 0; e < count; ++e) {
    if (static_cast<LayerStep>(data[e * kFields]) == step) return true;
  }
  return false;
}

bool LayerEdits::inner() const {
  for (int32_t e = 0; e < count; ++e) {
    if (is_inner(static_cast<LayerStep>(data[e * kFields]))) return true;
  }
  return false;
}

uint32_t LayerEdits::steps() const {
  uint32_t steps = 0;
  for (int32_t e = 0; e < count; ++e) {
    const float step = data[e * kFields];
    if (step >= 0 && step < 32) steps |= 1u << static_cast<uint32_t>(step);  // apply() refuses any other
  }
  return steps;
}

void LayerEdits::apply(LayerStep step, float* values, int64_t blocks, int64_t rows, int64_t cols) const {
  for (int32_t e = 0; e < count; ++e) {
    const float* edit = data + e * kFields;
    if (static_cast<LayerStep>(edit[0]) != step) continue;
    const float block = edit[1], row = edit[2], col = edit[3];
    const bool inside = values && block >= 0 && block < blocks && row >= 0 && row < rows && col >= 0 && col < cols &&
                        block == std::floor(block) && row == std::floor(row) && col == std::floor(col);
    if (!inside) {
      throw AttentionError("BAD_OPTION", "edit " + std::to_string(e) + " of step " +
                                             std::to_string(static_cast<int>(edit[0])) +
                                             " is outside that step's [blocks, rows, cols]");
    }
    values[(static_cast<int64_t>(block) * rows + static_cast<int64_t>(row)) * cols + static_cast<int64_t>(col)] =
        edit[4];
  }
}

void redo_attention(const ModelConfig& c, const LayerEdits& edits, const AttentionSteps& s) {
  const int64_t n = c.len, H = c.num_heads, H_kv = c.num_kv_heads, d_k = c.d_k, group = H / H_kv;
  const bool rope = s.q_rotated != nullptr;
  if (!rope && (edits.any(LayerStep::kQRotated) || edits.any(LayerStep::kKRotated))) {
    throw AttentionError("BAD_OPTION", "q_rotated and k_rotated are steps of a layer with RoPE only");
  }
  edits.apply(LayerStep::kQRotated, s.q_rotated, H, n, d_k);
  edits.apply(LayerStep::kKRotated, s.k_rotated, H_kv, n, d_k);
  bool redo = edits.any(LayerStep::kQRotated) || edits.any(LayerStep::kKRotated);
  const float* q = rope ? s.q_rotated : s.q;
  const float* k = rope ? s.k_rotated : s.k;
  const int64_t scores_size = H * n * n;
  if (redo) {
    for (int64_t h = 0; h < H; ++h) {
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          double dot = 0;
          for (int64_t e = 0; e < d_k; ++e)
            dot += double{q[(h * n + i) * d_k + e]} * k[((h / group) * n + j) * d_k + e];
          s.raw_scores[(h * n + i) * n + j] = static_cast<float>(dot);
        }
      }
    }
  }
  edits.apply(LayerStep::kRawScores, s.raw_scores, H, n, n);
  redo = redo || edits.any(LayerStep::kRawScores);
  if (redo) {
    const double scale = c.attention_scale > 0 ? c.attention_scale : 1.0 / std::sqrt(static_cast<double>(d_k));
    for (int64_t i = 0; i < scores_size; ++i) s.scaled_scores[i] = static_cast<float>(s.raw_scores[i] * scale);
  }
  edits.apply(LayerStep::kScaledScores, s.scaled_scores, H, n, n);
  redo = redo || edits.any(LayerStep::kScaledScores);
  if (redo) {
    for (int64_t h = 0; h < H; ++h) {
      for (int64_t i = 0; i < n; ++i) {
        for (int64_t j = 0; j < n; ++j) {
          const bool masked = (c.causal && j > i) || (c.sliding_window > 0 && i - j >= c.sliding_window);
          const int64_t at = (h * n + i) * n + j;
          const float scaled = s.scaled_scores[at];
          const float capped = c.softcap > 0 ? std::tanh(scaled / c.softcap) * c.softcap : scaled;
          s.scores[at] = masked ? -std::numeric_limits<float>::infinity() : capped;
        }
      }
    }
  }
  edits.apply(LayerStep::kScores, s.scores, H, n, n);
  redo = redo || edits.any(LayerStep::kScores);
  if (redo) {
    for (int64_t row = 0; row < H * n; ++row) {
      const float* in = s.scores + row * n;
      float* out = s.weights + row * n;
      const float max = *std::max_element(in, in + n);
      if (max == -std::numeric_limits<float>::infinity()) {
        std::fill_n(out, n, 0.0f);
        continue;
      }
      double sum = 0;
      for (int64_t j = 0; j < n; ++j) sum += std::exp(double{in[j]} - max);
      for (int64_t j = 0; j < n; ++j) out[j] = static_cast<float>(std::exp(double{in[j]} - max) / sum);
    }
  }
  edits.apply(LayerStep::kWeights, s.weights, H, n, n);
  if (!redo && !edits.any(LayerStep::kWeights)) return;
  for (int64_t h = 0; h < H; ++h) {
    const float* v = s.v + (h / group) * n * d_k;
    for (int64_t i = 0; i < n; ++i) {
      for (int64_t e = 0; e < d_k; ++e) {
        double sum = 0;
        for (int64_t j = 0; j < n; ++j) sum += double{s.weights[(h * n + i) * n + j]} * v[j * d_k + e];
        s.heads[(h * n + i) * d_k + e] = static_cast<float>(sum);
      }
    }
  }
}

}  // namespace attention::model
