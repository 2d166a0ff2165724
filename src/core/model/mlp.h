// The feed-forward block of a transformer layer, with the activations of the three families.
#pragma once

#include <cstdint>

#include "../abi.h"
#include "linear.h"

namespace attention::model {

// In place, values[0, n) = act(values): kGeluTanh 0.5·x·(1 + tanh(√(2/π)·(x + 0.044715·x³))) (GPT-2's gelu_new),
// kGeluErf 0.5·x·(1 + erf(x/√2)) (BERT's gelu), kSiluGated silu(x) = x / (1 + e^−x) (the gate of LLaMA's MLP).
// kGeluTanhGated: kGeluTanh's, on the gate of Gemma's MLP.
void activate(Activation activation, float* values, int64_t n);

// Whether the MLP has a gate: kSiluGated, kGeluTanhGated.
inline bool gated(Activation activation) {
  return activation == Activation::kSiluGated || activation == Activation::kGeluTanhGated;
}

struct MlpWeights {
  Matrix up, gate, down;  // gate.data is null unless gated(activation)
  const float *b_up = nullptr, *b_gate = nullptr, *b_down = nullptr;
};

// out = down(act(up(x))), or down(act(gate(x)) · up(x)) when gated(activation) (silu, or Gemma's gelu_tanh).
//
//   argument  shape           notes
//   x         [rows, d]
//   hidden    [rows, d_ff]    written: the activation that `down` reads
//   out       [rows, d]
void mlp(Activation activation, const float* x, int64_t rows, const MlpWeights& w, float* hidden, float* out);

}  // namespace attention::model
