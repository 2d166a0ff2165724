#include "kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "vec4.h"

namespace attention::kernels {
namespace {

using simd::Vec4;

// Query rows per register tile: 4 rows × 8 keys (or 8 value columns) keep 8 accumulators, 2 loaded vectors
// and a broadcast value in registers, which fits the 16 of SSE and of V8's WebAssembly SIMD code.
constexpr int64_t kRowTile = 4;

int64_t group_end(const int64_t* row_end, int64_t r0, int64_t rows, int64_t fallback) {
  if (!row_end) return fallback;
  int64_t end = 0;
  for (int64_t r = r0; r < r0 + rows; ++r) end = std::max(end, row_end[r]);
  return std::min(end, fallback);
}

// R query rows × one panel of 8 keys.
template <int R>
void scores_tile(const float* q, int64_t d_k, const float* panel, float scale, float* s, int64_t ld_s,
                 int64_t width) {
  Vec4 acc[R][2];
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = simd::splat(0.0f);
  for (int64_t c = 0; c < d_k; ++c) {
    const Vec4 k0 = simd::load(panel + c * kKeyPanel);      // keys 0-3 of column c
    const Vec4 k1 = simd::load(panel + c * kKeyPanel + 4);  // keys 4-7
    for (int r = 0; r < R; ++r) {
      const Vec4 a = simd::load_splat(q + r * d_k + c);
      acc[r][0] = simd::add(acc[r][0], simd::mul(a, k0));
      acc[r][1] = simd::add(acc[r][1], simd::mul(a, k1));
    }
  }
  const Vec4 sc = simd::splat(scale);
  for (int r = 0; r < R; ++r) {
    float* out = s + r * ld_s;
    if (width == kKeyPanel) {
      simd::store(out, simd::mul(acc[r][0], sc));
      simd::store(out + 4, simd::mul(acc[r][1], sc));
    } else {
      float tmp[kKeyPanel];
      simd::store(tmp, simd::mul(acc[r][0], sc));
      simd::store(tmp + 4, simd::mul(acc[r][1], sc));
      std::copy(tmp, tmp + width, out);
    }
  }
}

// R rows × C·4 value columns: o[r, 0:4C] (+)= Σ_j p[r, j] · v[j, 0:4C].
template <int R, int C>
void weighted_tile(const float* p, int64_t ld_p, int64_t keys, const float* v, int64_t d_v, float* o,
                   bool accumulate) {
  Vec4 acc[R][C];
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) acc[r][c] = accumulate ? simd::load(o + r * d_v + 4 * c) : simd::splat(0.0f);
  }
  for (int64_t j = 0; j < keys; ++j) {
    Vec4 vj[C];
    for (int c = 0; c < C; ++c) vj[c] = simd::load(v + j * d_v + 4 * c);
    for (int r = 0; r < R; ++r) {
      const Vec4 w = simd::load_splat(p + r * ld_p + j);
      for (int c = 0; c < C; ++c) acc[r][c] = simd::add(acc[r][c], simd::mul(w, vj[c]));
    }
  }
  for (int r = 0; r < R; ++r) {
    for (int c = 0; c < C; ++c) simd::store(o + r * d_v + 4 * c, acc[r][c]);
  }
}

// R rows × one value column: the d_v % 4 tail.
template <int R>
void weighted_column(const float* p, int64_t ld_p, int64_t keys, const float* v, int64_t d_v, float* o,
                     bool accumulate) {
  for (int r = 0; r < R; ++r) {
    float sum = accumulate ? o[r * d_v] : 0.0f;
    for (int64_t j = 0; j < keys; ++j) sum += p[r * ld_p + j] * v[j * d_v];
    o[r * d_v] = sum;
  }
}

template <int R>
void weighted_rows(const float* p, int64_t ld_p, int64_t keys, const float* v, int64_t d_v, float* o,
                   bool accumulate) {
  int64_t c = 0;
  for (; c + 8 <= d_v; c += 8) weighted_tile<R, 2>(p, ld_p, keys, v + c, d_v, o + c, accumulate);
  for (; c + 4 <= d_v; c += 4) weighted_tile<R, 1>(p, ld_p, keys, v + c, d_v, o + c, accumulate);
  for (; c < d_v; ++c) weighted_column<R>(p, ld_p, keys, v + c, d_v, o + c, accumulate);
}

}  // namespace

void pack_keys(const float* k, int64_t len_k, int64_t d_k, float* packed) {
  for (int64_t j0 = 0; j0 < len_k; j0 += kKeyPanel) {
    float* panel = packed + j0 * d_k;  // [d_k, kKeyPanel]
    const int64_t width = std::min(kKeyPanel, len_k - j0);
    for (int64_t c = 0; c < d_k; ++c) {
      for (int64_t j = 0; j < kKeyPanel; ++j) panel[c * kKeyPanel + j] = j < width ? k[(j0 + j) * d_k + c] : 0.0f;
    }
  }
}

void query_key_scores(const float* q, int64_t rows, int64_t d_k, const float* packed, int64_t key_begin,
                      int64_t key_end, float scale, float* s, int64_t ld_s, const int64_t* row_end) {
  int64_t r0 = 0;
  for (; r0 < rows; r0 += kRowTile) {
    const int64_t tile_rows = std::min(kRowTile, rows - r0);
    const int64_t end = group_end(row_end, r0, tile_rows, key_end);
    for (int64_t j0 = key_begin; j0 < end; j0 += kKeyPanel) {
      const float* panel = packed + j0 * d_k;
      const int64_t width = std::min(kKeyPanel, key_end - j0);
      float* out = s + r0 * ld_s + (j0 - key_begin);
      if (tile_rows == kRowTile) {
        scores_tile<kRowTile>(q + r0 * d_k, d_k, panel, scale, out, ld_s, width);
      } else {
        for (int64_t r = 0; r < tile_rows; ++r) {
          scores_tile<1>(q + (r0 + r) * d_k, d_k, panel, scale, out + r * ld_s, ld_s, width);
        }
      }
    }
  }
}

void weighted_sum(const float* p, int64_t ld_p, int64_t rows, int64_t keys, const float* v, int64_t d_v, float* o,
                  bool accumulate, const int64_t* row_end) {
  for (int64_t r0 = 0; r0 < rows; r0 += kRowTile) {
    const int64_t tile_rows = std::min(kRowTile, rows - r0);
    const int64_t end = std::max<int64_t>(0, group_end(row_end, r0, tile_rows, keys));
    if (tile_rows == kRowTile) {
      weighted_rows<kRowTile>(p + r0 * ld_p, ld_p, end, v, d_v, o + r0 * d_v, accumulate);
    } else {
      for (int64_t r = r0; r < r0 + tile_rows; ++r) weighted_rows<1>(p + r * ld_p, ld_p, end, v, d_v, o + r * d_v, accumulate);
    }
  }
}

float row_max(const float* row, int64_t n, bool& nan) {
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  Vec4 m0 = simd::splat(kNegInf), m1 = m0;
  Vec4 bad = simd::splat(0.0f);
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const Vec4 x0 = simd::load(row + j), x1 = simd::load(row + j + 4);
    m0 = simd::max(m0, x0);
    m1 = simd::max(m1, x1);
    bad = simd::bit_or(bad, simd::bit_or(simd::is_nan(x0), simd::is_nan(x1)));
  }
  float m = simd::horizontal_max(simd::max(m0, m1));
  if (simd::any(bad)) nan = true;
  for (; j < n; ++j) {
    if (row[j] != row[j]) nan = true;
    m = row[j] > m ? row[j] : m;
  }
  return m;
}

float exp_and_sum(float* row, int64_t n, float max) {
  const Vec4 m = simd::splat(max);
  Vec4 s0 = simd::splat(0.0f), s1 = s0;
  int64_t j = 0;
  for (; j + 8 <= n; j += 8) {
    const Vec4 e0 = simd::exp_nonpositive(simd::sub(simd::load(row + j), m));
    const Vec4 e1 = simd::exp_nonpositive(simd::sub(simd::load(row + j + 4), m));
    simd::store(row + j, e0);
    simd::store(row + j + 4, e1);
    s0 = simd::add(s0, e0);
    s1 = simd::add(s1, e1);
  }
  if (j < n) {
    float tail[8];
    const int64_t rest = n - j;
    for (int64_t t = 0; t < 8; ++t) tail[t] = t < rest ? row[j + t] : -std::numeric_limits<float>::infinity();
    const Vec4 e0 = simd::exp_nonpositive(simd::sub(simd::load(tail), m));
    const Vec4 e1 = simd::exp_nonpositive(simd::sub(simd::load(tail + 4), m));
    simd::store(tail, e0);
    simd::store(tail + 4, e1);
    std::copy(tail, tail + rest, row + j);
    s0 = simd::add(s0, e0);
    s1 = simd::add(s1, e1);
  }
  return simd::horizontal_sum(simd::add(s0, s1));
}

void scale_row(float* row, int64_t n, float factor) {
  const Vec4 f = simd::splat(factor);
  int64_t j = 0;
  for (; j + 4 <= n; j += 4) simd::store(row + j, simd::mul(simd::load(row + j), f));
  for (; j < n; ++j) row[j] *= factor;
}

}  // namespace attention::kernels
