// The fuzz target's oracle: what one scaled_dot_product_attention call of the core is held to, from the
// float32 rounding error of each softmax input (see attention_fuzz.cc), and how a failure is reported.
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <exception>
#include <limits>
#include <string>
#include <vector>

#include "attention.h"
#include "case_data.h"
#include "reference.h"

namespace attention::fuzz {

using test::describe;
using test::num;
using test::product;
using test::SdpaBuffers;

constexpr double kEps = 1.0 / (1 << 24);  // float32 unit roundoff
constexpr double kSureOverflow = 1e39;    // beyond FLT_MAX whatever the float32 rounding on the way
constexpr double kMayOverflow = 1e38;     // below this, no float32 rounding reaches FLT_MAX
constexpr double kTrustedInputError =
    0.05;  // softmax-input error bound above which a row is checked for structure only
constexpr double kWeightFloor =
    1e-37;                       // the kernels' exp() flushes arguments below -87.3 to 0: smaller weights are not exact
constexpr double kTiny = 1e-30;  // absolute slack for sums of subnormal products
constexpr double kSubnormalStep =
    1.5e-45;  // float32's absolute rounding step below 1.2e-38 (a huge scale magnifies it)
constexpr float kNegInf = -std::numeric_limits<float>::infinity();

extern std::string g_case;  // the current input's dims and options, for failure messages

[[noreturn]] void fail(const std::string& what);

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
  bool must_overflow = false;      // some q·k·scale is surely beyond float32
  bool may_overflow = false;       // some q·k·scale, or q·k·scale + mask, may round beyond float32
  bool raw_must_overflow = false;  // some unscaled q·k is surely beyond float32 (an error only with raw scores)
  bool raw_may_overflow = false;
};

inline double kernels_scale(const AttentionDims& d, const AttentionOptions& o) {
  return o.has_scale ? o.scale : 1.0f / std::sqrt(static_cast<float>(d.d_k));
}

Dots dots(const AttentionDims& d, const float* q, const float* k, const AttentionOptions& o);

// weights·V can round beyond float32 only for values near its limit (or values that are not finite).
bool values_may_overflow(const AttentionDims& d, const float* v);

inline bool all_finite(const float* x, int64_t n) {
  return std::all_of(x, x + n, [](float v) { return std::isfinite(v); });
}

// What the kernels are held to for one set of inputs: the dot products and the reference's results.
struct Oracle {
  Dots dt;
  SdpaBuffers ref;

  Oracle(const AttentionDims& d, const float* q, const float* k, const float* v, const AttentionOptions& o)
      : dt(dots(d, q, k, o)),
        ref(product({d.batch, d.num_heads, d.len_q, d.d_v}), product({d.batch, d.num_heads, d.len_q, d.len_k})) {
    reference::scaled_dot_product_attention(d, q, k, v, o, ref.result());
  }
};

// Checks one scaled_dot_product_attention call of the core (its error code, or its outputs) against the oracle for
// the same q, k, v. `steps` holds the call's weights and scores, or is null when the call was made with an
// output buffer only (the kernels then take another route); `output` is the call's output.
void check_sdpa(const AttentionDims& d, const float* v, const AttentionOptions& o, const Oracle& oracle,
                const std::string& code, const SdpaBuffers* steps, const float* output);

}  // namespace attention::fuzz
