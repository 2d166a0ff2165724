// libFuzzer target for the attention core. Dims, options and values come from the input bytes; both
// scaled_dot_product_attention and multi_head_attention run on the Eigen path and are checked against the
// plain-loop reference.
//
// The tolerance follows the float32 rounding error of each softmax input (a score of 1e4 is known to about
// 1e-3, one of 1e30 not at all), so tiny, ordinary and huge values are all checked as tightly as float32
// allows; rows whose error bound is too large for a numeric check still get the structural ones (weights in
// [0, 1] summing to 1, masked weights exactly 0, outputs inside the values' range). AttentionError is the only
// exception allowed, SCORE_OVERFLOW only when a score can leave float32 range, which it then must, and
// PROJECTION_OVERFLOW only when a projection can.
//
// Also built without libFuzzer by tests/fuzz/replay_main.cc, which replays the corpus and regressions.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <limits>
#include <string>
#include <vector>

#include "attention.h"
#include "reference.h"

namespace {

using namespace attention;

constexpr double kEps = 1.0 / (1 << 24);      // float32 unit roundoff
constexpr double kSureOverflow = 1e39;         // beyond FLT_MAX whatever the float32 rounding on the way
constexpr double kMayOverflow = 1e38;          // below this, no float32 rounding reaches FLT_MAX
constexpr double kTrustedInputError = 0.05;    // softmax-input error bound above which a row is checked for structure only
constexpr double kWeightFloor = 1e-37;         // Eigen's exp() clamps its argument at -88.7: results below 3e-39 are not exact
constexpr double kTiny = 1e-30;                // absolute slack for sums of subnormal products
constexpr double kSubnormalStep = 1.5e-45;     // float32's absolute rounding step below 1.2e-38 (a huge scale magnifies it)
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

std::string g_case;  // the current input's dims and options, for failure messages

[[noreturn]] void fail(const std::string& what) {
  std::fprintf(stderr, "attention_fuzz: %s\n  case: %s\n", what.c_str(), g_case.c_str());
  std::fflush(stderr);
  std::abort();
}

std::string num(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9g", x);
  return buffer;
}

// The input's bytes, then a pseudo-random continuation seeded by them, so a short input still fills a case.
class ByteSource {
 public:
  ByteSource(const uint8_t* data, size_t size) : data_(data), size_(size), state_(0x9E3779B97F4A7C15ull ^ size) {
    for (size_t i = 0; i < size; ++i) state_ = (state_ ^ data[i]) * 0x100000001B3ull;
  }

  uint8_t byte() {
    if (pos_ < size_) return data_[pos_++];
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint8_t>(state_ >> 56);
  }

  uint32_t bytes(int n) {
    uint32_t x = 0;
    for (int i = 0; i < n; ++i) x = x << 8 | byte();
    return x;
  }

  int range(int lo, int hi) { return lo + byte() % (hi - lo + 1); }

  // A size in [1, hi], three times in four from the SIMD edge sizes 1..17 (cheap to check, where bugs live).
  int size(int hi) {
    const uint8_t b = byte();
    return b < 192 ? 1 + b % std::min(hi, 17) : 1 + b % hi;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  uint64_t state_;
};

enum class Magnitude : uint8_t { kSmall, kUnit, kInteger, kTenThousand, kExtreme, kNearMax, kMixed };
constexpr int kMagnitudes = 7;

float value(ByteSource& in, Magnitude m) {
  switch (m) {
    case Magnitude::kSmall: return static_cast<int8_t>(in.byte()) / 32.0f;              // k/32 in [-4, 4)
    case Magnitude::kUnit: return static_cast<int16_t>(in.bytes(2)) / 32768.0f;          // [-1, 1)
    case Magnitude::kInteger: return static_cast<int8_t>(in.byte());                     // [-128, 127]
    case Magnitude::kTenThousand: return static_cast<int16_t>(in.bytes(2)) * 0.5f;       // [-16384, 16384)
    case Magnitude::kExtreme: {                                                          // any finite float
      uint32_t bits = in.bytes(4);
      if (((bits >> 23) & 0xFFu) == 0xFFu) bits &= ~(1u << 23);
      float x;
      std::memcpy(&x, &bits, sizeof x);
      return x;
    }
    case Magnitude::kNearMax: {                                                          // ±[2e37, 3.4e38]
      const uint32_t bits = in.bytes(3);
      const uint32_t sign = (bits >> 23) & 1u, exponent = 251 + ((bits >> 21) & 3u);
      const uint32_t word = sign << 31 | exponent << 23 | (bits & 0x1FFFFFu) << 2;
      float x;
      std::memcpy(&x, &word, sizeof x);
      return x;
    }
    case Magnitude::kMixed: break;
  }
  return value(in, static_cast<Magnitude>(in.byte() % (kMagnitudes - 1)));
}

Magnitude magnitude(ByteSource& in) { return static_cast<Magnitude>(in.byte() % kMagnitudes); }

std::vector<float> values(ByteSource& in, int64_t n, Magnitude m) {
  std::vector<float> out(n);
  for (float& x : out) x = value(in, m);
  return out;
}

int64_t product(std::initializer_list<int64_t> sizes) {
  int64_t p = 1;
  for (int64_t s : sizes) p *= s;
  return p;
}

struct MaskStorage {
  std::vector<uint8_t> boolean;
  std::vector<float> additive;
};

// Causal mode, scale and a mask broadcasting over some of [B, H, L_q, L_k].
AttentionOptions read_options(ByteSource& in, const AttentionDims& d, MaskStorage& storage) {
  AttentionOptions o;
  o.causal = static_cast<Causal>(in.byte() % 3);
  const uint8_t scale_choice = in.byte();
  const float kScales[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.125f, 1e-3f, 1e3f, 1e-30f, 1e30f};
  o.has_scale = scale_choice >= 128;
  if (o.has_scale) {
    o.scale = scale_choice < 128 + 9 * 12 ? kScales[scale_choice % 9] : value(in, Magnitude::kMixed);
  }
  o.mask.kind = static_cast<MaskKind>(in.byte() % 3);
  if (o.mask.kind == MaskKind::kNone) return o;
  const uint8_t full_bits = in.byte();
  const int32_t full[4] = {d.batch, d.num_heads, d.len_q, d.len_k};
  for (int axis = 0; axis < 4; ++axis) o.mask.dims[axis] = (full_bits >> axis) & 1u ? full[axis] : 1;
  const int64_t size = product({o.mask.dims[0], o.mask.dims[1], o.mask.dims[2], o.mask.dims[3]});
  const uint8_t masked_below = in.byte();
  if (o.mask.kind == MaskKind::kBoolean) {
    storage.boolean.resize(size);
    for (uint8_t& open : storage.boolean) open = in.byte() >= masked_below ? 1 : 0;
    o.mask.data = storage.boolean.data();
  } else {
    const Magnitude m = magnitude(in);
    storage.additive.resize(size);
    for (float& add : storage.additive) add = in.byte() < masked_below ? kNegInf : value(in, m);
    o.mask.data = storage.additive.data();
  }
  return o;
}

std::string describe(const AttentionDims& d, const AttentionOptions& o) {
  std::string s = "B=" + std::to_string(d.batch) + " H=" + std::to_string(d.num_heads) +
                  " H_kv=" + std::to_string(d.num_kv_heads) + " L_q=" + std::to_string(d.len_q) +
                  " L_k=" + std::to_string(d.len_k) + " d_k=" + std::to_string(d.d_k) + " d_v=" + std::to_string(d.d_v) +
                  " causal=" + std::to_string(static_cast<int>(o.causal)) +
                  " mask=" + std::to_string(static_cast<int>(o.mask.kind));
  if (o.mask.kind != MaskKind::kNone) {
    s += " mask_dims=[" + std::to_string(o.mask.dims[0]) + "," + std::to_string(o.mask.dims[1]) + "," +
         std::to_string(o.mask.dims[2]) + "," + std::to_string(o.mask.dims[3]) + "]";
  }
  if (o.has_scale) s += " scale=" + num(o.scale);
  return s;
}

// Every buffer of AttentionResult, owned.
struct SdpaBuffers {
  std::vector<float> output, weights, scores, scaled_scores, raw_scores;

  SdpaBuffers(int64_t output_size, int64_t score_size)
      : output(output_size), weights(score_size), scores(score_size), scaled_scores(score_size), raw_scores(score_size) {}

  AttentionResult result() {
    return {output.data(), weights.data(), scores.data(), scaled_scores.data(), raw_scores.data()};
  }
};

// Runs `call`; returns the AttentionError code it threw, or "". Any other exception is a failure.
template <typename Call>
std::string attention_error_of(Call&& call) {
  try {
    call();
  } catch (const AttentionError& e) {
    if (e.code().empty()) fail("AttentionError with an empty code: " + std::string(e.what()));
    return e.code();
  } catch (const std::exception& e) {
    fail(std::string("exception other than AttentionError: ") + e.what());
  } catch (...) {
    fail("exception of unknown type");
  }
  return "";
}

// q·kᵀ for every [b, h, i, j] in double, with Σ|q_c·k_c| (what float32 rounding error scales with).
struct Dots {
  std::vector<double> dot, dot_abs;
  bool must_overflow = false;  // some q·k·scale is surely beyond float32
  bool may_overflow = false;   // some q·k·scale, or q·k·scale + mask, may round beyond float32
  bool raw_must_overflow = false;  // some unscaled q·k is surely beyond float32 (an error only with raw scores)
  bool raw_may_overflow = false;
};

double eigen_scale(const AttentionDims& d, const AttentionOptions& o) {
  return o.has_scale ? o.scale : 1.0f / std::sqrt(static_cast<float>(d.d_k));
}

Dots dots(const AttentionDims& d, const float* q, const float* k, const AttentionOptions& o) {
  Dots out;
  const int64_t size = product({d.batch, d.num_heads, d.len_q, d.len_k});
  out.dot.resize(size);
  out.dot_abs.resize(size);
  const double scale = std::abs(eigen_scale(d, o));
  const int group = d.num_heads / d.num_kv_heads;
  int64_t at = 0;
  for (int b = 0; b < d.batch; ++b)
    for (int h = 0; h < d.num_heads; ++h)
      for (int i = 0; i < d.len_q; ++i)
        for (int j = 0; j < d.len_k; ++j, ++at) {
          const float* q_row = q + ((int64_t{b} * d.num_heads + h) * d.len_q + i) * d.d_k;
          const float* k_row = k + ((int64_t{b} * d.num_kv_heads + h / group) * d.len_k + j) * d.d_k;
          double dot = 0, dot_abs = 0;
          for (int c = 0; c < d.d_k; ++c) {
            dot += double{q_row[c]} * k_row[c];
            dot_abs += std::abs(double{q_row[c]} * k_row[c]);
          }
          out.dot[at] = dot;
          out.dot_abs[at] = dot_abs;
          if (!(std::abs(dot) * scale <= kSureOverflow)) out.must_overflow = true;
          if (!(std::abs(dot) <= kSureOverflow)) out.raw_must_overflow = true;
          if (!(dot_abs < kMayOverflow)) out.raw_may_overflow = true;
          if (!(dot_abs < kMayOverflow) || !(dot_abs * scale < kMayOverflow)) out.may_overflow = true;
          const reference::KeyVerdict verdict = reference::key_verdict(d, o, b, h, i, j);
          if (verdict.open && !(dot_abs * scale + std::abs(verdict.add) < kMayOverflow)) out.may_overflow = true;
        }
  return out;
}

bool all_finite(const float* x, int64_t n) {
  return std::all_of(x, x + n, [](float v) { return std::isfinite(v); });
}

// weights·V can round beyond float32 only for values near its limit (or values that are not finite).
bool values_may_overflow(const AttentionDims& d, const float* v) {
  const int64_t n = product({d.batch, d.num_kv_heads, d.len_k, d.d_v});
  return std::any_of(v, v + n, [](float x) { return !(std::abs(x) < kMayOverflow); });
}

// What the Eigen path is held to for one set of inputs: the dot products and the reference's results.
struct Oracle {
  Dots dt;
  SdpaBuffers ref;

  Oracle(const AttentionDims& d, const float* q, const float* k, const float* v, const AttentionOptions& o)
      : dt(dots(d, q, k, o)),
        ref(product({d.batch, d.num_heads, d.len_q, d.d_v}), product({d.batch, d.num_heads, d.len_q, d.len_k})) {
    reference::scaled_dot_product_attention(d, q, k, v, o, ref.result());
  }
};

// Checks one Eigen scaled_dot_product_attention call (its error code, or its outputs) against the oracle for
// the same q, k, v. `steps` holds the call's weights and scores, or is null when the call was made with an
// output buffer only (the Eigen path then takes another route); `output` is the call's output.
void check_sdpa(const AttentionDims& d, const float* v, const AttentionOptions& o, const Oracle& oracle,
                const std::string& code, const SdpaBuffers* steps, const float* output) {
  const Dots& dt = oracle.dt;
  const SdpaBuffers& ref = oracle.ref;
  if (code == "OUTPUT_OVERFLOW") {
    if (!values_may_overflow(d, v)) fail("OUTPUT_OVERFLOW although every |v| stays below 1e38");
    return;
  }
  if (!code.empty()) {
    if (code != "SCORE_OVERFLOW") fail("valid call threw " + code);
    if (!dt.may_overflow) fail("SCORE_OVERFLOW although every score stays below 1e38");
    return;
  }
  // The unscaled q·k is an error only when it is returned (steps); a small scale brings it back otherwise.
  if (dt.must_overflow || (steps && dt.raw_must_overflow)) {
    fail("a score beyond float32 range did not throw SCORE_OVERFLOW");
  }

  const double scale = eigen_scale(d, o);
  const int group = d.num_heads / d.num_kv_heads;
  // Only a multi-head projection can make v non-finite (x·W_v beyond float32); outputs then carry 0·inf.
  const bool v_finite = all_finite(v, product({d.batch, d.num_kv_heads, d.len_k, d.d_v}));
  std::vector<bool> open(d.len_k);

  for (int b = 0; b < d.batch; ++b) {
    for (int h = 0; h < d.num_heads; ++h) {
      const float* v_bh = v + (int64_t{b} * d.num_kv_heads + h / group) * d.len_k * d.d_v;
      for (int i = 0; i < d.len_q; ++i) {
        const int64_t row = ((int64_t{b} * d.num_heads + h) * d.len_q + i) * d.len_k;
        const auto where = [&] { return " at b=" + std::to_string(b) + " h=" + std::to_string(h) + " i=" + std::to_string(i); };
        bool any_open = false;      // the mask leaves some key open
        bool eigen_open = false;    // some open key kept a finite score in the Eigen path
        bool may_vanish = false;    // some open key's score + mask may round to -inf
        double row_error = 0, weight_sum = 0;
        for (int j = 0; j < d.len_k; ++j) {
          const int64_t at = row + j;
          const reference::KeyVerdict verdict = reference::key_verdict(d, o, b, h, i, j);
          open[j] = verdict.open;
          const double scaled_abs = dt.dot_abs[at] * std::abs(scale);
          const double underflow = (d.d_k + 1) * kSubnormalStep * std::abs(scale);
          if (verdict.open) {
            any_open = true;
            const double error = (d.d_k + 4) * kEps * scaled_abs + underflow +
                                 2 * kEps * std::abs(dt.dot[at] * scale + verdict.add) +
                                 kEps * std::abs(verdict.add) + kTiny;
            row_error = std::max(row_error, error);
            if (!(scaled_abs + std::abs(verdict.add) < kMayOverflow)) may_vanish = true;
          }
          if (!steps) continue;

          const auto entry = [&] { return where() + " j=" + std::to_string(j); };
          const double raw = steps->raw_scores[at], scaled = steps->scaled_scores[at], score = steps->scores[at];
          const double weight = steps->weights[at];
          if (!std::isfinite(raw) || !std::isfinite(scaled)) fail("non-finite raw or scaled score without an error" + entry());
          const double raw_bound = (d.d_k + 1) * kEps * dt.dot_abs[at] + kEps * std::abs(ref.raw_scores[at]) + kTiny;
          if (std::isfinite(ref.raw_scores[at]) && !(std::abs(raw - ref.raw_scores[at]) <= raw_bound)) {
            fail("raw score " + num(raw) + " vs reference " + num(ref.raw_scores[at]) + entry());
          }
          const double scaled_bound =
              (d.d_k + 4) * kEps * scaled_abs + underflow + kEps * std::abs(ref.scaled_scores[at]) + kTiny;
          if (std::isfinite(ref.scaled_scores[at]) && !(std::abs(scaled - ref.scaled_scores[at]) <= scaled_bound)) {
            fail("scaled score " + num(scaled) + " vs reference " + num(ref.scaled_scores[at]) + entry());
          }
          if (!(weight >= 0 && weight <= 1)) fail("weight " + num(weight) + " outside [0, 1]" + entry());
          if (!verdict.open) {
            if (score != kNegInf || ref.scores[at] != kNegInf) fail("masked score is not -inf" + entry());
            if (weight != 0) fail("masked weight " + num(weight) + " is not exactly 0" + entry());
            continue;
          }
          if (std::isnan(score) || score == -kNegInf) fail("open score is " + num(score) + entry());
          if (score == kNegInf) {
            if (!may_vanish) fail("open score is -inf" + entry());
            if (weight != 0) fail("weight " + num(weight) + " of a -inf score" + entry());
            continue;
          }
          eigen_open = true;
          weight_sum += weight;
          const double score_bound = (d.d_k + 4) * kEps * scaled_abs + underflow + 2 * kEps * std::abs(ref.scores[at]) +
                                     kEps * std::abs(verdict.add) + kTiny;
          if (std::isfinite(ref.scores[at]) && !(std::abs(score - ref.scores[at]) <= score_bound)) {
            fail("score " + num(score) + " vs reference " + num(ref.scores[at]) + entry());
          }
        }

        const float* out = output + (row / d.len_k) * d.d_v;
        const float* ref_out = &ref.output[(row / d.len_k) * d.d_v];
        if (!any_open || (steps && !eigen_open)) {
          for (int c = 0; c < d.d_v; ++c) {
            if (out[c] != 0 && v_finite) fail("row without open keys has output " + num(out[c]) + where());
          }
          if (steps) {
            for (int j = 0; j < d.len_k; ++j) {
              if (steps->weights[row + j] != 0) fail("row without open keys has weight " + num(steps->weights[row + j]) + where());
            }
          }
          continue;
        }
        const double sum_slack = (d.len_k + 8) * 2 * kEps;
        if (steps && !(std::abs(weight_sum - 1) <= sum_slack)) fail("weights sum to " + num(weight_sum) + where());
        if (!steps && may_vanish) continue;

        const bool trusted = row_error <= kTrustedInputError;
        const double weight_rel = 3 * row_error + (d.len_k + 16) * kEps;
        if (steps && trusted) {
          for (int j = 0; j < d.len_k; ++j) {
            const double w = steps->weights[row + j], r = ref.weights[row + j];
            if (open[j] && !(std::abs(w - r) <= weight_rel * r + kWeightFloor)) {
              fail("weight " + num(w) + " vs reference " + num(r) + where() + " j=" + std::to_string(j) +
                   " (row input error " + num(row_error) + ")");
            }
          }
        }
        if (!v_finite) continue;
        for (int c = 0; c < d.d_v; ++c) {
          double spread = 0, total = 0, largest = 0;
          for (int j = 0; j < d.len_k; ++j) {
            const double magnitude = std::abs(double{v_bh[int64_t{j} * d.d_v + c]});
            spread += ref.weights[row + j] * magnitude;
            total += magnitude;
            if (open[j]) largest = std::max(largest, magnitude);
          }
          if (!(spread < kMayOverflow && largest < kMayOverflow)) continue;
          const auto entry = [&] { return where() + " c=" + std::to_string(c); };
          if (!(std::abs(out[c]) <= largest * (1 + sum_slack) + kTiny)) {
            fail("output " + num(out[c]) + " outside the values' range ±" + num(largest) + entry());
          }
          if (!trusted) continue;
          const double bound = (weight_rel + (2 * d.len_k + 24) * kEps) * spread + kWeightFloor * total + kTiny +
                               kEps * std::abs(ref_out[c]);
          if (!(std::abs(out[c] - ref_out[c]) <= bound)) {
            fail("output " + num(out[c]) + " vs reference " + num(ref_out[c]) + entry() + " (bound " + num(bound) + ")");
          }
        }
      }
    }
  }
}

void run_sdpa_case(ByteSource& in) {
  AttentionDims d;
  d.batch = in.range(1, 2);
  d.num_kv_heads = in.range(1, 3);
  d.num_heads = d.num_kv_heads * in.range(1, 3);
  d.len_q = in.size(40);
  d.len_k = in.size(40);
  d.d_k = in.size(40);
  d.d_v = in.size(24);
  const uint8_t shape_flags = in.byte();
  if (shape_flags & 1u) d.len_q += 40;  // past the Eigen path's 64-query blocks
  if ((shape_flags & 0x1Cu) == 0x1Cu) {  // past its key tiles (256 or 512 keys), with narrow heads to stay fast
    d.len_k += shape_flags & 0x20u ? 490 : 230;
    d.d_k = 1 + d.d_k % 8;
    d.d_v = 1 + d.d_v % 8;
  }
  const Magnitude qk_magnitude = magnitude(in), v_magnitude = magnitude(in);
  MaskStorage mask;
  AttentionOptions o = read_options(in, d, mask);
  const std::vector<float> q = values(in, product({d.batch, d.num_heads, d.len_q, d.d_k}), qk_magnitude);
  const std::vector<float> k = values(in, product({d.batch, d.num_kv_heads, d.len_k, d.d_k}), qk_magnitude);
  const std::vector<float> v = values(in, product({d.batch, d.num_kv_heads, d.len_k, d.d_v}), v_magnitude);
  g_case = "sdpa " + describe(d, o);

  const int64_t output_size = product({d.batch, d.num_heads, d.len_q, d.d_v});
  const int64_t score_size = product({d.batch, d.num_heads, d.len_q, d.len_k});

  const uint8_t broken = in.byte();
  if (broken >= 0xF0) {
    AttentionDims bad = d;
    AttentionOptions bad_options = o;
    std::string expected;
    switch (broken % 4) {
      case 0:
        bad.d_k = -static_cast<int32_t>(in.byte());
        expected = "BAD_DIMENSION";
        break;
      case 1:
        bad.num_kv_heads = d.num_heads + 1;
        expected = "HEADS_DO_NOT_DIVIDE";
        break;
      case 2: {
        if (o.mask.kind == MaskKind::kNone) return;
        const int axis = in.byte() % 4;
        const int32_t full[4] = {d.batch, d.num_heads, d.len_q, d.len_k};
        bad_options.mask.dims[axis] = full[axis] + 1;
        expected = "MASK_DOES_NOT_BROADCAST";
        break;
      }
      case 3:
        bad_options.mask.kind = MaskKind::kAdditive;
        bad_options.mask.data = nullptr;
        expected = "NULL_ARGUMENT";
        break;
    }
    SdpaBuffers eigen(output_size, score_size);
    const std::string code = attention_error_of(
        [&] { scaled_dot_product_attention(bad, q.data(), k.data(), v.data(), bad_options, eigen.result()); });
    if (code != expected) fail("broken call threw \"" + code + "\", expected " + expected);
    return;
  }

  SdpaBuffers eigen(output_size, score_size);
  const std::string code =
      attention_error_of([&] { scaled_dot_product_attention(d, q.data(), k.data(), v.data(), o, eigen.result()); });
  const Oracle oracle(d, q.data(), k.data(), v.data(), o);
  check_sdpa(d, v.data(), o, oracle, code, &eigen, eigen.output.data());

  if (shape_flags & 2u) {
    std::vector<float> output(output_size);
    AttentionResult only_output;
    only_output.output = output.data();
    const std::string again =
        attention_error_of([&] { scaled_dot_product_attention(d, q.data(), k.data(), v.data(), o, only_output); });
    // With weights the call also returns the unscaled q·k, which may overflow alone; and the two routes sum
    // weights·V in different orders, so values near float32's limit may overflow in one only.
    const bool raw_only = code == "SCORE_OVERFLOW" && again.empty() && oracle.dt.raw_may_overflow;
    const bool output_only = (code.empty() || code == "OUTPUT_OVERFLOW") &&
                             (again.empty() || again == "OUTPUT_OVERFLOW") && values_may_overflow(d, v.data());
    if (again != code && !raw_only && !output_only) {
      fail("without weights the call threw \"" + again + "\", with them \"" + code + "\"");
    }
    check_sdpa(d, v.data(), o, oracle, again, nullptr, output.data());
  }
}

// out[b, h, l, c] = input[b, l, :]·w[:, h·width + c] + bias[h·width + c] and its rounding bound, in double.
void check_projection(const char* name, const float* input, int batch, int len, int d_in, const float* w,
                      const float* bias, int heads, int width, const std::vector<float>& eigen,
                      const std::vector<float>& ref) {
  for (int b = 0; b < batch; ++b)
    for (int h = 0; h < heads; ++h)
      for (int l = 0; l < len; ++l)
        for (int c = 0; c < width; ++c) {
          const int64_t col = int64_t{h} * width + c;
          double magnitude = bias ? std::abs(double{bias[col]}) : 0;
          for (int e = 0; e < d_in; ++e) {
            magnitude += std::abs(double{input[(int64_t{b} * len + l) * d_in + e]} * w[e * int64_t{heads} * width + col]);
          }
          const int64_t at = ((int64_t{b} * heads + h) * len + l) * width + c;
          if (!(magnitude < kMayOverflow)) continue;
          const double bound = (d_in + 2) * kEps * magnitude + kEps * std::abs(ref[at]) + kTiny;
          if (!(std::abs(double{eigen[at]} - ref[at]) <= bound)) {
            fail(std::string(name) + " " + num(eigen[at]) + " vs reference " + num(ref[at]) + " at " + std::to_string(at));
          }
        }
}

void run_multi_head_case(ByteSource& in) {
  ProjectionDims p;
  p.batch = in.range(1, 2);
  const uint8_t flags = in.byte();
  const bool cross = flags & 1u, biases = flags & 2u, want_shared_qk = flags & 4u;
  p.len_q = in.size(24);
  p.len_k = cross ? in.size(24) : p.len_q;
  p.d_model = in.size(24);
  p.d_context = cross ? in.size(24) : p.d_model;
  p.num_kv_heads = in.range(1, 3);
  p.num_heads = p.num_kv_heads * in.range(1, 3);
  p.d_k = in.size(16);
  p.d_v = in.size(16);
  p.d_out = in.range(0, 16);
  const bool shared_qk = want_shared_qk && p.d_context == p.d_model;
  if (shared_qk) p.num_kv_heads = p.num_heads;
  const int64_t B = p.batch, H = p.num_heads, H_kv = p.num_kv_heads, width = H * p.d_v;
  const AttentionDims d{p.batch, p.num_heads, p.num_kv_heads, p.len_q, p.len_k, p.d_k, p.d_v};

  const Magnitude input_magnitude = magnitude(in), weight_magnitude = magnitude(in);
  MaskStorage mask;
  const AttentionOptions o = read_options(in, d, mask);
  const std::vector<float> x = values(in, product({B, p.len_q, p.d_model}), input_magnitude);
  const std::vector<float> context = cross ? values(in, product({B, p.len_k, p.d_context}), input_magnitude) : x;
  const std::vector<float> w_q = values(in, product({p.d_model, H, p.d_k}), weight_magnitude);
  const std::vector<float> w_k = shared_qk ? w_q : values(in, product({p.d_context, H_kv, p.d_k}), weight_magnitude);
  const std::vector<float> w_v = values(in, product({p.d_context, H_kv, p.d_v}), weight_magnitude);
  const std::vector<float> w_o = values(in, product({width, p.d_out}), weight_magnitude);
  std::vector<float> b_q, b_k, b_v, b_o;
  if (biases) {
    b_q = values(in, H * p.d_k, weight_magnitude);
    b_k = values(in, H_kv * p.d_k, weight_magnitude);
    b_v = values(in, H_kv * p.d_v, weight_magnitude);
    b_o = values(in, p.d_out, weight_magnitude);
  }
  g_case = "multi-head d_model=" + std::to_string(p.d_model) + " d_context=" + std::to_string(p.d_context) +
           " d_out=" + std::to_string(p.d_out) + (cross ? " cross" : " self") + (biases ? " biases" : "") +
           (shared_qk ? " shared_qk" : "") + " " + describe(d, o);

  ProjectionWeights w;
  w.w_q = w_q.data();
  w.w_k = shared_qk ? w_q.data() : w_k.data();
  w.w_v = w_v.data();
  w.w_o = p.d_out > 0 ? w_o.data() : nullptr;
  if (biases) {
    w.b_q = b_q.data();
    w.b_k = b_k.data();
    w.b_v = b_v.data();
    w.b_o = p.d_out > 0 ? b_o.data() : nullptr;
  }
  const int64_t output_size = product({B, H, p.len_q, p.d_v});
  const int64_t score_size = product({B, H, p.len_q, p.len_k});
  const int64_t final_size = B * p.len_q * (p.d_out > 0 ? p.d_out : width);

  struct Run {
    std::vector<float> q, k, v, concat, output;
    SdpaBuffers attention;
  };
  auto run = [&](bool eigen_path, std::string* code) {
    Run r{std::vector<float>(B * H * p.len_q * p.d_k), std::vector<float>(B * H_kv * p.len_k * p.d_k),
          std::vector<float>(B * H_kv * p.len_k * p.d_v), std::vector<float>(B * p.len_q * width),
          std::vector<float>(final_size), SdpaBuffers(output_size, score_size)};
    MultiHeadResult result;
    result.q = r.q.data();
    result.k = r.k.data();
    result.v = r.v.data();
    result.attention = r.attention.result();
    result.concat = r.concat.data();
    result.output = r.output.data();
    const float* context_in = cross ? context.data() : nullptr;
    if (eigen_path) {
      *code = attention_error_of([&] { multi_head_attention(p, x.data(), context_in, w, o, result); });
    } else {
      reference::multi_head_attention(p, x.data(), context_in, w, o, result);
    }
    return r;
  };

  // Whether some entry of input·W (+ b), or of concat·W_o (+ b_o), may round beyond float32.
  auto may_overflow = [](const float* input, int64_t rows, int64_t d_in, const float* weight, const float* bias,
                         int64_t cols) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        double magnitude = bias ? std::abs(double{bias[c]}) : 0;
        for (int64_t e = 0; e < d_in; ++e) magnitude += std::abs(double{input[r * d_in + e]} * weight[e * cols + c]);
        if (!(magnitude < kMayOverflow)) return true;
      }
    return false;
  };
  const float* kv_input = cross ? context.data() : x.data();
  const bool projections_may_overflow =
      may_overflow(x.data(), B * p.len_q, p.d_model, w.w_q, w.b_q, H * p.d_k) ||
      may_overflow(kv_input, B * p.len_k, p.d_context, w.w_k, w.b_k, H_kv * p.d_k) ||
      may_overflow(kv_input, B * p.len_k, p.d_context, w.w_v, w.b_v, H_kv * p.d_v);

  std::string code;
  const Run eigen = run(true, &code);
  if (code == "PROJECTION_OVERFLOW") {
    const bool output_may_overflow = p.d_out > 0 && all_finite(eigen.concat.data(), B * p.len_q * width) &&
                                     may_overflow(eigen.concat.data(), B * p.len_q, width, w.w_o, w.b_o, p.d_out);
    if (!projections_may_overflow && !output_may_overflow) fail("PROJECTION_OVERFLOW although every projection stays below 1e38");
    return;
  }
  for (const auto* projection : {&eigen.q, &eigen.k, &eigen.v, &eigen.output}) {
    if (code.empty() && !all_finite(projection->data(), static_cast<int64_t>(projection->size()))) {
      fail("a non-finite projection without PROJECTION_OVERFLOW");
    }
  }
  if (!code.empty()) {
    const Oracle oracle(d, eigen.q.data(), eigen.k.data(), eigen.v.data(), o);
    check_sdpa(d, eigen.v.data(), o, oracle, code, &eigen.attention, eigen.attention.output.data());
    return;
  }
  const Run ref = run(false, nullptr);
  check_projection("q", x.data(), p.batch, p.len_q, p.d_model, w.w_q, w.b_q, p.num_heads, p.d_k, eigen.q, ref.q);
  check_projection("k", context.data(), p.batch, p.len_k, p.d_context, w.w_k, w.b_k, p.num_kv_heads, p.d_k, eigen.k,
                   ref.k);
  check_projection("v", context.data(), p.batch, p.len_k, p.d_context, w.w_v, w.b_v, p.num_kv_heads, p.d_v, eigen.v,
                   ref.v);
  const Oracle oracle(d, eigen.q.data(), eigen.k.data(), eigen.v.data(), o);
  check_sdpa(d, eigen.v.data(), o, oracle, "", &eigen.attention, eigen.attention.output.data());

  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t l = 0; l < p.len_q; ++l)
        for (int64_t c = 0; c < p.d_v; ++c) {
          const float head = eigen.attention.output[((b * H + h) * p.len_q + l) * p.d_v + c];
          const float cat = eigen.concat[(b * p.len_q + l) * width + h * p.d_v + c];
          if (std::memcmp(&head, &cat, sizeof head) != 0) fail("concat differs from head " + std::to_string(h));
        }
  if (p.d_out == 0) {
    if (std::memcmp(eigen.output.data(), eigen.concat.data(), final_size * sizeof(float)) != 0) {
      fail("without W_o the output differs from concat");
    }
    return;
  }
  for (int64_t row = 0; row < B * p.len_q; ++row) {
    for (int c = 0; c < p.d_out; ++c) {
      double sum = w.b_o ? w.b_o[c] : 0, magnitude = w.b_o ? std::abs(double{w.b_o[c]}) : 0;
      for (int64_t e = 0; e < width; ++e) {
        const double term = double{eigen.concat[row * width + e]} * w_o[e * p.d_out + c];
        sum += term;
        magnitude += std::abs(term);
      }
      if (!(magnitude < kMayOverflow)) continue;
      const double actual = eigen.output[row * p.d_out + c];
      if (!(std::abs(actual - sum) <= (width + 2) * kEps * magnitude + kTiny)) {
        fail("output " + num(actual) + " vs concat·W_o " + num(sum) + " at row " + std::to_string(row));
      }
    }
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  ByteSource in(data, size);
  run_sdpa_case(in);
  run_multi_head_case(in);
  return 0;
}
