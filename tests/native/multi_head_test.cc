// multi_head_attention: the core (gemm.h's projections, SIMD attention kernels) against the reference at every
// stage, and its structure (heads as column blocks, self-attention as context = x, W_q and W_k shared).
#include <algorithm>
#include <cstring>

#include "test_support.h"

namespace attention::test {
namespace {

struct MhaConfig {
  const char* name;
  ProjectionDims dims;
  bool cross = false;  // a separate context input; otherwise self-attention (context = null)
  bool biases = false;
  bool shared_qk = false;  // w_k is the same pointer as w_q
  Causal causal = Causal::kNone;
  MaskKind mask = MaskKind::kNone;
};

// A table: one case a line, its columns aligned under the header.
// clang-format off
//                                                    B  L_q L_k d_mod d_ctx H H_kv d_k d_v d_out
const MhaConfig kConfigs[] = {
    {"SingleHeadSelf",                                {1, 5,  5,  8,  8,  1, 1, 8,  8,  0}},
    {"FourHeadsBiasesAndOutputProjection",            {2, 7,  7,  16, 16, 4, 4, 4,  4,  16}, false, true},
    {"GroupedQueryOneKvHeadCausal",                   {2, 9,  9,  12, 12, 4, 1, 3,  5,  6},  false, true, false, Causal::kTopLeft},
    {"GroupedQueryTwoKvHeadsBooleanMask",             {3, 4,  4,  8,  8,  4, 2, 2,  2,  0},  false, false, false, Causal::kNone, MaskKind::kBoolean},
    {"CrossAttentionOtherWidthAndLength",             {2, 5,  9,  8,  3,  2, 1, 3,  5,  7},  true, true, false, Causal::kNone, MaskKind::kAdditive},
    {"CrossAttentionBottomRightMoreQueriesThanKeys",  {1, 9,  4,  6,  10, 2, 2, 4,  3,  5},  true, false, false, Causal::kBottomRight, MaskKind::kAdditive},
    {"CrossAttentionTopLeftMoreKeysThanQueries",      {1, 3,  17, 5,  5,  3, 1, 7,  2,  4},  true, true, false, Causal::kTopLeft},
    {"SharedQueryKeyWeights",                         {2, 6,  6,  8,  8,  2, 2, 4,  3,  5},  false, true, true},
    {"DkDifferentFromDv",                             {1, 8,  8,  9,  9,  3, 3, 2,  9,  0},  false, true},
    {"SimdEdgeWidths",                                {2, 33, 33, 17, 17, 2, 1, 5,  9,  15}, false, true, false, Causal::kBottomRight, MaskKind::kBoolean},
    {"WideModelSixtyFour",                            {1, 16, 16, 64, 64, 4, 2, 16, 16, 64}, false, true, false, Causal::kTopLeft},
};
// clang-format on

// Everything one multi_head_attention call reads and writes, owned.
struct MhaRun {
  std::vector<float> q, k, v, output, weights, scores, scaled_scores, raw_scores, concat, final_output;
};

struct MhaCase {
  MhaConfig config;
  std::vector<float> x, context, w_q, w_k, w_v, w_o, b_q, b_k, b_v, b_o;
  std::vector<uint8_t> boolean_mask;
  std::vector<float> additive_mask;
  AttentionOptions options;

  explicit MhaCase(const MhaConfig& c, uint32_t seed) : config(c) {
    std::mt19937 rng(seed);
    const ProjectionDims& d = c.dims;
    x = random_values(rng, product({d.batch, d.len_q, d.d_model}));
    if (c.cross) context = random_values(rng, product({d.batch, d.len_k, d.d_context}));
    w_q = random_values(rng, product({d.d_model, d.num_heads, d.d_k}));
    if (!c.shared_qk) w_k = random_values(rng, product({d.d_context, d.num_kv_heads, d.d_k}));
    w_v = random_values(rng, product({d.d_context, d.num_kv_heads, d.d_v}));
    if (d.d_out > 0) w_o = random_values(rng, product({d.num_heads, d.d_v, d.d_out}));
    if (c.biases) {
      b_q = random_values(rng, product({d.num_heads, d.d_k}));
      b_k = random_values(rng, product({d.num_kv_heads, d.d_k}));
      b_v = random_values(rng, product({d.num_kv_heads, d.d_v}));
      b_o = random_values(rng, std::max(d.d_out, 1));
    }
    options.causal = c.causal;
    options.mask.kind = c.mask;
    const int32_t mask_dims[4] = {d.batch, 1, d.len_q, d.len_k};
    std::copy(mask_dims, mask_dims + 4, options.mask.dims);
    const int64_t mask_size = product({d.batch, d.len_q, d.len_k});
    if (c.mask == MaskKind::kBoolean) {
      for (int64_t i = 0; i < mask_size; ++i) boolean_mask.push_back(uniform(rng, 0, 1) < 0.7f);
      std::fill_n(boolean_mask.begin(), d.len_k, 0);
      options.mask.data = boolean_mask.data();
    }
    if (c.mask == MaskKind::kAdditive) {
      for (int64_t i = 0; i < mask_size; ++i)
        additive_mask.push_back(uniform(rng, 0, 1) < 0.2f ? -kInf : uniform(rng, -2, 2));
      options.mask.data = additive_mask.data();
    }
  }

  ProjectionWeights weights() const {
    auto or_null = [](const std::vector<float>& v) { return v.empty() ? nullptr : v.data(); };
    ProjectionWeights w;
    w.w_q = w_q.data();
    w.w_k = config.shared_qk ? w_q.data() : w_k.data();
    w.w_v = w_v.data();
    w.w_o = or_null(w_o);
    w.b_q = or_null(b_q);
    w.b_k = or_null(b_k);
    w.b_v = or_null(b_v);
    w.b_o = config.dims.d_out > 0 ? or_null(b_o) : nullptr;
    return w;
  }

  MhaRun run(Impl impl) const {
    const ProjectionDims& d = config.dims;
    const int64_t H = d.num_heads, H_kv = d.num_kv_heads;
    MhaRun out;
    out.q.assign(product({d.batch, H, d.len_q, d.d_k}), -7.0f);
    out.k.assign(product({d.batch, H_kv, d.len_k, d.d_k}), -7.0f);
    out.v.assign(product({d.batch, H_kv, d.len_k, d.d_v}), -7.0f);
    out.output.assign(product({d.batch, H, d.len_q, d.d_v}), -7.0f);
    for (auto* scores : {&out.weights, &out.scores, &out.scaled_scores, &out.raw_scores}) {
      scores->assign(product({d.batch, H, d.len_q, d.len_k}), -7.0f);
    }
    out.concat.assign(product({d.batch, d.len_q, H, d.d_v}), -7.0f);
    out.final_output.assign(product({d.batch, d.len_q, d.d_out > 0 ? d.d_out : H * d.d_v}), -7.0f);
    MultiHeadResult r;
    r.q = out.q.data();
    r.k = out.k.data();
    r.v = out.v.data();
    r.attention = {out.output.data(), out.weights.data(), out.scores.data(), out.scaled_scores.data(),
                   out.raw_scores.data()};
    r.concat = out.concat.data();
    r.output = out.final_output.data();
    const auto mha =
        impl == Impl::kKernels ? &attention::multi_head_attention : &attention::reference::multi_head_attention;
    mha(d, x.data(), config.cross ? context.data() : nullptr, weights(), options, r);
    return out;
  }
};

class MultiHeadMatchesReference : public ::testing::TestWithParam<MhaConfig> {};

TEST_P(MultiHeadMatchesReference, AtEveryStage) {
  const MhaCase c(GetParam(), 4242);
  const MhaRun kernels = c.run(Impl::kKernels);
  const MhaRun reference = c.run(Impl::kReference);
  EXPECT_TRUE(all_close(kernels.q, reference.q)) << "q";
  EXPECT_TRUE(all_close(kernels.k, reference.k)) << "k";
  EXPECT_TRUE(all_close(kernels.v, reference.v)) << "v";
  EXPECT_TRUE(all_close(kernels.raw_scores, reference.raw_scores)) << "raw_scores";
  EXPECT_TRUE(all_close(kernels.scaled_scores, reference.scaled_scores)) << "scaled_scores";
  EXPECT_TRUE(all_close(kernels.scores, reference.scores)) << "scores";
  EXPECT_TRUE(all_close(kernels.weights, reference.weights)) << "weights";
  EXPECT_TRUE(all_close(kernels.output, reference.output)) << "per-head output";
  EXPECT_TRUE(all_close(kernels.concat, reference.concat)) << "concat";
  EXPECT_TRUE(all_close(kernels.final_output, reference.final_output)) << "output";
}

TEST_P(MultiHeadMatchesReference, ConcatHoldsTheHeadsAsConsecutiveColumnBlocks) {
  const MhaCase c(GetParam(), 77);
  const ProjectionDims& d = c.config.dims;
  for (Impl impl : {Impl::kKernels, Impl::kReference}) {
    const MhaRun run = c.run(impl);
    int64_t wrong = 0;
    for (int b = 0; b < d.batch; ++b)
      for (int h = 0; h < d.num_heads; ++h)
        for (int l = 0; l < d.len_q; ++l)
          for (int col = 0; col < d.d_v; ++col) {
            const float head = run.output[((int64_t{b} * d.num_heads + h) * d.len_q + l) * d.d_v + col];
            const float cat = run.concat[(int64_t{b} * d.len_q + l) * d.num_heads * d.d_v + h * d.d_v + col];
            wrong += head != cat;
          }
    EXPECT_EQ(wrong, 0) << impl_name(impl);
    if (d.d_out == 0) EXPECT_EQ(run.final_output, run.concat) << impl_name(impl) << ": no W_o means output = concat";
  }
}

INSTANTIATE_TEST_SUITE_P(Configs, MultiHeadMatchesReference, ::testing::ValuesIn(kConfigs),
                         [](const ::testing::TestParamInfo<MhaConfig>& info) { return std::string(info.param.name); });

// X = I₂, W_q = W_k = I₂, W_v = [[1, 2], [3, 4]]: scores = I/√2, so output row 0 = 0.6698·[1, 2] + 0.3302·[3, 4].
TEST(MultiHeadTest, HandWorkedIdentityExample) {
  const float identity[4] = {1, 0, 0, 1};
  const float w_v[4] = {1, 2, 3, 4};
  ProjectionDims d;
  d.len_q = d.len_k = 2;
  d.d_model = d.d_context = d.d_k = d.d_v = 2;
  ProjectionWeights w;
  w.w_q = w.w_k = identity;
  w.w_v = w_v;
  const std::vector<float> expected = {1.6604769f, 2.6604769f, 2.3395231f, 3.3395231f};
  for (Impl impl : {Impl::kKernels, Impl::kReference}) {
    std::vector<float> output(4);
    MultiHeadResult r;
    r.output = output.data();
    const auto mha =
        impl == Impl::kKernels ? &attention::multi_head_attention : &attention::reference::multi_head_attention;
    mha(d, identity, nullptr, w, AttentionOptions{}, r);
    EXPECT_TRUE(all_close(output, expected, 1e-6, 1e-6)) << impl_name(impl);
  }
}

TEST(MultiHeadTest, NullContextEqualsPassingXAsContext) {
  const MhaCase self(kConfigs[2], 5);
  const MhaRun with_null = self.run(Impl::kKernels);
  MhaCase explicit_context = self;
  explicit_context.config.cross = true;
  explicit_context.context = explicit_context.x;
  const MhaRun with_x = explicit_context.run(Impl::kKernels);
  EXPECT_EQ(with_null.final_output, with_x.final_output);
  EXPECT_EQ(with_null.weights, with_x.weights);
}

// With W_q = W_k and no biases, raw scores are X·W·Wᵀ·Xᵀ: symmetric.
TEST(MultiHeadTest, SharedQueryKeyWeightsGiveSymmetricRawScores) {
  MhaConfig config = kConfigs[7];
  config.biases = false;
  const MhaCase c(config, 9);
  const ProjectionDims& d = config.dims;
  const MhaRun run = c.run(Impl::kKernels);
  EXPECT_EQ(run.q, run.k);
  for (int64_t bh = 0; bh < d.batch * d.num_heads; ++bh) {
    for (int i = 0; i < d.len_q; ++i) {
      for (int j = 0; j < i; ++j) {
        const float* raw = &run.raw_scores[bh * d.len_q * d.len_k];
        EXPECT_NEAR(raw[i * d.len_k + j], raw[j * d.len_k + i], 1e-6) << "head " << bh << " (" << i << ", " << j << ")";
      }
    }
  }
}

// The heads of one call equal one-head calls on the matching column blocks of W_q, W_k and W_v.
TEST(MultiHeadTest, EachHeadUsesItsColumnBlockOfTheProjections) {
  const MhaConfig config = kConfigs[2];
  const MhaCase c(config, 13);
  const ProjectionDims& d = config.dims;
  const MhaRun all = c.run(Impl::kKernels);
  const int group = d.num_heads / d.num_kv_heads;
  for (int h = 0; h < d.num_heads; ++h) {
    const int kv = h / group;
    auto columns = [](const std::vector<float>& w, int rows, int width, int from, int count) {
      std::vector<float> block;
      for (int r = 0; r < rows; ++r) block.insert(block.end(), &w[r * width + from], &w[r * width + from + count]);
      return block;
    };
    const std::vector<float> w_q = columns(c.w_q, d.d_model, d.num_heads * d.d_k, h * d.d_k, d.d_k);
    const std::vector<float> w_k = columns(c.w_k, d.d_context, d.num_kv_heads * d.d_k, kv * d.d_k, d.d_k);
    const std::vector<float> w_v = columns(c.w_v, d.d_context, d.num_kv_heads * d.d_v, kv * d.d_v, d.d_v);
    ProjectionDims one = d;
    one.num_heads = one.num_kv_heads = 1;
    one.d_out = 0;
    ProjectionWeights w;
    w.w_q = w_q.data();
    w.w_k = w_k.data();
    w.w_v = w_v.data();
    w.b_q = c.b_q.data() + h * d.d_k;
    w.b_k = c.b_k.data() + kv * d.d_k;
    w.b_v = c.b_v.data() + kv * d.d_v;
    std::vector<float> output(product({d.batch, d.len_q, d.d_v}));
    MultiHeadResult r;
    r.output = output.data();
    multi_head_attention(one, c.x.data(), nullptr, w, c.options, r);
    for (int b = 0; b < d.batch; ++b) {
      const auto head = all.output.begin() + ((int64_t{b} * d.num_heads + h) * d.len_q) * d.d_v;
      const std::vector<float> from_all(head, head + d.len_q * d.d_v);
      const std::vector<float> from_one(output.begin() + b * d.len_q * d.d_v,
                                        output.begin() + (b + 1) * d.len_q * d.d_v);
      EXPECT_TRUE(all_close(from_all, from_one, 1e-6, 1e-5)) << "head " << h << " batch " << b;
    }
  }
}

TEST(MultiHeadTest, OnlyTheFinalOutputMayBeRequested) {
  const MhaCase c(kConfigs[4], 21);
  const MhaRun full = c.run(Impl::kKernels);
  const ProjectionDims& d = c.config.dims;
  std::vector<float> output(product({d.batch, d.len_q, d.d_out}));
  MultiHeadResult r;
  r.output = output.data();
  multi_head_attention(d, c.x.data(), c.context.data(), c.weights(), c.options, r);
  EXPECT_TRUE(all_close(output, full.final_output, 1e-6, 1e-6));
}

// The workers of the JS layer share the output projection's rows out at multiples of kOutputProjectionRows and
// promise the same bits as one thread; and one call equals the projection inside multi_head_attention.
TEST(OutputProjectionTest, RowSplitsAtBlockMultiplesGiveTheSameBits) {
  std::mt19937 rng(29);
  const int64_t rows = 3 * kOutputProjectionRows + 7, width = 96, d_out = 13;
  const std::vector<float> concat = random_values(rng, rows * width, -10.0f, 10.0f);
  const std::vector<float> w_o = random_values(rng, width * d_out), b_o = random_values(rng, d_out);
  std::vector<float> whole(rows * d_out);
  output_projection(concat.data(), rows, width, w_o.data(), b_o.data(), d_out, whole.data());
  for (int64_t split_blocks : {1, 2, 3}) {
    const int64_t split = split_blocks * kOutputProjectionRows;
    std::vector<float> parts(rows * d_out);
    output_projection(concat.data(), split, width, w_o.data(), b_o.data(), d_out, parts.data());
    output_projection(concat.data() + split * width, rows - split, width, w_o.data(), b_o.data(), d_out,
                      parts.data() + split * d_out);
    EXPECT_EQ(std::memcmp(parts.data(), whole.data(), whole.size() * sizeof(float)), 0) << "split at " << split;
  }
  // against a plain loop in double
  double worst = 0;
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < d_out; ++c) {
      double sum = b_o[c];
      for (int64_t j = 0; j < width; ++j) sum += double(concat[r * width + j]) * w_o[j * d_out + c];
      worst = std::max(worst, std::abs(sum - whole[r * d_out + c]) / (1 + std::abs(sum)));
    }
  }
  EXPECT_LT(worst, 1e-5);
}

// output_projection is gemm.h's product: each value one float32 chain over concat's columns in order, then + b_o,
// so a plain float32 loop gives its bits, and so does any split of the rows (not only at kOutputProjectionRows).
// The shape crosses gemm's blocks: width past its 256-deep panels, d_out past whole 16-column panels, rows past
// its 128-row blocks.
TEST(OutputProjectionTest, IsAFloat32ChainInOrderWhateverTheRowSplit) {
  std::mt19937 rng(31);
  const int64_t rows = 2 * 128 + 37, width = 300, d_out = 37;
  const std::vector<float> concat = random_values(rng, rows * width, -3.0f, 3.0f);
  const std::vector<float> w_o = random_values(rng, width * d_out), b_o = random_values(rng, d_out);
  std::vector<float> chain(rows * d_out), loop(rows * d_out);  // without and with the bias
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < d_out; ++c) {
      float sum = 0.0f;
      for (int64_t j = 0; j < width; ++j) sum += concat[r * width + j] * w_o[j * d_out + c];
      chain[r * d_out + c] = sum;
      loop[r * d_out + c] = sum + b_o[c];
    }
  }
  std::vector<float> whole(rows * d_out);
  output_projection(concat.data(), rows, width, w_o.data(), b_o.data(), d_out, whole.data());
  EXPECT_EQ(std::memcmp(whole.data(), loop.data(), loop.size() * sizeof(float)), 0);
  for (const int64_t split : std::initializer_list<int64_t>{1, 2, 63, 129, 200, rows - 1}) {
    std::vector<float> parts(rows * d_out);
    output_projection(concat.data(), split, width, w_o.data(), b_o.data(), d_out, parts.data());
    output_projection(concat.data() + split * width, rows - split, width, w_o.data(), b_o.data(), d_out,
                      parts.data() + split * d_out);
    EXPECT_EQ(std::memcmp(parts.data(), loop.data(), loop.size() * sizeof(float)), 0) << "split at " << split;
  }
  output_projection(concat.data(), rows, width, w_o.data(), nullptr, d_out, whole.data());  // no bias: the chain
  EXPECT_EQ(std::memcmp(whole.data(), chain.data(), chain.size() * sizeof(float)), 0);
}

TEST(OutputProjectionTest, IsTheLastStepOfMultiHeadAttention) {
  const MhaCase c(kConfigs[9], 23);  // SimdEdgeWidths: d_out 15, a batch of 2
  const MhaRun run = c.run(Impl::kKernels);
  const ProjectionDims& d = c.config.dims;
  std::vector<float> output(product({d.batch, d.len_q, d.d_out}));
  output_projection(run.concat.data(), d.batch * d.len_q, d.num_heads * d.d_v, c.w_o.data(), c.b_o.data(), d.d_out,
                    output.data());
  EXPECT_EQ(std::memcmp(output.data(), run.final_output.data(), output.size() * sizeof(float)), 0);
}

TEST(OutputProjectionTest, OverflowIsProjectionOverflow) {
  const std::vector<float> concat(4 * 8, 1e30f), w_o(8 * 2, 1e30f);
  std::vector<float> output(4 * 2);
  EXPECT_EQ(error_code([&] { output_projection(concat.data(), 4, 8, w_o.data(), nullptr, 2, output.data()); }),
            "PROJECTION_OVERFLOW");
}

}  // namespace
}  // namespace attention::test
