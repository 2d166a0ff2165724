// Which weights each half of a layer reads (abi.h's ATTENTION_LAYER_ATTENTION_WEIGHTS and _MLP_WEIGHTS, which the
// JS layer reads from src/js/generated/model-abi.js to give each call its weights) against what forward.cc's halves
// read: every weight of LayerWeights is in exactly one half's list under each norm placement, every weight a list
// names is read by its half (a NaN there reaches its output), and a weight a half does not list changes nothing in it
// even when given. A weight missing from a list then fails here, for every caller, resident weights or read ones.
#include <cmath>
#include <cstddef>
#include <cstring>
#include <limits>
#include <random>
#include <set>

#include "model/forward.h"
#include "model/norms.h"
#include "model_layers.h"
#include "test_support.h"

namespace attention::test {
namespace {

// LayerWeights as its pointers, in order: the tests walk every weight without naming each.
constexpr size_t kWeights = sizeof(model::LayerWeights) / sizeof(const float*);
static_assert(sizeof(model::LayerWeights) == kWeights * sizeof(const float*), "LayerWeights holds pointers only");

std::array<const float*, kWeights> pointers(const model::LayerWeights& w) {
  std::array<const float*, kWeights> p;
  std::memcpy(p.data(), &w, sizeof w);
  return p;
}

model::LayerWeights with(const model::LayerWeights& w, size_t i, const float* value) {
  auto p = pointers(w);
  p[i] = value;
  model::LayerWeights out;
  std::memcpy(&out, p.data(), sizeof out);
  return out;
}

constexpr NormPlacement kPlacements[] = {NormPlacement::kPreNorm, NormPlacement::kPostNorm, NormPlacement::kParallel,
                                         NormPlacement::kSandwich, NormPlacement::kPostBranch};

TEST(ModelHalves, EveryWeightIsInExactlyOneHalfsListUnderEachPlacement) {
  static const float dummy[kWeights] = {};
  model::LayerWeights all;
  for (size_t i = 0; i < kWeights; ++i) all = with(all, i, dummy + i);
  for (const NormPlacement placement : kPlacements) {
    const auto attention = pointers(model::attention_half(all, placement));
    const auto mlp = pointers(model::mlp_half(all, placement));
    for (size_t i = 0; i < kWeights; ++i) {
      EXPECT_EQ((attention[i] != nullptr) + (mlp[i] != nullptr), 1)
          << "LayerWeights' pointer " << i << " under placement " << static_cast<int>(placement);
      if (attention[i]) EXPECT_EQ(attention[i], dummy + i);
      if (mlp[i]) EXPECT_EQ(mlp[i], dummy + i);
    }
  }
}

// One half of lc's layer with weights w: its output (the residual sum, or the layer's output), or empty when it threw.
std::vector<float> run_half(const LayerCase& lc, bool mlp, const model::LayerWeights& w) {
  const int64_t size = int64_t{lc.c.len} * lc.c.d_model;
  std::vector<float> out(size), residual(size);
  model::LayerResult r;
  r.output = out.data(), r.residual = residual.data();
  try {
    if (mlp) {  // the residual sum is x here; kParallel's norm2 reads x too
      const bool parallel = lc.c.placement == NormPlacement::kParallel;
      model::layer_mlp(lc.c, w, lc.x.data(), r, nullptr, parallel ? lc.x.data() : nullptr);
      return out;
    }
    model::layer_attention(lc.c, w, lc.x.data(), r);
    return residual;
  } catch (const AttentionError&) {
    return {};
  }
}

bool all_finite(const std::vector<float>& v) {
  for (float x : v) {
    if (!std::isfinite(x)) return false;
  }
  return !v.empty();
}

TEST(ModelHalves, EachHalfReadsEveryWeightOfItsListAndNoOther) {
  // Larger than any weight of the cases: a NaN for each value a half may read.
  const std::vector<float> nan(4096, std::numeric_limits<float>::quiet_NaN());
  std::set<std::pair<bool, size_t>> read;  // (mlp, weight) seen read in some case
  for (const char* family : {"gpt2", "bert", "llama", "neox", "gemma", "olmo2"}) {
    const LayerCase lc = layer_case(family, 6);
    for (const bool mlp : {false, true}) {
      const model::LayerWeights own =
          mlp ? model::mlp_half(lc.w, lc.c.placement) : model::attention_half(lc.w, lc.c.placement);
      const std::vector<float> expected = run_half(lc, mlp, lc.w);
      ASSERT_TRUE(all_finite(expected)) << family << (mlp ? " MLP" : " attention");
      EXPECT_EQ(run_half(lc, mlp, own), expected) << family << ": given only its list's weights";
      const auto given = pointers(lc.w), listed = pointers(own);
      for (size_t i = 0; i < kWeights; ++i) {
        if (!given[i]) continue;
        const std::vector<float> poisoned = run_half(lc, mlp, with(lc.w, i, nan.data()));
        if (listed[i]) {
          EXPECT_FALSE(all_finite(poisoned)) << family << ": weight " << i << " is listed but not read";
          read.insert({mlp, i});
        } else {
          EXPECT_EQ(poisoned, expected) << family << ": weight " << i << " is read but not listed";
        }
      }
    }
  }
  // every weight of LayerWeights has been seen read by a half, in some case; but qk_scales and qk_projected, given by
  // loadModel's workers only (OLMo2WholeQkNormsFromThePartsSums reads them)
  const size_t scales = offsetof(model::LayerWeights, qk_scales) / sizeof(const float*);
  const size_t projected = offsetof(model::LayerWeights, qk_projected) / sizeof(const float*);
  for (size_t i = 0; i < kWeights; ++i) {
    if (i != scales && i != projected) EXPECT_TRUE(read.count({false, i}) || read.count({true, i})) << i;
  }
}

// OLMo-2's q and k norms over each token's whole projection with the heads cut into parts, as loadModel's workers cut
// them: each part's layer_attention gives its columns' sums of squares (qk_squares) and the columns (qk_projections),
// the whole rows' inverses come from their sum, and each part's call given them (qk_scales) and its columns back
// (qk_projected) gives its heads' q and k as the whole layer's; its half
// without the norm after it (kPostBranch with none), summed over the parts with b_o and then normed, the whole half's
// output. With one part, q and k bit for bit.
TEST(ModelHalves, OLMo2WholeQkNormsFromThePartsSums) {
  const LayerCase lc = layer_case("olmo2", 6);
  const model::ModelConfig& c = lc.c;
  const int64_t n = c.len, d = c.d_model, dk = c.d_k, H = c.num_heads, Hkv = c.num_kv_heads;
  std::vector<float> q(H * n * dk), k(Hkv * n * dk), output(n * d), residual(n * d);
  model::LayerResult whole;
  whole.q = q.data(), whole.k = k.data(), whole.attention_output = output.data(), whole.residual = residual.data();
  model::layer_attention(c, lc.w, lc.x.data(), whole);
  for (const int64_t parts : {1, 2}) {
    std::vector<std::vector<float>> own;  // each part's slices
    std::vector<model::ModelConfig> configs;
    std::vector<model::LayerWeights> weights;
    own.reserve(8 * parts);
    const auto rows = [&](const float* m, int64_t r0, int64_t r1, int64_t width) {
      own.emplace_back(m + r0 * width, m + r1 * width);
      return own.back().data();
    };
    for (int64_t p = 0; p < parts; ++p) {
      const int64_t h0 = H * p / parts, h1 = H * (p + 1) / parts, g0 = Hkv * p / parts, g1 = Hkv * (p + 1) / parts;
      model::ModelConfig pc = c;
      pc.num_heads = static_cast<int32_t>(h1 - h0), pc.num_kv_heads = static_cast<int32_t>(g1 - g0);
      model::LayerWeights pw;  // kOutIn: rows of w_q, w_k, w_v; of w_o [d, H·d_k], its heads' columns
      pw.w_q = rows(lc.w.w_q, h0 * dk, h1 * dk, d), pw.w_k = rows(lc.w.w_k, g0 * dk, g1 * dk, d);
      pw.w_v = rows(lc.w.w_v, g0 * dk, g1 * dk, d);
      own.emplace_back();
      for (int64_t r = 0; r < d; ++r) {
        own.back().insert(own.back().end(), lc.w.w_o + r * H * dk + h0 * dk, lc.w.w_o + r * H * dk + h1 * dk);
      }
      pw.w_o = own.back().data();
      pw.q_norm = rows(lc.w.q_norm, h0 * dk, h1 * dk, 1), pw.k_norm = rows(lc.w.k_norm, g0 * dk, g1 * dk, 1);
      pw.head_mask = rows(lc.w.head_mask, h0, h1, 1);
      configs.push_back(pc), weights.push_back(pw);
    }
    std::vector<double> sums(2 * n, 0.0), squares(2 * n);
    std::vector<std::vector<float>> projections(parts);  // each part's q and k columns, from its first call
    for (int64_t p = 0; p < parts; ++p) {
      model::LayerResult r;
      r.qk_squares = squares.data();
      projections[p].resize(n * (configs[p].num_heads + configs[p].num_kv_heads) * dk);
      r.qk_projections = projections[p].data();
      model::layer_attention(configs[p], weights[p], lc.x.data(), r);
      for (int64_t i = 0; i < 2 * n; ++i) sums[i] += squares[i];
    }
    std::vector<double> inverses(2 * n);  // as norms.cc's norm: 1 / √(Σ x² / width + eps)
    for (int64_t i = 0; i < 2 * n; ++i) {
      inverses[i] = 1.0 / std::sqrt(sums[i] / static_cast<double>((i < n ? H : Hkv) * dk) + c.eps);
    }
    std::vector<float> summed(n * d, 0.0f);
    for (int64_t p = 0; p < parts; ++p) {
      const int64_t h0 = H * p / parts, g0 = Hkv * p / parts, Hp = configs[p].num_heads, Gp = configs[p].num_kv_heads;
      std::vector<float> pq(Hp * n * dk), pk(Gp * n * dk), pout(n * d), pres(n * d);
      model::LayerWeights pw = weights[p];
      pw.qk_scales = inverses.data();
      pw.qk_projected = projections[p].data();
      model::LayerResult r;
      r.q = pq.data(), r.k = pk.data(), r.attention_output = pout.data(), r.residual = pres.data();
      model::layer_attention(configs[p], pw, lc.x.data(), r);
      const std::vector<float> wq(q.begin() + h0 * n * dk, q.begin() + (h0 + Hp) * n * dk);
      const std::vector<float> wk(k.begin() + g0 * n * dk, k.begin() + (g0 + Gp) * n * dk);
      if (parts == 1) {
        EXPECT_EQ(pq, wq);
        EXPECT_EQ(pk, wk);
      } else {
        for (size_t i = 0; i < wq.size(); ++i)
          EXPECT_NEAR(pq[i], wq[i], 1e-5f * (1 + std::abs(wq[i]))) << p << " q " << i;
        for (size_t i = 0; i < wk.size(); ++i)
          EXPECT_NEAR(pk[i], wk[i], 1e-5f * (1 + std::abs(wk[i]))) << p << " k " << i;
      }
      for (int64_t i = 0; i < n * d; ++i) summed[i] += pout[i];
    }
    for (int64_t i = 0; i < n * d; ++i) summed[i] += lc.w.b_o[i % d];
    model::norm(c.norm, summed.data(), n, d, lc.w.attention_post_norm, nullptr, c.eps, summed.data());
    for (int64_t i = 0; i < n * d; ++i) {
      EXPECT_NEAR(summed[i], output[i], 1e-5f * (1 + std::abs(output[i]))) << parts << " parts, " << i;
    }
  }
}

// The norms' two steps (square_sums, rms_scale) with a row's whole sum: norm's bits.
TEST(ModelHalves, RmsNormInTwoStepsEqualsNorm) {
  std::mt19937 rng(5);
  std::uniform_real_distribution<float> dist(-2, 2);
  std::vector<float> x(3 * 40), weight(40), want(x.size()), got(x.size());
  for (float& v : x) v = dist(rng);
  for (float& v : weight) v = dist(rng);
  for (const NormKind kind : {NormKind::kRmsNorm, NormKind::kRmsNormPlusOne}) {
    model::norm(kind, x.data(), 3, 40, weight.data(), nullptr, 1e-6f, want.data());
    std::vector<double> squares(3), inverses(3);
    model::square_sums(x.data(), 3, 40, squares.data());
    for (int r = 0; r < 3; ++r) inverses[r] = 1.0 / std::sqrt(squares[r] / 40.0 + 1e-6f);
    model::rms_scale(kind, x.data(), 3, 40, weight.data(), inverses.data(), got.data());
    EXPECT_EQ(got, want);
  }
}

}  // namespace
}  // namespace attention::test
