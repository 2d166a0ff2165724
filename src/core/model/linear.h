// The matrix products of the model forward, on matrices as the checkpoint stores them (gemm.h's kernels).
#pragma once

#include <cstdint>

#include "../abi.h"

namespace attention::model {

// A weight matrix in a checkpoint's layout, possibly a block of a larger one (GPT-2's fused c_attn).
//   kInOut  [in, out] row-major, row stride `ld`        (GPT-2's Conv1D)
//   kOutIn  [out, in] row-major, row stride `ld`        (torch.nn.Linear)
// or, with `panels`, [in, out] weights packed by gemm.h's pack_panels (the MLP's weights a model keeps resident).
struct Matrix {
  const float* data = nullptr;
  int64_t in = 0, out = 0;
  int64_t ld = 0;  // floats from one stored row to the next: out (kInOut) or in (kOutIn) unless a block
  WeightLayout layout = WeightLayout::kOutIn;
  bool panels = false;
};

// A whole matrix of the given layout (ld = its stored row length).
Matrix matrix(const float* data, int64_t in, int64_t out, WeightLayout layout);

// [in, out] weights packed by pack_panels (out a multiple of kPanelColumns).
Matrix panels(const float* data, int64_t in, int64_t out);

// Output columns [first, first + count) of w: the block of a fused matrix (not of packed panels).
Matrix columns(const Matrix& w, int64_t first, int64_t count);

// y = x · W (+ b), W taken in its layout: gemm (gemm.h; gemm_panels for packed panels, the same values), so each value
// is one float32 chain in the order of W's input rows, then + b, whatever the number of rows (a forward's n tokens or a
// decode step's one) or the block of columns; it allocates nothing.
//
//   argument  shape
//   x         [rows, w.in]
//   b         [w.out]        may be null
//   y         [rows, w.out]
void linear(const float* x, int64_t rows, const Matrix& w, const float* b, float* y);

}  // namespace attention::model
