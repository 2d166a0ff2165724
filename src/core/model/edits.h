// model.run's `edits` inside one layer call: each replaces one number of one step right after the forward computes
// that step, so that everything after it (the rest of the layer, the later layers, the logits) follows from the
// edited value. forward.cc calls apply() after each step it computes itself; redo_attention() computes attention's
// inner steps again after an edit of one of them, since the fused kernel (attention.h) gives no way in between.
#pragma once

#include <cstdint>

#include "../abi.h"
#include "forward.h"

namespace attention::model {

// The edits of one layer call: `count` rows of [step, block, row, col, value], as floats (the first four are
// integers, exact in float32). `step` is a LayerStep (abi.h); `block` the head of a per-head step (for k, v and
// k_rotated the key-value head), 0 for the others.
struct LayerEdits {
  const float* data = nullptr;
  int32_t count = 0;

  // Whether an edit changes `step`.
  bool any(LayerStep step) const;
  // Writes the edits of `step` into `values` [blocks, rows, cols] (null when nothing edits it); throws BAD_OPTION for
  // an edit outside it.
  void apply(LayerStep step, float* values, int64_t blocks, int64_t rows, int64_t cols) const;
  // Whether an edit changes one of attention's inner steps (q_rotated … weights).
  bool inner() const;
  // The steps the edits change, as bits 1 << LayerStep (scratch.h sizes a call by them).
  uint32_t steps() const;
};

// attention's buffers, as forward.h names and shapes them; q_rotated and k_rotated null without a rope.
struct AttentionSteps {
  const float *q = nullptr, *k = nullptr, *v = nullptr;
  float *q_rotated = nullptr, *k_rotated = nullptr;
  float *raw_scores = nullptr, *scaled_scores = nullptr, *scores = nullptr, *weights = nullptr, *heads = nullptr;
};

// Applies the edits of q_rotated, k_rotated, raw_scores, scaled_scores, scores and weights in that order, and from
// the first one edited computes each later step again, as the kernel computes it: raw = q·kᵀ (rotated q and k with a
// rope), scaled = raw · scale (c.attention_scale, or 1/√d_k), scores = scaled softcapped (c.softcap) with the causal
// and sliding-window masks at −inf, weights = softmax of each row (0 when every key is masked), heads = weights·v.
// Every buffer of `s` must be given (rotations: with a rope).
void redo_attention(const ModelConfig& c, const LayerEdits& edits, const AttentionSteps& s);

}  // namespace attention::model
