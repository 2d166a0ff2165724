#include "linear.h"

#include <Eigen/Core>

namespace attention::model {
namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using StridedMap = Eigen::Map<const RowMatrix, Eigen::Unaligned, Eigen::OuterStride<>>;

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

void linear(const float* x, int64_t rows, const Matrix& w, const float* b, float* y) {
  Eigen::Map<const RowMatrix> X(x, rows, w.in);  // [rows, in]
  Eigen::Map<RowMatrix> Y(y, rows, w.out);       // [rows, out]
  if (w.layout == WeightLayout::kInOut) {
    Y.noalias() = X * StridedMap(w.data, w.in, w.out, Eigen::OuterStride<>(w.ld));  // [in, out]
  } else {
    Y.noalias() = X * StridedMap(w.data, w.out, w.in, Eigen::OuterStride<>(w.ld)).transpose();  // [out, in]ᵀ
  }
  if (b) Y.rowwise() += Eigen::Map<const Eigen::RowVectorXf>(b, w.out);
}

}  // namespace attention::model
