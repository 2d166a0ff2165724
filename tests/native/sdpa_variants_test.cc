// The attention variants of Gemma 2 and Mistral in the fused kernels against the plain-loop reference: logit
// softcapping (tanh(s / softcap) · softcap of the scaled scores, before the masks) and the sliding window (query i
// sees keys j with p_i − j < window, p_i its key position under causal), on the whole-row path, the 64-row blocks
// and the streaming path across key tiles, with masks and grouped-query heads.
#include <cmath>

#include "kernels.h"
#include "test_support.h"

namespace attention::test {
namespace {

TEST(SdpaVariantsTest, SoftcapAndWindowOnEveryPath) {
  std::mt19937 rng(4242);
  const AttentionDims shapes[] = {{1, 2, 1, 7, 7, 8, 5},
                                  {2, 4, 2, 9, 13, 4, 3},
                                  {1, 2, 2, 70, 70, 5, 4},
                                  {1, 1, 1, 5, 600, 4, 3},
                                  {1, 2, 1, 130, 140, 8, 8}};
  for (const AttentionDims& dims : shapes) {
    for (int mode = 0; mode < 6; ++mode) {
      SdpaCase c = random_case(rng, dims);
      for (float& x : c.q) x *= 6.0f;  // scores of several units, where the cap bends them
      c.causal = mode % 2 ? Causal::kBottomRight : Causal::kTopLeft;
      if (mode != 2) c.softcap = mode == 4 ? 0.5f : 3.0f;
      if (mode >= 2) c.window = 1 + static_cast<int32_t>(rng() % 9);
      if (mode == 5) set_additive_mask(c, rng, c.broadcast_dims(0b0011), 0.2f);
      SCOPED_TRACE("mode " + std::to_string(mode));
      expect_matches_reference(c);
      // the output alone: blocks of 64 rows, or the streaming path's tiles
      SdpaOutputs reference(c);
      reference::scaled_dot_product_attention(c.dims, c.q.data(), c.k.data(), c.v.data(), c.options(),
                                              reference.result());
      std::vector<float> output(c.output_size());
      AttentionResult only_output;
      only_output.output = output.data();
      scaled_dot_product_attention(c.dims, c.q.data(), c.k.data(), c.v.data(), c.options(), only_output);
      EXPECT_TRUE(all_close(output, reference.output)) << "output alone";
    }
  }
}

// Weights without the scores before them: keys before a whole block's windows are neither scored nor summed (rows of
// 64 queries from row 64 on, over 200 keys, window 9), and the weights, scores and output still match the reference.
TEST(SdpaVariantsTest, WindowsSkipTheKeysBeforeThemWhenOnlyWeightsAreKept) {
  std::mt19937 rng(77);
  for (const Causal causal : {Causal::kTopLeft, Causal::kBottomRight}) {
    SdpaCase c = random_case(rng, {1, 2, 1, 150, 200, 8, 5});
    c.causal = causal, c.window = 9, c.softcap = 2.0f;
    SCOPED_TRACE(describe(c));
    SdpaOutputs reference(c);
    reference::scaled_dot_product_attention(c.dims, c.q.data(), c.k.data(), c.v.data(), c.options(),
                                            reference.result());
    std::vector<float> output(c.output_size()), weights(c.score_size()), scores(c.score_size());
    AttentionResult kept;
    kept.output = output.data(), kept.weights = weights.data();
    scaled_dot_product_attention(c.dims, c.q.data(), c.k.data(), c.v.data(), c.options(), kept);
    EXPECT_TRUE(all_close(output, reference.output)) << "output";
    EXPECT_TRUE(all_close(weights, reference.weights)) << "weights";
    kept.scores = scores.data();
    scaled_dot_product_attention(c.dims, c.q.data(), c.k.data(), c.v.data(), c.options(), kept);
    EXPECT_TRUE(all_close(scores, reference.scores)) << "scores";
  }
}

// The window in plain terms, on a known case: causal top-left, window 3, so row 5 sees keys 3, 4, 5 only; the
// softcap bounds every score by the cap, and scores keep what the kernel computes before the masks.
TEST(SdpaVariantsTest, WindowKeepsTheLastKeysAndSoftcapBoundsTheScores) {
  std::mt19937 rng(5);
  SdpaCase c = random_case(rng, {1, 1, 1, 8, 8, 4, 2});
  for (float& x : c.q) x *= 50.0f;
  c.causal = Causal::kTopLeft;
  c.window = 3;
  c.softcap = 2.0f;
  const SdpaOutputs out = run_sdpa(Impl::kKernels, c);
  for (int i = 0; i < 8; ++i) {
    for (int j = 0; j < 8; ++j) {
      const bool open = j <= i && i - j < 3;
      const float w = out.weights[i * 8 + j];
      const float s = out.scores[i * 8 + j];
      if (!open) {
        EXPECT_EQ(w, 0.0f) << i << "," << j;
        EXPECT_EQ(s, -std::numeric_limits<float>::infinity()) << i << "," << j;
      } else {
        EXPECT_LE(std::abs(s), 2.0f) << i << "," << j;
        EXPECT_FLOAT_EQ(s, std::tanh(out.scaled_scores[i * 8 + j] / 2.0f) * 2.0f) << i << "," << j;
      }
    }
  }
}

// The kernels' softcap (a tanh of their own, four lanes at a time) against std::tanh in double, from 0 through the
// series' edge at |s / cap| = 1/4 to values far beyond the cap (float32's largest included), in rows of every length.
TEST(SdpaVariantsTest, SoftcapRowMatchesTanhInDouble) {
  std::vector<float> values;
  for (float x = -3.0f; x <= 3.0f; x += 0.001953125f) values.push_back(x);
  for (float x : {0.2499999f, 0.25f, 0.2500001f, 1e-30f, -1e-30f, 0.0f, -0.0f, 40.0f, -1e6f, 3.4e38f, -3.4e38f})
    values.push_back(x);
  for (float cap : {1.0f, 0.5f, 50.0f}) {
    for (int64_t length : {int64_t{1}, int64_t{3}, int64_t{5}, static_cast<int64_t>(values.size())}) {
      std::vector<float> row(values.begin(), values.begin() + length);
      for (float& x : row) x *= cap;
      std::vector<float> expected(row.size());
      for (size_t j = 0; j < row.size(); ++j) expected[j] = static_cast<float>(std::tanh(double{row[j]} / cap) * cap);
      kernels::softcap_row(row.data(), length, cap);
      for (size_t j = 0; j < row.size(); ++j) {
        EXPECT_NEAR(row[j], expected[j], 6e-7 * cap) << "cap " << cap << ", s " << values[j] * cap;
        EXPECT_LE(std::abs(row[j]), cap);
      }
    }
  }
}

TEST(SdpaVariantsTest, RefusesAWindowWithoutCausalAndABadSoftcap) {
  std::mt19937 rng(6);
  SdpaCase c = random_case(rng, {1, 1, 1, 4, 4, 4, 2});
  c.window = 2;
  EXPECT_EQ(error_code([&] { run_sdpa(Impl::kKernels, c); }), "BAD_OPTION");
  c.causal = Causal::kTopLeft;
  c.window = -1;
  EXPECT_EQ(error_code([&] { run_sdpa(Impl::kKernels, c); }), "BAD_OPTION");
  c.window = 0;
  c.softcap = -1.0f;
  EXPECT_EQ(error_code([&] { run_sdpa(Impl::kKernels, c); }), "BAD_OPTION");
  c.softcap = std::numeric_limits<float>::infinity();
  EXPECT_EQ(error_code([&] { run_sdpa(Impl::kKernels, c); }), "BAD_OPTION");
}

}  // namespace
}  // namespace attention::test
