// The SIMD kernels of scaled_dot_product_attention against the plain-loop reference, at sizes around the SIMD
// width (4 floats), with every intermediate compared.
#include <algorithm>
#include <cmath>

#include "test_support.h"

namespace attention::test {
namespace {

struct Shape {
  int32_t len_q, len_k, d_k, d_v;
};

std::string shape_name(const ::testing::TestParamInfo<Shape>& info) {
  const Shape& s = info.param;
  return "Lq" + std::to_string(s.len_q) + "_Lk" + std::to_string(s.len_k) + "_dk" + std::to_string(s.d_k) + "_dv" +
         std::to_string(s.d_v);
}

// One dimension at a time around a base shape, square L_q = L_k and d_k = d_v, then seeded random combos.
std::vector<Shape> shape_grid() {
  const Shape base{5, 7, 8, 3};
  std::vector<Shape> grid;
  for (int32_t n : kEdgeSizes) {
    grid.push_back({n, base.len_k, base.d_k, base.d_v});
    grid.push_back({base.len_q, n, base.d_k, base.d_v});
    grid.push_back({base.len_q, base.len_k, n, base.d_v});
    grid.push_back({base.len_q, base.len_k, base.d_k, n});
    grid.push_back({n, n, 4, 4});
    grid.push_back({3, 9, n, n});
  }
  std::mt19937 rng(2024);
  auto pick = [&] { return kEdgeSizes[rng() % std::size(kEdgeSizes)]; };
  for (int i = 0; i < 16; ++i) grid.push_back({pick(), pick(), pick(), pick()});
  std::sort(grid.begin(), grid.end(), [](const Shape& a, const Shape& b) {
    return std::tie(a.len_q, a.len_k, a.d_k, a.d_v) < std::tie(b.len_q, b.len_k, b.d_k, b.d_v);
  });
  grid.erase(std::unique(grid.begin(), grid.end(),
                         [](const Shape& a, const Shape& b) {
                           return std::tie(a.len_q, a.len_k, a.d_k, a.d_v) == std::tie(b.len_q, b.len_k, b.d_k, b.d_v);
                         }),
             grid.end());
  return grid;
}

class KernelsMatchReference : public ::testing::TestWithParam<Shape> {};

// Batch 2, two query heads sharing one kv head, and in turn: no mask, boolean and additive masks with
// several broadcast patterns, both causal alignments, a mask combined with causal, and explicit scales.
TEST_P(KernelsMatchReference, ForEveryMaskCausalAndScaleMode) {
  const Shape s = GetParam();
  std::mt19937 rng(s.len_q * 1000003u + s.len_k * 10007u + s.d_k * 101u + s.d_v);
  const AttentionDims dims{2, 2, 1, s.len_q, s.len_k, s.d_k, s.d_v};
  const unsigned kBroadcastPatterns[] = {0b1111, 0b0011, 0b1001, 0b0110, 0b0000, 0b0001, 0b0010};

  for (int mode = 0; mode < 9; ++mode) {
    SdpaCase c = random_case(rng, dims);
    const unsigned pattern = kBroadcastPatterns[rng() % std::size(kBroadcastPatterns)];
    switch (mode) {
      case 0: break;
      case 1: set_boolean_mask(c, rng, c.broadcast_dims(pattern), 0.7f); break;
      case 2: set_additive_mask(c, rng, c.broadcast_dims(pattern), 0.25f); break;
      case 3: c.causal = Causal::kTopLeft; break;
      case 4: c.causal = Causal::kBottomRight; break;
      case 5:
        set_boolean_mask(c, rng, c.broadcast_dims(pattern), 0.8f);
        c.causal = Causal::kTopLeft;
        break;
      case 6:
        set_additive_mask(c, rng, c.broadcast_dims(pattern), 0.2f);
        c.causal = Causal::kBottomRight;
        break;
      case 7:
        c.has_scale = true;
        c.scale = 0.0f;
        break;
      case 8:
        c.has_scale = true;
        c.scale = -1.75f;
        set_boolean_mask(c, rng, c.broadcast_dims(pattern), 0.5f);
        break;
    }
    SCOPED_TRACE("mode " + std::to_string(mode));
    expect_matches_reference(c);
  }
}

INSTANTIATE_TEST_SUITE_P(EdgeSizes, KernelsMatchReference, ::testing::ValuesIn(shape_grid()), shape_name);

TEST(KernelsMatchReferenceTest, GroupedQueryAttentionForEveryKvHeadCount) {
  std::mt19937 rng(7);
  for (int32_t num_kv_heads : {1, 2, 4}) {
    for (Causal causal : {Causal::kNone, Causal::kTopLeft, Causal::kBottomRight}) {
      SdpaCase c = random_case(rng, {3, 4, num_kv_heads, 9, 17, 5, 7});
      c.causal = causal;
      set_boolean_mask(c, rng, c.broadcast_dims(0b0111), 0.75f);
      expect_matches_reference(c);
    }
  }
}

TEST(KernelsMatchReferenceTest, ExplicitScalesIncludingZeroAndNegative) {
  std::mt19937 rng(11);
  for (float scale : {0.0f, -0.0f, 1.0f, 0.01f, -2.0f, 7.5f}) {
    SdpaCase c = random_case(rng, {1, 2, 2, 6, 9, 16, 5});
    c.has_scale = true;
    c.scale = scale;
    expect_matches_reference(c);
  }
}

// Without a weights buffer the kernels work through blocks of 64 queries (kQueryBlock); block edges included.
TEST(KernelsMatchReferenceTest, QueryBlocksWhenWeightsAreNotRequested) {
  std::mt19937 rng(13);
  for (int32_t len_q : {63, 64, 65, 128, 129, 200}) {
    SdpaCase c = random_case(rng, {1, 2, 1, len_q, 33, 8, 5});
    c.causal = Causal::kBottomRight;
    set_additive_mask(c, rng, c.broadcast_dims(0b0011), 0.1f);
    SCOPED_TRACE(describe(c));
    SdpaOutputs full(c);
    reference::scaled_dot_product_attention(c.dims, c.q.data(), c.k.data(), c.v.data(), c.options(), full.result());

    std::vector<float> output(c.output_size()), scores(c.score_size());
    AttentionResult only_output;
    only_output.output = output.data();
    scaled_dot_product_attention(c.dims, c.q.data(), c.k.data(), c.v.data(), c.options(), only_output);
    EXPECT_TRUE(all_close(output, full.output)) << "output alone";

    AttentionResult output_and_scores;
    output_and_scores.output = output.data();
    output_and_scores.scores = scores.data();
    std::fill(output.begin(), output.end(), 0.0f);
    scaled_dot_product_attention(c.dims, c.q.data(), c.k.data(), c.v.data(), c.options(), output_and_scores);
    EXPECT_TRUE(all_close(output, full.output)) << "output with scores";
    EXPECT_TRUE(all_close(scores, full.scores)) << "scores without weights";
  }
}

// With only an output buffer the kernels stream keys in tiles of 512 (kKeyTile) with an online softmax.
TEST(KernelsMatchReferenceTest, OutputAloneAcrossKeyTiles) {
  std::mt19937 rng(31);
  for (int32_t len_k : {255, 256, 257, 511, 512, 513, 1100}) {
    for (int mode = 0; mode < 3; ++mode) {
      SdpaCase c = random_case(rng, {1, 2, 1, 9, len_k, 4, 3});
      if (mode == 1) c.causal = Causal::kBottomRight;
      if (mode == 2) set_additive_mask(c, rng, c.broadcast_dims(0b0011), 0.3f);
      for (float& x : c.q) x *= 4.0f;
      SCOPED_TRACE(describe(c));
      SdpaOutputs reference(c);
      reference::scaled_dot_product_attention(c.dims, c.q.data(), c.k.data(), c.v.data(), c.options(),
                                              reference.result());
      std::vector<float> output(c.output_size());
      AttentionResult only_output;
      only_output.output = output.data();
      scaled_dot_product_attention(c.dims, c.q.data(), c.k.data(), c.v.data(), c.options(), only_output);
      EXPECT_TRUE(all_close(output, reference.output));
    }
  }
}

// Values near float32's largest (3.4e38): the output is a weighted mean of them, so it stays finite on every
// route, also one that sums before dividing by the softmax's total.
TEST(KernelsMatchReferenceTest, OutputStaysFiniteForValuesNearFloat32Max) {
  std::mt19937 rng(37);
  for (int32_t len_k : {8, 300}) {
    SdpaCase c = random_case(rng, {1, 1, 1, 5, len_k, 4, 3});
    for (float& x : c.q) x *= 0.1f;
    for (size_t i = 0; i < c.v.size(); ++i) c.v[i] = (i % 3 == 2 ? -3.0e38f : 3.0e38f) * (0.9f + 0.1f * c.v[i]);
    SCOPED_TRACE(describe(c));
    const SdpaOutputs reference = run_sdpa(Impl::kReference, c);
    EXPECT_TRUE(all_close(run_sdpa(Impl::kKernels, c).output, reference.output, 0, 1e-4)) << "with weights";
    std::vector<float> output(c.output_size());
    AttentionResult only_output;
    only_output.output = output.data();
    scaled_dot_product_attention(c.dims, c.q.data(), c.k.data(), c.v.data(), c.options(), only_output);
    EXPECT_TRUE(all_close(output, reference.output, 0, 1e-4)) << "output alone";
  }
}

TEST(KernelsMatchReferenceTest, OutputDoesNotDependOnWhichIntermediatesAreRequested) {
  std::mt19937 rng(17);
  SdpaCase c = random_case(rng, {2, 2, 2, 70, 9, 7, 3});
  set_boolean_mask(c, rng, c.broadcast_dims(0b1011), 0.6f);
  const SdpaOutputs all = run_sdpa(Impl::kKernels, c);
  std::vector<float> output(c.output_size());
  AttentionResult only_output;
  only_output.output = output.data();
  scaled_dot_product_attention(c.dims, c.q.data(), c.k.data(), c.v.data(), c.options(), only_output);
  EXPECT_TRUE(all_close(output, all.output, 1e-6, 1e-6));
}

TEST(KernelsMatchReferenceTest, BottomRightWithMoreQueriesThanKeysLeavesLeadingRowsEmpty) {
  std::mt19937 rng(19);
  SdpaCase c = random_case(rng, {1, 1, 1, 7, 3, 4, 5});
  c.causal = Causal::kBottomRight;
  expect_matches_reference(c);
  const SdpaOutputs out = run_sdpa(Impl::kKernels, c);
  for (int i = 0; i < 7; ++i) {
    for (int j = 0; j < 3; ++j) {
      const bool open = j <= i + 3 - 7;
      EXPECT_EQ(out.scores[i * 3 + j] == -kInf, !open) << "row " << i << " key " << j;
      if (!open) EXPECT_EQ(out.weights[i * 3 + j], 0.0f) << "row " << i << " key " << j;
    }
    if (i < 4) {
      for (int col = 0; col < 5; ++col) EXPECT_EQ(out.output[i * 5 + col], 0.0f) << "row " << i;
    }
  }
}

// q = [[1, 0]], k = [[1, 0], [0, 1]], v = [[1, 2], [3, 4]], scale 1: weights = softmax([1, 0]).
TEST(KernelsMatchReferenceTest, HandWorkedSingleQuery) {
  SdpaCase c;
  c.dims = {1, 1, 1, 1, 2, 2, 2};
  c.has_scale = true;
  c.scale = 1.0f;
  c.q = {1, 0};
  c.k = {1, 0, 0, 1};
  c.v = {1, 2, 3, 4};
  const double w0 = std::exp(1.0) / (std::exp(1.0) + 1.0), w1 = 1.0 - w0;
  for (Impl impl : {Impl::kKernels, Impl::kReference}) {
    SCOPED_TRACE(impl_name(impl));
    const SdpaOutputs out = run_sdpa(impl, c);
    EXPECT_TRUE(all_close(out.raw_scores, {1.0f, 0.0f}, 1e-7, 0));
    EXPECT_TRUE(all_close(out.weights, {float(w0), float(w1)}, 1e-7, 1e-6));
    EXPECT_TRUE(all_close(out.output, {float(w0 + 3 * w1), float(2 * w0 + 4 * w1)}, 1e-7, 1e-6));
  }
}

TEST(KernelsMatchReferenceTest, DefaultScaleIsInverseSquareRootOfDk) {
  std::mt19937 rng(23);
  for (int32_t d_k : {1, 3, 4, 16, 17}) {
    const SdpaCase c = random_case(rng, {1, 1, 1, 3, 5, d_k, 2});
    for (Impl impl : {Impl::kKernels, Impl::kReference}) {
      SCOPED_TRACE(std::string(impl_name(impl)) + " d_k " + std::to_string(d_k));
      const SdpaOutputs out = run_sdpa(impl, c);
      std::vector<float> expected(out.raw_scores);
      for (float& x : expected) x /= std::sqrt(static_cast<float>(d_k));
      EXPECT_TRUE(all_close(out.scaled_scores, expected, 1e-7, 1e-6));
    }
  }
}

TEST(KernelsMatchReferenceTest, ScaleZeroGivesUniformWeightsAndTheMeanOfValues) {
  std::mt19937 rng(29);
  SdpaCase c = random_case(rng, {1, 1, 1, 4, 9, 5, 3});
  c.has_scale = true;
  c.scale = 0.0f;
  for (Impl impl : {Impl::kKernels, Impl::kReference}) {
    SCOPED_TRACE(impl_name(impl));
    const SdpaOutputs out = run_sdpa(impl, c);
    EXPECT_TRUE(all_close(out.weights, std::vector<float>(4 * 9, 1.0f / 9), 1e-7, 1e-6));
    std::vector<float> mean(4 * 3, 0.0f);
    for (int i = 0; i < 4; ++i)
      for (int j = 0; j < 9; ++j)
        for (int col = 0; col < 3; ++col) mean[i * 3 + col] += c.v[j * 3 + col] / 9;
    EXPECT_TRUE(all_close(out.output, mean, 1e-6, 1e-5));
  }
}

// The build says which Vec4 backend it means (CMakeLists.txt: "sse2", or "scalar" for the ATTENTION_NO_SIMD
// twin); the core's kernels (kernels.cc) must have been compiled with that one. Eigen's instruction-set string
// would only echo a compile flag.
TEST(KernelsMatchReferenceTest, BuiltWithTheIntendedSimdBackend) {
  EXPECT_STREQ(attention::kernel_backend(), ATTENTION_EXPECTED_BACKEND);
}

}  // namespace
}  // namespace attention::test
