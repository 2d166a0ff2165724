#include "norms.h"

#include <cmath>

namespace attention::model {
namespace {

// Σ (x − mean)² of one row [d], in double (Σ x² with mean 0).
double row_square(const float* in, int64_t d, double mean) {
  double square = 0;
  for (int64_t c = 0; c < d; ++c) square += (in[c] - mean) * (in[c] - mean);
  return square;
}

// row = (in − mean) · inverse · weight (+ bias), each value in double, then float32.
void write_row(NormKind kind, const float* in, int64_t d, double mean, double inverse, const float* weight,
               const float* bias, float* row) {
  for (int64_t c = 0; c < d; ++c) {
    const double scale = kind == NormKind::kRmsNormPlusOne ? 1.0 + weight[c] : weight[c];
    const double value = (in[c] - mean) * inverse * scale + (bias ? bias[c] : 0.0);
    row[c] = static_cast<float>(value);
  }
}

}  // namespace

void norm(NormKind kind, const float* x, int64_t rows, int64_t d, const float* weight, const float* bias, float eps,
          float* out) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* in = x + r * d;  // [d]
    double mean = 0;
    if (kind == NormKind::kLayerNorm) {
      for (int64_t c = 0; c < d; ++c) mean += in[c];
      mean /= static_cast<double>(d);
    }
    const double inverse = 1.0 / std::sqrt(row_square(in, d, mean) / static_cast<double>(d) + eps);
    write_row(kind, in, d, mean, inverse, weight, bias, out + r * d);
  }
}

void square_sums(const float* x, int64_t rows, int64_t d, double* out) {
  for (int64_t r = 0; r < rows; ++r) out[r] = row_square(x + r * d, d, 0.0);
}

void rms_scale(NormKind kind, const float* x, int64_t rows, int64_t d, const float* weight, const double* inverses,
               float* out) {
  for (int64_t r = 0; r < rows; ++r) write_row(kind, x + r * d, d, 0.0, inverses[r], weight, nullptr, out + r * d);
}

}  // namespace attention::model
