// What the GoogleTest suite and the fuzz target share, without GoogleTest: the sizes around the SIMD width, the
// seeded generator of test values, owned result buffers and a one-line description of a call.
#pragma once

#include <cstdint>
#include <cstdio>
#include <initializer_list>
#include <random>
#include <string>
#include <vector>

#include "attention.h"

namespace attention::test {

// Sizes around the 4-float SIMD width and the kernels' unrolled widths (the same list as EDGE_SIZES in
// tests/js/reference.js).
constexpr int32_t kEdgeSizes[] = {1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 33, 64};

inline int64_t product(std::initializer_list<int64_t> sizes) {
  int64_t p = 1;
  for (int64_t s : sizes) p *= s;
  return p;
}

// Uniform in [lo, hi), computed from raw mt19937 output so the values are the same with any standard library.
inline float uniform(std::mt19937& rng, float lo, float hi) {
  return lo + (hi - lo) * static_cast<float>(rng() >> 8) * (1.0f / 16777216.0f);
}

inline std::vector<float> random_values(std::mt19937& rng, size_t n, float lo = -1.0f, float hi = 1.0f) {
  std::vector<float> values(n);
  for (float& x : values) x = uniform(rng, lo, hi);
  return values;
}

inline std::vector<float> random_integers(std::mt19937& rng, size_t n, int lo, int hi) {
  std::vector<float> values(n);
  for (float& x : values) x = static_cast<float>(lo + static_cast<int>(rng() % static_cast<uint32_t>(hi - lo + 1)));
  return values;
}

// Every buffer of AttentionResult, owned, each entry set to `fill`.
struct SdpaBuffers {
  std::vector<float> output, weights, scores, scaled_scores, raw_scores;

  SdpaBuffers(int64_t output_size, int64_t score_size, float fill = 0.0f)
      : output(output_size, fill),
        weights(score_size, fill),
        scores(score_size, fill),
        scaled_scores(score_size, fill),
        raw_scores(score_size, fill) {}

  AttentionResult result() {
    return {output.data(), weights.data(), scores.data(), scaled_scores.data(), raw_scores.data()};
  }
};

// "%.9g": enough digits to tell any two floats apart.
inline std::string num(double x) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.9g", x);
  return buffer;
}

// The dims and options of one call, for failure messages.
inline std::string describe(const AttentionDims& d, const AttentionOptions& o) {
  std::string s = "B=" + std::to_string(d.batch) + " H=" + std::to_string(d.num_heads) +
                  " H_kv=" + std::to_string(d.num_kv_heads) + " L_q=" + std::to_string(d.len_q) +
                  " L_k=" + std::to_string(d.len_k) + " d_k=" + std::to_string(d.d_k) +
                  " d_v=" + std::to_string(d.d_v) + " causal=" + std::to_string(static_cast<int>(o.causal)) +
                  " mask=" + std::to_string(static_cast<int>(o.mask.kind));
  if (o.mask.kind != MaskKind::kNone) {
    s += " mask_dims=[" + std::to_string(o.mask.dims[0]) + "," + std::to_string(o.mask.dims[1]) + "," +
         std::to_string(o.mask.dims[2]) + "," + std::to_string(o.mask.dims[3]) + "]";
  }
  if (o.has_scale) s += " scale=" + num(o.scale);
  if (o.softcap > 0) s += " softcap=" + num(o.softcap);
  if (o.window > 0) s += " window=" + std::to_string(o.window);
  return s;
}

}  // namespace attention::test
