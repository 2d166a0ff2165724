#include "linear.h"

#include <Eigen/Core>
#include <algorithm>
#include <vector>

#include "../vec4.h"

namespace attention::model {
namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using StridedMap = Eigen::Map<const RowMatrix, Eigen::Unaligned, Eigen::OuterStride<>>;
namespace s = attention::simd;

// The few-rows product (a model's forward over its tokens: rows ≪ in, out). Eigen's GEMM packs the weight matrix
// (its larger operand) into a buffer at every call; here the weights are streamed once, in panels of kPanel columns
// by kDepth rows, each copied contiguous into a 16 KiB buffer (transposed from [out, in] weights) that stays in L1
// while every row pair of x passes over it.
constexpr int64_t kPanel = 16;        // output columns per panel: 4 vectors, a 64-byte line of [in, out] rows
constexpr int64_t kDepth = 256;       // input rows per panel: 16 KiB of weights
constexpr int64_t kLongDepth = 1024;  // columns of [out, in] weights per pass: 4 rows of them are 16 KiB
constexpr int64_t kFewRows = 96;      // up to this many rows of x, these kernels; more, Eigen's GEMM

// y[r, 0..16) (+)= Σ_k x[r, k] · p[k, 0..16) for rows r0, r0 + 1 (the second only when `two`), k in [0, depth).
//   x  rows of stride in; p a panel of stride ldp; y rows of stride ldy; `first`: overwrite instead of add.
template <bool two>
inline void panel_rows(const float* x0, const float* x1, const float* p, int64_t ldp, int64_t depth, float* y0,
                       float* y1, bool first) {
  s::Vec4 a[4], b[4];
  for (int j = 0; j < 4; ++j) {
    a[j] = first ? s::splat(0) : s::load(y0 + 4 * j);
    b[j] = first || !two ? s::splat(0) : s::load(y1 + 4 * j);
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
      b[0] = s::add(b[0], s::mul(v, w0));
      b[1] = s::add(b[1], s::mul(v, w1));
      b[2] = s::add(b[2], s::mul(v, w2));
      b[3] = s::add(b[3], s::mul(v, w3));
    }
  }
  for (int j = 0; j < 4; ++j) {
    s::store(y0 + 4 * j, a[j]);
    if (two) s::store(y1 + 4 * j, b[j]);
  }
}

// [out, in] weights: y[r, c0 + j] (+)= x[r, k0..k0 + depth) · w[c0 + j, k0..k0 + depth) for j < 4, rows r0 and
// r0 + 1 (the second only when `two`): 8 dot products at once, each weight row read once per row pair from L1.
template <bool two>
inline void dot_rows(const float* x0, const float* x1, const float* w, int64_t ldw, int64_t depth, float* y0, float* y1,
                     bool first) {
  s::Vec4 a[4] = {s::splat(0), s::splat(0), s::splat(0), s::splat(0)}, b[4] = {a[0], a[0], a[0], a[0]};
  int64_t k = 0;
  for (; k + 4 <= depth; k += 4) {
    const s::Vec4 u = s::load(x0 + k), v = two ? s::load(x1 + k) : u;
    for (int j = 0; j < 4; ++j) {
      const s::Vec4 row = s::load(w + j * ldw + k);
      a[j] = s::add(a[j], s::mul(u, row));
      if (two) b[j] = s::add(b[j], s::mul(v, row));
    }
  }
  for (int j = 0; j < 4; ++j) {
    float sa = s::horizontal_sum(a[j]), sb = two ? s::horizontal_sum(b[j]) : 0.0f;
    for (int64_t t = k; t < depth; ++t) {
      sa += x0[t] * w[j * ldw + t];
      if (two) sb += x1[t] * w[j * ldw + t];
    }
    y0[j] = first ? sa : y0[j] + sa;
    if (two) y1[j] = first ? sb : y1[j] + sb;
  }
}

// Each kernel is its own WebAssembly function, never inlined into linear() beside Eigen's GEMM (noinline here for
// clang; CMakeLists.txt keeps wasm-opt from inlining them back): Node 20's V8 compiles a function past ~8K virtual
// registers with a weaker register allocator (--turbo-use-mid-tier-regalloc-for-huge-functions), which made these
// loops ~1.5× slower in Node than in Chromium. Small functions get the full allocator everywhere.
#define ATTENTION_KERNEL __attribute__((noinline))

// y = x · w for rows ≤ kFewRows and [out, in] weights (no bias): 4 weight rows by kLongDepth columns at a time.
ATTENTION_KERNEL void few_rows_out_in(const float* x, int64_t rows, const Matrix& w, float* y) {
  const int64_t in = w.in, out = w.out, full = out / 4 * 4;
  for (int64_t k0 = 0; k0 < in; k0 += kLongDepth) {
    const int64_t depth = std::min(kLongDepth, in - k0);
    for (int64_t c0 = 0; c0 < full; c0 += 4) {
      const float* rows4 = w.data + c0 * w.ld + k0;
      int64_t r = 0;
      for (; r + 1 < rows; r += 2) {
        dot_rows<true>(x + r * in + k0, x + (r + 1) * in + k0, rows4, w.ld, depth, y + r * out + c0,
                       y + (r + 1) * out + c0, k0 == 0);
      }
      if (r < rows) dot_rows<false>(x + r * in + k0, nullptr, rows4, w.ld, depth, y + r * out + c0, nullptr, k0 == 0);
    }
  }
  for (int64_t c = full; c < out; ++c) {  // the last out % 4 rows of w
    for (int64_t r = 0; r < rows; ++r) {
      float sum = 0;
      for (int64_t k = 0; k < in; ++k) sum += x[r * in + k] * w.data[c * w.ld + k];
      y[r * out + c] = sum;
    }
  }
}

// y = x · w for rows ≤ kFewRows (no bias), both layouts.
ATTENTION_KERNEL void few_rows(const float* x, int64_t rows, const Matrix& w, float* y) {
  const int64_t in = w.in, out = w.out, full = out / kPanel * kPanel;
  std::vector<float> packed(kDepth * kPanel);  // [kDepth, kPanel]
  for (int64_t k0 = 0; k0 < in; k0 += kDepth) {
    const int64_t depth = std::min(kDepth, in - k0);
    for (int64_t c0 = 0; c0 < full; c0 += kPanel) {
      const float* panel = packed.data();
      const int64_t ldp = kPanel;
      if (w.layout == WeightLayout::kInOut) {
        for (int64_t k = 0; k < depth; ++k) {  // rows k0.. of [in, out], columns c0..: copied contiguous
          const float* from = w.data + (k0 + k) * w.ld + c0;
          float* to = packed.data() + k * kPanel;
          for (int j = 0; j < kPanel; j += 4) s::store(to + j, s::load(from + j));
        }
      } else {
        for (int64_t c = 0; c < kPanel; ++c) {  // rows c0.. of [out, in], columns k0..: transposed
          const float* from = w.data + (c0 + c) * w.ld + k0;
          for (int64_t k = 0; k < depth; ++k) packed[k * kPanel + c] = from[k];
        }
      }
      int64_t r = 0;
      for (; r + 1 < rows; r += 2) {
        panel_rows<true>(x + r * in + k0, x + (r + 1) * in + k0, panel, ldp, depth, y + r * out + c0,
                         y + (r + 1) * out + c0, k0 == 0);
      }
      if (r < rows) panel_rows<false>(x + r * in + k0, nullptr, panel, ldp, depth, y + r * out + c0, nullptr, k0 == 0);
    }
  }
  // the last out % 16 columns, one dot product each
  for (int64_t c = full; c < out; ++c) {
    for (int64_t r = 0; r < rows; ++r) {
      float sum = 0;
      for (int64_t k = 0; k < in; ++k) {
        sum += x[r * in + k] * (w.layout == WeightLayout::kInOut ? w.data[k * w.ld + c] : w.data[c * w.ld + k]);
      }
      y[r * out + c] = sum;
    }
  }
}

// y = x · w by Eigen's GEMM (more than kFewRows rows; no bias): apart, as the kernels above.
ATTENTION_KERNEL void many_rows(const float* x, int64_t rows, const Matrix& w, float* y) {
  Eigen::Map<RowMatrix> Y(y, rows, w.out);       // [rows, out]
  Eigen::Map<const RowMatrix> X(x, rows, w.in);  // [rows, in]
  if (w.layout == WeightLayout::kInOut) {
    Y.noalias() = X * StridedMap(w.data, w.in, w.out, Eigen::OuterStride<>(w.ld));  // [in, out]
  } else {
    Y.noalias() = X * StridedMap(w.data, w.out, w.in, Eigen::OuterStride<>(w.ld)).transpose();  // [out, in]ᵀ
  }
}

}  // namespace

Matrix matrix(const float* data, int64_t in, int64_t out, WeightLayout layout) {
  return {data, in, out, layout == WeightLayout::kInOut ? out : in, layout};
}

Matrix columns(const Matrix& w, int64_t first, int64_t count) {
  Matrix block = w;
  block.out = count;
  block.data = w.data + (w.layout == WeightLayout::kInOut ? first : first * w.ld);
  return block;
}

int64_t linear_scratch_bytes(int64_t rows, WeightLayout layout) {
  return rows <= kFewRows && layout == WeightLayout::kInOut ? kDepth * kPanel * int64_t{sizeof(float)} : 0;
}

void linear(const float* x, int64_t rows, const Matrix& w, const float* b, float* y) {
  Eigen::Map<RowMatrix> Y(y, rows, w.out);  // [rows, out]
  if (rows <= kFewRows) {
    if (w.layout == WeightLayout::kInOut) {
      few_rows(x, rows, w, y);
    } else {
      few_rows_out_in(x, rows, w, y);
    }
  } else {
    many_rows(x, rows, w, y);
  }
  if (b) Y.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(b, w.out);
}

}  // namespace attention::model
