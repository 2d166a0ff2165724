// gemm (gemm.h), the product of every projection, MLP and LM head: against sums in double at the sizes where its
// blocks end (row pairs, blocks of 128 rows, panels of 16 columns, 4×4 transposes, 256 input rows per panel), in both
// weight layouts, as a block of a wider matrix, with and without a bias; and its promise that every value's sum has an
// order of its own, whatever the rows and columns around it: [in, out] weights one float32 chain in k's order; and
// [in, out] weights packed into panels (pack_panels, gemm_panels) give the same bits.
#include "gemm.h"

#include <cstring>

#include "test_support.h"

namespace attention::test {
namespace {

// W [in, out] inside a wider [in, ld] matrix at column `first`, and the same weights as [out, in] inside [out, ld_t].
struct Weights {
  int64_t in, out, ld, first, ld_t;
  std::vector<float> in_out, out_in;  // [in, ld], [out + first, ld_t]

  Weights(std::mt19937& rng, int64_t in_, int64_t out_, int64_t extra)
      : in(in_), out(out_), ld(out_ + extra), first(extra / 2), ld_t(in_ + extra) {
    in_out = random_values(rng, in * ld);
    out_in.assign((out + first) * ld_t, 9.0f);  // 9: values outside the block, never read
    for (int64_t k = 0; k < in; ++k) {
      for (int64_t c = 0; c < out; ++c) out_in[(first + c) * ld_t + k] = at(k, c);
    }
  }
  float at(int64_t k, int64_t c) const { return in_out[k * ld + first + c]; }
  const float* block(WeightLayout layout) const {
    return layout == WeightLayout::kInOut ? in_out.data() + first : out_in.data() + first * ld_t;
  }
  int64_t stride(WeightLayout layout) const { return layout == WeightLayout::kInOut ? ld : ld_t; }
};

std::vector<float> product_of(const std::vector<float>& x, int64_t rows, const Weights& w, WeightLayout layout,
                              const float* b) {
  std::vector<float> y(rows * w.out, -7.0f);
  gemm(x.data(), rows, w.in, w.block(layout), w.stride(layout), layout, w.out, b, y.data());
  return y;
}

const WeightLayout kLayouts[] = {WeightLayout::kInOut, WeightLayout::kOutIn};

const char* name(WeightLayout layout) { return layout == WeightLayout::kInOut ? "[in, out]" : "[out, in]"; }

// Each value within float32 summation's bound of the sum in double: |y − Σ| ≤ (in + 2)·2⁻²⁴·(Σ|x·w| + |b|).
TEST(Gemm, MatchesSumsInDoubleAtEverySimdEdge) {
  std::mt19937 rng(11);
  const int64_t row_counts[] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 95, 96, 97, 98, 127, 128, 129, 130, 257};
  const std::array<int64_t, 2> shapes[] = {{1, 1},    {3, 5},    {4, 16},  {7, 17},   {8, 15},   {15, 33},
                                           {16, 1},   {17, 48},  {33, 31}, {255, 7},  {256, 16}, {257, 19},
                                           {300, 50}, {513, 21}, {64, 64}, {1030, 9}, {2051, 17}};
  int tried = 0;
  for (const int64_t rows : row_counts) {
    for (size_t s = 0; s < std::size(shapes); ++s) {
      if (rows > 9 && (s + rows) % 3) continue;  // a third of the shapes for the larger row counts
      const auto [in, out] = shapes[s];
      const Weights w(rng, in, out, 5);
      const std::vector<float> x = random_values(rng, rows * in), b = random_values(rng, out);
      std::vector<double> exact(rows * out), bound(rows * out);
      for (int64_t r = 0; r < rows; ++r) {
        for (int64_t c = 0; c < out; ++c) {
          double sum = 0, magnitude = 0;
          for (int64_t k = 0; k < in; ++k) {
            sum += double(x[r * in + k]) * w.at(k, c);
            magnitude += std::abs(double(x[r * in + k]) * w.at(k, c));
          }
          exact[r * out + c] = sum;
          bound[r * out + c] = (in + 2) * 0x1p-24 * magnitude;
        }
      }
      for (const WeightLayout layout : kLayouts) {
        for (const bool bias : {false, true}) {
          const std::vector<float> y = product_of(x, rows, w, layout, bias ? b.data() : nullptr);
          int bad = 0;
          for (int64_t i = 0; i < rows * out && bad < 3; ++i) {
            const double want = exact[i] + (bias ? b[i % out] : 0.0);
            const double slack = bound[i] + (bias ? 0x1p-24 * std::abs(want) : 0.0);
            if (!(std::abs(y[i] - want) <= slack)) {
              ++bad;
              ADD_FAILURE() << rows << " × " << in << " × " << out << ", " << name(layout) << (bias ? ", bias" : "")
                            << ": [" << i / out << ", " << i % out << "] is " << y[i] << ", not " << want;
            }
          }
          ++tried;
        }
      }
    }
  }
  EXPECT_GT(tried, 200);
}

bool same_bits(const float* a, const float* b, int64_t n) { return std::memcmp(a, b, n * sizeof(float)) == 0; }

// The promise the prepared layer's stale groups and a split of the columns over workers rely on: any rows and any
// block of the columns give the same bits as the whole product, in either layout; [in, out] weights give each value
// as ((x₀·w₀ + x₁·w₁) + …) + b in float32.
TEST(Gemm, EachValueIsOneFloat32ChainWhateverIsAroundIt) {
  std::mt19937 rng(12);
  const int64_t rows = 261, in = 1543, out = 53;  // in: a block of 1024 and 519 (not a multiple of 4)
  const Weights w(rng, in, out, 6);
  const std::vector<float> x = random_values(rng, rows * in), b = random_values(rng, out);
  const std::vector<float> whole = product_of(x, rows, w, WeightLayout::kInOut, b.data());
  std::vector<float> chain(rows * out);
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < out; ++c) {
      float sum = 0;
      for (int64_t k = 0; k < in; ++k) sum += x[r * in + k] * w.at(k, c);
      chain[r * out + c] = sum + b[c];
    }
  }
  EXPECT_TRUE(same_bits(whole.data(), chain.data(), rows * out)) << "a chain in k's order, then the bias";
  const std::vector<float> whole_t = product_of(x, rows, w, WeightLayout::kOutIn, b.data());  // [out, in] weights
  for (const auto [r0, r1] : {std::array<int64_t, 2>{0, 1}, {3, 4}, {5, 9}, {95, 98}, {127, 131}, {260, 261}}) {
    const std::vector<float> part(x.begin() + r0 * in, x.begin() + r1 * in);
    for (const WeightLayout layout : kLayouts) {
      const float* want = (layout == WeightLayout::kInOut ? whole : whole_t).data() + r0 * out;
      EXPECT_TRUE(same_bits(product_of(part, r1 - r0, w, layout, b.data()).data(), want, (r1 - r0) * out))
          << "rows " << r0 << " to " << r1 << ", " << name(layout);
    }
  }
  for (const auto [c0, c1] : {std::array<int64_t, 2>{0, 16}, {5, 22}, {16, 48}, {17, 18}, {40, 53}}) {
    for (const WeightLayout layout : kLayouts) {
      std::vector<float> y((c1 - c0) * rows);
      const float* block = w.block(layout) + (layout == WeightLayout::kInOut ? c0 : c0 * w.ld_t);
      gemm(x.data(), rows, in, block, w.stride(layout), layout, c1 - c0, b.data() + c0, y.data());
      int64_t differ = 0;
      const float* want = (layout == WeightLayout::kInOut ? whole : whole_t).data();
      for (int64_t r = 0; r < rows; ++r) differ += !same_bits(y.data() + r * (c1 - c0), want + r * out + c0, c1 - c0);
      EXPECT_EQ(differ, 0) << "columns " << c0 << " to " << c1 << ", " << name(layout);
    }
  }
}

// No rows or no columns: nothing written; no input rows: y = b (or 0).
TEST(Gemm, EmptySizesWriteNothingOrTheBias) {
  const std::vector<float> w(12, 1.0f), b = {0.5f, -2.0f, 3.0f};
  std::vector<float> x(4, 1.0f), y(6, -7.0f);
  gemm(x.data(), 0, 2, w.data(), 3, WeightLayout::kInOut, 3, b.data(), y.data());
  gemm(x.data(), 2, 2, w.data(), 3, WeightLayout::kInOut, 0, b.data(), y.data());
  EXPECT_EQ(y, std::vector<float>(6, -7.0f));
  gemm(x.data(), 2, 0, w.data(), 3, WeightLayout::kOutIn, 3, b.data(), y.data());
  EXPECT_EQ(y, (std::vector<float>{0.5f, -2.0f, 3.0f, 0.5f, -2.0f, 3.0f}));
  gemm(x.data(), 2, 0, w.data(), 3, WeightLayout::kInOut, 3, nullptr, y.data());
  EXPECT_EQ(y, std::vector<float>(6, 0.0f));
}

// Weights packed by pack_panels give gemm_panels the bits of gemm on [in, out] weights, at row counts and depths
// where its blocks end (row pairs, 128 rows, 768 input rows per pass), with and without a bias; a width that is no
// multiple of 16 is left as it was.
TEST(Gemm, PackedPanelsGiveTheBitsOfTheWeightsAsStored) {
  std::mt19937 rng(13);
  const std::array<int64_t, 2> shapes[] = {{1, 16}, {5, 32}, {64, 48}, {767, 16}, {768, 64}, {769, 32}, {1600, 80}};
  for (const auto [in, out] : shapes) {
    const std::vector<float> w = random_values(rng, in * out), b = random_values(rng, out);
    std::vector<float> packed = w;
    ASSERT_TRUE(pack_panels(packed.data(), in, out));
    if (out >= 32) EXPECT_EQ(packed[in * 16 + 1], w[17]) << "panel 1 begins with row 0's columns 16 to 31";
    for (const int64_t rows : {1, 2, 3, 32, 127, 128, 129, 261}) {
      const std::vector<float> x = random_values(rng, rows * in);
      for (const float* bias : {static_cast<const float*>(nullptr), b.data()}) {
        std::vector<float> want(rows * out, -7.0f), got(rows * out, -8.0f);
        gemm(x.data(), rows, in, w.data(), out, WeightLayout::kInOut, out, bias, want.data());
        gemm_panels(x.data(), rows, in, packed.data(), out, bias, got.data());
        EXPECT_TRUE(same_bits(got.data(), want.data(), rows * out))
            << rows << " × " << in << " × " << out << (bias ? ", bias" : "");
      }
    }
  }
  std::vector<float> odd = random_values(rng, 4 * 20);
  const std::vector<float> before = odd;
  EXPECT_FALSE(pack_panels(odd.data(), 4, 20));
  EXPECT_EQ(odd, before);
}

}  // namespace
}  // namespace attention::test
