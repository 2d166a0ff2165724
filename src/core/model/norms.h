// The norms of the model families, over the last dimension of a row-major [rows, d] matrix. Means and
// variances are summed in double (a row of 4096 floats summed in float32 loses ~1e-5 of its mean); the result is
// float32.
#pragma once

#include <cstdint>

#include "../abi.h"

namespace attention::model {

// out = norm(x) · weight (+ bias), row by row; out may be x.
//
//   argument  shape        notes
//   x, out    [rows, d]
//   weight    [d]
//   bias      [d]          kLayerNorm only; may be null
//
//   kLayerNorm  (x − mean(x)) / √(var(x) + eps) · weight + bias    var: the biased variance, as torch's LayerNorm
//   kRmsNorm    x / √(mean(x²) + eps) · weight                      LLaMA's RMSNorm
//   kRmsNormPlusOne  x / √(mean(x²) + eps) · (1 + weight)          Gemma's RMSNorm
void norm(NormKind kind, const float* x, int64_t rows, int64_t d, const float* weight, const float* bias, float eps,
          float* out);

// An RMS norm (kRmsNorm, kRmsNormPlusOne) in two steps, for a row cut over several callers (loadModel's workers, each
// holding some of a token's q or k columns): square_sums gives each row's Σ x² (in double, summed as norm's), and,
// once a caller has each whole row's inverse = 1 / √(Σ x² / width + eps) from the parts' sums, rms_scale writes
// out = x · inverse · weight (or · (1 + weight)) as norm writes it: with the whole row's sum, the same bits.
//
//   argument  shape        notes
//   x, out    [rows, d]    out may be x
//   weight    [d]
//   out (square_sums), inverses  [rows]  double
void square_sums(const float* x, int64_t rows, int64_t d, double* out);
void rms_scale(NormKind kind, const float* x, int64_t rows, int64_t d, const float* weight, const double* inverses,
               float* out);

}  // namespace attention::model
