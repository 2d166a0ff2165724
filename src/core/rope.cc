#include "rope.h"

#include <algorithm>
#include <vector>

#include "attention.h"
#include "kernels.h"
#include "vec4.h"

namespace attention {
namespace {

using simd::Vec4;

// One row, kHalf: the pairs (i, i + half).
void rotate_half_row(const float* x, float* out, const float* c, const float* s, int64_t half) {
  int64_t i = 0;
  for (; i + 4 <= half; i += 4) {
    const Vec4 a = simd::load(x + i), b = simd::load(x + half + i);  // [4] first and second halves
    const Vec4 cos = simd::load(c + i), sin = simd::load(s + i);
    simd::store(out + i, simd::sub(simd::mul(a, cos), simd::mul(b, sin)));
    simd::store(out + half + i, simd::add(simd::mul(b, cos), simd::mul(a, sin)));
  }
  for (; i < half; ++i) {
    const float a = x[i], b = x[half + i];
    out[i] = a * c[i] - b * s[i];
    out[half + i] = b * c[i] + a * s[i];
  }
}

// One row, kInterleaved: the pairs (j, j + 1) for even j, from tables spread to one value per column
// (c2 = [c0, c0, c1, c1, …], s2 = [−s0, s0, −s1, s1, …]): out = x·c2 + swap_pairs(x)·s2.
void rotate_pairs_row(const float* x, float* out, const float* c2, const float* s2, int64_t dim) {
  int64_t j = 0;
  for (; j + 4 <= dim; j += 4) {
    const Vec4 a = simd::load(x + j);  // [4] two pairs
    simd::store(out + j,
                simd::add(simd::mul(a, simd::load(c2 + j)), simd::mul(simd::swap_pairs(a), simd::load(s2 + j))));
  }
  for (; j < dim; j += 2) {
    const float a = x[j], b = x[j + 1];
    out[j] = a * c2[j] + b * s2[j];
    out[j + 1] = b * c2[j + 1] + a * s2[j + 1];
  }
}

}  // namespace

void apply_rope(const Rope& rope, const float* x, float* out, int64_t heads, int64_t len, int64_t d,
                int64_t first_row) {
  const int64_t dim = rope.dim, half = dim / 2;
  const bool interleaved = rope.style == RopeStyle::kInterleaved;
  std::vector<float> c2(interleaved ? dim : 0), s2(interleaved ? dim : 0);  // [dim] one table row, spread
  for (int64_t r = 0; r < len; ++r) {
    const float* c = rope.cos + (first_row + r) * half;  // [dim / 2]
    const float* s = rope.sin + (first_row + r) * half;  // [dim / 2]
    for (int64_t i = 0; interleaved && i < half; ++i) {
      c2[2 * i] = c2[2 * i + 1] = c[i];
      s2[2 * i] = -s[i];
      s2[2 * i + 1] = s[i];
    }
    for (int64_t h = 0; h < heads; ++h) {
      const float* row = x + (h * len + r) * d;  // [d]
      float* row_out = out + (h * len + r) * d;  // [d]
      if (interleaved) {
        rotate_pairs_row(row, row_out, c2.data(), s2.data(), dim);
      } else {
        rotate_half_row(row, row_out, c, s, half);
      }
      if (row_out != row) std::copy(row + dim, row + d, row_out + dim);
    }
  }
}

void check_rope(const Rope& rope, int64_t d_k, int64_t len_q, int64_t len_k) {
  if (rope.style == RopeStyle::kNone) return;
  auto require = [](bool ok, const char* code, const char* message) {
    if (!ok) throw AttentionError(code, message);
  };
  require(rope.style == RopeStyle::kHalf || rope.style == RopeStyle::kInterleaved, "BAD_OPTION",
          "rope.style must be kNone, kHalf or kInterleaved");
  require(rope.dim > 0 && rope.dim % 2 == 0 && rope.dim <= d_k, "BAD_OPTION", "rope.dim must be even, 2 to d_k");
  require(rope.cos && rope.sin, "NULL_ARGUMENT", "rope.cos and rope.sin must not be null");
  require(len_q <= len_k, "BAD_OPTION", "a rope needs len_q <= len_k (queries take the last keys' positions)");
}

RotatedQk rotate_qk(const Rope& rope, const float* q, const float* k, float* q_out, float* k_out,
                    const AttentionDims& d) {
  if (rope.style == RopeStyle::kNone) return {q, k, {}};
  const int64_t q_size = int64_t{d.batch} * d.num_heads * d.len_q * d.d_k;
  const int64_t k_size = int64_t{d.batch} * d.num_kv_heads * d.len_k * d.d_k;
  RotatedQk r{nullptr, nullptr, {}};
  r.own.resize((q_out ? 0 : q_size) + (k_out ? 0 : k_size));
  float* q_rot = q_out ? q_out : r.own.data();
  float* k_rot = k_out ? k_out : r.own.data() + (q_out ? 0 : q_size);
  apply_rope(rope, q, q_rot, int64_t{d.batch} * d.num_heads, d.len_q, d.d_k, d.len_k - d.len_q);
  apply_rope(rope, k, k_rot, int64_t{d.batch} * d.num_kv_heads, d.len_k, d.d_k, 0);
  if (!kernels::all_finite(q_rot, q_size) || !kernels::all_finite(k_rot, k_size)) {
    throw AttentionError("PROJECTION_OVERFLOW", "q or k rotated by the rope overflowed float32; scale q and k down");
  }
  r.q = q_rot;
  r.k = k_rot;
  return r;
}

}  // namespace attention
