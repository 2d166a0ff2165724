#include "kernels.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "attention.h"  // find_non_finite's declaration
#include "vec4.h"

namespace attention::kernels {
namespace {

using simd::Vec4;

// Rows per register tile: 4 rows × 8 columns keep 8 accumulators, 2 loaded vectors and a broadcast value in
// registers, within the 16 of SSE and of V8's WebAssembly SIMD code (6 rows spill there and run 30% slower).
constexpr int64_t kRowTile = 4;

// How far the rows [r0, r0 + rows) need columns: the largest row_end, at most `limit`.
int64_t tile_end(const int64_t* row_end, int64_t r0, int64_t rows, int64_t limit) {
  if (!row_end) return limit;
  int64_t end = 0;
  for (int64_t r = r0; r < r0 + rows; ++r) end = std::max(end, row_end[r]);
  return std::clamp<int64_t>(end, 0, limit);
}

// R query rows × one panel of kKeyPanel keys; `width` <= kKeyPanel of them are stored.
template <int R>
void scores_tile(const float* q, int64_t d_k, const float* panel, Vec4 scale, float* s, int64_t ld_s, int64_t width) {
  Vec4 acc[R][2];
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = simd::splat(0.0f);
  for (int64_t c = 0; c < d_k; ++c) {
    const Vec4 k0 = simd::load(panel + c * kKeyPanel);      // [4] keys 0-3 at column c
    const Vec4 k1 = simd::load(panel + c * kKeyPanel + 4);  // [4] keys 4-7
    for (int r = 0; r < R; ++r) {
      const Vec4 a = simd::load_splat(q + r * d_k + c);
      acc[r][0] = simd::add(acc[r][0], simd::mul(a, k0));
      acc[r][1] = simd::add(acc[r][1], simd::mul(a, k1));
    }
  }
  for (int r = 0; r < R; ++r) {
    float* out = s + r * ld_s;
    if (width == kKeyPanel) {
      simd::store(out, simd::mul(acc[r][0], scale));
      simd::store(out + 4, simd::mul(acc[r][1], scale));
    } else {
      float tmp[kKeyPanel];
      simd::store(tmp, simd::mul(acc[r][0], scale));
      simd::store(tmp + 4, simd::mul(acc[r][1], scale));
      std::copy(tmp, tmp + width, out);
    }
  }
}

// R rows × one panel of kValuePanel value columns; `width` <= kValuePanel of them are stored.
template <int R>
void weighted_tile(const float* p, int64_t ld_p, int64_t keys, const float* panel, float* o, int64_t d_v, int64_t width,
                   bool accumulate) {
  Vec4 acc[R][2];
  for (int r = 0; r < R; ++r) acc[r][0] = acc[r][1] = simd::splat(0.0f);
  for (int64_t j = 0; j < keys; ++j) {
    const Vec4 v0 = simd::load(panel + j * kValuePanel);      // [4] columns 0-3 of key j
    const Vec4 v1 = simd::load(panel + j * kValuePanel + 4);  // [4] columns 4-7
    for (int r = 0; r < R; ++r) {
      const Vec4 w = simd::load_splat(p + r * ld_p + j);
      acc[r][0] = simd::add(acc[r][0], simd::mul(w, v0));
      acc[r][1] = simd::add(acc[r][1], simd::mul(w, v1));
    }
  }
  for (int r = 0; r < R; ++r) {
    float* out = o + r * d_v;
    if (width == kValuePanel) {
      if (accumulate) {
        acc[r][0] = simd::add(acc[r][0], simd::load(out));
        acc[r][1] = simd::add(acc[r][1], simd::load(out + 4));
      }
      simd::store(out, acc[r][0]);
      simd::store(out + 4, acc[r][1]);
    } else {
      float tmp[kValuePanel];
      simd::store(tmp, acc[r][0]);
      simd::store(tmp + 4, acc[r][1]);
      for (int64_t c = 0; c < width; ++c) out[c] = accumulate ? out[c] + tmp[c] : tmp[c];
    }
  }
}

// tanh of four finite values, within a few float32 ulps (std::tanh took 1.5x the time of a causal attention call
// of n = 512, d_k = 64 with its scalar calls): below |x| = 1/4 its odd Taylor series to x¹¹ (the next term is under
// 3e-11 of x); above, (1 − e)/(1 + e) with e = e^−2|x| (vec4.h's exp; 1 − e ≥ 0.39 there, so no cancellation), the
// sign put back. Each lane takes one branch by a factor of 0 or 1; both are finite for every finite x.
Vec4 tanh4(Vec4 x) {
  const Vec4 one = simd::splat(1.0f), zero = simd::splat(0.0f);
  const Vec4 a = simd::max(x, simd::sub(zero, x));  // |x|
  const Vec4 quarter = simd::splat(0.25f), minus_quarter = simd::splat(-0.25f);
  // x clamped to [−1/4, 1/4] for the series, so that a large x cannot make it inf (inf · 0 is NaN)
  const Vec4 xs = simd::sub(zero, simd::max(simd::sub(zero, simd::max(x, minus_quarter)), minus_quarter));
  const Vec4 x2 = simd::mul(xs, xs);
  Vec4 p = simd::splat(-1382.0f / 155925.0f);
  p = simd::add(simd::mul(p, x2), simd::splat(62.0f / 2835.0f));
  p = simd::add(simd::mul(p, x2), simd::splat(-17.0f / 315.0f));
  p = simd::add(simd::mul(p, x2), simd::splat(2.0f / 15.0f));
  p = simd::add(simd::mul(p, x2), simd::splat(-1.0f / 3.0f));
  const Vec4 small = simd::add(xs, simd::mul(xs, simd::mul(x2, p)));
  const Vec4 e = simd::exp_nonpositive(simd::mul(simd::splat(-2.0f), a));
  const Vec4 sign = simd::sub(simd::mul(simd::splat(2.0f), simd::and_not(one, simd::less(x, zero))), one);  // ±1
  const Vec4 large = simd::mul(sign, simd::div(simd::sub(one, e), simd::add(one, e)));
  const Vec4 is_large = simd::and_not(one, simd::less(a, quarter));  // 1 where |x| >= 1/4, else 0
  return simd::add(simd::mul(small, simd::sub(one, is_large)), simd::mul(large, is_large));
}

}  // namespace

void pack_keys(const float* k, int64_t len_k, int64_t d_k, float* packed) noexcept {
  for (int64_t j0 = 0; j0 < len_k; j0 += kKeyPanel) {
    float* panel = packed + j0 * d_k;  // [d_k, kKeyPanel]
    const int64_t width = std::min(kKeyPanel, len_k - j0);
    if (width < kKeyPanel) std::fill(panel, panel + d_k * kKeyPanel, 0.0f);
    for (int64_t j = 0; j < width; ++j) {
      const float* key = k + (j0 + j) * d_k;
      for (int64_t c = 0; c < d_k; ++c) panel[c * kKeyPanel + j] = key[c];
    }
  }
}

void pack_values(const float* v, int64_t len_k, int64_t d_v, float* packed) noexcept {
  for (int64_t c0 = 0; c0 < d_v; c0 += kValuePanel) {
    float* panel = packed + c0 * len_k;  // [len_k, kValuePanel]
    const int64_t width = std::min(kValuePanel, d_v - c0);
    if (width == kValuePanel) {
      for (int64_t j = 0; j < len_k; ++j) {
        simd::store(panel + j * kValuePanel, simd::load(v + j * d_v + c0));
        simd::store(panel + j * kValuePanel + 4, simd::load(v + j * d_v + c0 + 4));
      }
      continue;
    }
    std::fill(panel, panel + len_k * kValuePanel, 0.0f);
    for (int64_t j = 0; j < len_k; ++j) std::copy(v + j * d_v + c0, v + j * d_v + c0 + width, panel + j * kValuePanel);
  }
}

void query_key_scores(const float* q, int64_t rows, int64_t d_k, const float* packed, int64_t key_begin, int64_t keys,
                      float scale, float* s, int64_t ld_s, const int64_t* row_end) noexcept {
  const Vec4 sc = simd::splat(scale);
  for (int64_t r0 = 0; r0 < rows; r0 += kRowTile) {
    const int64_t tile_rows = std::min(kRowTile, rows - r0);
    const int64_t end = tile_end(row_end, r0, tile_rows, keys);
    for (int64_t j0 = 0; j0 < end; j0 += kKeyPanel) {
      const float* panel = packed + (key_begin + j0) * d_k;
      const int64_t width = std::min(kKeyPanel, keys - j0);
      float* out = s + r0 * ld_s + j0;
      if (tile_rows == kRowTile) {
        scores_tile<kRowTile>(q + r0 * d_k, d_k, panel, sc, out, ld_s, width);
      } else {
        for (int64_t r = 0; r < tile_rows; ++r) {
          scores_tile<1>(q + (r0 + r) * d_k, d_k, panel, sc, out + r * ld_s, ld_s, width);
        }
      }
    }
  }
}

void weighted_sum(const float* p, int64_t ld_p, int64_t rows, const float* packed, int64_t len_k, int64_t key_begin,
                  int64_t keys, int64_t d_v, float* o, bool accumulate, const int64_t* row_end) noexcept {
  for (int64_t r0 = 0; r0 < rows; r0 += kRowTile) {
    const int64_t tile_rows = std::min(kRowTile, rows - r0);
    const int64_t end = tile_end(row_end, r0, tile_rows, keys);
    for (int64_t c0 = 0; c0 < d_v; c0 += kValuePanel) {
      const float* panel = packed + c0 * len_k + key_begin * kValuePanel;
      const int64_t width = std::min(kValuePanel, d_v - c0);
      if (tile_rows == kRowTile) {
        weighted_tile<kRowTile>(p + r0 * ld_p, ld_p, end, panel, o + r0 * d_v + c0, d_v, width, accumulate);
      } else {
        for (int64_t r = r0; r < r0 + tile_rows; ++r) {
          weighted_tile<1>(p + r * ld_p, ld_p, end, panel, o + r * d_v + c0, d_v, width, accumulate);
        }
      }
    }
  }
}

float row_max(const float* row, int64_t n, bool& nan) noexcept {
  Vec4 m0 = simd::splat(-std::numeric_limits<float>::infinity()), m1 = m0;
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

bool all_finite(const float* row, int64_t n) noexcept {
  // x - x is NaN for ±inf and NaN. Four independent chains, so that the loop is not one long dependency.
  Vec4 bad0 = simd::splat(0.0f), bad1 = bad0, bad2 = bad0, bad3 = bad0;
  int64_t j = 0;
  for (; j + 16 <= n; j += 16) {
    const Vec4 x0 = simd::load(row + j), x1 = simd::load(row + j + 4);
    const Vec4 x2 = simd::load(row + j + 8), x3 = simd::load(row + j + 12);
    bad0 = simd::bit_or(bad0, simd::is_nan(simd::sub(x0, x0)));
    bad1 = simd::bit_or(bad1, simd::is_nan(simd::sub(x1, x1)));
    bad2 = simd::bit_or(bad2, simd::is_nan(simd::sub(x2, x2)));
    bad3 = simd::bit_or(bad3, simd::is_nan(simd::sub(x3, x3)));
  }
  Vec4 bad = simd::bit_or(simd::bit_or(bad0, bad1), simd::bit_or(bad2, bad3));
  for (; j + 4 <= n; j += 4) {
    const Vec4 x = simd::load(row + j);
    bad = simd::bit_or(bad, simd::is_nan(simd::sub(x, x)));
  }
  bool finite = !simd::any(bad);
  for (; j < n; ++j) finite = finite && row[j] - row[j] == 0.0f;
  return finite;
}

float max_abs(const float* x, int64_t n) noexcept {
  const Vec4 sign = simd::splat(-0.0f);
  Vec4 m = simd::splat(0.0f), bad = m;
  int64_t j = 0;
  for (; j + 4 <= n; j += 4) {
    const Vec4 a = simd::load(x + j);
    m = simd::max(m, simd::and_not(a, sign));
    bad = simd::bit_or(bad, simd::is_nan(simd::sub(a, a)));
  }
  float max = simd::horizontal_max(m);
  bool finite = !simd::any(bad);
  for (; j < n; ++j) {
    finite = finite && x[j] - x[j] == 0.0f;
    max = std::max(max, std::abs(x[j]));
  }
  return finite ? max : std::numeric_limits<float>::infinity();
}

float exp_and_sum(float* row, int64_t n, float max) noexcept {
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

void softcap_row(float* row, int64_t n, float cap) noexcept {
  const Vec4 c = simd::splat(cap);
  int64_t j = 0;
  for (; j + 4 <= n; j += 4) simd::store(row + j, simd::mul(tanh4(simd::div(simd::load(row + j), c)), c));
  if (j < n) {  // the last values through the same lanes, so that every value gets the same formula
    float tail[4] = {0, 0, 0, 0};
    std::copy(row + j, row + n, tail);
    simd::store(tail, simd::mul(tanh4(simd::div(simd::load(tail), c)), c));
    std::copy(tail, tail + (n - j), row + j);
  }
}

void mask_row(float* row, int64_t key_begin, int64_t first, int64_t n, float softcap, const RowMasking& m) noexcept {
  std::fill(row, row + first, -std::numeric_limits<float>::infinity());
  if (softcap > 0) softcap_row(row + first, n - first, softcap);
  if (m.allowed) {
    const uint8_t* allowed = m.allowed + key_begin * m.key_stride;
    for (int64_t j = first; j < n; ++j) {
      if (!allowed[j * m.key_stride]) row[j] = -std::numeric_limits<float>::infinity();
    }
  } else if (m.additive) {
    const float* additive = m.additive + key_begin * m.key_stride;
    for (int64_t j = first; j < n; ++j) row[j] += additive[j * m.key_stride];
  }
}

void scale_row(float* row, int64_t n, float factor) noexcept {
  const Vec4 f = simd::splat(factor);
  int64_t j = 0;
  for (; j + 4 <= n; j += 4) simd::store(row + j, simd::mul(simd::load(row + j), f));
  for (; j < n; ++j) row[j] *= factor;
}

}  // namespace attention::kernels

namespace attention {

const char* kernel_backend() noexcept { return simd::kBackendName; }

int64_t find_non_finite(const float* data, int64_t count, bool allow_negative_infinity) noexcept {
  constexpr int64_t kBlock = 1024;  // vector test a block at a time; look closer only at a failing block
  for (int64_t begin = 0; begin < count; begin += kBlock) {
    const int64_t end = std::min(count, begin + kBlock);
    if (kernels::all_finite(data + begin, end - begin)) continue;
    for (int64_t i = begin; i < end; ++i) {
      const float x = data[i];
      if (!std::isfinite(x) && !(allow_negative_infinity && x == -std::numeric_limits<float>::infinity())) {
        return i;
      }
    }
  }
  return -1;
}

}  // namespace attention
