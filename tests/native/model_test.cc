// The model forward's pieces (src/core/model) against plain loops in double, and one layer's structure: the same
// weights given fused (GPT-2's c_attn), apart, or transposed ([out, in]) give the same layer; sizes at the SIMD
// edges; run under ASan and UBSan by scripts/test-native.sh. The families' full forwards are checked against a
// float64 reference of the Hugging Face code through the public API (tests/js/model).
#include <array>
#include <cmath>

#include "model/decode.h"
#include "model/forward.h"
#include "model/linear.h"
#include "model/mlp.h"
#include "model/norms.h"
#include "model_layers.h"
#include "test_support.h"

namespace attention::test {
namespace {

using model::Matrix;

std::vector<float> transposed(const std::vector<float>& m, int64_t rows, int64_t cols) {
  std::vector<float> t(m.size());
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < cols; ++c) t[c * rows + r] = m[r * cols + c];
  }
  return t;
}

TEST(ModelPieces, NormsMatchTheirFormulasInDouble) {
  std::mt19937 rng(3);
  for (const int32_t d : kEdgeSizes) {
    const int64_t rows = 3;
    const std::vector<float> x = random_values(rng, rows * d, -3, 3), w = random_values(rng, d),
                             b = random_values(rng, d);
    for (const NormKind kind : {NormKind::kLayerNorm, NormKind::kRmsNorm}) {
      std::vector<float> out(rows * d), expected(rows * d);
      model::norm(kind, x.data(), rows, d, w.data(), kind == NormKind::kLayerNorm ? b.data() : nullptr, 1e-5f,
                  out.data());
      for (int64_t r = 0; r < rows; ++r) {
        double mean = 0, square = 0;
        for (int32_t c = 0; c < d; ++c) mean += kind == NormKind::kLayerNorm ? x[r * d + c] / double(d) : 0;
        for (int32_t c = 0; c < d; ++c) square += (x[r * d + c] - mean) * (x[r * d + c] - mean) / d;
        for (int32_t c = 0; c < d; ++c) {
          const double bias = kind == NormKind::kLayerNorm ? b[c] : 0;
          expected[r * d + c] = static_cast<float>((x[r * d + c] - mean) / std::sqrt(square + 1e-5) * w[c] + bias);
        }
      }
      EXPECT_TRUE(all_close(out, expected, 1e-6, 1e-6)) << "d " << d;
    }
  }
}

TEST(ModelPieces, ActivationsMatchTheirFormulas) {
  std::vector<float> x;
  for (float v = -8; v <= 8; v += 0.25f) x.push_back(v);
  const auto expected = [&](double (*f)(double)) {
    std::vector<float> out;
    for (float v : x) out.push_back(static_cast<float>(f(v)));
    return out;
  };
  std::vector<float> tanh_gelu = x, erf_gelu = x, silu = x;
  model::activate(Activation::kGeluTanh, tanh_gelu.data(), tanh_gelu.size());
  model::activate(Activation::kGeluErf, erf_gelu.data(), erf_gelu.size());
  model::activate(Activation::kSiluGated, silu.data(), silu.size());
  EXPECT_TRUE(all_close(tanh_gelu, expected([](double v) {
                          return 0.5 * v * (1 + std::tanh(std::sqrt(2 / M_PI) * (v + 0.044715 * v * v * v)));
                        }),
                        1e-6, 1e-6));
  EXPECT_TRUE(
      all_close(erf_gelu, expected([](double v) { return 0.5 * v * (1 + std::erf(v / std::sqrt(2.0))); }), 1e-6, 1e-6));
  EXPECT_TRUE(all_close(silu, expected([](double v) { return v / (1 + std::exp(-v)); }), 1e-6, 1e-6));
}

// GELU (tanh) and SiLU run four lanes at a time (mlp.cc's x · sigmoid(z)), the last n % 4 by the scalar formula:
// both within float32 rounding of the float64 formula over a wide range, ±inf and NaN as the formula gives them.
TEST(ModelPieces, VectorActivationsMatchFloat64OverAWideRange) {
  std::vector<float> x;
  for (double v = -60; v <= 60; v += 0.0137) x.push_back(static_cast<float>(v));
  x.insert(x.end(), {1e20f, -1e20f, INFINITY, -0.0f, 0.0f, NAN, 3.0f});  // odd length: a scalar tail
  const double c = std::sqrt(2 / M_PI);
  const auto gelu = [c](double v) { return 0.5 * v * (1 + std::tanh(c * (v + 0.044715 * v * v * v))); };
  const auto silu = [](double v) { return v / (1 + std::exp(-v)); };
  for (const auto act : {Activation::kGeluTanh, Activation::kSiluGated}) {
    std::vector<float> y = x;
    model::activate(act, y.data(), y.size());
    for (size_t i = 0; i < x.size(); ++i) {
      if (std::isnan(x[i])) {
        EXPECT_TRUE(std::isnan(y[i]));
        continue;
      }
      const double want = act == Activation::kGeluTanh ? gelu(x[i]) : silu(x[i]);
      if (std::isinf(want) || std::fabs(x[i]) > 1e19f) {
        EXPECT_EQ(y[i], static_cast<float>(want)) << "x = " << x[i];
        continue;
      }
      EXPECT_NEAR(y[i], want, 1e-6 + 2e-6 * std::fabs(want)) << "x = " << x[i];
    }
  }
}

TEST(ModelPieces, LinearTakesBothLayoutsAndBlocksOfAFusedMatrix) {
  std::mt19937 rng(4);
  const int64_t rows = 5, in = 9, out = 7;
  const std::vector<float> x = random_values(rng, rows * in), w = random_values(rng, in * 3 * out);  // [in, 3·out]
  const std::vector<float> b = random_values(rng, 3 * out);
  const Matrix fused = model::matrix(w.data(), in, 3 * out, WeightLayout::kInOut);
  std::vector<float> block(rows * out), expected(rows * out), apart(in * out), y(rows * out);
  model::linear(x.data(), rows, model::columns(fused, out, out), b.data() + out, block.data());  // the middle third
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t o = 0; o < out; ++o) {
      double sum = b[out + o];
      for (int64_t i = 0; i < in; ++i) sum += double(x[r * in + i]) * w[i * 3 * out + out + o];
      expected[r * out + o] = static_cast<float>(sum);
    }
  }
  EXPECT_TRUE(all_close(block, expected, 1e-6, 1e-6));
  for (int64_t i = 0; i < in; ++i) std::copy_n(w.data() + i * 3 * out + out, out, apart.data() + i * out);
  const std::vector<float> out_in = transposed(apart, in, out);  // [out, in]
  model::linear(x.data(), rows, model::matrix(out_in.data(), in, out, WeightLayout::kOutIn), b.data() + out, y.data());
  EXPECT_TRUE(all_close(y, expected, 1e-6, 1e-6));
}

// linear's few-rows kernels (a forward's tokens): panels of 16 columns with a remainder, weight blocks of 256 and 1024
// input rows with a remainder, row pairs and a last single row, both layouts and a block of a fused matrix; and past
// kFewRows rows, Eigen's GEMM. Each against sums in double.
TEST(ModelPieces, LinearOfFewAndManyRowsMatchesDoubleSumsInEveryBlockAndRemainder) {
  std::mt19937 rng(6);
  for (const auto [rows, in, out] :
       {std::array<int64_t, 3>{5, 300, 37}, {2, 1100, 21}, {1, 17, 16}, {33, 70, 50}, {97, 40, 19}}) {
    const std::vector<float> x = random_values(rng, rows * in), w = random_values(rng, in * 2 * out);  // [in, 2·out]
    const std::vector<float> b = random_values(rng, out);
    std::vector<float> expected(rows * out), apart(in * out), y(rows * out);
    for (int64_t i = 0; i < in; ++i) std::copy_n(w.data() + i * 2 * out + out, out, apart.data() + i * out);
    for (int64_t r = 0; r < rows; ++r) {
      for (int64_t o = 0; o < out; ++o) {
        double sum = b[o];
        for (int64_t i = 0; i < in; ++i) sum += double(x[r * in + i]) * apart[i * out + o];
        expected[r * out + o] = static_cast<float>(sum);
      }
    }
    const Matrix fused = model::matrix(w.data(), in, 2 * out, WeightLayout::kInOut);
    model::linear(x.data(), rows, model::columns(fused, out, out), b.data(), y.data());  // the second half
    EXPECT_TRUE(all_close(y, expected, 1e-5, 1e-5)) << rows << " × " << in << " × " << out << ", [in, out]";
    const std::vector<float> out_in = transposed(apart, in, out);  // [out, in]
    model::linear(x.data(), rows, model::matrix(out_in.data(), in, out, WeightLayout::kOutIn), b.data(), y.data());
    EXPECT_TRUE(all_close(y, expected, 1e-5, 1e-5)) << rows << " × " << in << " × " << out << ", [out, in]";
  }
}

// One layer from the same weights: fused [in, out] (GPT-2's c_attn), apart, and apart transposed ([out, in]).
TEST(ModelLayer, FusedApartAndTransposedWeightsGiveTheSameLayerWithEveryStep) {
  std::mt19937 rng(5);
  model::ModelConfig c;
  c.len = 7, c.d_model = 12, c.num_heads = 3, c.num_kv_heads = 3, c.d_k = 4, c.d_ff = 17;
  c.causal = true;
  const int64_t n = c.len, d = c.d_model, q = c.num_heads * c.d_k, ff = c.d_ff;
  const std::vector<float> x = random_values(rng, n * d), qkv = random_values(rng, d * 3 * q);
  const std::vector<float> b_qkv = random_values(rng, 3 * q), w_o = random_values(rng, q * d),
                           n1 = random_values(rng, d);
  const std::vector<float> n2 = random_values(rng, d), w_up = random_values(rng, d * ff),
                           w_down = random_values(rng, ff * d);
  std::vector<float> parts[3];
  for (int p = 0; p < 3; ++p) {
    for (int64_t i = 0; i < d; ++i)
      parts[p].insert(parts[p].end(), qkv.begin() + i * 3 * q + p * q, qkv.begin() + i * 3 * q + (p + 1) * q);
  }
  const auto run = [&](const model::LayerWeights& w, const model::ModelConfig& config) {
    std::vector<float> out(n * d), weights(c.num_heads * n * n), hidden(n * ff);
    model::LayerResult r;
    r.output = out.data();
    r.weights = weights.data();
    r.mlp_hidden = hidden.data();
    model::layer(config, w, x.data(), r);
    out.insert(out.end(), weights.begin(), weights.end());
    out.insert(out.end(), hidden.begin(), hidden.end());
    return out;
  };
  model::LayerWeights fused;
  fused.norm1_weight = n1.data(), fused.norm2_weight = n2.data();
  fused.w_qkv = qkv.data(), fused.b_qkv = b_qkv.data(), fused.w_o = w_o.data();
  fused.w_up = w_up.data(), fused.w_down = w_down.data();
  c.layout = WeightLayout::kInOut;
  const std::vector<float> expected = run(fused, c);
  model::LayerWeights apart = fused;
  apart.w_qkv = apart.b_qkv = nullptr;
  apart.w_q = parts[0].data(), apart.w_k = parts[1].data(), apart.w_v = parts[2].data();
  apart.b_q = b_qkv.data(), apart.b_k = b_qkv.data() + q, apart.b_v = b_qkv.data() + 2 * q;
  EXPECT_EQ(run(apart, c), expected);  // the same products, the same bits
  std::vector<float> t[3] = {transposed(parts[0], d, q), transposed(parts[1], d, q), transposed(parts[2], d, q)};
  const std::vector<float> t_o = transposed(w_o, q, d), t_up = transposed(w_up, d, ff),
                           t_down = transposed(w_down, ff, d);
  model::LayerWeights linear = apart;
  linear.w_q = t[0].data(), linear.w_k = t[1].data(), linear.w_v = t[2].data();
  linear.w_o = t_o.data(), linear.w_up = t_up.data(), linear.w_down = t_down.data();
  c.layout = WeightLayout::kOutIn;
  EXPECT_TRUE(all_close(run(linear, c), expected, 1e-5, 1e-5));
}

// GPT-NeoX's query_key_value ([out, in], rows by head: q_h | k_h | v_h) against the same rows given apart, and its
// parallel residual x + attn(ln1(x)) + mlp(ln2(x)) against the two sub-blocks run on x in pre-norm and summed.
TEST(ModelLayer, PerHeadFusedWeightsAndTheParallelResidualGiveTheirFormulas) {
  const LayerCase lc = layer_case("neox", 7);
  const model::ModelConfig& c = lc.c;
  const int64_t n = c.len, d = c.d_model, H = c.num_heads, d_k = c.d_k;
  std::vector<float> apart[3], bias[3];
  for (int64_t h = 0; h < H; ++h) {
    for (int part = 0; part < 3; ++part) {
      const int64_t row = h * 3 * d_k + part * d_k;  // the first of head h's rows of this part
      apart[part].insert(apart[part].end(), lc.w.w_qkv + row * d, lc.w.w_qkv + (row + d_k) * d);
      bias[part].insert(bias[part].end(), lc.w.b_qkv + row, lc.w.b_qkv + row + d_k);
    }
  }
  model::LayerWeights w = lc.w;
  w.w_qkv = w.b_qkv = nullptr;
  w.w_q = apart[0].data(), w.w_k = apart[1].data(), w.w_v = apart[2].data();
  w.b_q = bias[0].data(), w.b_k = bias[1].data(), w.b_v = bias[2].data();
  const auto run = [&](const model::ModelConfig& config, const model::LayerWeights& weights) {
    std::vector<float> out(n * d), q(H * n * d_k), k(H * n * d_k), v(H * n * d_k), residual(n * d);
    model::LayerResult r;
    r.output = out.data(), r.q = q.data(), r.k = k.data(), r.v = v.data(), r.residual = residual.data();
    model::layer(config, weights, lc.x.data(), r);
    for (const auto* part : {&q, &k, &v, &residual}) out.insert(out.end(), part->begin(), part->end());
    return out;
  };
  model::ModelConfig blocks = c;
  blocks.qkv_layout = QkvLayout::kBlocks;
  const std::vector<float> fused = run(c, lc.w);
  EXPECT_TRUE(all_close(run(blocks, w), fused, 1e-6, 1e-6));  // the same q, k, v, residual and output
  // parallel: residual = x + attn(ln1(x)) as pre-norm's; output = residual + (pre-norm's MLP half on x) − x
  model::ModelConfig pre = blocks;
  pre.placement = NormPlacement::kPreNorm;
  std::vector<float> mlp_out(n * d), residual(n * d);
  model::LayerResult r;
  r.output = mlp_out.data(), r.residual = residual.data();
  model::layer_attention(pre, w, lc.x.data(), r);
  model::layer_mlp(pre, w, lc.x.data(), r);  // x + mlp(ln2(x))
  std::vector<float> expected(n * d);
  for (int64_t i = 0; i < n * d; ++i) expected[i] = residual[i] + mlp_out[i] - lc.x[i];
  EXPECT_TRUE(all_close(std::vector<float>(fused.begin(), fused.begin() + n * d), expected, 1e-5, 1e-5));
  // and a parallel MLP half without the layer's input is refused
  EXPECT_THROW(model::layer_mlp(c, w, residual.data(), r), AttentionError);
}

// Qwen3's q_norm and k_norm: each head's q and k rows as the projection gives them (a run without the norms), RMS-
// normalized in double with the norm's weight.
TEST(ModelLayer, QAndKNormsNormalizeEachHeadsRowsBeforeRope) {
  const LayerCase lc = layer_case("llama", 5);
  const model::ModelConfig& c = lc.c;
  const int64_t n = c.len, H = c.num_heads, H_kv = c.num_kv_heads, d_k = c.d_k;
  const auto run = [&](const model::LayerWeights& w) {
    std::vector<float> out(n * c.d_model), q(H * n * d_k), k(H_kv * n * d_k);
    model::LayerResult r;
    r.output = out.data(), r.q = q.data(), r.k = k.data();
    model::layer(c, w, lc.x.data(), r);
    return std::pair{q, k};
  };
  model::LayerWeights plain = lc.w;
  plain.q_norm = plain.k_norm = nullptr;
  const auto [q0, k0] = run(plain);
  const auto [q, k] = run(lc.w);
  const auto expected = [&](const std::vector<float>& x, const float* weight) {
    std::vector<float> out(x.size());
    for (size_t row = 0; row < x.size() / d_k; ++row) {
      double sum = 0;
      for (int64_t j = 0; j < d_k; ++j) sum += double{x[row * d_k + j]} * x[row * d_k + j];
      const double scale = 1 / std::sqrt(sum / d_k + c.eps);
      for (int64_t j = 0; j < d_k; ++j) out[row * d_k + j] = static_cast<float>(x[row * d_k + j] * scale * weight[j]);
    }
    return out;
  };
  EXPECT_TRUE(all_close(q, expected(q0, lc.w.q_norm), 1e-6, 1e-5));
  EXPECT_TRUE(all_close(k, expected(k0, lc.w.k_norm), 1e-6, 1e-5));
  EXPECT_FALSE(all_close(q, q0, 1e-3, 1e-3));  // the norms change q
}

TEST(ModelLayer, RefusesBadSizesAndMissingWeights) {
  model::ModelConfig c;
  c.len = 2, c.d_model = 4, c.num_heads = 3, c.num_kv_heads = 2, c.d_k = 2, c.d_ff = 4;
  const std::vector<float> x(8, 0.5f);
  std::vector<float> out(8);
  model::LayerResult r;
  r.output = out.data();
  const auto code_of = [&](const model::ModelConfig& config) -> std::string {
    try {
      model::layer(config, model::LayerWeights{}, x.data(), r);
    } catch (const AttentionError& e) {
      return e.code();
    }
    return "none";
  };
  EXPECT_EQ(code_of(c), "HEADS_DO_NOT_DIVIDE");
  c.num_kv_heads = 3;
  EXPECT_EQ(code_of(c), "NULL_ARGUMENT");
  c.d_ff = 0;
  EXPECT_EQ(code_of(c), "BAD_DIMENSION");
}

// A KV cache (model/decode.h): a prefill of 4 tokens, then 3 steps of one, give each new row what layer() over the
// whole sequence gives it (output and attention row), with GQA, RoPE at each position and a sliding window; and a
// full cache is refused.
TEST(ModelLayer, ACacheGivesEachNewRowWhatTheWholeSequenceGivesIt) {
  std::mt19937 rng(6);
  model::ModelConfig c;
  c.d_model = 8, c.num_heads = 4, c.num_kv_heads = 2, c.d_k = 2, c.d_ff = 10;
  c.norm = NormKind::kRmsNorm, c.activation = Activation::kSiluGated, c.causal = true, c.sliding_window = 3;
  const int64_t n = 7, d = c.d_model, H = c.num_heads, H_kv = c.num_kv_heads, d_k = c.d_k, ff = c.d_ff;
  const std::vector<float> x = random_values(rng, n * d), w_q = random_values(rng, H * d_k * d),
                           w_k = random_values(rng, H_kv * d_k * d), w_v = random_values(rng, H_kv * d_k * d),
                           w_o = random_values(rng, d * H * d_k), n1 = random_values(rng, d),
                           n2 = random_values(rng, d), w_up = random_values(rng, ff * d),
                           w_gate = random_values(rng, ff * d), w_down = random_values(rng, d * ff);
  std::vector<float> cos(n), sin(n);  // dim 2: one angle per position
  for (int64_t p = 0; p < n; ++p) cos[p] = std::cos(0.7 * p), sin[p] = std::sin(0.7 * p);
  model::LayerWeights w;
  w.norm1_weight = n1.data(), w.norm2_weight = n2.data(), w.w_q = w_q.data(), w.w_k = w_k.data();
  w.w_v = w_v.data(), w.w_o = w_o.data(), w.w_up = w_up.data(), w.w_gate = w_gate.data(), w.w_down = w_down.data();
  const auto rope_at = [&](int64_t first) { return Rope{RopeStyle::kHalf, 2, cos.data() + first, sin.data() + first}; };

  std::vector<float> whole(n * d), whole_weights(H * n * n);
  c.len = n, c.rope = rope_at(0);
  model::layer(c, w, x.data(), {whole.data(), whole_weights.data()});

  std::vector<float> cache_k(H_kv * n * d_k), cache_v(H_kv * n * d_k);
  model::KvCache cache{cache_k.data(), cache_v.data(), 0, static_cast<int32_t>(n)};
  for (const int64_t count : {4, 1, 1, 1}) {
    const int64_t past = cache.past, L = past + count;
    std::vector<float> out(count * d), weights(H * count * L);
    c.len = static_cast<int32_t>(count), c.rope = rope_at(past);
    model::layer(c, w, x.data() + past * d, {out.data(), weights.data()}, &cache);
    const std::vector<float> rows(whole.begin() + past * d, whole.begin() + L * d);
    EXPECT_TRUE(all_close(out, rows, 1e-5, 1e-5)) << "past " << past;
    std::vector<float> last(H * L), expected(H * L);  // each head's attention row of the last new token
    for (int64_t h = 0; h < H; ++h) {
      for (int64_t j = 0; j < L; ++j) {
        last[h * L + j] = weights[(h * count + count - 1) * L + j];
        expected[h * L + j] = whole_weights[(h * n + L - 1) * n + j];
      }
    }
    EXPECT_TRUE(all_close(last, expected, 1e-6, 1e-6)) << "past " << past;
    cache.past = static_cast<int32_t>(L);
  }
  std::vector<float> out(d);
  c.len = 1, c.rope = rope_at(0);
  try {
    model::layer(c, w, x.data(), {out.data()}, &cache);
    ADD_FAILURE() << "a full cache was taken";
  } catch (const AttentionError& e) {
    EXPECT_EQ(e.code(), "BAD_DIMENSION");
  }
}

}  // namespace
}  // namespace attention::test
