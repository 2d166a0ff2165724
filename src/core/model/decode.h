// Attention over a KV cache: the step that makes generation cost one row per token. The n new tokens' keys (after
// RoPE) and values are appended to the cache, and their queries attend over every cached key, so that a decode step
// (n = 1) never computes the earlier tokens again. forward.h's layer() calls it when given a KvCache.
#pragma once

#include "forward.h"

namespace attention::model {

// heads = attention of the n new queries over the past + n keys of `cache`, after appending k and v to it.
//
//   argument  shape                         notes
//   q         [H, n, d_k]                   before RoPE; c.rope's tables hold positions past … past + n − 1
//   k, v      [H_kv, n, d_k]                the new tokens' keys (before RoPE) and values
//   cache     k, v [H_kv, capacity, d_k]    rows past … past + n − 1 written: k rotated, v as given
//   heads     [H, n, d_k]
//   result    weights, scores, scaled_scores, raw_scores [H, n, past + n] when given; q_rotated [H, n, d_k]
//
// Query i sits at position past + i: it sees keys j ≤ past + i (when c.causal), and with c.sliding_window > 0 only
// those with past + i − j < sliding_window (Mistral). Grouped-query heads read kv head h / (H / H_kv).
// Throws BAD_DIMENSION when past + n exceeds the cache's capacity, NULL_ARGUMENT without its buffers.
void cached_attention(const ModelConfig& c, const KvCache& cache, const float* q, const float* k, const float* v,
                      float* heads, const LayerResult& result);

}  // namespace attention::model
