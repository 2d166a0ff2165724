#include "attention.h"

#include <Eigen/Core>  // simd_instruction_sets() alone: no product here is Eigen's
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <memory>
#include <utility>
#include <vector>

#include "gemm.h"
#include "kernels.h"
#include "row_groups.h"

namespace attention {
namespace {

constexpr float kNegInf = -std::numeric_limits<float>::infinity();
constexpr float kPosInf = std::numeric_limits<float>::infinity();

using kernels::mask_row;
using kernels::RowMasking;

[[noreturn]] void fail(const char* code, const std::string& message) { throw AttentionError(code, message); }

// For constant messages; where the message is built from values, `if (...) fail(...)` builds it only on failure.
void require(bool ok, const char* code, const char* message) {
  if (!ok) fail(code, message);
}

std::string str(int64_t n) { return std::to_string(n); }

void check_dims(const AttentionDims& d) {
  const std::pair<const char*, int32_t> sizes[] = {
      {"batch", d.batch}, {"num_heads", d.num_heads}, {"num_kv_heads", d.num_kv_heads},
      {"len_q", d.len_q}, {"len_k", d.len_k},         {"d_k", d.d_k},
      {"d_v", d.d_v}};
  for (const auto& [name, size] : sizes) {
    if (size <= 0) fail("BAD_DIMENSION", std::string(name) + " must be a positive integer, got " + str(size));
  }
  if (d.num_heads % d.num_kv_heads != 0) {
    fail("HEADS_DO_NOT_DIVIDE",
         "num_kv_heads (" + str(d.num_kv_heads) + ") must divide num_heads (" + str(d.num_heads) + ")");
  }
}

void check_options(const AttentionOptions& o) {
  require(o.causal == Causal::kNone || o.causal == Causal::kTopLeft || o.causal == Causal::kBottomRight, "BAD_OPTION",
          "causal must be kNone, kTopLeft or kBottomRight");
  require(o.mask.kind == MaskKind::kNone || o.mask.kind == MaskKind::kBoolean || o.mask.kind == MaskKind::kAdditive,
          "BAD_OPTION", "mask.kind must be kNone, kBoolean or kAdditive");
  require(!o.has_scale || std::isfinite(o.scale), "BAD_OPTION", "scale must be finite");
  require(o.softcap >= 0 && std::isfinite(o.softcap), "BAD_OPTION", "softcap must be finite and not negative");
  require(o.window >= 0, "BAD_OPTION", "window must not be negative");
  require(o.window == 0 || o.causal != Causal::kNone, "BAD_OPTION", "a sliding window needs causal masking");
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
    if (size != 1 && size != full[axis]) {
      fail("MASK_DOES_NOT_BROADCAST", std::string("mask dimension ") + str(axis) + " is " + str(size) +
                                          " but must be 1 or " + names[axis] + " (" + str(full[axis]) + ")");
    }
    stride[axis] = size == 1 ? 0 : running;
    running *= size;
  }
  return {stride[0], stride[1], stride[2], stride[3]};
}

std::string num(double x) {
  char text[32];
  std::snprintf(text, sizeof text, "%.7g", x);
  return text;
}

// Where a value sits, for messages: batch, head and query row (and key or column when given).
std::string where(int64_t b, int64_t h, int64_t i) {
  return "batch " + str(b) + ", head " + str(h) + ", query row " + str(i);
}

// The smallest magnitude a double rounds to ±inf from in float32: FLT_MAX plus half its last place.
constexpr double kFloatOverflow = 0x1p128 - 0x1p103;

// Everything one call shares between its (b, h) pairs and query blocks.
class SdpaRun {
 public:
  SdpaRun(const AttentionDims& d, const float* q, const float* k, const float* v, const AttentionOptions& options,
          const AttentionResult& result)
      : d_(d), q_(q), k_(k), v_(v), options_(options), result_(result) {
    const Mask& mask = options.mask;
    require(mask.kind == MaskKind::kNone || mask.data, "NULL_ARGUMENT", "mask.data must not be null");
    mask_strides_ = mask.kind == MaskKind::kNone ? MaskStrides{} : mask_strides(mask, d);
    scale_ = options.has_scale ? options.scale : 1.0f / std::sqrt(static_cast<float>(d.d_k));
    causal_shift_ = options.causal == Causal::kBottomRight ? int64_t{d.len_k} - d.len_q : 0;
    // Without weights or steps, keys stream through in tiles; otherwise a block's scores are whole rows.
    streaming_ = !result.weights && !result.scores && !result.scaled_scores && !result.raw_scores;
    const int64_t packed_k_size = kernels::padded_keys(d.len_k) * d.d_k;
    const int64_t packed_v_size = kernels::padded_values(d.d_v) * d.len_k;
    // Packed keys, packed values, then the scratch block: the size the JS layer reckons with (abi.h).
    // Uninitialized: written before read.
    buffer_.reset(new float[sdpa_scratch_floats(d.len_q, d.len_k, d.d_k, d.d_v, result.weights, streaming_)]);
    packed_k_ = buffer_.get();
    packed_v_ = packed_k_ + packed_k_size;
    scratch_ = packed_v_ + packed_v_size;
  }

  void run() {
    const int64_t group = d_.num_heads / d_.num_kv_heads;
    for (int64_t b = 0; b < d_.batch; ++b) {
      for (int64_t h = 0; h < d_.num_heads; ++h) {
        if (h % group == 0) pack_kv_head(b * d_.num_kv_heads + h / group);
        const int64_t bh = b * d_.num_heads + h;
        // With every |q·k| and |q·k·scale| provably below kSafeScore, no score can overflow: causally masked
        // keys are skipped and no score is checked. Otherwise every score is computed and checked. q·k is
        // summed before the scale applies, so a scale below 1 does not make it safe.
        // |q·k| and each partial sum are at most d_k·max|q|·max|k|.
        const double q_max = kernels::max_abs(q_ + bh * d_.len_q * d_.d_k, int64_t{d_.len_q} * d_.d_k);
        proven_finite_ = d_.d_k * q_max * k_max_ * std::max(1.0, std::abs(static_cast<double>(scale_))) < kSafeScore;
        for (int64_t i0 = 0; i0 < d_.len_q; i0 += kQueryBlock) {
          const int64_t rows = std::min<int64_t>(kQueryBlock, d_.len_q - i0);
          if (streaming_) {
            stream_block(b, h, i0, rows);
          } else {
            full_block(b, h, i0, rows);
          }
        }
      }
    }
  }

 private:
  // Bound on |q·k| and |q·k·scale| under which no score nor partial sum comes near float32's 3.4e38.
  static constexpr double kSafeScore = 1e37;
  // Keys per block of the weighted sum when whole rows of weights are kept: each block is summed into fresh
  // accumulators and the block sums are added in order, so no float32 chain is longer than kSumBlock +
  // L_k / kSumBlock terms. One chain over 16 377 keys lost 1.9e-4 (uniform weights, v = 0.5); measured over
  // uniform rows of 8 000 to 20 000 keys, blocks of 64/128/256/512 keys lose at worst 4.5/3.3/4.3/8.0e-6 (the
  // streaming path 2.3e-6), and no block size changed the time at n = 512 or 2048 beyond the noise (~2%).
  // Blocks start at multiples of kSumBlock from key 0, so the bits do not depend on how heads or rows are shared.
  static constexpr int64_t kSumBlock = 128;

  void pack_kv_head(int64_t bh_kv) {
    const float* k_head = k_ + bh_kv * d_.len_k * d_.d_k;  // [L_k, d_k]
    kernels::pack_keys(k_head, d_.len_k, d_.d_k, packed_k_);
    kernels::pack_values(v_ + bh_kv * d_.len_k * d_.d_v, d_.len_k, d_.d_v, packed_v_);
    k_max_ = kernels::max_abs(k_head, int64_t{d_.len_k} * d_.d_k);
    k_head_ = k_head;
  }

  // The slow path of a row whose float32 scores are not all finite. q·k can overflow float32 where q·k·scale
  // does not (a small scale, or 0), and a float32 partial sum can overflow where the whole sum does not: so
  // the row's scores for keys [key_begin, key_begin + n) are summed again in double and stored, and
  // SCORE_OVERFLOW is raised only for a score that is itself beyond float32. With `raw` (the unscaled q·k of
  // the same keys, as returnSteps asks), those are stored too, or raise SCORE_OVERFLOW when one is beyond.
  void rescore_row(int64_t b, int64_t h, int64_t i, int64_t key_begin, int64_t n, float* row, float* raw) const {
    const int64_t d_k = d_.d_k;
    const float* q_row = q_ + ((b * d_.num_heads + h) * d_.len_q + i) * d_k;  // [d_k]
    int64_t raw_overflow = -1;
    double raw_value = 0;
    for (int64_t j = 0; j < n; ++j) {
      const float* key = k_head_ + (key_begin + j) * d_k;  // [d_k]
      double dot = 0;
      for (int64_t c = 0; c < d_k; ++c) dot += static_cast<double>(q_row[c]) * key[c];
      const double scaled = dot * scale_;
      if (!(std::abs(scaled) < kFloatOverflow)) {
        fail("SCORE_OVERFLOW", "the attention score q·k·scale overflowed float32 at " + where(b, h, i) + ", key " +
                                   str(key_begin + j) + ": " + num(dot) + " · " + num(scale_) + " = " + num(scaled) +
                                   ", beyond ±3.4e38; scale q, k or the scale down");
      }
      row[j] = static_cast<float>(scaled);
      if (!raw) continue;
      if (std::abs(dot) < kFloatOverflow) {
        raw[j] = static_cast<float>(dot);
      } else if (raw_overflow < 0) {
        raw_overflow = key_begin + j;
        raw_value = dot;
      }
    }
    if (raw_overflow >= 0) {
      fail("SCORE_OVERFLOW", "the unscaled q·kᵀ requested as rawScores overflowed float32 at " + where(b, h, i) +
                                 ", key " + str(raw_overflow) + " (" + num(raw_value) +
                                 "), although the scaled scores fit; returnSteps: false avoids it");
    }
  }

  // An additive mask pushed a finite score of keys [key_begin, key_begin + n) to +inf: says where.
  [[noreturn]] void fail_masked_overflow(int64_t b, int64_t h, int64_t i, int64_t key_begin, const float* row,
                                         int64_t n, const RowMasking& m) const {
    int64_t j = 0;
    while (j + 1 < n && row[j] == row[j] && row[j] != kPosInf) ++j;
    const double added = m.additive ? m.additive[(key_begin + j) * m.key_stride] : 0.0;
    fail("SCORE_OVERFLOW", "the score q·k·scale + mask overflowed float32 at " + where(b, h, i) + ", key " +
                               str(key_begin + j) + " (the mask adds " + num(added) + " there); lower the mask");
  }

  // OUTPUT_OVERFLOW unless out [rows, d_v] (query rows i0...) is finite: |v| near float32's limit with weights
  // summing to just over 1 can push weights·V beyond it.
  void require_finite_output(int64_t b, int64_t h, int64_t i0, int64_t rows, const float* out) const {
    const int64_t n = rows * d_.d_v;
    if (kernels::all_finite(out, n)) return;
    const int64_t at = std::find_if(out, out + n, [](float x) { return !std::isfinite(x); }) - out;
    fail("OUTPUT_OVERFLOW", "weights·V overflowed float32 at " + where(b, h, i0 + at / d_.d_v) + ", column " +
                                str(at % d_.d_v) + " (got " + num(out[at]) +
                                "); values near ±3.4e38 leave no room for rounding: scale v down");
  }

  RowMasking row_masking(int64_t b, int64_t h, int64_t i) const {
    RowMasking m;
    m.open_end = options_.causal == Causal::kNone ? d_.len_k : std::clamp<int64_t>(i + causal_shift_ + 1, 0, d_.len_k);
    if (options_.window > 0) m.open_begin = std::clamp<int64_t>(i + causal_shift_ + 1 - options_.window, 0, m.open_end);
    const Mask& mask = options_.mask;
    if (mask.kind != MaskKind::kNone) {
      const int64_t offset = b * mask_strides_.batch + h * mask_strides_.head + i * mask_strides_.query;
      m.key_stride = mask_strides_.key;
      if (mask.kind == MaskKind::kBoolean) m.allowed = static_cast<const uint8_t*>(mask.data) + offset;
      if (mask.kind == MaskKind::kAdditive) m.additive = static_cast<const float*>(mask.data) + offset;
    }
    return m;
  }

  // Rows [i0, i0 + rows) of pair (b, h) with whole rows of scores: in the caller's weights buffer when it
  // has one, else in the scratch. Every step the caller asked for is copied out on the way.
  void full_block(int64_t b, int64_t h, int64_t i0, int64_t rows) {
    const int64_t len_k = d_.len_k, bh = b * d_.num_heads + h;
    const int64_t at = (bh * d_.len_q + i0) * len_k;
    float* s = result_.weights ? result_.weights + at : scratch_;  // [rows, L_k]
    const bool every_score = result_.raw_scores || result_.scaled_scores || !proven_finite_;
    // keys before row i0's window (the earliest) are in no row's: unless every score is wanted, they are not scored
    const int64_t begin = every_score ? 0 : row_masking(b, h, i0).open_begin / kKeyPanel * kKeyPanel;
    for (int64_t r = 0; r < rows; ++r) row_end_[r] = every_score ? len_k : row_masking(b, h, i0 + r).open_end - begin;
    kernels::query_key_scores(q_ + (bh * d_.len_q + i0) * d_.d_k, rows, d_.d_k, packed_k_, begin, len_k - begin,
                              result_.raw_scores ? 1.0f : scale_, s + begin, len_k, row_end_);

    for (int64_t r = 0; r < rows; ++r) {
      float* row = s + r * len_k;
      const int64_t out = at + r * len_k;
      float* raw = result_.raw_scores ? result_.raw_scores + out : nullptr;
      bool finite = proven_finite_ || !raw || kernels::all_finite(row, len_k);
      if (raw) {
        std::copy(row, row + len_k, raw);
        kernels::scale_row(row, len_k, scale_);
      }
      finite = finite && (proven_finite_ || kernels::all_finite(row, len_k));
      if (!finite) rescore_row(b, h, i0 + r, 0, len_k, row, raw);
      if (result_.scaled_scores) std::copy(row, row + len_k, result_.scaled_scores + out);
      const RowMasking m = row_masking(b, h, i0 + r);
      const int64_t first = m.open_begin, open = m.open_end - first;  // the keys [first, open_end) it may attend
      mask_row(row, 0, first, m.open_end, options_.softcap, m);
      if (result_.scores) {
        std::fill(row + m.open_end, row + len_k, kNegInf);
        std::copy(row, row + len_k, result_.scores + out);
      }
      bool nan = false;
      const float max = kernels::row_max(row, m.open_end, nan);
      if (nan || max == kPosInf) fail_masked_overflow(b, h, i0 + r, 0, row, m.open_end, m);
      if (max == kNegInf) {
        std::fill(row, row + len_k, 0.0f);
        row_end_[r] = 0;
        continue;
      }
      const float sum = kernels::exp_and_sum(row + first, open, max);
      kernels::scale_row(row + first, open, 1.0f / sum);
      std::fill(row, row + first, 0.0f);
      std::fill(row + m.open_end, row + len_k, 0.0f);
      row_end_[r] = m.open_end;
    }
    float* output = result_.output + (bh * d_.len_q + i0) * d_.d_v;                  // [rows, d_v]
    const int64_t start = row_masking(b, h, i0).open_begin / kSumBlock * kSumBlock;  // blocks before: zero weights
    for (int64_t j0 = start; j0 < len_k; j0 += kSumBlock) {
      const int64_t keys = std::min(kSumBlock, len_k - j0);
      int64_t open = 0;
      for (int64_t r = 0; r < rows; ++r) {
        tile_open_[r] = std::clamp<int64_t>(row_end_[r] - j0, 0, keys);
        open = std::max(open, tile_open_[r]);
      }
      if (j0 > start && open == 0) break;  // every later weight is 0 too (causal); the first block writes the output
      kernels::weighted_sum(s + j0, len_k, rows, packed_v_, len_k, j0, keys, d_.d_v, output, j0 > start, tile_open_);
    }
    require_finite_output(b, h, i0, rows, output);
  }

  // Rows [i0, i0 + rows) of pair (b, h), keys in tiles of kKeyTile with an online softmax: each row keeps its
  // running max and sum, and its output stays the weighted mean of the keys so far (a running sum of
  // e^(s - max)·v could overflow where the mean does not). Memory: one [64, kKeyTile] tile.
  void stream_block(int64_t b, int64_t h, int64_t i0, int64_t rows) {
    const int64_t len_k = d_.len_k, d_v = d_.d_v, bh = b * d_.num_heads + h;
    float* out = result_.output + (bh * d_.len_q + i0) * d_v;  // [rows, d_v]
    std::fill(out, out + rows * d_v, 0.0f);
    float max[kQueryBlock], sum[kQueryBlock];
    RowMasking masking[kQueryBlock];
    int64_t key_end = 0;
    for (int64_t r = 0; r < rows; ++r) {
      max[r] = kNegInf;
      sum[r] = 0;
      masking[r] = row_masking(b, h, i0 + r);
      key_end = std::max(key_end, masking[r].open_end);
    }
    if (!proven_finite_) key_end = len_k;
    const int64_t ld = std::min(kKeyTile, len_k);
    float* tile = scratch_;  // [rows, ld]

    const int64_t start = proven_finite_ ? masking[0].open_begin / kKeyTile * kKeyTile : 0;  // tiles before: no weight
    for (int64_t j0 = start; j0 < key_end; j0 += kKeyTile) {
      const int64_t keys = std::min(kKeyTile, len_k - j0);
      for (int64_t r = 0; r < rows; ++r) {
        tile_open_[r] = std::clamp<int64_t>(masking[r].open_end - j0, 0, keys);
        row_end_[r] = proven_finite_ ? tile_open_[r] : keys;
      }
      kernels::query_key_scores(q_ + (bh * d_.len_q + i0) * d_.d_k, rows, d_.d_k, packed_k_, j0, keys, scale_, tile, ld,
                                row_end_);
      for (int64_t r = 0; r < rows; ++r) {
        float* row = tile + r * ld;
        if (!proven_finite_ && !kernels::all_finite(row, keys)) rescore_row(b, h, i0 + r, j0, keys, row, nullptr);
        const int64_t open = tile_open_[r];
        const int64_t first = std::clamp<int64_t>(masking[r].open_begin - j0, 0, open);  // the window's first key
        mask_row(row, j0, first, open, options_.softcap, masking[r]);
        bool nan = false;
        const float tile_max = kernels::row_max(row, open, nan);
        if (nan || tile_max == kPosInf) fail_masked_overflow(b, h, i0 + r, j0, row, open, masking[r]);
        const float new_max = std::max(max[r], tile_max);
        if (new_max == kNegInf) {
          std::fill(row, row + keys, 0.0f);
          tile_open_[r] = 0;
          continue;
        }
        const float kept = sum[r] > 0 ? sum[r] * std::exp(max[r] - new_max) : 0.0f;
        const float total = kept + kernels::exp_and_sum(row, open, new_max);
        if (sum[r] > 0) kernels::scale_row(out + r * d_v, d_v, kept / total);
        kernels::scale_row(row, open, 1.0f / total);
        max[r] = new_max;
        sum[r] = total;
        std::fill(row + open, row + keys, 0.0f);
      }
      kernels::weighted_sum(tile, ld, rows, packed_v_, len_k, j0, keys, d_v, out, true, tile_open_);
    }
    require_finite_output(b, h, i0, rows, out);
  }

  const AttentionDims& d_;
  const float *q_, *k_, *v_;
  const AttentionOptions& options_;
  const AttentionResult& result_;
  MaskStrides mask_strides_;
  float scale_ = 1;
  int64_t causal_shift_ = 0;
  bool streaming_ = false;
  bool proven_finite_ = false;
  double k_max_ = 0;
  const float* k_head_ = nullptr;  // [L_k, d_k]  keys of the current kv head, unpacked
  std::unique_ptr<float[]> buffer_;
  float* packed_k_;  // [padded L_k / 8, d_k, 8]  keys of the current kv head
  float* packed_v_;  // [padded d_v / 8, L_k, 8]  values of the current kv head
  float* scratch_;   // [64, L_k] or [64, kKeyTile] scores when the caller keeps no weights
  int64_t row_end_[kQueryBlock];
  int64_t tile_open_[kQueryBlock];
};

}  // namespace

void scaled_dot_product_attention(const AttentionDims& d, const float* q, const float* k, const float* v,
                                  const AttentionOptions& options, const AttentionResult& result) {
  check_dims(d);
  check_options(options);
  check_rope(options.rope, d.d_k, d.len_q, d.len_k);
  require(q && k && v && result.output, "NULL_ARGUMENT", "q, k, v and result.output must not be null");
  const RotatedQk qk = rotate_qk(options.rope, q, k, result.q_rotated, result.k_rotated, d);  // q, k without a rope
  SdpaRun(d, qk.q, qk.k, v, options, result).run();
}

void multi_head_attention(const ProjectionDims& d, const float* x, const float* context, const ProjectionWeights& w,
                          const AttentionOptions& options, const MultiHeadResult& result) {
  const AttentionDims ad{d.batch, d.num_heads, d.num_kv_heads, d.len_q, d.len_k, d.d_k, d.d_v};
  check_dims(ad);
  check_rope(options.rope, ad.d_k, ad.len_q, ad.len_k);
  require(d.d_model > 0 && d.d_context > 0 && d.d_out >= 0, "BAD_DIMENSION",
          "d_model and d_context must be positive and d_out must not be negative");
  require(x && w.w_q && w.w_k && w.w_v && result.output && (d.d_out == 0 || w.w_o), "NULL_ARGUMENT",
          "x, w_q, w_k, w_v, result.output (and w_o when d_out > 0) must not be null");
  if (!context) {
    require(d.len_k == d.len_q && d.d_context == d.d_model, "SHAPE_MISMATCH",
            "self-attention needs len_k = len_q and d_context = d_model");
    context = x;
  }
  require(!result.stale_blocks || (context == x && result.q && result.k && result.v), "NULL_ARGUMENT",
          "stale_blocks needs self-attention, and result.q, k and v holding the projections of the other rows");
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

  // Project into heads: head h is columns [h·d, (h+1)·d) of the projection. Finite inputs can still give
  // values beyond float32 here, which attention would turn into inf or NaN without a word.
  const int64_t groups = (L_q + kProjectionRows - 1) / kProjectionRows;  // of x's rows, per batch
  auto project = [](const float* input, int64_t rows, int64_t d_in, const float* weight, const float* bias,
                    int64_t heads, int64_t head_width, float* out, uint8_t* stale, const char* overflow_message) {
    const int64_t ld = heads * head_width;  // weight: [d_in, heads·head_width]
    for (const auto& [r0, r1] : stale_row_ranges(rows, stale)) {
      for (int64_t h = 0; h < heads; ++h) {
        float* out_h = out + (h * rows + r0) * head_width;  // [r1 - r0, head_width]
        gemm(input + r0 * d_in, r1 - r0, d_in, weight + h * head_width, ld, WeightLayout::kInOut, head_width,
             bias ? bias + h * head_width : nullptr, out_h);
        require(kernels::all_finite(out_h, (r1 - r0) * head_width), "PROJECTION_OVERFLOW", overflow_message);
      }
    }
  };
  for (int64_t b = 0; b < B; ++b) {
    const float* x_b = x + b * L_q * d.d_model;                                         // [L_q, d_model]
    const float* c_b = context + b * L_k * d.d_context;                                 // [L_k, d_context]
    uint8_t* stale = result.stale_blocks ? result.stale_blocks + b * groups : nullptr;  // [groups] of batch b
    project(x_b, L_q, d.d_model, w.w_q, w.b_q, H, d_k, q + b * H * L_q * d_k, stale,
            "q = x·W_q (+ b_q) overflowed float32; scale x or W_q down");
    project(c_b, L_k, d.d_context, w.w_k, w.b_k, H_kv, d_k, k + b * H_kv * L_k * d_k, stale,
            "k = context·W_k (+ b_k) overflowed float32; scale the input or W_k down");
    project(c_b, L_k, d.d_context, w.w_v, w.b_v, H_kv, d_v, v + b * H_kv * L_k * d_v, stale,
            "v = context·W_v (+ b_v) overflowed float32; scale the input or W_v down");
  }

  AttentionResult per_head = result.attention;
  per_head.output = heads;
  const RotatedQk qk = rotate_qk(options.rope, q, k, per_head.q_rotated, per_head.k_rotated, ad);
  AttentionOptions rotated = options;
  rotated.rope = Rope{};  // done
  scaled_dot_product_attention(ad, qk.q, qk.k, v, rotated, per_head);

  for (int64_t b = 0; b < B; ++b) {
    for (int64_t h = 0; h < H; ++h) {
      const float* head = heads + (b * H + h) * L_q * d_v;  // [L_q, d_v]
      float* to = concat + b * L_q * width + h * d_v;       // columns [h·d_v, (h+1)·d_v) of [L_q, H·d_v]
      for (int64_t i = 0; i < L_q; ++i) std::copy(head + i * d_v, head + (i + 1) * d_v, to + i * width);
    }
  }
  if (d.d_out == 0) {
    if (result.concat && result.concat != concat) std::copy(concat, concat + B * L_q * width, result.concat);
    return;
  }
  output_projection(concat, B * L_q, width, w.w_o, w.b_o, d.d_out, result.output);
}

void output_projection(const float* concat, int64_t rows, int64_t width, const float* w_o, const float* b_o,
                       int64_t d_out, float* output) {
  require(rows > 0 && width > 0 && d_out > 0, "BAD_DIMENSION", "rows, width and d_out must be positive");
  require(concat && w_o && output, "NULL_ARGUMENT", "concat, w_o and output must not be null");
  gemm(concat, rows, width, w_o, d_out, WeightLayout::kInOut, d_out, b_o, output);  // reads W_o where it is
  require(kernels::all_finite(output, rows * d_out), "PROJECTION_OVERFLOW",
          "output = concat·W_o (+ b_o) overflowed float32; scale W_o down");
}

std::string simd_instruction_sets() { return Eigen::SimdInstructionSetsInUse(); }

}  // namespace attention
