// A batch of continuations of one run in one layer call: the cells of a patching sweep (model.patchSweep), the
// sequences of model.headScores. Cell c is a prompt that agrees with a base run before its position first_c: its rows
// in the batch are its tokens at positions first_c, first_c + 1, …, and its queries attend over the base run's keys
// and values of positions 0 … first_c − 1, then over its own rows' (causally). So a cell patched at position p costs
// the rows from p on, and the cells of a layer run their projections and MLPs as one batch of rows.
#pragma once

#include <cstdint>

#include "forward.h"

namespace attention::model {

// The cells of a layer call over a batch of R rows (c.len = R).
//   table           [count, 2] as floats: cell c's first row in the batch (0 for the first cell, increasing), and
//                   first_c, the position of that row; cell c's rows run to the next cell's first row (the last: R)
//   base_k, base_v  [H_kv, base_len, d_k]  the base run's keys (after RoPE) and values at this layer; may be null
//                   when every first_c is 0
// c.rope's tables hold one row per row of the batch, at that row's position.
struct Cells {
  const float* table = nullptr;
  int32_t count = 0;
  const float* base_k = nullptr;
  const float* base_v = nullptr;
  int32_t base_len = 0;
};

// Floats of the weights of the cells' queries over their keys, cell after cell: Σ_c H · rows_c · (first_c + rows_c).
// Throws BAD_OPTION for a table that is not as above (cells must be causal: c.causal), BAD_DIMENSION for a first_c
// beyond the base, NULL_ARGUMENT for a base missing.
int64_t cells_weights_floats(const ModelConfig& c, const Cells& cells);

// The bytes cells_attention allocates for itself (scratch.h counts them in layer_attention's), with or without the
// weights: the buffers of its largest cell, and the largest of its cells' attention calls.
int64_t cells_scratch_bytes(const ModelConfig& c, const Cells& cells, bool weights);

// heads [H, R, d_k] of the batch: cell by cell, its queries (q [H, R, d_k], before RoPE) over the base's keys before
// first_c and its own rows' keys (k, v [H_kv, R, d_k], k before RoPE), causally, grouped-query heads reading kv head
// h / (H / H_kv), with c.sliding_window as a layer over the whole sequence has it. `weights` (may be null): cell by
// cell [H, rows_c, first_c + rows_c] (cells_weights_floats).
void cells_attention(const ModelConfig& c, const Cells& cells, const float* q, const float* k, const float* v,
                     float* heads, float* weights);

}  // namespace attention::model
