// The choices of Gemma and OLMo-2 in the model forward (src/core/model) against one layer written out in plain loops
// in double: Gemma's RMSNorm x̂·(1 + w), the sandwich (a norm before and after each half), GeGLU with tanh GELU, a
// scale of its own, attention logit softcapping, a sliding window and q/k norms by head; OLMo-2's norms after each
// half only and q/k norms over the whole projection. Then a KV cache's steps against the whole sequence with them.
#include <cmath>

#include "model/forward.h"
#include "model/mlp.h"
#include "model/norms.h"
#include "model_layers.h"
#include "test_support.h"

namespace attention::test {
namespace {

using Rows = std::vector<double>;  // [rows, cols] row-major

Rows norm_rows(const model::ModelConfig& c, const Rows& x, int64_t cols, const float* w) {
  Rows out(x.size());
  for (size_t r = 0; r < x.size() / cols; ++r) {
    double square = 0;
    for (int64_t j = 0; j < cols; ++j) square += x[r * cols + j] * x[r * cols + j];
    const double inverse = 1 / std::sqrt(square / cols + c.eps);
    for (int64_t j = 0; j < cols; ++j) {
      const double scale = c.norm == NormKind::kRmsNormPlusOne ? 1.0 + w[j] : w[j];
      out[r * cols + j] = x[r * cols + j] * inverse * scale;
    }
  }
  return out;
}

// x [n, in] · Wᵀ (W [out, in]) + b
Rows linear_rows(const Rows& x, int64_t n, int64_t in, const float* w, int64_t out, const float* b) {
  Rows y(n * out);
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t o = 0; o < out; ++o) {
      double sum = b ? b[o] : 0.0;
      for (int64_t j = 0; j < in; ++j) sum += x[i * in + j] * w[o * in + j];
      y[i * out + o] = sum;
    }
  }
  return y;
}

// RoPE (rotate_half) on the first rope.dim columns of each head of rows [n, heads·d_k].
void rotate(const model::ModelConfig& c, Rows& x, int64_t heads) {
  const int64_t n = c.len, d_k = c.d_k, half = c.rope.dim / 2;
  for (int64_t i = 0; i < n; ++i) {
    for (int64_t h = 0; h < heads; ++h) {
      double* row = x.data() + (i * heads + h) * d_k;
      for (int64_t j = 0; j < half; ++j) {
        const double cs = c.rope.cos[i * half + j], sn = c.rope.sin[i * half + j];
        const double a = row[j], b = row[j + half];
        row[j] = a * cs - b * sn;
        row[j + half] = b * cs + a * sn;
      }
    }
  }
}

struct Reference {
  Rows output, weights;  // [n, d], [H, n, n]
};

Reference reference_layer(const LayerCase& lc) {
  const model::ModelConfig& c = lc.c;
  const model::LayerWeights& w = lc.w;
  const int64_t n = c.len, d = c.d_model, H = c.num_heads, H_kv = c.num_kv_heads, d_k = c.d_k, ff = c.d_ff;
  const bool post_branch = c.placement == NormPlacement::kPostBranch;
  const Rows x(lc.x.begin(), lc.x.end());
  const Rows a = post_branch ? x : norm_rows(c, x, d, w.norm1_weight);
  Rows q = linear_rows(a, n, d, w.w_q, H * d_k, w.b_q), k = linear_rows(a, n, d, w.w_k, H_kv * d_k, w.b_k);
  const Rows v = linear_rows(a, n, d, w.w_v, H_kv * d_k, w.b_v);
  if (c.qk_norm_whole) {
    q = norm_rows(c, q, H * d_k, w.q_norm), k = norm_rows(c, k, H_kv * d_k, w.k_norm);
  } else if (w.q_norm) {
    q = norm_rows(c, q, d_k, w.q_norm), k = norm_rows(c, k, d_k, w.k_norm);
  }
  if (c.rope.style != RopeStyle::kNone) rotate(c, q, H), rotate(c, k, H_kv);
  const double scale = c.attention_scale > 0 ? c.attention_scale : 1 / std::sqrt(double(d_k));
  Reference ref{Rows(n * d), Rows(H * n * n)};
  Rows concat(n * H * d_k);
  for (int64_t h = 0; h < H; ++h) {
    const int64_t g = h / (H / H_kv);
    for (int64_t i = 0; i < n; ++i) {
      std::vector<double> s(n, -INFINITY);
      double max = -INFINITY;
      for (int64_t j = 0; j <= i; ++j) {
        if (c.sliding_window > 0 && i - j >= c.sliding_window) continue;
        double dot = 0;
        for (int64_t e = 0; e < d_k; ++e) dot += q[(i * H + h) * d_k + e] * k[(j * H_kv + g) * d_k + e];
        dot *= scale;
        s[j] = c.softcap > 0 ? std::tanh(dot / c.softcap) * c.softcap : dot;
        max = std::max(max, s[j]);
      }
      double sum = 0;
      for (int64_t j = 0; j < n; ++j) sum += s[j] == -INFINITY ? 0 : std::exp(s[j] - max);
      for (int64_t j = 0; j < n; ++j) {
        const double p = s[j] == -INFINITY ? 0 : std::exp(s[j] - max) / sum;
        ref.weights[(h * n + i) * n + j] = p;
        for (int64_t e = 0; e < d_k; ++e)
          concat[i * H * d_k + h * d_k + e] += p * v[(j * H_kv + g) * d_k + e] * (w.head_mask ? w.head_mask[h] : 1);
      }
    }
  }
  Rows attention = linear_rows(concat, n, H * d_k, w.w_o, d, w.b_o);
  attention = norm_rows(c, attention, d, w.attention_post_norm);
  Rows residual(n * d);
  for (int64_t i = 0; i < n * d; ++i) residual[i] = x[i] + attention[i];
  const Rows m = post_branch ? residual : norm_rows(c, residual, d, w.norm2_weight);
  const Rows gate = linear_rows(m, n, d, w.w_gate, ff, w.b_gate), up = linear_rows(m, n, d, w.w_up, ff, w.b_up);
  Rows hidden(n * ff);
  for (int64_t i = 0; i < n * ff; ++i) {
    const double z = gate[i];
    const double act = c.activation == Activation::kGeluTanhGated
                           ? 0.5 * z * (1 + std::tanh(std::sqrt(2 / M_PI) * (z + 0.044715 * z * z * z)))
                           : z / (1 + std::exp(-z));
    hidden[i] = act * up[i];
  }
  const Rows mlp = norm_rows(c, linear_rows(hidden, n, ff, w.w_down, d, w.b_down), d, w.mlp_post_norm);
  for (int64_t i = 0; i < n * d; ++i) ref.output[i] = residual[i] + mlp[i];
  return ref;
}

std::vector<float> as_float(const Rows& r) { return std::vector<float>(r.begin(), r.end()); }

TEST(ModelVariants, GemmaAndOlmo2LayersMatchPlainLoopsInDouble) {
  for (const char* family : {"gemma", "olmo2"}) {
    for (const int32_t n : {1, 5, 9}) {
      const LayerCase lc = layer_case(family, n, 11 + n);
      const int64_t d = lc.c.d_model, H = lc.c.num_heads;
      std::vector<float> out(n * d), weights(H * n * n);
      model::LayerResult r;
      r.output = out.data(), r.weights = weights.data();
      model::layer(lc.c, lc.w, lc.x.data(), r);
      const Reference ref = reference_layer(lc);
      EXPECT_TRUE(all_close(out, as_float(ref.output), 1e-5, 1e-5)) << family << " n " << n << ": output";
      EXPECT_TRUE(all_close(weights, as_float(ref.weights), 1e-6, 1e-5)) << family << " n " << n << ": weights";
    }
  }
}

// Gemma's choices change the layer: each of them, turned off, gives another output (the tests above cannot pass
// with one of them missing from the forward).
TEST(ModelVariants, EachGemmaChoiceChangesTheOutput) {
  const LayerCase lc = layer_case("gemma", 9);
  const auto run = [&](const model::ModelConfig& c) {
    std::vector<float> out(9 * c.d_model);
    model::LayerResult r;
    r.output = out.data();
    model::layer(c, lc.w, lc.x.data(), r);
    return out;
  };
  const std::vector<float> base = run(lc.c);
  model::ModelConfig c = lc.c;
  c.softcap = 0;
  EXPECT_FALSE(all_close(run(c), base, 1e-5, 1e-5)) << "softcap";
  c = lc.c, c.sliding_window = 0;
  EXPECT_FALSE(all_close(run(c), base, 1e-5, 1e-5)) << "sliding window";
  c = lc.c, c.attention_scale = 0;
  EXPECT_FALSE(all_close(run(c), base, 1e-5, 1e-5)) << "scale";
  c = lc.c, c.norm = NormKind::kRmsNorm;
  EXPECT_FALSE(all_close(run(c), base, 1e-5, 1e-5)) << "1 + w";
  c = lc.c, c.activation = Activation::kSiluGated;
  EXPECT_FALSE(all_close(run(c), base, 1e-5, 1e-5)) << "GeGLU";
}

// Prefill 4 tokens, then 5 steps of one: each new row is what the whole sequence gives it, with the window (3), the
// softcap and the scale in the decode steps too.
TEST(ModelVariants, DecodeStepsWithSoftcapAndWindowEqualTheWholeSequence) {
  for (const char* family : {"gemma", "olmo2"}) {
    const int32_t n = 9;
    const LayerCase lc = layer_case(family, n, 5);
    const int64_t d = lc.c.d_model, H = lc.c.num_heads, H_kv = lc.c.num_kv_heads, d_k = lc.c.d_k;
    std::vector<float> whole(n * d), whole_weights(H * n * n);
    model::layer(lc.c, lc.w, lc.x.data(), {whole.data(), whole_weights.data()});
    std::vector<float> cache_k(H_kv * n * d_k), cache_v(H_kv * n * d_k);
    model::KvCache cache{cache_k.data(), cache_v.data(), 0, n};
    const int64_t half = lc.c.rope.dim / 2;
    for (const int64_t count : {4, 1, 1, 1, 1, 1}) {
      const int64_t past = cache.past, L = past + count;
      model::ModelConfig c = lc.c;
      c.len = static_cast<int32_t>(count);
      c.rope.cos += past * half, c.rope.sin += past * half;
      std::vector<float> out(count * d), weights(H * count * L);
      model::layer(c, lc.w, lc.x.data() + past * d, {out.data(), weights.data()}, &cache);
      const std::vector<float> rows(whole.begin() + past * d, whole.begin() + L * d);
      EXPECT_TRUE(all_close(out, rows, 1e-5, 1e-5)) << family << " rows from " << past;
      for (int64_t h = 0; h < H; ++h) {
        for (int64_t i = 0; i < count; ++i) {
          const std::vector<float> got(weights.begin() + (h * count + i) * L,
                                       weights.begin() + (h * count + i + 1) * L);
          const auto at = whole_weights.begin() + (h * n + past + i) * n;
          EXPECT_TRUE(all_close(got, std::vector<float>(at, at + L), 1e-6, 1e-5)) << family << " head " << h;
        }
      }
      cache.past += static_cast<int32_t>(count);
    }
  }
}

TEST(ModelVariants, NormPlusOneAndGeGluMatchTheirFormulas) {
  std::mt19937 rng(9);
  const std::vector<float> x = random_values(rng, 2 * 7, -3, 3), w = random_values(rng, 7);
  std::vector<float> out(14), expected(14);
  model::norm(NormKind::kRmsNormPlusOne, x.data(), 2, 7, w.data(), nullptr, 1e-6f, out.data());
  for (int r = 0; r < 2; ++r) {
    double square = 0;
    for (int j = 0; j < 7; ++j) square += double{x[r * 7 + j]} * x[r * 7 + j] / 7;
    for (int j = 0; j < 7; ++j)
      expected[r * 7 + j] = static_cast<float>(x[r * 7 + j] / std::sqrt(square + 1e-6) * (1.0 + w[j]));
  }
  EXPECT_TRUE(all_close(out, expected, 1e-6, 1e-6));
  std::vector<float> a = x, b = x;
  model::activate(Activation::kGeluTanhGated, a.data(), 14);
  model::activate(Activation::kGeluTanh, b.data(), 14);
  EXPECT_EQ(a, b);
}

}  // namespace
}  // namespace attention::test
