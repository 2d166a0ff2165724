// The Embind layer: the only file that includes emscripten/bind.h. Built into two modules: the core alone
// (attention-wasm), and with ATTENTION_WITH_MODEL the core and the model forward (attention-wasm/model).
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
#ifdef ATTENTION_WITH_MODEL
#include "../core/gemm.h"
#include "../core/model/cells.h"
#include "../core/model/edits.h"
#include "../core/model/forward.h"
#include "../core/model/scratch.h"
#endif

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
  // A slot holding the bits of a float32 (scale, eps).
  float bits(int32_t slot) const {
    float value;
    std::memcpy(&value, slots_ + slot, sizeof value);
    return value;
  }

 private:
  const int32_t* slots_;
};

attention::Rope to_rope(const Descriptor& d) {
  return {static_cast<attention::RopeStyle>(d[slot::rope_style]), d[slot::rope_dim],
          d.address<const float>(slot::rope_cos), d.address<const float>(slot::rope_sin)};
}

AttentionOptions to_options(const Descriptor& d) {
  AttentionOptions o;
  o.has_scale = d[slot::has_scale] != 0;
  o.scale = d.bits(slot::scale);
  o.causal = static_cast<attention::Causal>(d[slot::causal]);
  o.mask.kind = static_cast<attention::MaskKind>(d[slot::mask_kind]);
  o.mask.data = d.address<const void>(slot::mask);
  for (int i = 0; i < 4; ++i) o.mask.dims[i] = d[slot::mask_dims + i];
  o.rope = to_rope(d);
  o.softcap = d.bits(slot::softcap);
  o.window = d[slot::window];
  return o;
}

attention::AttentionResult to_result(const Descriptor& d, int32_t output) {
  return {d.address(output),           d.address(slot::weights),
          d.address(slot::scores),     d.address(slot::scaled_scores),
          d.address(slot::raw_scores), d.address(slot::q_rotated),
          d.address(slot::k_rotated)};
}

#ifdef ATTENTION_WITH_MODEL
attention::model::ModelConfig to_model_config(const Descriptor& d) {
  attention::model::ModelConfig c;
  c.len = d[slot::len_q];
  c.d_model = d[slot::d_model];
  c.num_heads = d[slot::num_heads];
  c.num_kv_heads = d[slot::num_kv_heads];
  c.d_k = d[slot::d_k];
  c.d_ff = d[slot::d_ff];
  c.norm = static_cast<attention::NormKind>(d[slot::norm_kind]);
  c.placement = static_cast<attention::NormPlacement>(d[slot::norm_placement]);
  c.activation = static_cast<attention::Activation>(d[slot::activation]);
  c.layout = static_cast<attention::WeightLayout>(d[slot::weight_layout]);
  c.qkv_layout = static_cast<attention::QkvLayout>(d[slot::qkv_layout]);
  c.mlp_panels = d[slot::mlp_panels] != 0;
  c.eps = d.bits(slot::eps);
  c.causal = d[slot::causal] != 0;
  c.sliding_window = d[slot::sliding_window];
  c.attention_scale = d.bits(slot::attention_scale);
  c.softcap = d.bits(slot::softcap);
  c.qk_norm_whole = d[slot::qk_norm_whole] != 0;
  c.embed_scale = d.bits(slot::embed_scale);
  c.final_softcap = d.bits(slot::final_softcap);
  c.rope = to_rope(d);
  return c;
}
#endif

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

#ifdef ATTENTION_WITH_MODEL
// The model forward's steps (model/forward.h), one layer's weights per call.
void model_embed(const Descriptor& d) {
  attention::model::embed(to_model_config(d), d.address<const float>(slot::x),
                          d.address<const float>(slot::position_embeddings),
                          d.address<const float>(slot::type_embeddings), d.address<const float>(slot::norm1_weight),
                          d.address<const float>(slot::norm1_bias), d.address(slot::output));
}

// A layer's weights and steps as the descriptor gives them: each half of the layer reads its own (forward.h).
attention::model::LayerWeights layer_weights(const Descriptor& d) {
  attention::model::LayerWeights w;
  w.norm1_weight = d.address<const float>(slot::norm1_weight);
  w.norm1_bias = d.address<const float>(slot::norm1_bias);
  w.w_qkv = d.address<const float>(slot::w_qkv);
  w.b_qkv = d.address<const float>(slot::b_qkv);
  w.w_q = d.address<const float>(slot::w_q);
  w.w_k = d.address<const float>(slot::w_k);
  w.w_v = d.address<const float>(slot::w_v);
  w.w_o = d.address<const float>(slot::w_o);
  w.b_q = d.address<const float>(slot::b_q);
  w.b_k = d.address<const float>(slot::b_k);
  w.b_v = d.address<const float>(slot::b_v);
  w.b_o = d.address<const float>(slot::b_o);
  w.norm2_weight = d.address<const float>(slot::norm2_weight);
  w.norm2_bias = d.address<const float>(slot::norm2_bias);
  w.w_up = d.address<const float>(slot::w_up);
  w.b_up = d.address<const float>(slot::b_up);
  w.w_gate = d.address<const float>(slot::w_gate);
  w.b_gate = d.address<const float>(slot::b_gate);
  w.w_down = d.address<const float>(slot::w_down);
  w.b_down = d.address<const float>(slot::b_down);
  w.head_mask = d.address<const float>(slot::head_mask);
  w.q_norm = d.address<const float>(slot::q_norm);
  w.k_norm = d.address<const float>(slot::k_norm);
  w.attention_post_norm = d.address<const float>(slot::attention_post_norm);
  w.mlp_post_norm = d.address<const float>(slot::mlp_post_norm);
  w.qk_scales = d.address<const double>(slot::qk_scales);
  w.qk_projected = d.address<const float>(slot::qk_projected);
  return w;
}

attention::model::LayerResult layer_result(const Descriptor& d) {
  attention::model::LayerResult r;
  r.output = d.address(slot::output);
  r.weights = d.address(slot::weights);
  r.raw_scores = d.address(slot::raw_scores);
  r.scaled_scores = d.address(slot::scaled_scores);
  r.scores = d.address(slot::scores);
  r.normed = d.address(slot::normed);
  r.q = d.address(slot::q);
  r.k = d.address(slot::k);
  r.v = d.address(slot::v);
  r.q_rotated = d.address(slot::q_rotated);
  r.k_rotated = d.address(slot::k_rotated);
  r.heads = d.address(slot::heads);
  r.concat = d.address(slot::concat);
  r.attention_output = d.address(slot::attention_output);
  r.residual = d.address(slot::residual);
  r.mlp_input = d.address(slot::mlp_input);
  r.mlp_hidden = d.address(slot::mlp_hidden);
  r.mlp_output = d.address(slot::mlp_output);
  r.qk_squares = d.address<double>(slot::qk_squares);
  r.qk_projections = d.address(slot::qk_projections);
  return r;
}

// The KV cache of a decode step (model/decode.h): a kModelAttention call with cache_k set.
attention::model::KvCache kv_cache(const Descriptor& d) {
  return {d.address(slot::cache_k), d.address(slot::cache_v), d[slot::cache_past], d[slot::cache_capacity]};
}

// The cells of a layer call (model/cells.h): with cell_count > 0, a batch of cells continuing a base run.
attention::model::Cells cells_of(const Descriptor& d) {
  return {d.address<const float>(slot::cells), d[slot::cell_count], d.address<const float>(slot::base_k),
          d.address<const float>(slot::base_v), d[slot::base_len]};
}

// A layer's first half: x → residual. With cache_k set, a decode step: the new tokens attend over the cache of the
// earlier ones.
void model_attention(const Descriptor& d) {
  attention::model::KvCache cache = kv_cache(d);
  const attention::model::LayerEdits edits{d.address<const float>(slot::edits), d[slot::edit_count]};
  const attention::model::Cells cells = cells_of(d);
  attention::model::layer_attention(to_model_config(d), layer_weights(d), d.address<const float>(slot::x),
                                    layer_result(d), cache.k ? &cache : nullptr, &edits,
                                    cells.count > 0 ? &cells : nullptr);
}

// A layer's second half: x (the first half's residual) → output; layer_input: the layer's input (kParallel).
void model_mlp(const Descriptor& d) {
  const attention::model::LayerEdits edits{d.address<const float>(slot::edits), d[slot::edit_count]};
  attention::model::layer_mlp(to_model_config(d), layer_weights(d), d.address<const float>(slot::x), layer_result(d),
                              &edits, d.address<const float>(slot::layer_input));
}

void model_norm(const Descriptor& d) {
  attention::model::final_norm(to_model_config(d), d.address<const float>(slot::x),
                               d.address<const float>(slot::w_dense), d.address<const float>(slot::b_dense),
                               d.address<const float>(slot::norm1_weight), d.address<const float>(slot::norm1_bias),
                               d.address(slot::output));
}

void model_logits(const Descriptor& d) {
  attention::model::logits(to_model_config(d), d.address<const float>(slot::x), d.address<const float>(slot::w_head),
                           d.address<const float>(slot::b_head), d[slot::d_out], d.address(slot::output));
}

// Packs the [in, out] weights at `address` in place into gemm.h's panels (a resident MLP weight, once): false when
// its scratch copy could not be allocated (the weights are then as they were).
bool pack_panels(uintptr_t address, int32_t in, int32_t out) {
  return attention::pack_panels(at<float>(address), in, out);
}

// Bytes the model call of `kind` that `descriptor` describes allocates for itself (model/scratch.h), its edits
// changing `edited_steps` (bits 1 << LayerStep): the JS layer adds them to the call's block for its size check. Only
// whether each address is set is read (the JS layer passes the call's descriptor with its buffers' offsets), and a
// batch of cells' table (which the JS layer writes beside the descriptor: the cells' sizes count).
double model_scratch_bytes(int32_t kind, uintptr_t descriptor, uint32_t edited_steps) {
  namespace m = attention::model;
  const Descriptor d(descriptor);
  const m::ModelConfig c = to_model_config(d);
  const m::KvCache cache = kv_cache(d);
  const m::Cells cells = cells_of(d);
  switch (static_cast<CallKind>(kind)) {
    case CallKind::kModelAttention:
      return static_cast<double>(m::layer_attention_scratch_bytes(c, layer_result(d), cache.k ? &cache : nullptr,
                                                                  edited_steps, cells.count > 0 ? &cells : nullptr));
    case CallKind::kModelMlp: return static_cast<double>(m::layer_mlp_scratch_bytes(c, layer_result(d)));
    case CallKind::kModelNorm: return static_cast<double>(m::final_norm_scratch_bytes(c, d[slot::w_dense] != 0));
    case CallKind::kModelLogits: return static_cast<double>(m::logits_scratch_bytes(c));
    default: return 0;  // kModelEmbed: none
  }
}
#endif

// Runs the call of `kind` (abi.h's CallKind) that the descriptor at `descriptor` describes; "" or "CODE\tmessage".
std::string call(int32_t kind, uintptr_t descriptor) {
  return guarded([&] {
    const Descriptor d(descriptor);
    switch (static_cast<CallKind>(kind)) {
      case CallKind::kSdpa: return scaled_dot_product_attention(d);
      case CallKind::kProjected: return multi_head_attention(d);
      case CallKind::kOutputProjection: return output_projection(d);
#ifdef ATTENTION_WITH_MODEL
      case CallKind::kModelEmbed: return model_embed(d);
      case CallKind::kModelAttention: return model_attention(d);
      case CallKind::kModelNorm: return model_norm(d);
      case CallKind::kModelLogits: return model_logits(d);
      case CallKind::kModelMlp: return model_mlp(d);
#else
      case CallKind::kModelEmbed:
      case CallKind::kModelAttention:
      case CallKind::kModelNorm:
      case CallKind::kModelLogits:
      case CallKind::kModelMlp:
        throw attention::AttentionError("INTERNAL", "this module has no model forward: attention-wasm/model has");
#endif
    }
    throw attention::AttentionError("INTERNAL", "unknown call kind " + std::to_string(kind));
  });
}

// Bytes the core allocates for itself in one call of scaled_dot_product_attention (abi.h): the JS layer's formula
// (plan.js) is tested against it. output_projection allocates nothing (gemm.h).
double sdpa_scratch_bytes(int32_t len_q, int32_t len_k, int32_t d_k, int32_t d_v, bool keeps_weights, bool streaming) {
  return 4.0 * static_cast<double>(attention::sdpa_scratch_floats(len_q, len_k, d_k, d_v, keeps_weights, streaming));
}

// Everything abi.h lists, as the compiled module sees it, under the C++ names: tests compare it with the files
// that scripts/gen-constants.mjs generated from the header, and the loader with the glue's own copy.
// The hash of abi.h's lists (abi_hash): the loader refuses a module whose hash is not the generated ABI_HASH.
// Computed when compiling (constexpr), so that the lists' text is not in the module.
constexpr uint32_t kAbiHash = attention::abi_hash();
double abi_hash() { return kAbiHash; }

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
  emscripten::function("_abiHash", &abi_hash);
  emscripten::function("_sdpaScratchBytes", &sdpa_scratch_bytes);
#ifdef ATTENTION_WITH_MODEL
  emscripten::function("_modelScratchBytes", &model_scratch_bytes);
  emscripten::function("_packPanels", &pack_panels);
#endif
  emscripten::function("_findNonFinite", &find_non_finite);
  emscripten::function("_simdInstructionSets", &attention::simd_instruction_sets);
  emscripten::function("_kernelBackend", &kernel_backend);
  emscripten::function("_heapBytesInUse", &heap_bytes_in_use);
}
