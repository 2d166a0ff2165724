// The inner loops of attention.cc: the two matrix products and the row passes of the softmax, written once
// against Vec4 (vec4.h) and so built as WebAssembly SIMD128, SSE or scalar code. Row-major float buffers;
// `ld_*` is a buffer's row stride in floats. All are noexcept: with Emscripten's exception handling, a call
// that may throw goes through a JavaScript trampoline.
#pragma once

#include <cstdint>

#include "abi.h"

namespace attention::kernels {

// len_k rounded up to whole panels: the rows of a packed key buffer.
inline int64_t padded_keys(int64_t len_k) { return (len_k + kKeyPanel - 1) / kKeyPanel * kKeyPanel; }

// Repacks keys so that one column of kKeyPanel consecutive keys is contiguous.
//   k       [len_k, d_k]
//   packed  [padded_keys(len_k) / kKeyPanel, d_k, kKeyPanel]   keys past len_k are 0
void pack_keys(const float* k, int64_t len_k, int64_t d_k, float* packed) noexcept;

// s[r, j] = scale · q[r, :]·k[key_begin + j, :] for r < rows and j < keys.
//   q       [rows, d_k]
//   packed  pack_keys of all keys; key_begin is a multiple of kKeyPanel
//   s       [rows, ld_s]
//   row_end optional, [rows]: s[r, j] for j >= row_end[r] may be left unwritten (the caller masks them);
//           rows are taken four at a time, up to the largest row_end of the four
void query_key_scores(const float* q, int64_t rows, int64_t d_k, const float* packed, int64_t key_begin, int64_t keys,
                      float scale, float* s, int64_t ld_s, const int64_t* row_end) noexcept;

// d_v rounded up to whole panels.
inline int64_t padded_values(int64_t d_v) { return (d_v + kValuePanel - 1) / kValuePanel * kValuePanel; }

// Repacks values so that kValuePanel columns of consecutive keys are contiguous.
//   v       [len_k, d_v]
//   packed  [padded_values(d_v) / kValuePanel, len_k, kValuePanel]   columns past d_v are 0
void pack_values(const float* v, int64_t len_k, int64_t d_v, float* packed) noexcept;

// o[r, :] (+)= Σ_j p[r, j] · v[key_begin + j, :] for r < rows and j < keys; `accumulate` adds to o.
// Each value is one float32 chain over the keys, in order, then added to o: callers pass blocks of keys (with
// `accumulate` after the first) to keep the chains short.
//   p       [rows, ld_p]
//   packed  pack_values of all len_k keys
//   o       [rows, d_v]
//   row_end optional, [rows]: p[r, j] is 0 for j >= row_end[r], so those products may be skipped; rows are
//           taken four at a time, up to the largest row_end of the four (p must hold zeros up to there)
void weighted_sum(const float* p, int64_t ld_p, int64_t rows, const float* packed, int64_t len_k, int64_t key_begin,
                  int64_t keys, int64_t d_v, float* o, bool accumulate, const int64_t* row_end) noexcept;

// The largest value of row[0, n) (-inf when n is 0); sets `nan` when some value is NaN.
float row_max(const float* row, int64_t n, bool& nan) noexcept;

// True when row[0, n) holds no NaN and no ±inf.
bool all_finite(const float* row, int64_t n) noexcept;

// The largest |x[j]| for j < n; +inf when x holds an inf or a NaN.
float max_abs(const float* x, int64_t n) noexcept;

// In place: row[j] = e^(row[j] - max) for j < n; returns the sum. `max` is finite; -inf entries become 0.
float exp_and_sum(float* row, int64_t n, float max) noexcept;

// One query row's masking: the sliding window, the causal limit and the user mask's row.
struct RowMasking {
  int64_t open_begin = 0;            // keys [0, open_begin) are outside the sliding window; in [0, open_end]
  int64_t open_end = 0;              // keys [open_end, L_k) are causally masked; in [0, L_k]
  const uint8_t* allowed = nullptr;  // boolean mask row at key 0, or null
  const float* additive = nullptr;   // additive mask row at key 0, or null
  int64_t key_stride = 0;            // 0 when the mask broadcasts along keys
};

// In place, keys [key_begin, key_begin + n) of a row held from row[0]: −inf before `first` (the sliding window's first
// key, counted from key_begin), then on the others the softcap (> 0: tanh(s / softcap)·softcap) and the user mask.
void mask_row(float* row, int64_t key_begin, int64_t first, int64_t n, float softcap, const RowMasking& m) noexcept;

// In place: row[j] = tanh(row[j] / cap) · cap for j < n (logit softcapping); cap > 0.
void softcap_row(float* row, int64_t n, float cap) noexcept;

// In place: row[j] *= factor for j < n.
void scale_row(float* row, int64_t n, float factor) noexcept;

}  // namespace attention::kernels
