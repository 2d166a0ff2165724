// Plain-loop reference of the attention core: no Eigen, no SIMD, every sum in double.
// Same signatures and semantics as attention.h; the tests hold the fused SIMD path to it.
#pragma once

#include "attention.h"

namespace attention::reference {

// Whether key j is open to query i of pair (b, h) under the causal mode, the sliding window and the mask, and what an
// additive mask adds to its score. The one statement of the masking rules that the test oracles share.
struct KeyVerdict {
  bool open;
  double add;
};
KeyVerdict key_verdict(const AttentionDims& dims, const AttentionOptions& options, int b, int h, int i, int j);

void scaled_dot_product_attention(const AttentionDims& dims, const float* q, const float* k, const float* v,
                                  const AttentionOptions& options, const AttentionResult& result);

void multi_head_attention(const ProjectionDims& dims, const float* x, const float* context,
                          const ProjectionWeights& weights, const AttentionOptions& options,
                          const MultiHeadResult& result);

}  // namespace attention::reference
