#include "norms.h"

#include <cmath>

namespace attention::model {

void norm(NormKind kind, const float* x, int64_t rows, int64_t d, const float* weight, const float* bias, float eps,
          float* out) {
  for (int64_t r = 0; r < rows; ++r) {
    const float* in = x + r * d;  // [d]
    float* row = out + r * d;     // [d]
    double mean = 0;
    if (kind == NormKind::kLayerNorm) {
      for (int64_t c = 0; c < d; ++c) mean += in[c];
      mean /= static_cast<double>(d);
    }
    double square = 0;  // Σ (x − mean)², or Σ x² for RMSNorm (mean 0)
    for (int64_t c = 0; c < d; ++c) square += (in[c] - mean) * (in[c] - mean);
    const double inverse = 1.0 / std::sqrt(square / static_cast<double>(d) + eps);
    for (int64_t c = 0; c < d; ++c) {
      const double scale = kind == NormKind::kRmsNormPlusOne ? 1.0 + weight[c] : weight[c];
      const double value = (in[c] - mean) * inverse * scale + (bias ? bias[c] : 0.0);
      row[c] = static_cast<float>(value);
    }
  }
}

}  // namespace attention::model
