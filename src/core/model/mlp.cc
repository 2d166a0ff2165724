#include "mlp.h"

#include <cmath>
#include <vector>

namespace attention::model {

void activate(Activation activation, float* values, int64_t n) {
  constexpr float kSqrt2OverPi = 0.7978845608028654f;
  constexpr float kInvSqrt2 = 0.7071067811865476f;
  for (int64_t i = 0; i < n; ++i) {
    const float x = values[i];
    switch (activation) {
      case Activation::kGeluTanh:
        values[i] = 0.5f * x * (1.0f + std::tanh(kSqrt2OverPi * (x + 0.044715f * x * x * x)));
        break;
      case Activation::kGeluErf: values[i] = 0.5f * x * (1.0f + std::erf(x * kInvSqrt2)); break;
      case Activation::kSiluGated: values[i] = x / (1.0f + std::exp(-x)); break;
    }
  }
}

void mlp(Activation activation, const float* x, int64_t rows, const MlpWeights& w, float* hidden, float* out) {
  const int64_t d_ff = w.up.out;
  linear(x, rows, w.up, w.b_up, hidden);  // [rows, d_ff]
  if (activation == Activation::kSiluGated) {
    std::vector<float> gate(rows * d_ff);  // [rows, d_ff]
    linear(x, rows, w.gate, w.b_gate, gate.data());
    activate(activation, gate.data(), rows * d_ff);
    for (int64_t i = 0; i < rows * d_ff; ++i) hidden[i] *= gate[i];
  } else {
    activate(activation, hidden, rows * d_ff);
  }
  linear(hidden, rows, w.down, w.b_down, out);  // [rows, d]
}

}  // namespace attention::model
