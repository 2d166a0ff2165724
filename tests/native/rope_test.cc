// RoPE (rope.h): apply_rope against a plain loop in double over the SIMD edge sizes, both styles, partial dims,
// table offsets and in place; then scaled_dot_product_attention and multi_head_attention with a rope against the
// reference core on q and k rotated by that loop; and the bad ropes the core refuses.
#include "rope.h"

#include <cmath>

#include "test_support.h"

namespace attention::test {
namespace {

// Tables [rows, dim / 2] of position · theta^(−2i/dim) for positions first_position, first_position + 1, …
struct Tables {
  std::vector<float> cos, sin;
  Tables(int64_t rows, int64_t dim, int64_t first_position = 0, double theta = 10000) {
    for (int64_t p = 0; p < rows; ++p) {
      for (int64_t i = 0; i < dim / 2; ++i) {
        const double angle = static_cast<double>(first_position + p) / std::pow(theta, 2.0 * i / dim);
        cos.push_back(static_cast<float>(std::cos(angle)));
        sin.push_back(static_cast<float>(std::sin(angle)));
      }
    }
  }
  Rope rope(RopeStyle style, int32_t dim) const { return {style, dim, cos.data(), sin.data()}; }
};

// The rotation written out pair by pair, in double: (x_a, x_b) → (x_a·c − x_b·s, x_b·c + x_a·s).
std::vector<float> plain_rope(const Rope& rope, const std::vector<float>& x, int64_t heads, int64_t len, int64_t d,
                              int64_t first_row) {
  std::vector<float> out = x;
  const int64_t half = rope.dim / 2;
  for (int64_t h = 0; h < heads; ++h) {
    for (int64_t r = 0; r < len; ++r) {
      const float* row = x.data() + (h * len + r) * d;
      float* row_out = out.data() + (h * len + r) * d;
      for (int64_t i = 0; i < half; ++i) {
        const double c = rope.cos[(first_row + r) * half + i], s = rope.sin[(first_row + r) * half + i];
        const int64_t a = rope.style == RopeStyle::kHalf ? i : 2 * i;
        const int64_t b = rope.style == RopeStyle::kHalf ? i + half : 2 * i + 1;
        row_out[a] = static_cast<float>(row[a] * c - row[b] * s);
        row_out[b] = static_cast<float>(row[b] * c + row[a] * s);
      }
    }
  }
  return out;
}

class ApplyRope : public ::testing::TestWithParam<RopeStyle> {};

TEST_P(ApplyRope, MatchesThePlainLoopAtEverySimdEdgeSizeWithPartialDimsOffsetsAndInPlace) {
  std::mt19937 rng(5);
  for (const int32_t pairs : kEdgeSizes) {
    for (const int32_t extra : {0, 1, 4}) {
      const int64_t dim = 2 * pairs, d = dim + extra, heads = 3, len = 5, first_row = 2;
      SCOPED_TRACE("dim " + std::to_string(dim) + ", d " + std::to_string(d));
      const Tables tables(first_row + len, dim, 0, 500000);
      const Rope rope = tables.rope(GetParam(), static_cast<int32_t>(dim));
      const std::vector<float> x = random_values(rng, heads * len * d, -2, 2);
      const std::vector<float> expected = plain_rope(rope, x, heads, len, d, first_row);
      std::vector<float> out(x.size(), -7.0f);
      apply_rope(rope, x.data(), out.data(), heads, len, d, first_row);
      EXPECT_TRUE(all_close(out, expected, 1e-6, 1e-6));
      std::vector<float> in_place = x;
      apply_rope(rope, in_place.data(), in_place.data(), heads, len, d, first_row);
      EXPECT_EQ(in_place, out);  // the same bits in place
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Styles, ApplyRope, ::testing::Values(RopeStyle::kHalf, RopeStyle::kInterleaved),
                         [](const auto& info) { return info.param == RopeStyle::kHalf ? "Half" : "Interleaved"; });

TEST(RopeInAttention, SdpaRotatesQAndKThenAttendsAsTheReferenceDoesOnRotatedInputs) {
  std::mt19937 rng(9);
  for (const RopeStyle style : {RopeStyle::kHalf, RopeStyle::kInterleaved}) {
    // GQA, queries at the end of the keys (rows L_k − L_q … of the tables), a partial dim
    const AttentionDims dims{2, 4, 2, 3, 7, 10, 5};
    SdpaCase c = random_case(rng, dims);
    c.causal = Causal::kBottomRight;
    const Tables tables(dims.len_k, 8, 40);
    const Rope rope = tables.rope(style, 8);
    SdpaCase rotated = c;
    rotated.q = plain_rope(rope, c.q, dims.batch * dims.num_heads, dims.len_q, dims.d_k, dims.len_k - dims.len_q);
    rotated.k = plain_rope(rope, c.k, dims.batch * dims.num_kv_heads, dims.len_k, dims.d_k, 0);
    const SdpaOutputs expected = run_sdpa(Impl::kReference, rotated);

    SdpaOutputs actual(c);
    std::vector<float> q_rotated(c.q.size()), k_rotated(c.k.size());
    AttentionResult result = actual.result();
    result.q_rotated = q_rotated.data();
    result.k_rotated = k_rotated.data();
    AttentionOptions options = c.options();
    options.rope = rope;
    scaled_dot_product_attention(dims, c.q.data(), c.k.data(), c.v.data(), options, result);
    EXPECT_TRUE(all_close(q_rotated, rotated.q, 1e-6, 1e-6));
    EXPECT_TRUE(all_close(k_rotated, rotated.k, 1e-6, 1e-6));
    expect_sdpa_outputs_close(actual, expected);

    // Without result buffers for the rotated q and k, the same output.
    SdpaOutputs unkept(c);
    scaled_dot_product_attention(dims, c.q.data(), c.k.data(), c.v.data(), options, unkept.result());
    EXPECT_EQ(unkept.output, actual.output);
  }
}

TEST(RopeInAttention, MultiHeadKeepsQAndKBeforeTheRotationAndTheRotatedOnesApart) {
  std::mt19937 rng(12);
  const ProjectionDims dims{1, 6, 6, 8, 8, 4, 2, 4, 4, 8};
  const std::vector<float> x = random_values(rng, 6 * 8), w_q = random_values(rng, 8 * 16);
  const std::vector<float> w_k = random_values(rng, 8 * 8), w_v = random_values(rng, 8 * 8);
  const std::vector<float> w_o = random_values(rng, 16 * 8);
  const Tables tables(6, 4);
  AttentionOptions options;
  options.causal = Causal::kTopLeft;
  options.rope = tables.rope(RopeStyle::kHalf, 4);
  std::vector<float> q(4 * 6 * 4), k(2 * 6 * 4), q_rotated(q.size()), k_rotated(k.size()), output(6 * 8);
  MultiHeadResult result;
  result.q = q.data();
  result.k = k.data();
  result.attention.q_rotated = q_rotated.data();
  result.attention.k_rotated = k_rotated.data();
  result.output = output.data();
  multi_head_attention(dims, x.data(), nullptr, {w_q.data(), w_k.data(), w_v.data(), w_o.data()}, options, result);
  EXPECT_TRUE(all_close(q_rotated, plain_rope(options.rope, q, 4, 6, 4, 0), 1e-6, 1e-6));
  EXPECT_TRUE(all_close(k_rotated, plain_rope(options.rope, k, 2, 6, 4, 0), 1e-6, 1e-6));
  EXPECT_NE(q, q_rotated);  // q is kept as projected
}

TEST(RopeInAttention, BadRopesAreRefusedBeforeAnythingIsComputed) {
  std::mt19937 rng(1);
  const AttentionDims dims{1, 1, 1, 4, 3, 4, 4};
  const SdpaCase c = random_case(rng, dims);
  const Tables tables(4, 4);
  SdpaOutputs out(c);
  const auto code_of = [&](Rope rope) -> std::string {
    AttentionOptions options;
    options.rope = rope;
    try {
      scaled_dot_product_attention(dims, c.q.data(), c.k.data(), c.v.data(), options, out.result());
    } catch (const AttentionError& e) {
      return e.code();
    }
    return "none";
  };
  EXPECT_EQ(code_of(tables.rope(RopeStyle::kHalf, 4)), "BAD_OPTION");  // L_q 4 > L_k 3
  const AttentionDims square{1, 1, 1, 3, 3, 4, 4};
  const SdpaCase s = random_case(rng, square);
  const auto square_code = [&](Rope rope) -> std::string {
    AttentionOptions options;
    options.rope = rope;
    SdpaOutputs o(s);
    try {
      scaled_dot_product_attention(square, s.q.data(), s.k.data(), s.v.data(), options, o.result());
    } catch (const AttentionError& e) {
      return e.code();
    }
    return "none";
  };
  EXPECT_EQ(square_code(tables.rope(RopeStyle::kHalf, 4)), "none");
  EXPECT_EQ(square_code(tables.rope(RopeStyle::kHalf, 3)), "BAD_OPTION");
  EXPECT_EQ(square_code(tables.rope(RopeStyle::kInterleaved, 6)), "BAD_OPTION");
  EXPECT_EQ(square_code({static_cast<RopeStyle>(7), 4, tables.cos.data(), tables.sin.data()}), "BAD_OPTION");
  EXPECT_EQ(square_code({RopeStyle::kHalf, 4, nullptr, tables.sin.data()}), "NULL_ARGUMENT");
}

}  // namespace
}  // namespace attention::test
