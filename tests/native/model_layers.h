// A layer of each family's shape with every weight that family can have (biases, a head mask), random, for the tests
// that go through a layer's two halves (model_halves_test.cc, scratch/model_scratch_test.cc):
//   gpt2   LayerNorm, pre-norm, GELU (tanh), q|k|v fused, [in, out]
//   bert   LayerNorm, post-norm, GELU (erf), q, k, v apart, [out, in]
//   llama  RMSNorm, pre-norm, SiLU-gated with every bias (Qwen2's and mlp_bias), [out, in], H_kv < H, RoPE on part
//          of each head, a sliding window, Qwen3's q and k norms
//   neox   LayerNorm, parallel (x + attn(ln1(x)) + mlp(ln2(x))), GELU (erf), q|k|v fused by head, [out, in], RoPE
//          on part of each head
//   gemma  Gemma's RMSNorm (1 + w), sandwich (four norms), GeGLU (tanh), H·d_k ≠ d_model, a scale of its own, attention
//          logit softcapping, a sliding window, q and k norms by head (Gemma 3), RoPE
//   olmo2  RMSNorm after each half (post-branch, no norm before), SiLU-gated, q and k norms over the whole projection
#pragma once

#include <cmath>
#include <random>
#include <string>
#include <vector>

#include "model/forward.h"

namespace attention::test {

struct LayerCase {
  std::string family;
  model::ModelConfig c;  // c.len = n; c.rope's tables are this case's (positions 0 … n − 1)
  model::LayerWeights w;
  std::vector<float> x;                     // [n, d]
  std::vector<std::vector<float>> tensors;  // what w and c.rope point into
};

// The case of `family` ("gpt2", "bert", "llama", "neox", "gemma" or "olmo2") on n tokens.
inline LayerCase layer_case(const std::string& family, int32_t n, uint32_t seed = 1) {
  std::mt19937 rng(seed);
  LayerCase lc;
  lc.family = family;
  model::ModelConfig& c = lc.c;
  const bool gemma = family == "gemma", olmo2 = family == "olmo2";
  const bool llama = family == "llama" || gemma || olmo2, bert = family == "bert", neox = family == "neox";
  c.len = n, c.d_model = llama ? 16 : 12, c.num_heads = llama ? 4 : 3, c.num_kv_heads = llama ? 2 : 3;
  c.d_k = gemma ? 6 : 4;
  c.d_ff = llama ? 24 : 20;
  c.norm = gemma ? NormKind::kRmsNormPlusOne : llama ? NormKind::kRmsNorm : NormKind::kLayerNorm;
  c.placement = bert    ? NormPlacement::kPostNorm
                : neox  ? NormPlacement::kParallel
                : gemma ? NormPlacement::kSandwich
                : olmo2 ? NormPlacement::kPostBranch
                        : NormPlacement::kPreNorm;
  c.activation = gemma          ? Activation::kGeluTanhGated
                 : llama        ? Activation::kSiluGated
                 : bert || neox ? Activation::kGeluErf
                                : Activation::kGeluTanh;
  if (gemma) c.attention_scale = 0.3f, c.softcap = 1.5f;
  c.qk_norm_whole = olmo2;
  c.qkv_layout = neox ? QkvLayout::kPerHead : QkvLayout::kBlocks;
  c.layout = family == "gpt2" ? WeightLayout::kInOut : WeightLayout::kOutIn;
  c.causal = !bert;
  c.sliding_window = gemma ? 3 : llama && !olmo2 ? 5 : 0;
  lc.tensors.reserve(32);  // pointers into them stay valid
  const auto tensor = [&](int64_t size, float low = -0.5f, float high = 0.5f) {
    std::uniform_real_distribution<float> dist(low, high);
    std::vector<float> t(size);
    for (float& v : t) v = dist(rng);
    lc.tensors.push_back(std::move(t));
    return lc.tensors.back().data();
  };
  const int64_t d = c.d_model, q = int64_t{c.num_heads} * c.d_k, kv = int64_t{c.num_kv_heads} * c.d_k, ff = c.d_ff;
  model::LayerWeights& w = lc.w;
  if (!olmo2) w.norm1_weight = tensor(d, 0.5f, 1.5f), w.norm2_weight = tensor(d, 0.5f, 1.5f);
  if (gemma || olmo2) w.attention_post_norm = tensor(d, 0.5f, 1.5f), w.mlp_post_norm = tensor(d, 0.5f, 1.5f);
  if (!llama) w.norm1_bias = tensor(d), w.norm2_bias = tensor(d);
  if (family == "gpt2" || neox) {
    w.w_qkv = tensor(d * (q + 2 * kv)), w.b_qkv = tensor(q + 2 * kv);
  } else {
    w.w_q = tensor(d * q), w.w_k = tensor(d * kv), w.w_v = tensor(d * kv);
    if (!gemma && !olmo2) w.b_q = tensor(q), w.b_k = tensor(kv), w.b_v = tensor(kv);
  }
  w.w_o = tensor(q * d), w.b_o = tensor(d);
  w.w_up = tensor(d * ff), w.b_up = tensor(ff), w.w_down = tensor(ff * d), w.b_down = tensor(d);
  if (llama) w.w_gate = tensor(d * ff), w.b_gate = tensor(ff);
  if (llama) w.q_norm = tensor(olmo2 ? q : c.d_k, 0.5f, 1.5f), w.k_norm = tensor(olmo2 ? kv : c.d_k, 0.5f, 1.5f);
  w.head_mask = tensor(c.num_heads, 0.5f, 1.0f);
  std::uniform_real_distribution<float> unit(-1, 1);
  lc.x.resize(n * d);
  for (float& v : lc.x) v = unit(rng);
  if (llama || neox) {  // RoPE on the first 2 of each head's 4 columns: tables [n, 1]
    float* cos = tensor(n);
    float* sin = tensor(n);
    for (int32_t p = 0; p < n; ++p) cos[p] = std::cos(0.9f * p), sin[p] = std::sin(0.9f * p);
    c.rope = Rope{RopeStyle::kHalf, 2, cos, sin};
  }
  return lc;
}

}  // namespace attention::test
