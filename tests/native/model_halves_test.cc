// Which weights each half of a layer reads (abi.h's ATTENTION_LAYER_ATTENTION_WEIGHTS and _MLP_WEIGHTS, which the
// JS layer reads from src/js/generated/model-abi.js to give each call its weights) against what forward.cc's halves
// read: every weight of LayerWeights is in exactly one half's list under each norm placement, every weight a list
// names is read by its half (a NaN there reaches its output), and a weight a half does not list changes nothing in it
// even when given. A weight missing from a list then fails here, for every caller, resident weights or read ones.
#include <cmath>
#include <cstring>
#include <limits>
#include <set>

#include "model/forward.h"
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
  // every weight of LayerWeights has been seen read by a half, in some case
  for (size_t i = 0; i < kWeights; ++i) EXPECT_TRUE(read.count({false, i}) || read.count({true, i})) << i;
}

}  // namespace
}  // namespace attention::test
