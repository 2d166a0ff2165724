// libFuzzer target for the attention core. Dims, options and values come from the input bytes (fuzz_input.h);
// scaled_dot_product_attention and multi_head_attention run in the core (Eigen projections, SIMD attention
// kernels) and are checked against the plain-loop reference (oracle.h); each runs a second time on the bytes after
// the first two cases with the attention variants (read_variants: a softcap and a sliding window).
//
// The tolerance follows the float32 rounding error of each softmax input (a score of 1e4 is known to about
// 1e-3, one of 1e30 not at all), so tiny, ordinary and huge values are all checked as tightly as float32
// allows; rows whose error bound is too large for a numeric check still get the structural ones (weights in
// [0, 1] summing to 1, masked weights exactly 0, outputs inside the values' range). AttentionError is the only
// exception allowed, SCORE_OVERFLOW only when a score can leave float32 range, which it then must, and
// PROJECTION_OVERFLOW only when a projection can.
//
// Also built without libFuzzer by tests/fuzz/replay_main.cc, which replays the corpus and regressions.
#include <cmath>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "fuzz_input.h"
#include "oracle.h"

namespace attention::fuzz {
namespace {

void run_sdpa_case(ByteSource& in, bool variants) {
  AttentionDims d;
  d.batch = in.range(1, 2);
  d.num_kv_heads = in.range(1, 3);
  d.num_heads = d.num_kv_heads * in.range(1, 3);
  d.len_q = in.size(40);
  d.len_k = in.size(40);
  d.d_k = in.size(40);
  d.d_v = in.size(24);
  const uint8_t shape_flags = in.byte();
  if (shape_flags & 1u) d.len_q += 40;  // past the kernels' blocks of 64 queries (kQueryBlock)
  // Long key rows with narrow heads (to stay fast): 490 more keys cross the streaming path's tile of 512 (kKeyTile).
  if ((shape_flags & 0x1Cu) == 0x1Cu) {
    d.len_k += shape_flags & 0x20u ? 490 : 230;
    d.d_k = 1 + d.d_k % 8;
    d.d_v = 1 + d.d_v % 8;
  }
  const Magnitude qk_magnitude = magnitude(in), v_magnitude = magnitude(in);
  MaskStorage mask;
  AttentionOptions o = read_options(in, d, mask);
  if (variants) read_variants(in, d, o);
  const std::vector<float> q = values(in, product({d.batch, d.num_heads, d.len_q, d.d_k}), qk_magnitude);
  const std::vector<float> k = values(in, product({d.batch, d.num_kv_heads, d.len_k, d.d_k}), qk_magnitude);
  const std::vector<float> v = values(in, product({d.batch, d.num_kv_heads, d.len_k, d.d_v}), v_magnitude);
  g_case = "sdpa " + describe(d, o);

  const int64_t output_size = product({d.batch, d.num_heads, d.len_q, d.d_v});
  const int64_t score_size = product({d.batch, d.num_heads, d.len_q, d.len_k});

  const uint8_t broken = in.byte();
  if (broken >= 0xF0) {
    AttentionDims bad = d;
    AttentionOptions bad_options = o;
    std::string expected;
    switch (broken % 4) {
      case 0:
        bad.d_k = -static_cast<int32_t>(in.byte());
        expected = "BAD_DIMENSION";
        break;
      case 1:
        bad.num_kv_heads = d.num_heads + 1;
        expected = "HEADS_DO_NOT_DIVIDE";
        break;
      case 2: {
        if (o.mask.kind == MaskKind::kNone) return;
        const int axis = in.byte() % 4;
        const int32_t full[4] = {d.batch, d.num_heads, d.len_q, d.len_k};
        bad_options.mask.dims[axis] = full[axis] + 1;
        expected = "MASK_DOES_NOT_BROADCAST";
        break;
      }
      case 3:
        bad_options.mask.kind = MaskKind::kAdditive;
        bad_options.mask.data = nullptr;
        expected = "NULL_ARGUMENT";
        break;
    }
    SdpaBuffers core(output_size, score_size);
    const std::string code = attention_error_of(
        [&] { scaled_dot_product_attention(bad, q.data(), k.data(), v.data(), bad_options, core.result()); });
    if (code != expected) fail("broken call threw \"" + code + "\", expected " + expected);
    return;
  }

  SdpaBuffers core(output_size, score_size);
  const std::string code =
      attention_error_of([&] { scaled_dot_product_attention(d, q.data(), k.data(), v.data(), o, core.result()); });
  const Oracle oracle(d, q.data(), k.data(), v.data(), o);
  check_sdpa(d, v.data(), o, oracle, code, &core, core.output.data());

  if (shape_flags & 2u) {
    std::vector<float> output(output_size);
    AttentionResult only_output;
    only_output.output = output.data();
    const std::string again =
        attention_error_of([&] { scaled_dot_product_attention(d, q.data(), k.data(), v.data(), o, only_output); });
    // With weights the call also returns the unscaled q·k, which may overflow alone; and the two routes sum
    // weights·V in different orders, so values near float32's limit may overflow in one only.
    const bool raw_only = code == "SCORE_OVERFLOW" && again.empty() && oracle.dt.raw_may_overflow;
    const bool output_only = (code.empty() || code == "OUTPUT_OVERFLOW") &&
                             (again.empty() || again == "OUTPUT_OVERFLOW") && values_may_overflow(d, v.data());
    if (again != code && !raw_only && !output_only) {
      fail("without weights the call threw \"" + again + "\", with them \"" + code + "\"");
    }
    check_sdpa(d, v.data(), o, oracle, again, nullptr, output.data());
  }
}

// out[b, h, l, c] = input[b, l, :]·w[:, h·width + c] + bias[h·width + c] and its rounding bound, in double.
void check_projection(const char* name, const float* input, int batch, int len, int d_in, const float* w,
                      const float* bias, int heads, int width, const std::vector<float>& core,
                      const std::vector<float>& ref) {
  for (int b = 0; b < batch; ++b)
    for (int h = 0; h < heads; ++h)
      for (int l = 0; l < len; ++l)
        for (int c = 0; c < width; ++c) {
          const int64_t col = int64_t{h} * width + c;
          double magnitude = bias ? std::abs(double{bias[col]}) : 0;
          for (int e = 0; e < d_in; ++e) {
            magnitude +=
                std::abs(double{input[(int64_t{b} * len + l) * d_in + e]} * w[e * int64_t{heads} * width + col]);
          }
          const int64_t at = ((int64_t{b} * heads + h) * len + l) * width + c;
          if (!(magnitude < kMayOverflow)) continue;
          const double bound = (d_in + 2) * kEps * magnitude + kEps * std::abs(ref[at]) + kTiny;
          if (!(std::abs(double{core[at]} - ref[at]) <= bound)) {
            fail(std::string(name) + " " + num(core[at]) + " vs reference " + num(ref[at]) + " at " +
                 std::to_string(at));
          }
        }
}

void run_multi_head_case(ByteSource& in, bool variants) {
  ProjectionDims p;
  p.batch = in.range(1, 2);
  const uint8_t flags = in.byte();
  const bool cross = flags & 1u, biases = flags & 2u, want_shared_qk = flags & 4u;
  p.len_q = in.size(24);
  p.len_k = cross ? in.size(24) : p.len_q;
  p.d_model = in.size(24);
  p.d_context = cross ? in.size(24) : p.d_model;
  p.num_kv_heads = in.range(1, 3);
  p.num_heads = p.num_kv_heads * in.range(1, 3);
  p.d_k = in.size(16);
  p.d_v = in.size(16);
  p.d_out = in.range(0, 16);
  const bool shared_qk = want_shared_qk && p.d_context == p.d_model;
  if (shared_qk) p.num_kv_heads = p.num_heads;
  const int64_t B = p.batch, H = p.num_heads, H_kv = p.num_kv_heads, width = H * p.d_v;
  const AttentionDims d{p.batch, p.num_heads, p.num_kv_heads, p.len_q, p.len_k, p.d_k, p.d_v};

  const Magnitude input_magnitude = magnitude(in), weight_magnitude = magnitude(in);
  MaskStorage mask;
  AttentionOptions o = read_options(in, d, mask);
  if (variants) read_variants(in, d, o);
  const std::vector<float> x = values(in, product({B, p.len_q, p.d_model}), input_magnitude);
  const std::vector<float> context = cross ? values(in, product({B, p.len_k, p.d_context}), input_magnitude) : x;
  const std::vector<float> w_q = values(in, product({p.d_model, H, p.d_k}), weight_magnitude);
  const std::vector<float> w_k = shared_qk ? w_q : values(in, product({p.d_context, H_kv, p.d_k}), weight_magnitude);
  const std::vector<float> w_v = values(in, product({p.d_context, H_kv, p.d_v}), weight_magnitude);
  const std::vector<float> w_o = values(in, product({width, p.d_out}), weight_magnitude);
  std::vector<float> b_q, b_k, b_v, b_o;
  if (biases) {
    b_q = values(in, H * p.d_k, weight_magnitude);
    b_k = values(in, H_kv * p.d_k, weight_magnitude);
    b_v = values(in, H_kv * p.d_v, weight_magnitude);
    b_o = values(in, p.d_out, weight_magnitude);
  }
  g_case = "multi-head d_model=" + std::to_string(p.d_model) + " d_context=" + std::to_string(p.d_context) +
           " d_out=" + std::to_string(p.d_out) + (cross ? " cross" : " self") + (biases ? " biases" : "") +
           (shared_qk ? " shared_qk" : "") + " " + describe(d, o);

  ProjectionWeights w;
  w.w_q = w_q.data();
  w.w_k = shared_qk ? w_q.data() : w_k.data();
  w.w_v = w_v.data();
  w.w_o = p.d_out > 0 ? w_o.data() : nullptr;
  if (biases) {
    w.b_q = b_q.data();
    w.b_k = b_k.data();
    w.b_v = b_v.data();
    w.b_o = p.d_out > 0 ? b_o.data() : nullptr;
  }
  const int64_t output_size = product({B, H, p.len_q, p.d_v});
  const int64_t score_size = product({B, H, p.len_q, p.len_k});
  const int64_t final_size = B * p.len_q * (p.d_out > 0 ? p.d_out : width);

  struct Run {
    std::vector<float> q, k, v, concat, output;
    SdpaBuffers attention;
  };
  auto run = [&](bool core_path, std::string* code) {
    Run r{std::vector<float>(B * H * p.len_q * p.d_k),
          std::vector<float>(B * H_kv * p.len_k * p.d_k),
          std::vector<float>(B * H_kv * p.len_k * p.d_v),
          std::vector<float>(B * p.len_q * width),
          std::vector<float>(final_size),
          SdpaBuffers(output_size, score_size)};
    MultiHeadResult result;
    result.q = r.q.data();
    result.k = r.k.data();
    result.v = r.v.data();
    result.attention = r.attention.result();
    result.concat = r.concat.data();
    result.output = r.output.data();
    const float* context_in = cross ? context.data() : nullptr;
    if (core_path) {
      *code = attention_error_of([&] { multi_head_attention(p, x.data(), context_in, w, o, result); });
    } else {
      reference::multi_head_attention(p, x.data(), context_in, w, o, result);
    }
    return r;
  };

  // Whether some entry of input·W (+ b), or of concat·W_o (+ b_o), may round beyond float32.
  auto may_overflow = [](const float* input, int64_t rows, int64_t d_in, const float* weight, const float* bias,
                         int64_t cols) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) {
        double magnitude = bias ? std::abs(double{bias[c]}) : 0;
        for (int64_t e = 0; e < d_in; ++e) magnitude += std::abs(double{input[r * d_in + e]} * weight[e * cols + c]);
        if (!(magnitude < kMayOverflow)) return true;
      }
    return false;
  };
  const float* kv_input = cross ? context.data() : x.data();
  const bool projections_may_overflow = may_overflow(x.data(), B * p.len_q, p.d_model, w.w_q, w.b_q, H * p.d_k) ||
                                        may_overflow(kv_input, B * p.len_k, p.d_context, w.w_k, w.b_k, H_kv * p.d_k) ||
                                        may_overflow(kv_input, B * p.len_k, p.d_context, w.w_v, w.b_v, H_kv * p.d_v);

  std::string code;
  const Run core = run(true, &code);
  if (code == "PROJECTION_OVERFLOW") {
    const bool output_may_overflow = p.d_out > 0 && all_finite(core.concat.data(), B * p.len_q * width) &&
                                     may_overflow(core.concat.data(), B * p.len_q, width, w.w_o, w.b_o, p.d_out);
    if (!projections_may_overflow && !output_may_overflow)
      fail("PROJECTION_OVERFLOW although every projection stays below 1e38");
    return;
  }
  for (const auto* projection : {&core.q, &core.k, &core.v, &core.output}) {
    if (code.empty() && !all_finite(projection->data(), static_cast<int64_t>(projection->size()))) {
      fail("a non-finite projection without PROJECTION_OVERFLOW");
    }
  }
  if (!code.empty()) {
    const Oracle oracle(d, core.q.data(), core.k.data(), core.v.data(), o);
    check_sdpa(d, core.v.data(), o, oracle, code, &core.attention, core.attention.output.data());
    return;
  }
  const Run ref = run(false, nullptr);
  check_projection("q", x.data(), p.batch, p.len_q, p.d_model, w.w_q, w.b_q, p.num_heads, p.d_k, core.q, ref.q);
  check_projection("k", context.data(), p.batch, p.len_k, p.d_context, w.w_k, w.b_k, p.num_kv_heads, p.d_k, core.k,
                   ref.k);
  check_projection("v", context.data(), p.batch, p.len_k, p.d_context, w.w_v, w.b_v, p.num_kv_heads, p.d_v, core.v,
                   ref.v);
  const Oracle oracle(d, core.q.data(), core.k.data(), core.v.data(), o);
  check_sdpa(d, core.v.data(), o, oracle, "", &core.attention, core.attention.output.data());

  for (int64_t b = 0; b < B; ++b)
    for (int64_t h = 0; h < H; ++h)
      for (int64_t l = 0; l < p.len_q; ++l)
        for (int64_t c = 0; c < p.d_v; ++c) {
          const float head = core.attention.output[((b * H + h) * p.len_q + l) * p.d_v + c];
          const float cat = core.concat[(b * p.len_q + l) * width + h * p.d_v + c];
          if (std::memcmp(&head, &cat, sizeof head) != 0) fail("concat differs from head " + std::to_string(h));
        }
  if (p.d_out == 0) {
    if (std::memcmp(core.output.data(), core.concat.data(), final_size * sizeof(float)) != 0) {
      fail("without W_o the output differs from concat");
    }
    return;
  }
  for (int64_t row = 0; row < B * p.len_q; ++row) {
    for (int c = 0; c < p.d_out; ++c) {
      double sum = w.b_o ? w.b_o[c] : 0, magnitude = w.b_o ? std::abs(double{w.b_o[c]}) : 0;
      for (int64_t e = 0; e < width; ++e) {
        const double term = double{core.concat[row * width + e]} * w_o[e * p.d_out + c];
        sum += term;
        magnitude += std::abs(term);
      }
      if (!(magnitude < kMayOverflow)) continue;
      const double actual = core.output[row * p.d_out + c];
      if (!(std::abs(actual - sum) <= (width + 2) * kEps * magnitude + kTiny)) {
        fail("output " + num(actual) + " vs concat·W_o " + num(sum) + " at row " + std::to_string(row));
      }
    }
  }
}

}  // namespace
}  // namespace attention::fuzz

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  attention::fuzz::ByteSource in(data, size);
  attention::fuzz::run_sdpa_case(in, false);
  attention::fuzz::run_multi_head_case(in, false);
  // then the variants, from the bytes that follow
  attention::fuzz::run_sdpa_case(in, true);
  attention::fuzz::run_multi_head_case(in, true);
  return 0;
}
