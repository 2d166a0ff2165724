#include "linear.h"

#include "../gemm.h"

namespace attention::model {

Matrix matrix(const float* data, int64_t in, int64_t out, WeightLayout layout) {
  return {data, in, out, layout == WeightLayout::kInOut ? out : in, layout};
}

Matrix panels(const float* data, int64_t in, int64_t out) {
  Matrix packed{data, in, out, out, WeightLayout::kInOut};
  packed.panels = true;
  return packed;
}

Matrix columns(const Matrix& w, int64_t first, int64_t count) {
  Matrix block = w;
  block.out = count;
  block.data = w.data + (w.layout == WeightLayout::kInOut ? first : first * w.ld);
  return block;
}

void linear(const float* x, int64_t rows, const Matrix& w, const float* b, float* y) {
  if (w.panels) {
    gemm_panels(x, rows, w.in, w.data, w.out, b, y);
  } else {
    gemm(x, rows, w.in, w.data, w.ld, w.layout, w.out, b, y);
  }
}

}  // namespace attention::model
