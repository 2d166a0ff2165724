#include "mlp.h"

#include <cmath>
#include <vector>

#include "../vec4.h"

namespace attention::model {

namespace {

namespace s = attention::simd;

constexpr float kSqrt2OverPi = 0.7978845608028654f;

// x · sigmoid(z), as x · (z ≥ 0 ? 1 : e) / (1 + e) with e = e^−|z| ≤ 1 (no overflow): GELU's tanh form is
// x · sigmoid(2·√(2/π)·(x + 0.044715·x³)), since 0.5·(1 + tanh(u)) = sigmoid(2u); SiLU is x · sigmoid(x).
inline s::Vec4 times_sigmoid(s::Vec4 x, s::Vec4 z) {
  const s::Vec4 one = s::splat(1.0f);
  const s::Vec4 e = s::exp_nonpositive(s::mul(s::splat(-1.0f), s::max(z, s::sub(s::splat(0.0f), z))));
  const s::Vec4 nonnegative = s::and_not(one, s::less(z, s::splat(0.0f)));  // 1 where z ≥ 0, else 0
  const s::Vec4 numerator = s::add(e, s::mul(s::sub(one, e), nonnegative));
  return s::div(s::mul(x, numerator), s::add(one, e));
}

inline s::Vec4 gelu_tanh(s::Vec4 x) {
  const s::Vec4 cube = s::mul(s::mul(x, x), x);
  return times_sigmoid(x, s::mul(s::splat(2 * kSqrt2OverPi), s::add(x, s::mul(s::splat(0.044715f), cube))));
}

}  // namespace

// GELU (tanh) and SiLU four lanes at a time (vec4.h's exp: within ~3e-7 relative of the float64 value), GELU (erf)
// by std::erf.
void activate(Activation activation, float* values, int64_t n) {
  constexpr float kInvSqrt2 = 0.7071067811865476f;
  int64_t i = 0;
  if (activation == Activation::kGeluTanh || activation == Activation::kGeluTanhGated) {
    for (; i + 4 <= n; i += 4) s::store(values + i, gelu_tanh(s::load(values + i)));
  } else if (activation == Activation::kSiluGated) {
    for (; i + 4 <= n; i += 4) {
      const s::Vec4 x = s::load(values + i);
      s::store(values + i, times_sigmoid(x, x));
    }
  }
  for (; i < n; ++i) {
    const float x = values[i];
    switch (activation) {
      case Activation::kGeluTanh:
      case Activation::kGeluTanhGated:
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
  if (gated(activation)) {
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
