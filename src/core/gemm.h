// The core's one matrix product of activations by weights: the model forward's projections, MLP and LM head
// (model/linear.h) and the attention API's q, k and v projections (attention.cc), at any number of rows. Written
// once against Vec4 (vec4.h): WebAssembly SIMD128, SSE2 natively, or scalar.
#pragma once

#include <cstdint>

#include "abi.h"

namespace attention {

// y = x · W (+ b), W read in its layout with row stride ld (a block of a larger matrix when ld is wider):
//   kInOut  W[k, c] at w[k · ld + c]     ([in, out], GPT-2's Conv1D, the attention API's weights)
//   kOutIn  W[k, c] at w[c · ld + k]     ([out, in], torch.nn.Linear)
//
//   argument  shape
//   x         [rows, in]
//   w         see above
//   b         [out]          may be null
//   y         [rows, out]
//
// Each y[r, c] is summed in float32, in an order that depends only on the layout and `in`: never on the number of
// rows, on which columns are around it, or on the build (no fused multiply-add). So the product of some of the rows,
// or of a block of the columns, gives those values bit for bit.
//   kInOut  one chain in k's order: x[r, 0]·W[0, c] + x[r, 1]·W[1, c] + ... + x[r, in−1]·W[in−1, c], then + b[c]
//   kOutIn  by blocks of 1024 k, each four chains over k ≡ 0, 1, 2, 3 (mod 4) added as (c₀ + c₁) + (c₂ + c₃), then
//           the block's last products (in % 4) in order, each block's sum added to the ones before, then + b[c]
// Allocates nothing: the packed panels of [in, out] weights live on the stack (256 KiB).
void gemm(const float* x, int64_t rows, int64_t in, const float* w, int64_t ld, WeightLayout layout, int64_t out,
          const float* b, float* y) noexcept;

// Rewrites [in, out] weights (kInOut, row stride out; out a multiple of abi.h's kPanelColumns) in place into panels:
// panel p, columns [16p, 16p + 16), as [in, 16] row-major, the panels one after another. A forward's weights kept in
// WebAssembly memory are packed so once, and gemm_panels then reads each panel as one stream instead of packing it
// at every call. Returns false, leaving w as it was, when the scratch copy (in · out floats) cannot be allocated.
bool pack_panels(float* w, int64_t in, int64_t out) noexcept;

// y = x · W (+ b) for W packed by pack_panels: the same values, bit for bit, as gemm with kInOut on W unpacked
// (each y[r, c] the same float32 chain in k's order, then + b[c]), at any number of rows.
//
//   argument  shape
//   x         [rows, in]
//   packed    [out / 16, in, 16]
//   b         [out]          may be null
//   y         [rows, out]
void gemm_panels(const float* x, int64_t rows, int64_t in, const float* packed, int64_t out, const float* b,
                 float* y) noexcept;

}  // namespace attention
