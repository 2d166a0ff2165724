// Plain-loop reference of the attention core: no Eigen, no SIMD, every sum in double.
// Same signatures and semantics as attention.h; the tests hold the Eigen path to it.
#pragma once

#include "attention.h"

namespace attention::reference {

void scaled_dot_product_attention(const AttentionDims& dims, const float* q, const float* k, const float* v,
                                  const AttentionOptions& options, const AttentionResult& result);

void multi_head_attention(const ProjectionDims& dims, const float* x, const float* context,
                          const ProjectionWeights& weights, const AttentionOptions& options,
                          const MultiHeadResult& result);

}  // namespace attention::reference
