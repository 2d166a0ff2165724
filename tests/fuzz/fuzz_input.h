// How the fuzz target reads a case from its input: bytes, then a seeded continuation; values of chosen
// magnitudes; causal mode, scale and a broadcasting mask; in the cases of the variants, a softcap and a sliding
// window. The meaning of every byte is fixed: the corpus and the regressions in tests/fuzz/ were written against it
// (the cases of the variants come after the first two, so those keep their bytes).
#pragma once

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "attention.h"
#include "case_data.h"

namespace attention::fuzz {

// The input's bytes, then a pseudo-random continuation seeded by them, so a short input still fills a case.
class ByteSource {
 public:
  ByteSource(const uint8_t* data, size_t size) : data_(data), size_(size), state_(0x9E3779B97F4A7C15ull ^ size) {
    for (size_t i = 0; i < size; ++i) state_ = (state_ ^ data[i]) * 0x100000001B3ull;
  }

  uint8_t byte() {
    if (pos_ < size_) return data_[pos_++];
    state_ = state_ * 6364136223846793005ull + 1442695040888963407ull;
    return static_cast<uint8_t>(state_ >> 56);
  }

  uint32_t bytes(int n) {
    uint32_t x = 0;
    for (int i = 0; i < n; ++i) x = x << 8 | byte();
    return x;
  }

  int range(int lo, int hi) { return lo + byte() % (hi - lo + 1); }

  // A size in [1, hi], three times in four from the SIMD edge sizes 1..17 (cheap to check, where bugs live).
  int size(int hi) {
    const uint8_t b = byte();
    return b < 192 ? 1 + b % std::min(hi, 17) : 1 + b % hi;
  }

 private:
  const uint8_t* data_;
  size_t size_;
  size_t pos_ = 0;
  uint64_t state_;
};

enum class Magnitude : uint8_t { kSmall, kUnit, kInteger, kTenThousand, kExtreme, kNearMax, kMixed };
constexpr int kMagnitudes = 7;

inline float value(ByteSource& in, Magnitude m) {
  switch (m) {
    case Magnitude::kSmall: return static_cast<int8_t>(in.byte()) / 32.0f;          // k/32 in [-4, 4)
    case Magnitude::kUnit: return static_cast<int16_t>(in.bytes(2)) / 32768.0f;     // [-1, 1)
    case Magnitude::kInteger: return static_cast<int8_t>(in.byte());                // [-128, 127]
    case Magnitude::kTenThousand: return static_cast<int16_t>(in.bytes(2)) * 0.5f;  // [-16384, 16384)
    case Magnitude::kExtreme: {                                                     // any finite float
      uint32_t bits = in.bytes(4);
      if (((bits >> 23) & 0xFFu) == 0xFFu) bits &= ~(1u << 23);
      float x;
      std::memcpy(&x, &bits, sizeof x);
      return x;
    }
    case Magnitude::kNearMax: {  // ±[2e37, 3.4e38]
      const uint32_t bits = in.bytes(3);
      const uint32_t sign = (bits >> 23) & 1u, exponent = 251 + ((bits >> 21) & 3u);
      const uint32_t word = sign << 31 | exponent << 23 | (bits & 0x1FFFFFu) << 2;
      float x;
      std::memcpy(&x, &word, sizeof x);
      return x;
    }
    case Magnitude::kMixed: break;
  }
  return value(in, static_cast<Magnitude>(in.byte() % (kMagnitudes - 1)));
}

inline Magnitude magnitude(ByteSource& in) { return static_cast<Magnitude>(in.byte() % kMagnitudes); }

inline std::vector<float> values(ByteSource& in, int64_t n, Magnitude m) {
  std::vector<float> out(n);
  for (float& x : out) x = value(in, m);
  return out;
}

struct MaskStorage {
  std::vector<uint8_t> boolean;
  std::vector<float> additive;
};

// Causal mode, scale and a mask broadcasting over some of [B, H, L_q, L_k].
inline AttentionOptions read_options(ByteSource& in, const AttentionDims& d, MaskStorage& storage) {
  AttentionOptions o;
  o.causal = static_cast<Causal>(in.byte() % 3);
  const uint8_t scale_choice = in.byte();
  const float kScales[] = {0.0f, -0.0f, 1.0f, -1.0f, 0.125f, 1e-3f, 1e3f, 1e-30f, 1e30f};
  o.has_scale = scale_choice >= 128;
  if (o.has_scale) {
    o.scale = scale_choice < 128 + 9 * 12 ? kScales[scale_choice % 9] : value(in, Magnitude::kMixed);
  }
  o.mask.kind = static_cast<MaskKind>(in.byte() % 3);
  if (o.mask.kind == MaskKind::kNone) return o;
  const uint8_t full_bits = in.byte();
  const int32_t full[4] = {d.batch, d.num_heads, d.len_q, d.len_k};
  for (int axis = 0; axis < 4; ++axis) o.mask.dims[axis] = (full_bits >> axis) & 1u ? full[axis] : 1;
  const int64_t size = test::product({o.mask.dims[0], o.mask.dims[1], o.mask.dims[2], o.mask.dims[3]});
  const uint8_t masked_below = in.byte();
  if (o.mask.kind == MaskKind::kBoolean) {
    storage.boolean.resize(size);
    for (uint8_t& open : storage.boolean) open = in.byte() >= masked_below ? 1 : 0;
    o.mask.data = storage.boolean.data();
  } else {
    const Magnitude m = magnitude(in);
    storage.additive.resize(size);
    for (float& add : storage.additive)
      add = in.byte() < masked_below ? -std::numeric_limits<float>::infinity() : value(in, m);
    o.mask.data = storage.additive.data();
  }
  return o;
}

// A logit softcap (one byte in two) and a sliding window (one in two; a causal mode with it, as it needs one), over
// the options read_options gave: the attention variants of Gemma 2 and Mistral.
inline void read_variants(ByteSource& in, const AttentionDims& d, AttentionOptions& o) {
  const uint8_t choice = in.byte();
  if (choice & 1u) {
    const float kCaps[] = {1e-3f, 0.5f, 1.0f, 2.0f, 30.0f, 50.0f, 1e4f, 1e30f};
    o.softcap = choice & 2u ? kCaps[(choice >> 2) % 8] : 1e-3f + std::abs(value(in, Magnitude::kTenThousand));
  }
  if (choice & 0x20u) {
    if (o.causal == Causal::kNone) o.causal = choice & 0x40u ? Causal::kBottomRight : Causal::kTopLeft;
    o.window = 1 + in.byte() % (std::min(d.len_k, 254) + 2);  // past L_k at times: the same as none
  }
}

}  // namespace attention::fuzz
