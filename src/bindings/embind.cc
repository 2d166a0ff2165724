// The Embind layer: the only file that includes emscripten/bind.h.
//
// The JS wrapper (src/js) validates every argument, copies inputs into buffers it allocates with _malloc, and
// passes their addresses, with the call's dimensions and options, in a call descriptor (abi.h) whose address is
// the only argument. Results are written into buffers it allocated too, which it copies out and frees. Nothing
// here keeps a pointer or a view between calls. Raw bindings carry a leading underscore; src/js/attention.js
// wraps them.
#include <emscripten/bind.h>
#include <malloc.h>

#include <cstring>
#include <new>
#include <string>

#include "../core/abi.h"
#include "../core/attention.h"

namespace {

using attention::AttentionDims;
using attention::AttentionOptions;
using attention::CallKind;
using attention::ProjectionDims;
namespace slot = attention::slot;

template <typename T>
T* at(uintptr_t address) {
  return reinterpret_cast<T*>(address);
}

// One call's descriptor (abi.h): int32 slots that the JS layer wrote into WebAssembly memory. Reading plain
// numbers, rather than having Embind walk JS objects, keeps a call independent of Object.prototype and of
// anything Embind would allocate per field.
class Descriptor {
 public:
  explicit Descriptor(uintptr_t address) : slots_(at<const int32_t>(address)) {}
  int32_t operator[](int32_t slot) const { return slots_[slot]; }
  template <typename T = float>
  T* address(int32_t slot) const {
    return at<T>(static_cast<uint32_t>(slots_[slot]));
  }
  float scale() const {
    float value;
    std::memcpy(&value, slots_ + slot::scale, sizeof value);
    return value;
  }

 private:
  const int32_t* slots_;
};

AttentionOptions to_options(const Descriptor& d) {
  AttentionOptions o;
  o.has_scale = d[slot::has_scale] != 0;
  o.scale = d.scale();
  o.causal = static_cast<attention::Causal>(d[slot::causal]);
  o.mask.kind = static_cast<attention::MaskKind>(d[slot::mask_kind]);
  o.mask.data = d.address<const void>(slot::mask);
  for (int i = 0; i < 4; ++i) o.mask.dims[i] = d[slot::mask_dims + i];
  return o;
}

attention::AttentionResult to_result(const Descriptor& d, int32_t output) {
  return {d.address(output), d.address(slot::weights), d.address(slot::scores), d.address(slot::scaled_scores),
          d.address(slot::raw_scores)};
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

void scaled_dot_product_attention(const Descriptor& d) {
  const AttentionDims dims{d[slot::batch], d[slot::num_heads], d[slot::num_kv_heads], d[slot::len_q],
                           d[slot::len_k], d[slot::d_k],       d[slot::d_v]};
  attention::scaled_dot_product_attention(dims, d.address<const float>(slot::q), d.address<const float>(slot::k),
                                          d.address<const float>(slot::v), to_options(d), to_result(d, slot::output));
}

void multi_head_attention(const Descriptor& d) {
  const ProjectionDims dims{d[slot::batch],     d[slot::len_q],     d[slot::len_k],        d[slot::d_model],
                            d[slot::d_context], d[slot::num_heads], d[slot::num_kv_heads], d[slot::d_k],
                            d[slot::d_v],       d[slot::d_out]};
  const attention::ProjectionWeights w{d.address<const float>(slot::w_q), d.address<const float>(slot::w_k),
                                       d.address<const float>(slot::w_v), d.address<const float>(slot::w_o),
                                       d.address<const float>(slot::b_q), d.address<const float>(slot::b_k),
                                       d.address<const float>(slot::b_v), d.address<const float>(slot::b_o)};
  const attention::MultiHeadResult r{d.address(slot::q),
                                     d.address(slot::k),
                                     d.address(slot::v),
                                     to_result(d, slot::heads),
                                     d.address(slot::concat),
                                     d.address(slot::output),
                                     d.address<uint8_t>(slot::stale_blocks)};
  attention::multi_head_attention(dims, d.address<const float>(slot::x), d.address<const float>(slot::context), w,
                                  to_options(d), r);
}

// output = concat·W_o (+ b_o) for `rows` rows: the last step of multi-head attention on its own, which the
// workers of the JS layer share out by rows.
void output_projection(const Descriptor& d) {
  attention::output_projection(d.address<const float>(slot::concat), d[slot::rows], d[slot::width],
                               d.address<const float>(slot::w_o), d.address<const float>(slot::b_o), d[slot::d_out],
                               d.address(slot::output));
}

// Runs the call of `kind` (abi.h's CallKind) that the descriptor at `descriptor` describes; "" or "CODE\tmessage".
std::string call(int32_t kind, uintptr_t descriptor) {
  return guarded([&] {
    const Descriptor d(descriptor);
    switch (static_cast<CallKind>(kind)) {
      case CallKind::kSdpa: return scaled_dot_product_attention(d);
      case CallKind::kProjected: return multi_head_attention(d);
      case CallKind::kOutputProjection: return output_projection(d);
    }
    throw attention::AttentionError("INTERNAL", "unknown call kind " + std::to_string(kind));
  });
}

// Bytes the core allocates for itself in one call of scaled_dot_product_attention or output_projection (abi.h):
// the JS layer's formula (plan.js) is tested against these.
double sdpa_scratch_bytes(int32_t len_q, int32_t len_k, int32_t d_k, int32_t d_v, bool keeps_weights, bool streaming) {
  return 4.0 * static_cast<double>(attention::sdpa_scratch_floats(len_q, len_k, d_k, d_v, keeps_weights, streaming));
}

double output_projection_scratch_bytes(int32_t width, int32_t d_out) {
  return 4.0 * static_cast<double>(attention::output_projection_scratch_floats(width, d_out));
}

// Everything abi.h lists, as the compiled module sees it, under the C++ names: tests compare it with the files
// that scripts/gen-constants.mjs generated from the header, and the loader with the glue's own copy.
emscripten::val abi() {
  using emscripten::val;
  val constants = val::object(), causal = val::object(), mask_kinds = val::object(), call_kinds = val::object();
  val slots = val::object(), error_codes = val::array();
#define X(name, value) constants.set(#name, static_cast<double>(attention::name));
  ATTENTION_CONSTANTS(X)
#undef X
#define X(name, value) causal.set(#name, static_cast<int32_t>(attention::Causal::name));
  ATTENTION_CAUSAL(X)
#undef X
#define X(name, value) mask_kinds.set(#name, static_cast<int32_t>(attention::MaskKind::name));
  ATTENTION_MASK_KINDS(X)
#undef X
#define X(name, value) call_kinds.set(#name, static_cast<int32_t>(CallKind::name));
  ATTENTION_CALL_KINDS(X)
#undef X
#define X(name, count) slots.set(#name, static_cast<int32_t>(slot::name));
  ATTENTION_DESCRIPTOR_SLOTS(X)
#undef X
#define X(code, description) error_codes.call<void>("push", std::string(#code));
  ATTENTION_ERROR_CODES(X)
#undef X
  val result = val::object();
  result.set("constants", constants);
  result.set("causal", causal);
  result.set("maskKinds", mask_kinds);
  result.set("callKinds", call_kinds);
  result.set("slots", slots);
  result.set("slotCount", static_cast<int32_t>(slot::kCount));
  result.set("errorCodes", error_codes);
  return result;
}

std::string kernel_backend() { return attention::kernel_backend(); }

// The index of the first NaN or ±inf in `count` floats at `address` (-inf allowed on request), or -1.
double find_non_finite(uintptr_t address, double count, bool allow_negative_infinity) {
  return static_cast<double>(
      attention::find_non_finite(at<const float>(address), static_cast<int64_t>(count), allow_negative_infinity));
}

// Bytes of the heap currently handed out by malloc: the tests check that calls return it to a baseline.
double heap_bytes_in_use() { return static_cast<double>(mallinfo().uordblks); }

}  // namespace

EMSCRIPTEN_BINDINGS(attention_wasm) {
  emscripten::function("_call", &call);
  emscripten::function("_abi", &abi);
  emscripten::function("_sdpaScratchBytes", &sdpa_scratch_bytes);
  emscripten::function("_outputProjectionScratchBytes", &output_projection_scratch_bytes);
  emscripten::function("_findNonFinite", &find_non_finite);
  emscripten::function("_simdInstructionSets", &attention::simd_instruction_sets);
  emscripten::function("_kernelBackend", &kernel_backend);
  emscripten::function("_heapBytesInUse", &heap_bytes_in_use);
}
