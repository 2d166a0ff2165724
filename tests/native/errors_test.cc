// Every AttentionError the core raises, with its code, and a correct call right after each.
#include <algorithm>
#include <cmath>
#include <limits>

#include "test_support.h"

namespace attention::test {
namespace {

SdpaCase small_case() {
  std::mt19937 rng(5);
  return random_case(rng, {2, 4, 2, 3, 5, 4, 2});
}

// The error code of a call with every intermediate requested; a call with only an output buffer (which
// takes another route through the kernels) must give the same.
std::string sdpa_error(const SdpaCase& c) {
  const std::string code = error_code([&] { run_sdpa(Impl::kKernels, c); });
  std::vector<float> output(std::max<int64_t>(c.output_size(), 1));
  AttentionResult only_output;
  only_output.output = output.data();
  const std::string output_only_code = error_code(
      [&] { scaled_dot_product_attention(c.dims, c.q.data(), c.k.data(), c.v.data(), c.options(), only_output); });
  EXPECT_EQ(output_only_code, code) << "output-only call of " << describe(c);
  return code;
}

// Inputs are allocated at the valid size, so a wrong dim never makes the call read past a buffer.
TEST(SdpaErrorTest, ZeroOrNegativeDimensionIsBadDimension) {
  int32_t AttentionDims::*const kFields[] = {
      &AttentionDims::batch, &AttentionDims::num_heads, &AttentionDims::num_kv_heads, &AttentionDims::len_q,
      &AttentionDims::len_k, &AttentionDims::d_k,       &AttentionDims::d_v};
  const char* kNames[] = {"batch", "num_heads", "num_kv_heads", "len_q", "len_k", "d_k", "d_v"};
  for (size_t f = 0; f < std::size(kFields); ++f) {
    for (int32_t bad : {0, -1, -2147483647 - 1}) {
      SdpaCase c = small_case();
      std::vector<float> output(c.output_size());
      c.dims.*kFields[f] = bad;
      AttentionResult result;
      result.output = output.data();
      try {
        scaled_dot_product_attention(c.dims, c.q.data(), c.k.data(), c.v.data(), c.options(), result);
        ADD_FAILURE() << kNames[f] << " = " << bad << " was accepted";
      } catch (const AttentionError& e) {
        EXPECT_EQ(e.code(), "BAD_DIMENSION") << kNames[f] << " = " << bad;
        EXPECT_NE(std::string(e.what()).find(kNames[f]), std::string::npos) << e.what();
      }
    }
  }
  EXPECT_EQ(sdpa_error(small_case()), "");
}

TEST(SdpaErrorTest, KvHeadsThatDoNotDivideHeadsAreRejected) {
  for (auto [num_heads, num_kv_heads] : {std::pair{4, 3}, {2, 4}, {3, 2}, {5, 10}}) {
    SdpaCase c = small_case();
    c.dims.num_heads = num_heads;
    c.dims.num_kv_heads = num_kv_heads;
    EXPECT_EQ(sdpa_error(c), "HEADS_DO_NOT_DIVIDE") << num_heads << " / " << num_kv_heads;
  }
  EXPECT_EQ(sdpa_error(small_case()), "");
}

TEST(SdpaErrorTest, MaskThatDoesNotBroadcastIsRejectedOnEveryAxis) {
  std::mt19937 rng(9);
  for (MaskKind kind : {MaskKind::kBoolean, MaskKind::kAdditive}) {
    for (int axis = 0; axis < 4; ++axis) {
      for (int32_t bad : {0, -1, 2, 3, 6}) {
        SdpaCase c = small_case();
        const int32_t full[4] = {c.dims.batch, c.dims.num_heads, c.dims.len_q, c.dims.len_k};
        if (bad == full[axis]) continue;
        if (kind == MaskKind::kBoolean) set_boolean_mask(c, rng, c.broadcast_dims(0b1111), 0.5f);
        if (kind == MaskKind::kAdditive) set_additive_mask(c, rng, c.broadcast_dims(0b1111), 0.2f);
        c.mask_dims[axis] = bad;
        EXPECT_EQ(sdpa_error(c), "MASK_DOES_NOT_BROADCAST") << "axis " << axis << " size " << bad;
      }
    }
  }
  SdpaCase ok = small_case();
  set_boolean_mask(ok, rng, ok.broadcast_dims(0b0101), 0.5f);
  EXPECT_EQ(sdpa_error(ok), "");
}

TEST(SdpaErrorTest, NullInputsOutputAndMaskDataAreRejected) {
  const SdpaCase c = small_case();
  std::vector<float> output(c.output_size());
  AttentionResult result;
  result.output = output.data();
  const AttentionOptions options = c.options();
  auto call = [&](const float* q, const float* k, const float* v, const AttentionOptions& o, const AttentionResult& r) {
    return error_code([&] { scaled_dot_product_attention(c.dims, q, k, v, o, r); });
  };
  EXPECT_EQ(call(nullptr, c.k.data(), c.v.data(), options, result), "NULL_ARGUMENT");
  EXPECT_EQ(call(c.q.data(), nullptr, c.v.data(), options, result), "NULL_ARGUMENT");
  EXPECT_EQ(call(c.q.data(), c.k.data(), nullptr, options, result), "NULL_ARGUMENT");
  EXPECT_EQ(call(c.q.data(), c.k.data(), c.v.data(), options, AttentionResult{}), "NULL_ARGUMENT");
  for (MaskKind kind : {MaskKind::kBoolean, MaskKind::kAdditive}) {
    AttentionOptions no_data = options;
    no_data.mask.kind = kind;
    EXPECT_EQ(call(c.q.data(), c.k.data(), c.v.data(), no_data, result), "NULL_ARGUMENT");
  }
  EXPECT_EQ(call(c.q.data(), c.k.data(), c.v.data(), options, result), "");
}

SdpaCase overflow_case(float q_value, float k_value) {
  SdpaCase c;
  c.dims = {1, 1, 1, 2, 3, 2, 1};
  c.q.assign(4, q_value);
  c.k.assign(6, k_value);
  c.v = {1, 2, 3};
  c.has_scale = true;
  c.scale = 1.0f;
  return c;
}

TEST(SdpaErrorTest, ScoresBeyondFloat32RangeAreScoreOverflow) {
  EXPECT_EQ(sdpa_error(overflow_case(1e20f, 1e20f)), "SCORE_OVERFLOW") << "+inf";
  EXPECT_EQ(sdpa_error(overflow_case(1e20f, -1e20f)), "SCORE_OVERFLOW") << "-inf in every key";

  // q·k = 2e40 times scale 0 is a finite 0 (numerics_test.cc); only the unscaled rawScores overflow.
  SdpaCase nan_scores = overflow_case(1e20f, 1e20f);
  nan_scores.scale = 0.0f;
  EXPECT_EQ(error_code([&] { run_sdpa(Impl::kKernels, nan_scores); }), "SCORE_OVERFLOW") << "raw q·k = 2e40";

  SdpaCase big_scale = overflow_case(1e15f, 1e15f);
  big_scale.scale = 1e10f;
  EXPECT_EQ(sdpa_error(big_scale), "SCORE_OVERFLOW") << "finite q·k times a large scale";

  SdpaCase one_key = overflow_case(1e18f, 1.0f);
  one_key.k[2] = 1e21f;
  EXPECT_EQ(sdpa_error(one_key), "SCORE_OVERFLOW") << "one key overflows";

  SdpaCase pushed_by_mask = overflow_case(1e19f, 1e19f);
  pushed_by_mask.mask_kind = MaskKind::kAdditive;
  pushed_by_mask.mask_dims = {1, 1, 1, 1};
  pushed_by_mask.additive_mask = {3e38f};
  EXPECT_EQ(sdpa_error(pushed_by_mask), "SCORE_OVERFLOW") << "scores + additive mask";

  for (float small_scale : {0.0f, 1e-30f}) {
    for (bool causal : {false, true}) {
      SdpaCase masked_key = overflow_case(1e18f, 1.0f);
      masked_key.k[2 * 2] = 1e21f;
      masked_key.scale = small_scale;
      if (causal) {
        masked_key.causal = Causal::kTopLeft;
      } else {
        masked_key.mask_kind = MaskKind::kBoolean;
        masked_key.mask_dims = {1, 1, 1, 3};
        masked_key.boolean_mask = {1, 1, 0};
      }
      EXPECT_EQ(error_code([&] { run_sdpa(Impl::kKernels, masked_key); }), "SCORE_OVERFLOW")
          << "the raw q·k = 1e39 requested as a step overflows, at key 2, masked "
          << (causal ? "causally" : "by the boolean mask");
    }
  }

  EXPECT_EQ(sdpa_error(overflow_case(1e18f, 1e18f)), "") << "3.4e38 > 2e36 still fits";
  EXPECT_EQ(sdpa_error(overflow_case(1e18f, -1e18f)), "");
}

TEST(SdpaErrorTest, AttentionErrorIsAnInvalidArgumentWithAMessage) {
  SdpaCase c = small_case();
  c.dims.d_k = 0;
  try {
    run_sdpa(Impl::kKernels, c);
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("d_k must be a positive integer, got 0"), std::string::npos) << e.what();
  }
}

struct MhaBuffers {
  ProjectionDims dims{1, 3, 4, 6, 5, 2, 1, 3, 2, 7};
  std::vector<float> x, context, w_q, w_k, w_v, w_o, output;

  MhaBuffers() {
    std::mt19937 rng(3);
    x = random_values(rng, 64);
    context = random_values(rng, 64);
    w_q = random_values(rng, 64);
    w_k = random_values(rng, 64);
    w_v = random_values(rng, 64);
    w_o = random_values(rng, 64);
    output.resize(64);
  }

  std::string call(const ProjectionDims& d, bool self = false) {
    ProjectionWeights w;
    w.w_q = w_q.data();
    w.w_k = w_k.data();
    w.w_v = w_v.data();
    w.w_o = w_o.data();
    return call(d, w, x.data(), self ? nullptr : context.data(), output.data());
  }

  std::string call(const ProjectionDims& d, const ProjectionWeights& w, const float* x_in, const float* context_in,
                   float* out) {
    MultiHeadResult r;
    r.output = out;
    return error_code([&] { multi_head_attention(d, x_in, context_in, w, AttentionOptions{}, r); });
  }
};

TEST(MultiHeadErrorTest, BadProjectionDimensionsAreRejected) {
  MhaBuffers m;
  EXPECT_EQ(m.call(m.dims), "");
  for (int32_t ProjectionDims::*field :
       {&ProjectionDims::batch, &ProjectionDims::len_q, &ProjectionDims::len_k, &ProjectionDims::d_model,
        &ProjectionDims::d_context, &ProjectionDims::num_heads, &ProjectionDims::num_kv_heads, &ProjectionDims::d_k,
        &ProjectionDims::d_v}) {
    for (int32_t bad : {0, -3}) {
      ProjectionDims d = m.dims;
      d.*field = bad;
      EXPECT_EQ(m.call(d), "BAD_DIMENSION") << "a field set to " << bad;
    }
  }
  ProjectionDims negative_out = m.dims;
  negative_out.d_out = -1;
  EXPECT_EQ(m.call(negative_out), "BAD_DIMENSION");
  ProjectionDims no_divide = m.dims;
  no_divide.num_kv_heads = 3;
  EXPECT_EQ(m.call(no_divide), "HEADS_DO_NOT_DIVIDE");
  EXPECT_EQ(m.call(m.dims), "");
}

TEST(MultiHeadErrorTest, SelfAttentionNeedsMatchingLengthsAndWidths) {
  MhaBuffers m;
  EXPECT_EQ(m.call(m.dims, true), "SHAPE_MISMATCH") << "len_k 4 != len_q 3";
  ProjectionDims widths = m.dims;
  widths.len_k = widths.len_q;
  EXPECT_EQ(m.call(widths, true), "SHAPE_MISMATCH") << "d_context 5 != d_model 6";
  widths.d_context = widths.d_model;
  EXPECT_EQ(m.call(widths, true), "");
}

TEST(MultiHeadErrorTest, NullInputsWeightsAndOutputAreRejected) {
  MhaBuffers m;
  ProjectionWeights w;
  w.w_q = m.w_q.data();
  w.w_k = m.w_k.data();
  w.w_v = m.w_v.data();
  w.w_o = m.w_o.data();
  for (const float* ProjectionWeights::*field :
       {&ProjectionWeights::w_q, &ProjectionWeights::w_k, &ProjectionWeights::w_v, &ProjectionWeights::w_o}) {
    ProjectionWeights missing = w;
    missing.*field = nullptr;
    EXPECT_EQ(m.call(m.dims, missing, m.x.data(), m.context.data(), m.output.data()), "NULL_ARGUMENT");
  }
  ProjectionDims no_projection = m.dims;
  no_projection.d_out = 0;
  ProjectionWeights no_w_o = w;
  no_w_o.w_o = nullptr;
  EXPECT_EQ(m.call(no_projection, no_w_o, m.x.data(), m.context.data(), m.output.data()), "")
      << "w_o is optional without d_out";
  EXPECT_EQ(m.call(m.dims, w, nullptr, m.context.data(), m.output.data()), "NULL_ARGUMENT");
  EXPECT_EQ(m.call(m.dims, w, m.x.data(), m.context.data(), nullptr), "NULL_ARGUMENT");
  EXPECT_EQ(m.call(m.dims, w, m.x.data(), m.context.data(), m.output.data()), "");
}

TEST(MultiHeadErrorTest, ProjectedScoresBeyondFloat32RangeAreScoreOverflow) {
  MhaBuffers m;
  std::fill(m.x.begin(), m.x.end(), 1e20f);
  std::fill(m.context.begin(), m.context.end(), 1e20f);
  EXPECT_EQ(m.call(m.dims), "SCORE_OVERFLOW");
}

TEST(MultiHeadErrorTest, ProjectionsBeyondFloat32RangeAreProjectionOverflow) {
  // Finite inputs whose projections overflow: x·W_q, x·W_k, x·W_v in turn, then concat·W_o.
  for (std::vector<float> MhaBuffers::*weight : {&MhaBuffers::w_q, &MhaBuffers::w_k, &MhaBuffers::w_v}) {
    MhaBuffers m;
    std::fill(m.x.begin(), m.x.end(), 1e20f);
    std::fill(m.context.begin(), m.context.end(), 1e20f);
    std::fill((m.*weight).begin(), (m.*weight).end(), 1e20f);
    EXPECT_EQ(m.call(m.dims), "PROJECTION_OVERFLOW");
  }
  MhaBuffers m;
  std::fill(m.w_o.begin(), m.w_o.end(), 3e38f);
  std::fill(m.w_v.begin(), m.w_v.end(), 10.0f);
  std::fill(m.context.begin(), m.context.end(), 1.0f);
  EXPECT_EQ(m.call(m.dims), "PROJECTION_OVERFLOW") << "concat·W_o";
  EXPECT_EQ(MhaBuffers().call(MhaBuffers().dims), "");
}

TEST(SdpaErrorTest, OptionsOutOfRangeAreBadOption) {
  SdpaCase c = small_case();
  std::vector<float> output(c.output_size());
  AttentionResult result;
  result.output = output.data();
  auto code = [&](AttentionOptions o) {
    return error_code([&] { scaled_dot_product_attention(c.dims, c.q.data(), c.k.data(), c.v.data(), o, result); });
  };
  AttentionOptions causal;
  causal.causal = static_cast<Causal>(3);
  EXPECT_EQ(code(causal), "BAD_OPTION");
  AttentionOptions mask;
  const float zeros[1] = {0};
  mask.mask.kind = static_cast<MaskKind>(3);
  mask.mask.data = zeros;
  EXPECT_EQ(code(mask), "BAD_OPTION");
  AttentionOptions scale;
  scale.has_scale = true;
  scale.scale = std::nanf("");
  EXPECT_EQ(code(scale), "BAD_OPTION");
  scale.scale = std::numeric_limits<float>::infinity();
  EXPECT_EQ(code(scale), "BAD_OPTION");
  scale.scale = 0;
  EXPECT_EQ(code(scale), "");
}

TEST(MultiHeadErrorTest, MaskThatDoesNotBroadcastIsRejected) {
  MhaBuffers m;
  const uint8_t open[64] = {1};
  AttentionOptions o;
  o.mask.kind = MaskKind::kBoolean;
  o.mask.data = open;
  o.mask.dims[3] = 5;
  ProjectionWeights w;
  w.w_q = m.w_q.data();
  w.w_k = m.w_k.data();
  w.w_v = m.w_v.data();
  w.w_o = m.w_o.data();
  MultiHeadResult r;
  r.output = m.output.data();
  EXPECT_EQ(error_code([&] { multi_head_attention(m.dims, m.x.data(), m.context.data(), w, o, r); }),
            "MASK_DOES_NOT_BROADCAST");
  o.mask.dims[3] = 4;
  EXPECT_EQ(error_code([&] { multi_head_attention(m.dims, m.x.data(), m.context.data(), w, o, r); }), "");
}

}  // namespace
}  // namespace attention::test
