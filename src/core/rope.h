// Rotary position embeddings (RoPE, Su et al. 2021): q and k rotated by their positions before q·kᵀ, so that a
// score depends on the two positions only through their difference. The caller gives the angles as tables; the
// rotation runs over vec4.h (WebAssembly SIMD128, SSE or scalar code), with the same bits in every backend.
#pragma once

#include <cstdint>
#include <vector>

#include "abi.h"

namespace attention {

struct AttentionDims;  // attention.h

// The rotation of one call.
//   cos, sin  [positions, dim / 2]   row p, column i: cos and sin of position_p · inv_freq_i
// Column i of a table turns the pair (i, i + dim/2) in the kHalf style, the pair (2i, 2i + 1) in kInterleaved.
struct Rope {
  RopeStyle style = RopeStyle::kNone;
  int32_t dim = 0;  // columns rotated, the first of each head: even, at most d_k (less: "partial rotary")
  const float* cos = nullptr;
  const float* sin = nullptr;
};

// Rotates every row of x by its table row.
//
//   argument  shape                notes
//   x         [heads, len, d]      row r of each head uses table row first_row + r
//   out       [heads, len, d]      may be x itself; columns dim.. are copied unchanged
//
//   kHalf:         out[i] = x[i]·c_i − x[i + dim/2]·s_i    out[i + dim/2] = x[i + dim/2]·c_i + x[i]·s_i
//   kInterleaved:  out[2i] = x[2i]·c_i − x[2i + 1]·s_i     out[2i + 1] = x[2i + 1]·c_i + x[2i]·s_i
// The caller checks the Rope (style, an even dim ≤ d, tables of first_row + len rows).
void apply_rope(const Rope& rope, const float* x, float* out, int64_t heads, int64_t len, int64_t d, int64_t first_row);

// Throws AttentionError unless a rope fits d_k, len_q and len_k: BAD_OPTION for a style or dim out of range, or
// len_q > len_k; NULL_ARGUMENT for a missing table. Constant messages: the JS layer checks the option first, and
// says more. No rope (kNone) always fits.
void check_rope(const Rope& rope, int64_t d_k, int64_t len_q, int64_t len_k);

// q and k rotated by a checked rope, as scaled_dot_product_attention takes them: into q_out and k_out when given,
// else into `own`; q and k themselves without a rope. PROJECTION_OVERFLOW when a rotated value is not finite.
//   q, q_out  [B, H, L_q, d_k]      k, k_out  [B, H_kv, L_k, d_k]     (dims: attention.h's AttentionDims)
struct RotatedQk {
  const float* q;
  const float* k;
  std::vector<float> own;
};
RotatedQk rotate_qk(const Rope& rope, const float* q, const float* k, float* q_out, float* k_out,
                    const AttentionDims& dims);

}  // namespace attention
