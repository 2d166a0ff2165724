#include "attention.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <vector>

namespace attention {
namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using MatrixMap = Eigen::Map<RowMatrix>;
using ConstMatrixMap = Eigen::Map<const RowMatrix>;
using ConstRowVectorMap = Eigen::Map<const Eigen::RowVectorXf>;

constexpr float kNegInf = -std::numeric_limits<float>::infinity();
// Query rows whose scores are held at once when the caller does not keep the weights:
// the scratch is [kQueryBlock, L_k], so memory stays O(L_k) per call instead of O(L_q·L_k).
constexpr int64_t kQueryBlock = 64;

void require(bool ok, const char* code, const std::string& message) {
  if (!ok) throw AttentionError(code, message);
}

std::string str(int64_t n) { return std::to_string(n); }

void check_dims(const AttentionDims& d) {
  const std::pair<const char*, int32_t> sizes[] = {{"batch", d.batch}, {"num_heads", d.num_heads},
                                                   {"num_kv_heads", d.num_kv_heads}, {"len_q", d.len_q},
                                                   {"len_k", d.len_k}, {"d_k", d.d_k}, {"d_v", d.d_v}};
  for (const auto& [name, size] : sizes) {
    require(size > 0, "BAD_DIMENSION", std::string(name) + " must be a positive integer, got " + str(size));
  }
  require(d.num_heads % d.num_kv_heads == 0, "HEADS_DO_NOT_DIVIDE",
          "num_kv_heads (" + str(d.num_kv_heads) + ") must divide num_heads (" + str(d.num_heads) + ")");
}

// Element offsets of a mask broadcast to [B, H, L_q, L_k]: stride 0 along every dimension of size 1.
struct MaskStrides {
  int64_t batch = 0, head = 0, query = 0, key = 0;
};

MaskStrides mask_strides(const Mask& mask, const AttentionDims& d) {
  const int32_t full[4] = {d.batch, d.num_heads, d.len_q, d.len_k};
  const char* names[4] = {"batch", "num_heads", "len_q", "len_k"};
  int64_t stride[4];
  int64_t running = 1;
  for (int axis = 3; axis >= 0; --axis) {
    const int32_t size = mask.dims[axis];
    require(size == 1 || size == full[axis], "MASK_DOES_NOT_BROADCAST",
            std::string("mask dimension ") + str(axis) + " is " + str(size) + " but must be 1 or " +
                names[axis] + " (" + str(full[axis]) + ")");
    stride[axis] = size == 1 ? 0 : running;
    running *= size;
  }
  return {stride[0], stride[1], stride[2], stride[3]};
}

// One query row of a (b, h) pair: everything needed to turn raw scores into softmax input.
struct RowMasking {
  int64_t last_allowed_key;         // causal limit (L_k - 1 when not causal); may be < 0
  const uint8_t* allowed = nullptr;  // boolean mask row, or null
  const float* additive = nullptr;   // additive mask row, or null
  int64_t key_stride = 0;            // 0 when the mask broadcasts along keys
};

// In place: row = row·scale + masks. Masked entries become -inf.
void scale_and_mask(float* row, int64_t len_k, float scale, const RowMasking& m, float* scaled_out) {
  Eigen::Map<Eigen::ArrayXf> r(row, len_k);
  r *= scale;
  // Checked before masking: an overflow to -inf would otherwise pass for a masked key.
  require(r.allFinite(), "SCORE_OVERFLOW",
          "attention scores overflowed float32 (|q·k·scale| beyond 3.4e38); scale the inputs down");
  if (scaled_out) std::copy(row, row + len_k, scaled_out);
  const int64_t open_end = std::clamp<int64_t>(m.last_allowed_key + 1, 0, len_k);
  if (m.allowed) {
    for (int64_t j = 0; j < open_end; ++j) {
      if (!m.allowed[j * m.key_stride]) row[j] = kNegInf;
    }
  } else if (m.additive) {
    for (int64_t j = 0; j < open_end; ++j) row[j] += m.additive[j * m.key_stride];
  }
  std::fill(row + open_end, row + len_k, kNegInf);
}

// In place: row = softmax(row), with the row max subtracted. A row that is all -inf becomes all 0.
void softmax_row(float* row, int64_t len_k) {
  Eigen::Map<Eigen::ArrayXf> r(row, len_k);
  const float max = r.maxCoeff();
  if (max == kNegInf) {
    r.setZero();
    return;
  }
  // Eigen's SIMD exp() returns 2.9e-39, not 0, for -inf: masked keys are zeroed explicitly.
  r = (r == kNegInf).select(0.0f, (r - max).exp());
  const float sum = r.sum();
  // sum >= 1 always holds (the max entry gives exp(0)); NaN or +inf means q·kᵀ overflowed float32.
  require(sum >= 1.0f && std::isfinite(sum), "SCORE_OVERFLOW",
          "attention scores overflowed float32 (|q·k·scale| beyond 3.4e38); scale the inputs down");
  r *= 1.0f / sum;
}

}  // namespace

void scaled_dot_product_attention(const AttentionDims& d, const float* q, const float* k, const float* v,
                                  const AttentionOptions& options, const AttentionResult& result) {
  check_dims(d);
  require(q && k && v && result.output, "NULL_ARGUMENT", "q, k, v and result.output must not be null");
  const Mask& mask = options.mask;
  require(mask.kind == MaskKind::kNone || mask.data, "NULL_ARGUMENT", "mask.data must not be null");
  const MaskStrides ms = mask.kind == MaskKind::kNone ? MaskStrides{} : mask_strides(mask, d);

  const int64_t len_q = d.len_q, len_k = d.len_k, d_k = d.d_k, d_v = d.d_v;
  const int64_t group = d.num_heads / d.num_kv_heads;
  const float scale = options.has_scale ? options.scale : 1.0f / std::sqrt(static_cast<float>(d_k));
  const int64_t causal_shift = options.causal == Causal::kBottomRight ? len_k - len_q : 0;
  const int64_t score_size = len_q * len_k;

  // Scores live in the caller's weights buffer when it has one, else in a [kQueryBlock, L_k] scratch.
  std::vector<float> scratch;
  if (!result.weights) scratch.resize(std::min(len_q, kQueryBlock) * len_k);

  for (int64_t b = 0; b < d.batch; ++b) {
    for (int64_t h = 0; h < d.num_heads; ++h) {
      const int64_t bh = b * d.num_heads + h;
      const int64_t bh_kv = b * d.num_kv_heads + h / group;
      ConstMatrixMap q_bh(q + bh * len_q * d_k, len_q, d_k);        // [L_q, d_k]
      ConstMatrixMap k_bh(k + bh_kv * len_k * d_k, len_k, d_k);     // [L_k, d_k]
      ConstMatrixMap v_bh(v + bh_kv * len_k * d_v, len_k, d_v);     // [L_k, d_v]
      MatrixMap out_bh(result.output + bh * len_q * d_v, len_q, d_v);  // [L_q, d_v]

      for (int64_t i0 = 0; i0 < len_q; i0 += kQueryBlock) {
        const int64_t rows = std::min(kQueryBlock, len_q - i0);
        float* block = result.weights ? result.weights + bh * score_size + i0 * len_k : scratch.data();
        MatrixMap s(block, rows, len_k);  // [rows, L_k]
        s.noalias() = q_bh.middleRows(i0, rows) * k_bh.transpose();

        for (int64_t r = 0; r < rows; ++r) {
          const int64_t i = i0 + r;
          float* row = block + r * len_k;
          const int64_t at = bh * score_size + i * len_k;
          if (result.raw_scores) std::copy(row, row + len_k, result.raw_scores + at);

          RowMasking m{options.causal == Causal::kNone ? len_k - 1 : i + causal_shift};
          if (mask.kind != MaskKind::kNone) {
            const int64_t offset = b * ms.batch + h * ms.head + i * ms.query;
            m.key_stride = ms.key;
            if (mask.kind == MaskKind::kBoolean) m.allowed = static_cast<const uint8_t*>(mask.data) + offset;
            if (mask.kind == MaskKind::kAdditive) m.additive = static_cast<const float*>(mask.data) + offset;
          }
          scale_and_mask(row, len_k, scale, m, result.scaled_scores ? result.scaled_scores + at : nullptr);
          if (result.scores) std::copy(row, row + len_k, result.scores + at);
          softmax_row(row, len_k);
        }
        out_bh.middleRows(i0, rows).noalias() = s * v_bh;
      }
    }
  }
}

void multi_head_attention(const ProjectionDims& d, const float* x, const float* context,
                          const ProjectionWeights& w, const AttentionOptions& options,
                          const MultiHeadResult& result) {
  const AttentionDims ad{d.batch, d.num_heads, d.num_kv_heads, d.len_q, d.len_k, d.d_k, d.d_v};
  check_dims(ad);
  require(d.d_model > 0 && d.d_context > 0 && d.d_out >= 0, "BAD_DIMENSION",
          "d_model and d_context must be positive and d_out must not be negative");
  require(x && w.w_q && w.w_k && w.w_v && result.output && (d.d_out == 0 || w.w_o), "NULL_ARGUMENT",
          "x, w_q, w_k, w_v, result.output (and w_o when d_out > 0) must not be null");
  if (!context) {
    require(d.len_k == d.len_q && d.d_context == d.d_model, "SHAPE_MISMATCH",
            "self-attention needs len_k = len_q and d_context = d_model");
    context = x;
  }
  const int64_t B = d.batch, H = d.num_heads, H_kv = d.num_kv_heads, L_q = d.len_q, L_k = d.len_k;
  const int64_t d_k = d.d_k, d_v = d.d_v, width = H * d_v;

  auto buffer = [](float* given, std::vector<float>& own, int64_t size) {
    if (given) return given;
    own.resize(size);
    return own.data();
  };
  std::vector<float> q_own, k_own, v_own, heads_own, concat_own;
  float* q = buffer(result.q, q_own, B * H * L_q * d_k);
  float* k = buffer(result.k, k_own, B * H_kv * L_k * d_k);
  float* v = buffer(result.v, v_own, B * H_kv * L_k * d_v);
  float* heads = buffer(result.attention.output, heads_own, B * H * L_q * d_v);
  float* concat = d.d_out == 0 ? result.output : buffer(result.concat, concat_own, B * L_q * width);

  // Project into heads: head h is columns [h·d, (h+1)·d) of the projection.
  auto project = [](const ConstMatrixMap& input, const float* weight, const float* bias, int64_t heads,
                    int64_t head_width, float* out) {
    ConstMatrixMap w_all(weight, input.cols(), heads * head_width);  // [d_in, heads·head_width]
    for (int64_t h = 0; h < heads; ++h) {
      MatrixMap out_h(out + h * input.rows() * head_width, input.rows(), head_width);  // [L, head_width]
      out_h.noalias() = input * w_all.middleCols(h * head_width, head_width);
      if (bias) out_h.rowwise() += ConstRowVectorMap(bias + h * head_width, head_width);
    }
  };
  for (int64_t b = 0; b < B; ++b) {
    ConstMatrixMap x_b(x + b * L_q * d.d_model, L_q, d.d_model);             // [L_q, d_model]
    ConstMatrixMap c_b(context + b * L_k * d.d_context, L_k, d.d_context);   // [L_k, d_context]
    project(x_b, w.w_q, w.b_q, H, d_k, q + b * H * L_q * d_k);
    project(c_b, w.w_k, w.b_k, H_kv, d_k, k + b * H_kv * L_k * d_k);
    project(c_b, w.w_v, w.b_v, H_kv, d_v, v + b * H_kv * L_k * d_v);
  }

  AttentionResult per_head = result.attention;
  per_head.output = heads;
  scaled_dot_product_attention(ad, q, k, v, options, per_head);

  for (int64_t b = 0; b < B; ++b) {
    MatrixMap concat_b(concat + b * L_q * width, L_q, width);  // [L_q, H·d_v]
    for (int64_t h = 0; h < H; ++h) {
      concat_b.middleCols(h * d_v, d_v) = ConstMatrixMap(heads + (b * H + h) * L_q * d_v, L_q, d_v);
    }
  }
  if (d.d_out == 0) {
    if (result.concat && result.concat != concat) std::copy(concat, concat + B * L_q * width, result.concat);
    return;
  }
  ConstMatrixMap w_o(w.w_o, width, d.d_out);  // [H·d_v, d_out]
  for (int64_t b = 0; b < B; ++b) {
    MatrixMap out_b(result.output + b * L_q * d.d_out, L_q, d.d_out);  // [L_q, d_out]
    out_b.noalias() = ConstMatrixMap(concat + b * L_q * width, L_q, width) * w_o;
    if (w.b_o) out_b.rowwise() += ConstRowVectorMap(w.b_o, d.d_out);
  }
}

std::string simd_instruction_sets() { return Eigen::SimdInstructionSetsInUse(); }

}  // namespace attention
