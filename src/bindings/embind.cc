// The Embind layer: the only file that includes emscripten/bind.h.
//
// The JS wrapper (src/js) validates every argument, copies inputs into buffers it allocates with _malloc,
// and passes their addresses here as numbers (0 = absent). Results are written into buffers it allocated
// too, which it copies out and frees. Nothing here keeps a pointer or a view between calls.
// Raw bindings carry a leading underscore; src/js/index.js gives them their public names.
#include <emscripten/bind.h>
#include <malloc.h>

#include <array>
#include <new>
#include <string>

#include "../core/attention.h"

namespace {

using attention::AttentionDims;
using attention::AttentionOptions;
using attention::ProjectionDims;

template <typename T>
T* at(uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

// Options as they cross from JS: the mask's data is an address.
struct OptionsIn {
  bool has_scale = false;
  float scale = 0;
  int32_t causal = 0;
  int32_t mask_kind = 0;
  uintptr_t mask = 0;
  std::array<int32_t, 4> mask_dims{1, 1, 1, 1};
};

// Addresses of the buffers of one call; see AttentionResult and MultiHeadResult in attention.h.
struct Buffers {
  uintptr_t x = 0, context = 0;
  uintptr_t w_q = 0, w_k = 0, w_v = 0, w_o = 0, b_q = 0, b_k = 0, b_v = 0, b_o = 0;
  uintptr_t q = 0, k = 0, v = 0;
  uintptr_t output = 0, weights = 0, scores = 0, scaled_scores = 0, raw_scores = 0, heads = 0, concat = 0;
};

AttentionOptions to_options(const OptionsIn& in) {
  AttentionOptions o;
  o.has_scale = in.has_scale;
  o.scale = in.scale;
  o.causal = static_cast<attention::Causal>(in.causal);
  o.mask.kind = static_cast<attention::MaskKind>(in.mask_kind);
  o.mask.data = at<const void>(in.mask);
  for (int i = 0; i < 4; ++i) o.mask.dims[i] = in.mask_dims[i];
  return o;
}

attention::AttentionResult to_result(const Buffers& b, uintptr_t output) {
  return {at<float>(output), at<float>(b.weights), at<float>(b.scores), at<float>(b.scaled_scores),
          at<float>(b.raw_scores)};
}

// Runs `body` and returns "" on success, or "CODE\tmessage" when the core threw. Errors cross as a status
// rather than a thrown JS error: throwing out of C++ would skip destructors and leak, and the module must
// keep working (and hold no extra heap) after an error. src/js turns the status into an AttentionError.
template <typename Body>
std::string guarded(Body body) {
  try {
    body();
    return "";
  } catch (const attention::AttentionError& e) {
    return e.code() + "\t" + e.what();
  } catch (const std::bad_alloc&) {
    return "OUT_OF_MEMORY\tWebAssembly memory is exhausted";
  } catch (const std::exception& e) {
    return std::string("INTERNAL\t") + e.what();
  }
}

std::string scaled_dot_product_attention(const AttentionDims& dims, const OptionsIn& options, const Buffers& b) {
  return guarded([&] {
    attention::scaled_dot_product_attention(dims, at<const float>(b.q), at<const float>(b.k),
                                            at<const float>(b.v), to_options(options), to_result(b, b.output));
  });
}

std::string multi_head_attention(const ProjectionDims& dims, const OptionsIn& options, const Buffers& b) {
  return guarded([&] {
    attention::ProjectionWeights w{at<const float>(b.w_q), at<const float>(b.w_k), at<const float>(b.w_v),
                                   at<const float>(b.w_o), at<const float>(b.b_q), at<const float>(b.b_k),
                                   at<const float>(b.b_v), at<const float>(b.b_o)};
    attention::MultiHeadResult r{at<float>(b.q), at<float>(b.k), at<float>(b.v), to_result(b, b.heads),
                                 at<float>(b.concat), at<float>(b.output)};
    attention::multi_head_attention(dims, at<const float>(b.x), at<const float>(b.context), w,
                                    to_options(options), r);
  });
}

// output = concat·W_o (+ b_o) for `rows` rows: the last step of multi-head attention on its own, which the
// workers of the JS layer share out by rows.
std::string output_projection(double rows, int32_t width, int32_t d_out, uintptr_t concat, uintptr_t w_o,
                              uintptr_t b_o, uintptr_t output) {
  return guarded([&] {
    attention::output_projection(at<const float>(concat), static_cast<int64_t>(rows), width, at<const float>(w_o),
                                 at<const float>(b_o), d_out, at<float>(output));
  });
}

// The index of the first NaN or ±inf in `count` floats at `address` (-inf allowed on request), or -1.
double find_non_finite(uintptr_t address, double count, bool allow_negative_infinity) {
  return static_cast<double>(
      attention::find_non_finite(at<const float>(address), static_cast<int64_t>(count), allow_negative_infinity));
}

// Bytes of the heap currently handed out by malloc: the tests check that calls return it to a baseline.
double heap_bytes_in_use() { return static_cast<double>(mallinfo().uordblks); }

}  // namespace

EMSCRIPTEN_BINDINGS(attention_wasm) {
  using emscripten::value_object;
  emscripten::value_array<std::array<int32_t, 4>>("Int32x4")
      .element(emscripten::index<0>())
      .element(emscripten::index<1>())
      .element(emscripten::index<2>())
      .element(emscripten::index<3>());
  value_object<AttentionDims>("AttentionDims")
      .field("batch", &AttentionDims::batch)
      .field("numHeads", &AttentionDims::num_heads)
      .field("numKvHeads", &AttentionDims::num_kv_heads)
      .field("lenQ", &AttentionDims::len_q)
      .field("lenK", &AttentionDims::len_k)
      .field("dK", &AttentionDims::d_k)
      .field("dV", &AttentionDims::d_v);
  value_object<ProjectionDims>("ProjectionDims")
      .field("batch", &ProjectionDims::batch)
      .field("lenQ", &ProjectionDims::len_q)
      .field("lenK", &ProjectionDims::len_k)
      .field("dModel", &ProjectionDims::d_model)
      .field("dContext", &ProjectionDims::d_context)
      .field("numHeads", &ProjectionDims::num_heads)
      .field("numKvHeads", &ProjectionDims::num_kv_heads)
      .field("dK", &ProjectionDims::d_k)
      .field("dV", &ProjectionDims::d_v)
      .field("dOut", &ProjectionDims::d_out);
  value_object<OptionsIn>("Options")
      .field("hasScale", &OptionsIn::has_scale)
      .field("scale", &OptionsIn::scale)
      .field("causal", &OptionsIn::causal)
      .field("maskKind", &OptionsIn::mask_kind)
      .field("mask", &OptionsIn::mask)
      .field("maskDims", &OptionsIn::mask_dims);
  value_object<Buffers>("Buffers")
      .field("x", &Buffers::x)
      .field("context", &Buffers::context)
      .field("wQ", &Buffers::w_q)
      .field("wK", &Buffers::w_k)
      .field("wV", &Buffers::w_v)
      .field("wO", &Buffers::w_o)
      .field("bQ", &Buffers::b_q)
      .field("bK", &Buffers::b_k)
      .field("bV", &Buffers::b_v)
      .field("bO", &Buffers::b_o)
      .field("q", &Buffers::q)
      .field("k", &Buffers::k)
      .field("v", &Buffers::v)
      .field("output", &Buffers::output)
      .field("weights", &Buffers::weights)
      .field("scores", &Buffers::scores)
      .field("scaledScores", &Buffers::scaled_scores)
      .field("rawScores", &Buffers::raw_scores)
      .field("heads", &Buffers::heads)
      .field("concat", &Buffers::concat);
  emscripten::function("_scaledDotProductAttention", &scaled_dot_product_attention);
  emscripten::function("_multiHeadAttention", &multi_head_attention);
  emscripten::function("_outputProjection", &output_projection);
  emscripten::function("_findNonFinite", &find_non_finite);
  emscripten::function("_simdInstructionSets", &attention::simd_instruction_sets);
  emscripten::function("_heapBytesInUse", &heap_bytes_in_use);
}
