// What each model call allocates for itself beyond its inputs and its results (its scratch), in bytes, given which
// result buffers the caller passes: the JS layer adds it to the call's block for the size check (MAX_CALL_BYTES)
// before anything is allocated, through the Embind layer's _modelScratchBytes. tests/native/scratch/ measures each
// call's peak of allocated bytes against these, byte for byte.
//
// Counted: the core's own buffers (std::vector, new[]): the steps the caller does not keep, RoPE's rotated copies,
// attention's packed keys and values and its block of scores (abi.h's sdpa_scratch_floats). The matrix products
// (gemm.h) allocate nothing: their panel of packed weights is on the stack.
#pragma once

#include <cstdint>

#include "forward.h"

namespace attention::model {

// layer_attention's, for the buffers `result` gives (null: not given), with or without a KV cache, the steps its
// edits change (LayerEdits::steps(): bits 1 << LayerStep), and with or without cells (cells.h: their table is read).
int64_t layer_attention_scratch_bytes(const ModelConfig& c, const LayerResult& result, const KvCache* cache,
                                      uint32_t edited_steps, const Cells* cells = nullptr);

// layer_mlp's.
int64_t layer_mlp_scratch_bytes(const ModelConfig& c, const LayerResult& result);

// final_norm's, with or without the dense matrix (BERT's prediction-head transform).
int64_t final_norm_scratch_bytes(const ModelConfig& c, bool dense);

// logits': none (the LM head is one product, which allocates nothing); every model call kind has its formula.
int64_t logits_scratch_bytes(const ModelConfig& c);

}  // namespace attention::model
