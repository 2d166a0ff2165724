#include "decode.h"

#include <algorithm>
#include <vector>

#include "../attention.h"
#include "../kernels.h"
#include "../rope.h"

namespace attention::model {
namespace {

void require(bool ok, const char* code, const char* message) {
  if (!ok) throw AttentionError(code, message);
}

// Block h of a [blocks, rows, columns] buffer, or null for an absent one.
float* block(float* buffer, int64_t h, int64_t size) { return buffer ? buffer + h * size : nullptr; }

}  // namespace

void cached_attention(const ModelConfig& c, const KvCache& cache, const float* q, const float* k, const float* v,
                      float* heads, const LayerResult& result) {
  require(cache.k && cache.v && q && k && v && heads, "NULL_ARGUMENT", "the KV cache's k and v must not be null");
  require(cache.past >= 0 && cache.capacity > 0 && int64_t{cache.past} + c.len <= cache.capacity, "BAD_DIMENSION",
          "the KV cache is full: past + n must not exceed its capacity");
  const int64_t n = c.len, H = c.num_heads, H_kv = c.num_kv_heads, d_k = c.d_k;
  const int64_t past = cache.past, capacity = cache.capacity, L = past + n;
  const bool rotates = c.rope.style != RopeStyle::kNone;
  check_rope(c.rope, d_k, n, n);

  // the queries rotated at their positions; the new keys rotated into the cache, the values copied
  std::vector<float> q_own;
  const float* queries = q;
  if (rotates) {
    float* rotated = result.q_rotated;
    if (!rotated) {
      q_own.resize(H * n * d_k);
      rotated = q_own.data();
    }
    apply_rope(c.rope, q, rotated, H, n, d_k, 0);
    require(kernels::all_finite(rotated, H * n * d_k), "PROJECTION_OVERFLOW", "q after RoPE overflowed float32");
    queries = rotated;
  } else if (result.q_rotated) {
    std::copy_n(q, H * n * d_k, result.q_rotated);
  }
  for (int64_t h = 0; h < H_kv; ++h) {
    float* keys = cache.k + (h * capacity + past) * d_k;  // [n, d_k]
    if (rotates) {
      apply_rope(c.rope, k + h * n * d_k, keys, 1, n, d_k, 0);
      require(kernels::all_finite(keys, n * d_k), "PROJECTION_OVERFLOW", "k after RoPE overflowed float32");
    } else {
      std::copy_n(k + h * n * d_k, n * d_k, keys);
    }
    std::copy_n(v + h * n * d_k, n * d_k, cache.v + (h * capacity + past) * d_k);
  }

  // each kv head's group of query heads over its cached rows: queries at the end of the keys (kBottomRight)
  const AttentionOptions options = attention_options(c, Causal::kBottomRight);  // query i at position past + i
  const int64_t group = H / H_kv;
  const AttentionDims dims{
      1, static_cast<int32_t>(group), 1, static_cast<int32_t>(n), static_cast<int32_t>(L), c.d_k, c.d_k};
  for (int64_t h = 0; h < H_kv; ++h) {
    const int64_t rows = group * n * L;  // floats of one group's [group, n, L] weights
    const AttentionResult r{heads + h * group * n * d_k,
                            block(result.weights, h, rows),
                            block(result.scores, h, rows),
                            block(result.scaled_scores, h, rows),
                            block(result.raw_scores, h, rows),
                            nullptr,
                            nullptr};
    scaled_dot_product_attention(dims, queries + h * group * n * d_k, cache.k + h * capacity * d_k,
                                 cache.v + h * capacity * d_k, options, r);
  }
}

}  // namespace attention::model
