// Helpers shared by the native tests: owned inputs, both implementations, and a tolerance check. What the fuzz
// target shares with them, free of GoogleTest, is in case_data.h.
#pragma once

#include <gtest/gtest.h>

#include <array>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "attention.h"
#include "case_data.h"
#include "reference.h"

namespace attention::test {

constexpr float kInf = std::numeric_limits<float>::infinity();
// Like llm.c: |actual - expected| <= kAtol + kRtol·|expected|.
constexpr double kAtol = 1e-5;
constexpr double kRtol = 1e-4;

// kKernels: the core as shipped (the fused SIMD attention kernels of kernels.cc, Eigen for projections);
// kReference: the plain-loop reference.
enum class Impl { kKernels, kReference };

inline const char* impl_name(Impl impl) { return impl == Impl::kKernels ? "kernels" : "reference"; }

// Everything one scaled_dot_product_attention call reads. The mask lives in its own vectors, so the
// AttentionOptions are built on demand (a copy of the case never points into another copy's storage).
struct SdpaCase {
  AttentionDims dims;
  bool has_scale = false;
  float scale = 0.0f;
  Causal causal = Causal::kNone;
  float softcap = 0.0f;
  int32_t window = 0;
  MaskKind mask_kind = MaskKind::kNone;
  std::array<int32_t, 4> mask_dims = {1, 1, 1, 1};
  std::vector<uint8_t> boolean_mask;
  std::vector<float> additive_mask;
  std::vector<float> q, k, v;

  int64_t score_size() const { return product({dims.batch, dims.num_heads, dims.len_q, dims.len_k}); }
  int64_t output_size() const { return product({dims.batch, dims.num_heads, dims.len_q, dims.d_v}); }
  int64_t mask_size() const { return product({mask_dims[0], mask_dims[1], mask_dims[2], mask_dims[3]}); }

  AttentionOptions options() const {
    AttentionOptions o;
    o.has_scale = has_scale;
    o.scale = scale;
    o.causal = causal;
    o.softcap = softcap;
    o.window = window;
    o.mask.kind = mask_kind;
    for (int axis = 0; axis < 4; ++axis) o.mask.dims[axis] = mask_dims[axis];
    if (mask_kind == MaskKind::kBoolean) o.mask.data = boolean_mask.data();
    if (mask_kind == MaskKind::kAdditive) o.mask.data = additive_mask.data();
    return o;
  }

  // Mask dims for a broadcast pattern: bits 3..0 of `full_bits` keep B, H, L_q, L_k at full size; a clear
  // bit makes that axis 1.
  std::array<int32_t, 4> broadcast_dims(unsigned full_bits) const {
    const int32_t full[4] = {dims.batch, dims.num_heads, dims.len_q, dims.len_k};
    std::array<int32_t, 4> out;
    for (int axis = 0; axis < 4; ++axis) out[axis] = (full_bits >> (3 - axis)) & 1u ? full[axis] : 1;
    return out;
  }
};

inline SdpaCase random_case(std::mt19937& rng, const AttentionDims& dims) {
  SdpaCase c;
  c.dims = dims;
  c.q = random_values(rng, product({dims.batch, dims.num_heads, dims.len_q, dims.d_k}));
  c.k = random_values(rng, product({dims.batch, dims.num_kv_heads, dims.len_k, dims.d_k}));
  c.v = random_values(rng, product({dims.batch, dims.num_kv_heads, dims.len_k, dims.d_v}));
  return c;
}

inline void set_boolean_mask(SdpaCase& c, std::mt19937& rng, std::array<int32_t, 4> mask_dims, float p_open) {
  c.mask_kind = MaskKind::kBoolean;
  c.mask_dims = mask_dims;
  c.boolean_mask.resize(c.mask_size());
  for (uint8_t& open : c.boolean_mask) open = uniform(rng, 0, 1) < p_open ? 1 : 0;
}

inline void set_additive_mask(SdpaCase& c, std::mt19937& rng, std::array<int32_t, 4> mask_dims, float p_neg_inf) {
  c.mask_kind = MaskKind::kAdditive;
  c.mask_dims = mask_dims;
  c.additive_mask.resize(c.mask_size());
  for (float& add : c.additive_mask) add = uniform(rng, 0, 1) < p_neg_inf ? -kInf : uniform(rng, -3, 3);
}

// Every buffer of AttentionResult for case `c`, owned, filled with -7 so an entry left unwritten shows.
struct SdpaOutputs : SdpaBuffers {
  explicit SdpaOutputs(const SdpaCase& c) : SdpaBuffers(c.output_size(), c.score_size(), -7.0f) {}
};

inline SdpaOutputs run_sdpa(Impl impl, const SdpaCase& c) {
  SdpaOutputs out(c);
  const auto run = impl == Impl::kKernels ? &attention::scaled_dot_product_attention
                                          : &attention::reference::scaled_dot_product_attention;
  run(c.dims, c.q.data(), c.k.data(), c.v.data(), c.options(), out.result());
  return out;
}

inline std::string describe(const SdpaCase& c) { return describe(c.dims, c.options()); }

// Element-wise |actual - expected| <= atol + rtol·|expected|. Infinite expected entries need the same
// infinity; NaN never passes.
inline ::testing::AssertionResult all_close(const std::vector<float>& actual, const std::vector<float>& expected,
                                            double atol = kAtol, double rtol = kRtol) {
  if (actual.size() != expected.size()) {
    return ::testing::AssertionFailure() << "size " << actual.size() << " != " << expected.size();
  }
  size_t bad = 0;
  std::ostringstream first;
  for (size_t i = 0; i < actual.size(); ++i) {
    const double a = actual[i], e = expected[i];
    const bool ok = std::isinf(e) ? a == e : !std::isnan(a) && std::abs(a - e) <= atol + rtol * std::abs(e);
    if (!ok && bad++ < 4) first << "\n  [" << i << "] actual " << a << " expected " << e;
  }
  if (bad == 0) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << bad << " of " << actual.size() << " entries differ:" << first.str();
}

inline void expect_sdpa_outputs_close(const SdpaOutputs& actual, const SdpaOutputs& expected, double atol = kAtol,
                                      double rtol = kRtol) {
  EXPECT_TRUE(all_close(actual.output, expected.output, atol, rtol)) << "output";
  EXPECT_TRUE(all_close(actual.weights, expected.weights, atol, rtol)) << "weights";
  EXPECT_TRUE(all_close(actual.scores, expected.scores, atol, rtol)) << "scores";
  EXPECT_TRUE(all_close(actual.scaled_scores, expected.scaled_scores, atol, rtol)) << "scaled_scores";
  EXPECT_TRUE(all_close(actual.raw_scores, expected.raw_scores, atol, rtol)) << "raw_scores";
}

inline void expect_matches_reference(const SdpaCase& c) {
  SCOPED_TRACE(describe(c));
  const SdpaOutputs kernels = run_sdpa(Impl::kKernels, c);
  const SdpaOutputs reference = run_sdpa(Impl::kReference, c);
  expect_sdpa_outputs_close(kernels, reference);
}

// Runs `call` and returns the AttentionError code it threw, or "" when it threw nothing.
template <typename Call>
std::string error_code(Call&& call) {
  try {
    call();
  } catch (const AttentionError& e) {
    return e.code();
  }
  return "";
}

}  // namespace attention::test
