// Properties of scaled_dot_product_attention that hold whatever the inputs: checked on the SIMD kernels, and
// where cheap on the reference too, so a shared misunderstanding of the semantics cannot hide.
#include <algorithm>
#include <cmath>
#include <numeric>

#include "test_support.h"

namespace attention::test {
namespace {

constexpr Impl kBothImpls[] = {Impl::kKernels, Impl::kReference};

// Is key j open to query i, from the case's causal mode and boolean/additive mask (b = h = 0 entries only
// when the mask broadcasts over them)?
bool key_is_open(const SdpaCase& c, int b, int h, int i, int j) {
  const AttentionDims& d = c.dims;
  if (c.causal == Causal::kTopLeft && j > i) return false;
  if (c.causal == Causal::kBottomRight && j > i + d.len_k - d.len_q) return false;
  if (c.mask_kind == MaskKind::kNone) return true;
  const auto& m = c.mask_dims;
  const int64_t flat = ((int64_t{m[0] == 1 ? 0 : b} * m[1] + (m[1] == 1 ? 0 : h)) * m[2] + (m[2] == 1 ? 0 : i)) * m[3] +
                       (m[3] == 1 ? 0 : j);
  if (c.mask_kind == MaskKind::kBoolean) return c.boolean_mask[flat] != 0;
  return c.additive_mask[flat] != -kInf;
}

// Cases whose masks leave some rows fully masked, some partly and some open, at every edge size of L_k.
std::vector<SdpaCase> masked_cases(std::mt19937& rng) {
  std::vector<SdpaCase> cases;
  for (int32_t len_k : kEdgeSizes) {
    for (int variant = 0; variant < 4; ++variant) {
      SdpaCase c = random_case(rng, {2, 2, 1, 9, len_k, 5, 3});
      if (variant == 0) set_boolean_mask(c, rng, c.broadcast_dims(0b1111), 0.5f);
      if (variant == 1) set_additive_mask(c, rng, c.broadcast_dims(0b0011), 0.5f);
      if (variant == 2) {
        set_boolean_mask(c, rng, c.broadcast_dims(0b0101), 0.7f);
        c.causal = Causal::kTopLeft;
      }
      if (variant == 3) {
        set_additive_mask(c, rng, c.broadcast_dims(0b1011), 0.3f);
        c.causal = Causal::kBottomRight;
      }
      if (c.mask_kind == MaskKind::kBoolean) std::fill_n(c.boolean_mask.begin(), c.mask_dims[3], 0);
      if (c.mask_kind == MaskKind::kAdditive) std::fill_n(c.additive_mask.begin(), c.mask_dims[3], -kInf);
      cases.push_back(std::move(c));
    }
  }
  return cases;
}

TEST(SdpaPropertyTest, WeightRowsSumToOneOrAreAllZeroWhenFullyMasked) {
  std::mt19937 rng(101);
  int fully_masked_rows = 0, open_rows = 0;
  for (const SdpaCase& c : masked_cases(rng)) {
    for (Impl impl : kBothImpls) {
      SCOPED_TRACE(std::string(impl_name(impl)) + " " + describe(c));
      const SdpaOutputs out = run_sdpa(impl, c);
      const AttentionDims& d = c.dims;
      for (int b = 0; b < d.batch; ++b) {
        for (int h = 0; h < d.num_heads; ++h) {
          for (int i = 0; i < d.len_q; ++i) {
            const float* w = &out.weights[((int64_t{b} * d.num_heads + h) * d.len_q + i) * d.len_k];
            bool any_open = false;
            double sum = 0;
            for (int j = 0; j < d.len_k; ++j) {
              any_open |= key_is_open(c, b, h, i, j);
              EXPECT_TRUE(w[j] >= 0.0f && w[j] <= 1.0f) << "weight " << w[j] << " at row " << i << " key " << j;
              sum += w[j];
            }
            if (any_open) {
              ++open_rows;
              EXPECT_NEAR(sum, 1.0, 1e-5) << "row " << i;
            } else {
              ++fully_masked_rows;
              EXPECT_EQ(sum, 0.0) << "fully masked row " << i;
            }
          }
        }
      }
    }
  }
  EXPECT_GT(fully_masked_rows, 0);
  EXPECT_GT(open_rows, 0);
}

TEST(SdpaPropertyTest, MaskedWeightsAreExactlyZeroAndMaskedScoresAreNegativeInfinity) {
  std::mt19937 rng(103);
  for (const SdpaCase& c : masked_cases(rng)) {
    for (Impl impl : kBothImpls) {
      SCOPED_TRACE(std::string(impl_name(impl)) + " " + describe(c));
      const SdpaOutputs out = run_sdpa(impl, c);
      const AttentionDims& d = c.dims;
      int64_t at = 0, wrong = 0;
      for (int b = 0; b < d.batch; ++b)
        for (int h = 0; h < d.num_heads; ++h)
          for (int i = 0; i < d.len_q; ++i)
            for (int j = 0; j < d.len_k; ++j, ++at) {
              const bool open = key_is_open(c, b, h, i, j);
              if (open) {
                wrong += !std::isfinite(out.scores[at]);
              } else {
                wrong += out.weights[at] != 0.0f || out.scores[at] != -kInf;
                if (out.weights[at] != 0.0f && wrong < 4) ADD_FAILURE() << "weight " << out.weights[at] << " at " << at;
              }
            }
      EXPECT_EQ(wrong, 0);
    }
  }
}

TEST(SdpaPropertyTest, FullyMaskedRowsHaveZeroWeightsAndZeroOutputNeverNaN) {
  std::mt19937 rng(107);
  const AttentionDims dims{1, 1, 1, 6, 9, 4, 5};
  std::vector<SdpaCase> cases;
  SdpaCase blocked = random_case(rng, dims);
  set_boolean_mask(blocked, rng, blocked.broadcast_dims(0b0011), 1.0f);
  std::fill_n(blocked.boolean_mask.begin() + 2 * 9, 9, 0);
  cases.push_back(blocked);

  SdpaCase minus_inf = random_case(rng, dims);
  set_additive_mask(minus_inf, rng, minus_inf.broadcast_dims(0b0011), 0.0f);
  std::fill_n(minus_inf.additive_mask.begin() + 2 * 9, 9, -kInf);
  cases.push_back(minus_inf);

  SdpaCase future_only = random_case(rng, dims);
  set_boolean_mask(future_only, rng, future_only.broadcast_dims(0b0011), 1.0f);
  for (int j = 0; j <= 2; ++j) future_only.boolean_mask[2 * 9 + j] = 0;
  future_only.causal = Causal::kTopLeft;
  cases.push_back(future_only);

  SdpaCase short_keys = random_case(rng, {1, 1, 1, 6, 3, 4, 5});
  short_keys.causal = Causal::kBottomRight;
  cases.push_back(short_keys);

  for (const SdpaCase& c : cases) {
    for (Impl impl : kBothImpls) {
      SCOPED_TRACE(std::string(impl_name(impl)) + " " + describe(c));
      const SdpaOutputs out = run_sdpa(impl, c);
      const int len_k = c.dims.len_k;
      for (int j = 0; j < len_k; ++j) {
        EXPECT_EQ(out.scores[2 * len_k + j], -kInf);
        EXPECT_EQ(out.weights[2 * len_k + j], 0.0f);
      }
      for (int col = 0; col < 5; ++col) EXPECT_EQ(out.output[2 * 5 + col], 0.0f);
      EXPECT_NE(out.output[3 * 5], 0.0f) << "row 3 has open keys";
    }
  }
}

struct QueryKeyLengths {
  int32_t len_q, len_k;
};
constexpr QueryKeyLengths kLengthPairs[] = {{1, 1}, {5, 5},   {3, 8},   {8, 3}, {1, 9},
                                            {9, 1}, {16, 17}, {17, 16}, {4, 33}};

SdpaCase with_lower_triangular_mask(const SdpaCase& causal_case, MaskKind kind) {
  SdpaCase c = causal_case;
  const int32_t len_q = c.dims.len_q, len_k = c.dims.len_k;
  const int64_t shift = c.causal == Causal::kBottomRight ? len_k - len_q : 0;
  c.causal = Causal::kNone;
  c.mask_kind = kind;
  c.mask_dims = {1, 1, len_q, len_k};
  c.boolean_mask.assign(int64_t{len_q} * len_k, 0);
  c.additive_mask.assign(int64_t{len_q} * len_k, -kInf);
  for (int i = 0; i < len_q; ++i) {
    for (int j = 0; j < len_k; ++j) {
      if (j <= i + shift) {
        c.boolean_mask[i * len_k + j] = 1;
        c.additive_mask[i * len_k + j] = 0.0f;
      }
    }
  }
  return c;
}

TEST(SdpaPropertyTest, CausalEqualsAnExplicitLowerTriangularMaskInBothAlignments) {
  std::mt19937 rng(109);
  for (Causal causal : {Causal::kTopLeft, Causal::kBottomRight}) {
    for (const QueryKeyLengths& lengths : kLengthPairs) {
      SdpaCase c = random_case(rng, {2, 2, 2, lengths.len_q, lengths.len_k, 6, 3});
      c.causal = causal;
      for (Impl impl : kBothImpls) {
        SCOPED_TRACE(std::string(impl_name(impl)) + " " + describe(c));
        const SdpaOutputs with_causal = run_sdpa(impl, c);
        expect_sdpa_outputs_close(run_sdpa(impl, with_lower_triangular_mask(c, MaskKind::kBoolean)), with_causal, 0, 0);
        expect_sdpa_outputs_close(run_sdpa(impl, with_lower_triangular_mask(c, MaskKind::kAdditive)), with_causal, 0,
                                  0);
      }
    }
  }
}

// Keys and values are permuted together (row j of the new k and v is row perm[j] of the old), and so are the
// mask's key columns. The output must not change; the weights move with their keys.
TEST(SdpaPropertyTest, PermutingKeysAndValuesTogetherLeavesTheOutputUnchanged) {
  std::mt19937 rng(113);
  for (int32_t len_k : {2, 3, 4, 5, 8, 9, 17, 33}) {
    SdpaCase c = random_case(rng, {2, 2, 1, 7, len_k, 5, 4});
    set_boolean_mask(c, rng, c.broadcast_dims(0b0011), 0.7f);
    std::vector<int> perm(len_k);
    std::iota(perm.begin(), perm.end(), 0);
    std::shuffle(perm.begin(), perm.end(), rng);
    if (std::is_sorted(perm.begin(), perm.end())) std::reverse(perm.begin(), perm.end());

    SdpaCase permuted = c;
    const AttentionDims& d = c.dims;
    for (int64_t bh = 0; bh < d.batch * d.num_kv_heads; ++bh) {
      for (int j = 0; j < len_k; ++j) {
        std::copy_n(&c.k[(bh * len_k + perm[j]) * d.d_k], d.d_k, &permuted.k[(bh * len_k + j) * d.d_k]);
        std::copy_n(&c.v[(bh * len_k + perm[j]) * d.d_v], d.d_v, &permuted.v[(bh * len_k + j) * d.d_v]);
      }
    }
    for (int i = 0; i < d.len_q; ++i) {
      for (int j = 0; j < len_k; ++j) permuted.boolean_mask[i * len_k + j] = c.boolean_mask[i * len_k + perm[j]];
    }

    SCOPED_TRACE(describe(c));
    const SdpaOutputs before = run_sdpa(Impl::kKernels, c);
    const SdpaOutputs after = run_sdpa(Impl::kKernels, permuted);
    EXPECT_TRUE(all_close(after.output, before.output, 1e-6, 1e-5));
    std::vector<float> moved(before.weights.size());
    for (int64_t row = 0; row < d.batch * d.num_heads * d.len_q; ++row) {
      for (int j = 0; j < len_k; ++j) moved[row * len_k + j] = before.weights[row * len_k + perm[j]];
    }
    EXPECT_TRUE(all_close(after.weights, moved, 1e-7, 1e-6));
  }
}

// Integer q and k with scale 1/8 make every score and every score + constant exact in float32, so the
// softmax input minus its row max is bit-for-bit the same: the results must be identical. Constants of
// ±1000 would overflow exp() in a softmax that did not subtract the row max.
TEST(SdpaPropertyTest, AddingAConstantToEveryScoreOfARowChangesNothing) {
  std::mt19937 rng(127);
  for (Causal causal : {Causal::kNone, Causal::kBottomRight}) {
    for (int32_t len_k : {1, 3, 4, 5, 9, 16, 17}) {
      SdpaCase c;
      c.dims = {2, 2, 2, 7, len_k, 4, 3};
      c.q = random_integers(rng, product({2, 2, 7, 4}), -4, 4);
      c.k = random_integers(rng, product({2, 2, len_k, 4}), -4, 4);
      c.v = random_values(rng, product({2, 2, len_k, 3}));
      c.has_scale = true;
      c.scale = 0.125f;
      c.causal = causal;

      SdpaCase shifted = c;
      shifted.mask_kind = MaskKind::kAdditive;
      shifted.mask_dims = {1, 2, 7, 1};
      const float kConstants[] = {-1000.0f, -60.0f, -1.0f, 0.5f, 7.0f, 90.0f, 1000.0f};
      for (int64_t row = 0; row < 2 * 7; ++row) shifted.additive_mask.push_back(kConstants[row % 7]);

      for (Impl impl : kBothImpls) {
        SCOPED_TRACE(std::string(impl_name(impl)) + " " + describe(c));
        const SdpaOutputs plain = run_sdpa(impl, c);
        const SdpaOutputs moved = run_sdpa(impl, shifted);
        EXPECT_TRUE(all_close(moved.weights, plain.weights, 0, 1e-6));
        EXPECT_TRUE(all_close(moved.output, plain.output, 1e-7, 1e-6));
      }
    }
  }
}

// Integer q, k in [-100, 100] with d_k 1..4 and scale 1: exact scores spread over ±4e4.
TEST(SdpaPropertyTest, ScoresAroundTenThousandStayFiniteAndMatchTheReference) {
  std::mt19937 rng(131);
  for (int32_t d_k = 1; d_k <= 4; ++d_k) {
    for (int32_t len : {3, 4, 9, 17}) {
      SdpaCase c;
      c.dims = {1, 2, 1, len, len, d_k, 3};
      c.q = random_integers(rng, product({2, len, d_k}), -100, 100);
      c.k = random_integers(rng, product({1, len, d_k}), -100, 100);
      c.v = random_values(rng, product({1, len, 3}));
      c.has_scale = true;
      c.scale = 1.0f;
      c.causal = len % 2 ? Causal::kTopLeft : Causal::kNone;
      expect_matches_reference(c);
      const SdpaOutputs out = run_sdpa(Impl::kKernels, c);
      EXPECT_TRUE(std::all_of(out.weights.begin(), out.weights.end(), [](float w) { return std::isfinite(w); }));
      EXPECT_TRUE(std::all_of(out.output.begin(), out.output.end(), [](float x) { return std::isfinite(x); }));
    }
  }
}

// q = [100, 1] against k_j = [±100, j/4]: scores ±1e4 + j/4, so the weights are softmax(j/4) only when the
// row max is subtracted before exp().
TEST(SdpaPropertyTest, NearlyEqualScoresAtPlusAndMinusTenThousandKeepTheirSoftmax) {
  for (float sign : {1.0f, -1.0f}) {
    SdpaCase c;
    const int32_t len_k = 9;
    c.dims = {1, 1, 1, 1, len_k, 2, 1};
    c.q = {100.0f, 1.0f};
    for (int j = 0; j < len_k; ++j) {
      c.k.insert(c.k.end(), {sign * 100.0f, j / 4.0f});
      c.v.push_back(static_cast<float>(j));
    }
    c.has_scale = true;
    c.scale = 1.0f;
    double total = 0;
    for (int j = 0; j < len_k; ++j) total += std::exp(j / 4.0);
    std::vector<float> expected_weights;
    double expected_output = 0;
    for (int j = 0; j < len_k; ++j) {
      expected_weights.push_back(static_cast<float>(std::exp(j / 4.0) / total));
      expected_output += j * std::exp(j / 4.0) / total;
    }
    for (Impl impl : kBothImpls) {
      SCOPED_TRACE(std::string(impl_name(impl)) + (sign > 0 ? " +1e4" : " -1e4"));
      const SdpaOutputs out = run_sdpa(impl, c);
      EXPECT_TRUE(all_close(out.weights, expected_weights, 1e-6, 1e-5));
      EXPECT_TRUE(all_close(out.output, {static_cast<float>(expected_output)}, 1e-6, 1e-5));
    }
  }
}

// Head h of a grouped-query call equals a single-head call on kv head h / (H / H_kv).
TEST(SdpaPropertyTest, EachQueryHeadReadsItsKvGroup) {
  std::mt19937 rng(137);
  for (int32_t num_kv_heads : {1, 2, 4}) {
    const SdpaCase c = random_case(rng, {2, 4, num_kv_heads, 5, 9, 4, 3});
    const SdpaOutputs all = run_sdpa(Impl::kKernels, c);
    const int group = 4 / num_kv_heads;
    for (int b = 0; b < 2; ++b) {
      for (int h = 0; h < 4; ++h) {
        SdpaCase one;
        one.dims = {1, 1, 1, 5, 9, 4, 3};
        const int64_t bh = b * 4 + h, bh_kv = b * num_kv_heads + h / group;
        one.q.assign(c.q.begin() + bh * 5 * 4, c.q.begin() + (bh + 1) * 5 * 4);
        one.k.assign(c.k.begin() + bh_kv * 9 * 4, c.k.begin() + (bh_kv + 1) * 9 * 4);
        one.v.assign(c.v.begin() + bh_kv * 9 * 3, c.v.begin() + (bh_kv + 1) * 9 * 3);
        const SdpaOutputs single = run_sdpa(Impl::kKernels, one);
        const std::vector<float> head_output(all.output.begin() + bh * 5 * 3, all.output.begin() + (bh + 1) * 5 * 3);
        EXPECT_TRUE(all_close(head_output, single.output, 1e-7, 1e-6))
            << "H_kv " << num_kv_heads << " batch " << b << " head " << h;
      }
    }
  }
}

// A batch of 3 equals three calls of batch 1, including a mask that is full along the batch.
TEST(SdpaPropertyTest, BatchedCallEqualsOneCallPerBatch) {
  std::mt19937 rng(139);
  SdpaCase c = random_case(rng, {3, 2, 1, 4, 7, 5, 2});
  set_boolean_mask(c, rng, c.broadcast_dims(0b1011), 0.6f);
  const SdpaOutputs all = run_sdpa(Impl::kKernels, c);
  for (int b = 0; b < 3; ++b) {
    SdpaCase one = c;
    one.dims.batch = 1;
    const int64_t q_size = 2 * 4 * 5, kv_size = 7 * 5, v_size = 7 * 2, mask_size = 4 * 7, out_size = 2 * 4 * 2;
    one.q.assign(c.q.begin() + b * q_size, c.q.begin() + (b + 1) * q_size);
    one.k.assign(c.k.begin() + b * kv_size, c.k.begin() + (b + 1) * kv_size);
    one.v.assign(c.v.begin() + b * v_size, c.v.begin() + (b + 1) * v_size);
    one.mask_dims[0] = 1;
    one.boolean_mask.assign(c.boolean_mask.begin() + b * mask_size, c.boolean_mask.begin() + (b + 1) * mask_size);
    const SdpaOutputs single = run_sdpa(Impl::kKernels, one);
    const std::vector<float> batch_output(all.output.begin() + b * out_size, all.output.begin() + (b + 1) * out_size);
    EXPECT_TRUE(all_close(batch_output, single.output, 1e-7, 1e-6)) << "batch " << b;
  }
}

}  // namespace
}  // namespace attention::test
