// Vec4: four floats in one 128-bit register, the only place in the core with SIMD intrinsics.
//
// Three backends with the same inline functions, chosen at compile time:
//   WebAssembly SIMD128 (__wasm_simd128__)  wasm_simd128.h, clang's header; the core includes nothing from Emscripten
//   SSE2 (__SSE2__)                         the native build, for tests and the bench's native column
//   scalar                                   four floats in a struct: the scalar WASM build and anything else
// Defining ATTENTION_NO_SIMD picks the scalar backend whatever the target has: the native twin of the scalar WASM
// build, tested under the sanitizers (scripts/test-native.sh).
// Loads and stores are unaligned. The kernels (kernels.cc) are written once against these functions.
#pragma once

#include <cstdint>
#include <cstring>

#if defined(__wasm_simd128__) && !defined(ATTENTION_NO_SIMD)
#include <wasm_simd128.h>
#elif defined(__SSE2__) && !defined(ATTENTION_NO_SIMD)
#include <emmintrin.h>
#endif

namespace attention::simd {

#if defined(__wasm_simd128__) && !defined(ATTENTION_NO_SIMD)

// The backend this translation unit was built with.
inline constexpr const char* kBackendName = "wasm-simd128";

struct Vec4 {
  v128_t v;
};

inline Vec4 load(const float* p) { return {wasm_v128_load(p)}; }
inline void store(float* p, Vec4 a) { wasm_v128_store(p, a.v); }
inline Vec4 splat(float x) { return {wasm_f32x4_splat(x)}; }
inline Vec4 load_splat(const float* p) { return {wasm_v128_load32_splat(p)}; }
inline Vec4 add(Vec4 a, Vec4 b) { return {wasm_f32x4_add(a.v, b.v)}; }
inline Vec4 sub(Vec4 a, Vec4 b) { return {wasm_f32x4_sub(a.v, b.v)}; }
inline Vec4 mul(Vec4 a, Vec4 b) { return {wasm_f32x4_mul(a.v, b.v)}; }
inline Vec4 div(Vec4 a, Vec4 b) { return {wasm_f32x4_div(a.v, b.v)}; }
// max(a, b) as (a < b ? b : a): one instruction; a NaN in b is dropped, so NaNs are tracked with is_nan.
inline Vec4 max(Vec4 a, Vec4 b) { return {wasm_f32x4_pmax(a.v, b.v)}; }
// All bits set in lanes where the condition holds.
inline Vec4 less(Vec4 a, Vec4 b) { return {wasm_f32x4_lt(a.v, b.v)}; }
inline Vec4 is_nan(Vec4 a) { return {wasm_f32x4_ne(a.v, a.v)}; }
inline Vec4 bit_or(Vec4 a, Vec4 b) { return {wasm_v128_or(a.v, b.v)}; }
inline Vec4 and_not(Vec4 a, Vec4 mask) { return {wasm_v128_andnot(a.v, mask.v)}; }
inline bool any(Vec4 mask) { return wasm_v128_any_true(mask.v); }
// [a1, a0, a3, a2]: each pair of lanes swapped (RoPE's interleaved pairs).
inline Vec4 swap_pairs(Vec4 a) { return {wasm_i32x4_shuffle(a.v, a.v, 1, 0, 3, 2)}; }
// 2^n from t = n + 1.5·2^23 (n integral, in [-126, 127]): n sits in t's low mantissa bits, and
// (bits(t) + 127) << 23 moves n + 127 into the exponent field.
inline Vec4 pow2_of_shifted(Vec4 t) { return {wasm_i32x4_shl(wasm_i32x4_add(t.v, wasm_i32x4_splat(127)), 23)}; }
inline float lane(Vec4 a, int i) {
  float out[4];
  store(out, a);
  return out[i];
}

#elif defined(__SSE2__) && !defined(ATTENTION_NO_SIMD)

inline constexpr const char* kBackendName = "sse2";

struct Vec4 {
  __m128 v;
};

inline Vec4 load(const float* p) { return {_mm_loadu_ps(p)}; }
inline void store(float* p, Vec4 a) { _mm_storeu_ps(p, a.v); }
inline Vec4 splat(float x) { return {_mm_set1_ps(x)}; }
inline Vec4 load_splat(const float* p) { return {_mm_load1_ps(p)}; }
inline Vec4 add(Vec4 a, Vec4 b) { return {_mm_add_ps(a.v, b.v)}; }
inline Vec4 sub(Vec4 a, Vec4 b) { return {_mm_sub_ps(a.v, b.v)}; }
inline Vec4 mul(Vec4 a, Vec4 b) { return {_mm_mul_ps(a.v, b.v)}; }
inline Vec4 div(Vec4 a, Vec4 b) { return {_mm_div_ps(a.v, b.v)}; }
inline Vec4 max(Vec4 a, Vec4 b) { return {_mm_max_ps(b.v, a.v)}; }  // maxps returns its 2nd operand on NaN
inline Vec4 less(Vec4 a, Vec4 b) { return {_mm_cmplt_ps(a.v, b.v)}; }
inline Vec4 is_nan(Vec4 a) { return {_mm_cmpunord_ps(a.v, a.v)}; }
inline Vec4 bit_or(Vec4 a, Vec4 b) { return {_mm_or_ps(a.v, b.v)}; }
inline Vec4 and_not(Vec4 a, Vec4 mask) { return {_mm_andnot_ps(mask.v, a.v)}; }
inline bool any(Vec4 mask) { return _mm_movemask_ps(mask.v) != 0; }
inline Vec4 swap_pairs(Vec4 a) { return {_mm_shuffle_ps(a.v, a.v, _MM_SHUFFLE(2, 3, 0, 1))}; }
inline Vec4 pow2_of_shifted(Vec4 t) {
  return {_mm_castsi128_ps(_mm_slli_epi32(_mm_add_epi32(_mm_castps_si128(t.v), _mm_set1_epi32(127)), 23))};
}
inline float lane(Vec4 a, int i) {
  float out[4];
  store(out, a);
  return out[i];
}

#else

inline constexpr const char* kBackendName = "scalar";

struct Vec4 {
  float v[4];
};

template <typename F>
inline Vec4 map(Vec4 a, Vec4 b, F f) {
  return {{f(a.v[0], b.v[0]), f(a.v[1], b.v[1]), f(a.v[2], b.v[2]), f(a.v[3], b.v[3])}};
}
inline uint32_t bits(float x) {
  uint32_t u;
  std::memcpy(&u, &x, 4);
  return u;
}
inline float from_bits(uint32_t u) {
  float x;
  std::memcpy(&x, &u, 4);
  return x;
}

inline Vec4 load(const float* p) { return {{p[0], p[1], p[2], p[3]}}; }
inline void store(float* p, Vec4 a) { std::memcpy(p, a.v, sizeof a.v); }
inline Vec4 splat(float x) { return {{x, x, x, x}}; }
inline Vec4 load_splat(const float* p) { return splat(*p); }
inline Vec4 add(Vec4 a, Vec4 b) {
  return map(a, b, [](float x, float y) { return x + y; });
}
inline Vec4 sub(Vec4 a, Vec4 b) {
  return map(a, b, [](float x, float y) { return x - y; });
}
inline Vec4 mul(Vec4 a, Vec4 b) {
  return map(a, b, [](float x, float y) { return x * y; });
}
inline Vec4 div(Vec4 a, Vec4 b) {
  return map(a, b, [](float x, float y) { return x / y; });
}
inline Vec4 max(Vec4 a, Vec4 b) {
  return map(a, b, [](float x, float y) { return x < y ? y : x; });
}
inline Vec4 less(Vec4 a, Vec4 b) {
  return map(a, b, [](float x, float y) { return from_bits(x < y ? ~0u : 0u); });
}
inline Vec4 is_nan(Vec4 a) {
  return map(a, a, [](float x, float) { return from_bits(x != x ? ~0u : 0u); });
}
inline Vec4 bit_or(Vec4 a, Vec4 b) {
  return map(a, b, [](float x, float y) { return from_bits(bits(x) | bits(y)); });
}
inline Vec4 and_not(Vec4 a, Vec4 mask) {
  return map(a, mask, [](float x, float m) { return from_bits(bits(x) & ~bits(m)); });
}
inline bool any(Vec4 mask) { return (bits(mask.v[0]) | bits(mask.v[1]) | bits(mask.v[2]) | bits(mask.v[3])) != 0; }
inline Vec4 swap_pairs(Vec4 a) { return {{a.v[1], a.v[0], a.v[3], a.v[2]}}; }
inline Vec4 pow2_of_shifted(Vec4 t) {
  for (float& x : t.v) x = from_bits((bits(x) + 127u) << 23);
  return t;
}
inline float lane(Vec4 a, int i) { return a.v[i]; }

#endif

inline float horizontal_max(Vec4 a) {
  float m = lane(a, 0);
  for (int i = 1; i < 4; ++i) m = lane(a, i) > m ? lane(a, i) : m;
  return m;
}
inline float horizontal_sum(Vec4 a) { return (lane(a, 0) + lane(a, 1)) + (lane(a, 2) + lane(a, 3)); }

// e^x for x <= 0 (and NaN), as 2^t with t = x·log2(e) = n + f, n an integer and |f| <= 1/2: 2^f from a degree-6
// minimax polynomial (relative error 2e-9), 2^n in the exponent bits. Within 8e-8 of e^x; the rounding of t
// adds a relative 6e-8·|x|. Lanes below -87.3 (e^x under FLT_MIN), -inf included, give exactly 0; NaN stays NaN.
inline Vec4 exp_nonpositive(Vec4 x) {
  const Vec4 shift = splat(12582912.0f);  // 1.5·2^23: adding it rounds to an integer
  const Vec4 t = mul(x, splat(1.44269504088896341f));
  const Vec4 shifted = add(t, shift);  // n + shift
  const Vec4 f = sub(t, sub(shifted, shift));
  Vec4 p = splat(1.5345812001e-4f);
  p = add(mul(p, f), splat(1.3399931219e-3f));
  p = add(mul(p, f), splat(9.6184889571e-3f));
  p = add(mul(p, f), splat(5.5503287770e-2f));
  p = add(mul(p, f), splat(2.4022646891e-1f));
  p = add(mul(p, f), splat(6.9314720574e-1f));
  p = add(mul(p, f), splat(1.0f));
  const Vec4 underflow = less(x, splat(-87.3f));
  return and_not(mul(p, pow2_of_shifted(shifted)), underflow);
}

}  // namespace attention::simd
