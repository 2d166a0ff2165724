// Numerics of the core: the accuracy of long rows, scores that overflow only before the scale, and weights·V
// beyond float32. Each test here failed on 0.1.0.
#include <algorithm>
#include <cfloat>
#include <cmath>
#include <cstring>

#include "test_support.h"

namespace attention::test {
namespace {

struct Outcome {
  std::string code, message;
};

template <typename Call>
Outcome outcome(Call&& call) {
  try {
    call();
  } catch (const AttentionError& e) {
    return {e.code(), e.what()};
  }
  return {};
}

// One query row over `len_k` keys with d_k = 1: q·k = q·k[j] for every j.
struct Row {
  AttentionDims dims;
  std::vector<float> q, k, v, output, weights, scores, raw_scores;
  AttentionOptions options;

  Row(int32_t len_k, int32_t d_v, float q_value, float k_value, float v_value)
      : q(1, q_value),
        k(len_k, k_value),
        v(int64_t{len_k} * d_v, v_value),
        output(d_v),
        weights(len_k),
        scores(len_k),
        raw_scores(len_k) {
    dims = {1, 1, 1, 1, len_k, 1, d_v};
  }
  void set_scale(float scale) {
    options.has_scale = true;
    options.scale = scale;
  }
  // With weights (the full path), or with nothing but the output (the streaming path).
  Outcome run(bool full, bool raw = false) {
    AttentionResult result;
    result.output = output.data();
    if (full) result.weights = weights.data();
    if (full) result.scores = scores.data();
    if (raw) result.raw_scores = raw_scores.data();
    return outcome([&] { scaled_dot_product_attention(dims, q.data(), k.data(), v.data(), options, result); });
  }
};

bool contains(const std::string& text, const char* part) { return text.find(part) != std::string::npos; }

// Both paths raise `code` with `part` in the message.
void expect_error(Row& row, const char* code, const char* part) {
  for (bool full : {true, false}) {
    const Outcome o = row.run(full);
    EXPECT_EQ(o.code, code) << (full ? "with weights" : "streaming");
    EXPECT_TRUE(contains(o.message, part)) << o.message;
  }
}

uint32_t bits(float x) {
  uint32_t b;
  std::memcpy(&b, &x, sizeof b);
  return b;
}

// The case: q = k = v = 0.5, 16 377 keys. One float32 chain over all keys gave 0.49990648 (1.9e-4 off).
TEST(NumericsTest, LongRowOfUniformWeightsIsAccurateWithAndWithoutWeights) {
  // Equal terms round the same way at every step: the worst lengths up to 70 000 lose 6e-6 (2.7e-6 streaming).
  const std::pair<int32_t, double> kCases[] = {{16377, 2e-6}, {40000, 1e-5}, {68796, 1e-5}};
  for (const auto& [len_k, rtol] : kCases) {
    Row row(len_k, 3, 0.5f, 0.5f, 0.5f);
    ASSERT_EQ(row.run(true).code, "");
    const std::vector<float> full = row.output;
    ASSERT_EQ(row.run(false).code, "");
    for (int c = 0; c < 3; ++c) {
      EXPECT_NEAR(full[c], 0.5, rtol * 0.5) << "returnWeights: true, L_k = " << len_k;
      EXPECT_NEAR(row.output[c], 0.5, rtol * 0.5) << "streaming, L_k = " << len_k;
      EXPECT_NEAR(full[c], row.output[c], rtol * 0.5) << "the two paths, L_k = " << len_k;
    }
  }
}

// Uniform weights over random positive values: the output is their mean, summed in double here.
TEST(NumericsTest, LongRowOfUniformWeightsGivesTheMeanOfTheValues) {
  std::mt19937 rng(11);
  const int32_t len_k = 20000, d_v = 16;
  Row row(len_k, d_v, 0.0f, 1.0f, 0.0f);
  row.v = random_values(rng, row.v.size(), 0.25f, 1.0f);
  for (bool full : {true, false}) {
    ASSERT_EQ(row.run(full).code, "");
    for (int c = 0; c < d_v; ++c) {
      double mean = 0;
      for (int32_t j = 0; j < len_k; ++j) mean += row.v[int64_t{j} * d_v + c];
      mean /= len_k;
      EXPECT_NEAR(row.output[c], mean, 2e-6 * mean) << (full ? "with weights" : "streaming") << ", column " << c;
    }
  }
}

// The blocks of the weighted sum start at fixed keys, so a call on some of the rows gives the same bits.
TEST(NumericsTest, BlockedSumGivesTheSameBitsForAnySplitOfTheRows) {
  std::mt19937 rng(3);
  SdpaCase c = random_case(rng, {1, 2, 1, 70, 1300, 8, 5});
  const SdpaOutputs whole = run_sdpa(Impl::kKernels, c);
  for (int32_t split : {1, 37, 64}) {
    for (int part = 0; part < 2; ++part) {
      const int32_t begin = part ? split : 0, rows = part ? 70 - split : split;
      SdpaCase piece = c;
      piece.dims.num_heads = 1;
      piece.dims.len_q = rows;
      piece.q.assign(c.q.begin() + (70 + begin) * 8, c.q.begin() + (70 + begin + rows) * 8);  // head 1
      const SdpaOutputs out = run_sdpa(Impl::kKernels, piece);
      for (int64_t i = 0; i < int64_t{rows} * 5; ++i) {
        ASSERT_EQ(bits(out.output[i]), bits(whole.output[(70 + begin) * 5 + i])) << "rows from " << begin;
      }
    }
  }
}

// q·k = 1e40 overflows float32 but q·k·scale = 1e30 does not: a finite answer, as PyTorch's math path gives.
TEST(NumericsTest, ScoresThatOverflowOnlyBeforeTheScaleAreFinite) {
  for (bool full : {true, false}) {
    Row row(3, 2, 1e20f, 1e20f, 1.0f);
    row.k = {1e20f, -1e20f, 1e19f};
    row.v = {1, 2, 3, 4, 5, 6};
    row.set_scale(1e-10f);
    ASSERT_EQ(row.run(full).code, "") << (full ? "with weights" : "streaming");
    EXPECT_EQ(row.output, (std::vector<float>{1, 2})) << "all weight on key 0";
    if (full) {
      EXPECT_FLOAT_EQ(row.scores[0], 1e30f);
      EXPECT_FLOAT_EQ(row.scores[1], -1e30f);
      EXPECT_FLOAT_EQ(row.scores[2], 1e29f);
      EXPECT_EQ(row.weights, (std::vector<float>{1, 0, 0}));
    }
    row.set_scale(0.0f);
    ASSERT_EQ(row.run(full).code, "") << "scale 0, " << (full ? "with weights" : "streaming");
    EXPECT_FLOAT_EQ(row.output[0], 3.0f);
    EXPECT_FLOAT_EQ(row.output[1], 4.0f);
    if (full) EXPECT_EQ(row.scores, (std::vector<float>{0, 0, 0}));
  }
}

TEST(NumericsTest, ScoreOverflowSaysWhichScoreOverflowed) {
  Row row(3, 1, 1e20f, 1.0f, 1.0f);
  row.k[2] = 1e20f;
  row.set_scale(0.5f);
  expect_error(row, "SCORE_OVERFLOW", "overflowed float32 at batch 0, head 0, query row 0, key 2: 1e+40 · 0.5 = 5e+39");
}

TEST(NumericsTest, RawScoresThatOverflowWhileTheScaledOnesFitSaySo) {
  Row row(2, 1, 1e20f, 1e20f, 1.0f);
  row.set_scale(1e-10f);
  const Outcome o = row.run(true, true);
  EXPECT_EQ(o.code, "SCORE_OVERFLOW");
  EXPECT_TRUE(contains(o.message, "unscaled q·kᵀ requested as rawScores")) << o.message;
  EXPECT_TRUE(contains(o.message, "key 0 (1e+40)")) << o.message;
  EXPECT_TRUE(contains(o.message, "returnSteps: false")) << o.message;
  EXPECT_EQ(row.run(true).code, "") << "the same call without the raw scores";

  Row fits(2, 1, 1e18f, 1e18f, 1.0f);  // q·k = 1e36: raw scores fit
  fits.set_scale(1e-10f);
  ASSERT_EQ(fits.run(true, true).code, "");
  EXPECT_FLOAT_EQ(fits.raw_scores[0], 1e36f);
}

TEST(NumericsTest, ScoresPushedBeyondFloat32ByTheMaskSaySo) {
  Row row(2, 1, 1e19f, 2e19f, 1.0f);  // q·k = 2e38
  const float add[2] = {0.0f, 3e38f};
  row.options.mask.kind = MaskKind::kAdditive;
  row.options.mask.data = add;
  row.options.mask.dims[3] = 2;
  row.set_scale(1.0f);
  expect_error(row, "SCORE_OVERFLOW", "q·k·scale + mask overflowed float32 at batch 0, head 0, query row 0, key 1");
}

// Ten values of FLT_MAX with weights 0.1 each: the weights sum to just over 1 in float32 and weights·V to +inf.
TEST(NumericsTest, WeightsTimesValuesBeyondFloat32IsOutputOverflow) {
  Row row(10, 2, 0.0f, 0.0f, FLT_MAX);
  expect_error(row, "OUTPUT_OVERFLOW", "weights·V overflowed float32 at batch 0, head 0, query row 0, column 0");
  Row nine(9, 2, 0.0f, 0.0f, FLT_MAX);  // weights of 1/9 stay finite
  EXPECT_EQ(nine.run(true).code, "");
  EXPECT_TRUE(std::isfinite(nine.output[0]));
}

}  // namespace
}  // namespace attention::test
