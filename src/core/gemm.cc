#include "gemm.h"

#include <algorithm>
#include <new>

#include "vec4.h"

namespace attention {
namespace {

namespace s = attention::simd;

// [in, out] weights are streamed in panels of kPanel columns by kDepth rows of k, each packed contiguous ([kDepth,
// kPanel], 16 KiB: in L1; kGroup columns packed at once, 256 KiB in L2) while every row pair of x in a block of
// kRowBlock rows passes over it; that block of x
// ([kRowBlock, kDepth], 128 KiB) stays in L2 while the panels pass. Two rows by 16 columns are 8 accumulators: with
// the 4 weight vectors and a row's value, 13 of the 16 SIMD registers V8 has on x86-64 (3 or 4 rows spill and ran at
// half the speed in Node 20). [out, in] weights need no packing: 4 weight rows by kDotDepth columns (16 KiB) stay in
// L1 while the row pairs pass, 8 dot products at once (a transposing pack ran at a third of the speed for one row).
constexpr int64_t kPanel = 16;
constexpr int64_t kDepth = 256;
constexpr int64_t kGroup = 256;  // columns of [in, out] weights packed at once: [kDepth, kGroup] is 256 KiB, in L2
constexpr int64_t kRowBlock = 128;
constexpr int64_t kDotDepth = 1024;
// Packed panels (gemm_panels) are read kPanelDepth rows of k at a time (48 KiB of a panel) by each row pair of a block
// of kRowBlock rows: one pass over the panels, the next panel's rows following on in memory.
constexpr int64_t kPanelDepth = 768;
static_assert(kPanel == kPanelColumns, "pack_panels' panels are the kernels' panels");

// The kernels are WebAssembly functions of their own, never inlined into one huge function: Node 20's V8 compiles a
// function past ~8K virtual registers with a weaker register allocator (--turbo-use-mid-tier-regalloc-for-huge-
// functions), which made these loops ~1.5× slower in Node than in Chromium (CMakeLists.txt keeps wasm-opt from
// inlining them back). dot_rows is inlined into rows_out_in, which stays small: a call per 4 columns and row pair
// cost [out, in] products at 1 to 32 rows about a quarter of their speed.
#define ATTENTION_KERNEL __attribute__((noinline))

// y0[0..16) = (first ? 0 : y0[0..16)) + Σ_k x0[k] · p[k, 0..16), k in [0, depth) in order, then + bias[0..16) when
// bias is given; the same for x1 and y1 when `two`. p: a panel of row stride ldp.
template <bool two>
ATTENTION_KERNEL void panel_rows(const float* x0, const float* x1, const float* p, int64_t ldp, int64_t depth,
                                 float* y0, float* y1, bool first, const float* bias) noexcept {
  s::Vec4 a[4], c[4];
  for (int j = 0; j < 4; ++j) {
    a[j] = first ? s::splat(0) : s::load(y0 + 4 * j);
    c[j] = first || !two ? s::splat(0) : s::load(y1 + 4 * j);
  }
  for (int64_t k = 0; k < depth; ++k, p += ldp) {
    const s::Vec4 w0 = s::load(p), w1 = s::load(p + 4), w2 = s::load(p + 8), w3 = s::load(p + 12);
    const s::Vec4 u = s::load_splat(x0 + k);
    a[0] = s::add(a[0], s::mul(u, w0));
    a[1] = s::add(a[1], s::mul(u, w1));
    a[2] = s::add(a[2], s::mul(u, w2));
    a[3] = s::add(a[3], s::mul(u, w3));
    if (two) {
      const s::Vec4 v = s::load_splat(x1 + k);
      c[0] = s::add(c[0], s::mul(v, w0));
      c[1] = s::add(c[1], s::mul(v, w1));
      c[2] = s::add(c[2], s::mul(v, w2));
      c[3] = s::add(c[3], s::mul(v, w3));
    }
  }
  for (int j = 0; j < 4; ++j) {
    if (bias) {
      a[j] = s::add(a[j], s::load(bias + 4 * j));
      if (two) c[j] = s::add(c[j], s::load(bias + 4 * j));
    }
    s::store(y0 + 4 * j, a[j]);
    if (two) s::store(y1 + 4 * j, c[j]);
  }
}

// The same for a panel of `width` < 16 columns (zeros past them): through a tile of two full rows.
ATTENTION_KERNEL void partial_panel_rows(const float* x0, const float* x1, const float* p, int64_t depth, float* y0,
                                         float* y1, int64_t width, bool first, const float* bias) noexcept {
  alignas(16) float tile[2 * kPanel] = {};  // [2, kPanel]
  float* y[2] = {y0, y1};
  const int rows = x1 ? 2 : 1;
  for (int r = 0; r < rows && !first; ++r) std::copy(y[r], y[r] + width, tile + r * kPanel);
  if (x1) {
    panel_rows<true>(x0, x1, p, kPanel, depth, tile, tile + kPanel, first, nullptr);
  } else {
    panel_rows<false>(x0, nullptr, p, kPanel, depth, tile, nullptr, first, nullptr);
  }
  for (int r = 0; r < rows; ++r) {
    for (int64_t j = 0; j < width; ++j) y[r][j] = bias ? tile[r * kPanel + j] + bias[j] : tile[r * kPanel + j];
  }
}

// p[k, j] = W[k0 + k, c0 + j] for k < depth and j < width, 0 for width ≤ j < 16; [in, out] weights.
ATTENTION_KERNEL void pack_in_out(const float* w, int64_t ld, int64_t k0, int64_t depth, int64_t c0, int64_t width,
                                  float* p) noexcept {
  for (int64_t k = 0; k < depth; ++k) {
    const float* from = w + (k0 + k) * ld + c0;
    float* to = p + k * kPanel;
    if (width == kPanel) {
      for (int j = 0; j < kPanel; j += 4) s::store(to + j, s::load(from + j));
    } else {
      std::fill(std::copy(from, from + width, to), to + kPanel, 0.0f);
    }
  }
}

// [out, in] weights (W[k, c] at w[c · ld + k], C of its rows from `w`): for columns j < C, rows x0 and (when `two`)
// x1, y[j] = (first ? 0 : y[j]) + s, then + bias[j] when given, where s is the sum of four float32 chains over
// k ≡ 0, 1, 2, 3 (mod 4), k < depth rounded down to 4, added as (c₀ + c₁) + (c₂ + c₃), then the last depth % 4
// products in order. Each value's arithmetic is the same whatever C and `two`.
template <bool two, int C>
inline void dot_rows(const float* x0, const float* x1, const float* w, int64_t ldw, int64_t depth, float* y0, float* y1,
                     bool first, const float* bias) noexcept {
  s::Vec4 a[C], c[C];
  for (int j = 0; j < C; ++j) a[j] = c[j] = s::splat(0);
  int64_t k = 0;
  for (; k + 4 <= depth; k += 4) {
    const s::Vec4 u = s::load(x0 + k), v = two ? s::load(x1 + k) : u;
    for (int j = 0; j < C; ++j) {
      const s::Vec4 row = s::load(w + j * ldw + k);
      a[j] = s::add(a[j], s::mul(u, row));
      if (two) c[j] = s::add(c[j], s::mul(v, row));
    }
  }
  for (int j = 0; j < C; ++j) {
    float sa = s::horizontal_sum(a[j]), sc = two ? s::horizontal_sum(c[j]) : 0.0f;
    for (int64_t t = k; t < depth; ++t) {
      sa += x0[t] * w[j * ldw + t];
      if (two) sc += x1[t] * w[j * ldw + t];
    }
    sa = first ? sa : y0[j] + sa;
    if (two) sc = first ? sc : y1[j] + sc;
    y0[j] = bias ? sa + bias[j] : sa;
    if (two) y1[j] = bias ? sc + bias[j] : sc;
  }
}

// y = x · W (+ b) for rows [r0, r1) and [out, in] weights, by blocks of kDotDepth columns of 4 weight rows.
ATTENTION_KERNEL void rows_out_in(const float* x, int64_t r0, int64_t r1, int64_t in, const float* w, int64_t ld,
                                  int64_t out, const float* b, float* y) noexcept {
  for (int64_t k0 = 0; k0 < in; k0 += kDotDepth) {
    const int64_t depth = std::min(kDotDepth, in - k0);
    const bool first = k0 == 0, last = k0 + depth == in;
    for (int64_t c0 = 0; c0 < out; c0 += 4) {
      const bool four = c0 + 4 <= out;
      for (int64_t c = c0; c < (four ? c0 + 1 : out); ++c) {  // 4 columns at once, or each of the last out % 4
        const float* rows = w + c * ld + k0;
        const float* bias = last && b ? b + c : nullptr;
        for (int64_t r = r0; r < r1; r += 2) {
          const float* x0 = x + r * in + k0;
          float* y0 = y + r * out + c;
          if (r + 1 < r1 && four) {
            dot_rows<true, 4>(x0, x0 + in, rows, ld, depth, y0, y0 + out, first, bias);
          } else if (four) {
            dot_rows<false, 4>(x0, nullptr, rows, ld, depth, y0, nullptr, first, bias);
          } else if (r + 1 < r1) {
            dot_rows<true, 1>(x0, x0 + in, rows, ld, depth, y0, y0 + out, first, bias);
          } else {
            dot_rows<false, 1>(x0, nullptr, rows, ld, depth, y0, nullptr, first, bias);
          }
        }
      }
    }
  }
}

// p[panel][k][j] = W[k0 + k, c0 + 16·panel + j] for the columns [c0, c0 + width) (width a multiple of kPanel), k <
// depth: kGroup columns packed at once, each row of W read left to right (a stream the hardware prefetches; a single
// panel's rows are `depth` lines at stride ld, which it does not).
ATTENTION_KERNEL void pack_group(const float* w, int64_t ld, int64_t k0, int64_t depth, int64_t c0, int64_t width,
                                 float* p) noexcept {
  for (int64_t k = 0; k < depth; ++k) {
    const float* from = w + (k0 + k) * ld + c0;
    float* to = p + k * kPanel;
    for (int64_t j = 0; j < width; j += kPanel, to += depth * kPanel) {
      for (int i = 0; i < kPanel; i += 4) s::store(to + i, s::load(from + j + i));
    }
  }
}

// y = x · W (+ b) for rows [r0, r1) and [in, out] weights, by panels: for 3 rows or more, packed kGroup columns at a
// time (pack_group), a last partial panel on its own; for 1 or 2 rows each weight is read once, in place.
void rows_in_out(const float* x, int64_t r0, int64_t r1, int64_t in, const float* w, int64_t ld, int64_t out,
                 const float* b, float* y) noexcept {
  alignas(16) float packed[kDepth * kGroup];  // [kGroup / kPanel, kDepth, kPanel]
  for (int64_t k0 = 0; k0 < in; k0 += kDepth) {
    const int64_t depth = std::min(kDepth, in - k0);
    const bool first = k0 == 0, last = k0 + depth == in;
    for (int64_t g0 = 0; g0 < out; g0 += kGroup) {
      const int64_t g1 = std::min(out, g0 + kGroup);
      const int64_t whole = (g1 - g0) / kPanel * kPanel;  // the group's full panels
      const bool grouped = r1 - r0 > 2;
      if (grouped && whole) pack_group(w, ld, k0, depth, g0, whole, packed);
      for (int64_t c0 = g0; c0 < g1; c0 += kPanel) {
        const int64_t width = std::min(kPanel, out - c0);
        const float* p = packed + (c0 - g0) * depth;
        int64_t ldp = kPanel;
        if (width == kPanel && !grouped) {  // each weight read once: in place
          p = w + k0 * ld + c0;
          ldp = ld;
        } else if (width < kPanel) {  // after the group's full panels (whole ≤ kGroup − kPanel)
          pack_in_out(w, ld, k0, depth, c0, width, packed + whole * depth);
        }
        const float* bias = last && b ? b + c0 : nullptr;
        for (int64_t r = r0; r < r1; r += 2) {
          const bool two = r + 1 < r1;
          const float* x0 = x + r * in + k0;
          const float* x1 = two ? x0 + in : nullptr;
          float* y0 = y + r * out + c0;
          float* y1 = two ? y0 + out : nullptr;
          if (width < kPanel) {
            partial_panel_rows(x0, x1, p, depth, y0, y1, width, first, bias);
          } else if (two) {
            panel_rows<true>(x0, x1, p, ldp, depth, y0, y1, first, bias);
          } else {
            panel_rows<false>(x0, nullptr, p, ldp, depth, y0, nullptr, first, bias);
          }
        }
      }
    }
  }
}

// Rows per block of x: at most kRowBlock, even, the blocks as equal as may be.
int64_t row_block(int64_t rows) {
  const int64_t blocks = (rows + kRowBlock - 1) / kRowBlock;
  return ((rows + blocks - 1) / blocks + 1) / 2 * 2;
}

// Empty sums (in = 0): y = 0 (+ b).
void empty_sums(int64_t rows, int64_t out, const float* b, float* y) {
  for (int64_t r = 0; r < rows; ++r) {
    for (int64_t c = 0; c < out; ++c) y[r * out + c] = b ? 0.0f + b[c] : 0.0f;
  }
}

}  // namespace

bool pack_panels(float* w, int64_t in, int64_t out) noexcept {
  if (out % kPanel) return false;
  if (in <= 0 || out <= 0) return true;
  float* copy = new (std::nothrow) float[in * out];
  if (!copy) return false;
  std::copy_n(w, in * out, copy);
  for (int64_t c0 = 0; c0 < out; c0 += kPanel) pack_in_out(copy, out, 0, in, c0, kPanel, w + c0 * in);
  delete[] copy;
  return true;
}

void gemm_panels(const float* x, int64_t rows, int64_t in, const float* packed, int64_t out, const float* b,
                 float* y) noexcept {
  if (rows <= 0 || out <= 0) return;
  if (in <= 0) return empty_sums(rows, out, b, y);
  const int64_t block_rows = row_block(rows);
  for (int64_t r0 = 0; r0 < rows; r0 += block_rows) {
    const int64_t r1 = std::min(rows, r0 + block_rows);
    for (int64_t c0 = 0; c0 < out; c0 += kPanel) {
      for (int64_t k0 = 0; k0 < in; k0 += kPanelDepth) {
        const int64_t depth = std::min(kPanelDepth, in - k0);
        const bool first = k0 == 0, last = k0 + depth == in;
        const float* p = packed + c0 * in + k0 * kPanel;
        const float* bias = last && b ? b + c0 : nullptr;
        for (int64_t r = r0; r < r1; r += 2) {
          const float* x0 = x + r * in + k0;
          float* y0 = y + r * out + c0;
          if (r + 1 < r1) {
            panel_rows<true>(x0, x0 + in, p, kPanel, depth, y0, y0 + out, first, bias);
          } else {
            panel_rows<false>(x0, nullptr, p, kPanel, depth, y0, nullptr, first, bias);
          }
        }
      }
    }
  }
}

void gemm(const float* x, int64_t rows, int64_t in, const float* w, int64_t ld, WeightLayout layout, int64_t out,
          const float* b, float* y) noexcept {
  if (rows <= 0 || out <= 0) return;
  if (in <= 0) return empty_sums(rows, out, b, y);
  const int64_t block_rows = row_block(rows);
  for (int64_t r0 = 0; r0 < rows; r0 += block_rows) {
    const int64_t r1 = std::min(rows, r0 + block_rows);
    if (layout == WeightLayout::kInOut) {
      rows_in_out(x, r0, r1, in, w, ld, out, b, y);
    } else {
      rows_out_in(x, r0, r1, in, w, ld, out, b, y);
    }
  }
}

}  // namespace attention
