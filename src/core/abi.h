// What crosses the boundary between the core and the JS layer, in one place: the enums, the block sizes the JS
// layer's memory formula and workers rely on, every error code, and the layout of the call descriptor.
//
// Each list is an X-macro, so that C++ defines it here, the Embind layer reports its hash to JS at load, and
// scripts/gen-constants.mjs writes src/js/generated/abi.{js,d.ts} from this file at build time. Keep every entry
// on one line of the form `X(name, value)` (the generator reads them that way; `clang-format off` keeps them so)
// and edit nothing downstream by
// hand: tests/js/abi.test.js checks that the generated files, the built module and this header agree.
#pragma once

#include <cstddef>
#include <cstdint>

namespace attention {

// Sizes of the core's blocks, in rows, keys or columns.
//   kQueryBlock            query rows per block: a block's scores ([64, L_k], or [64, kKeyTile] tiles) stay in
//                          cache between the scores, the softmax and the weighted sum
//   kKeyTile               keys per tile of the streaming path (no weights kept); a multiple of kKeyPanel
//   kKeyPanel              keys per packed panel: the scores kernel reads 8 keys of one column with two vector loads
//   kValuePanel            values per packed panel: the weighted sum reads 8 columns of one value row with two loads
//   kOutputProjectionRows  rows per block that the JS layer's workers share output_projection's rows out by (any
//                          split of the rows gives the same bits as one call: gemm.h sums each row alike)
//   kProjectionRows        rows of x per group that multi_head_attention's stale_blocks flags: a group projected again
//                          gets the bits of the whole product (gemm.h sums each row alike, whatever rows are with it)
//   kPanelColumns          columns per panel of [in, out] weights packed by gemm.h's pack_panels (a resident MLP
//                          weight): its in and out are multiples of it
// clang-format off
#define ATTENTION_CONSTANTS(X)  \
  X(kQueryBlock, 64)            \
  X(kKeyTile, 512)              \
  X(kKeyPanel, 8)               \
  X(kValuePanel, 8)             \
  X(kOutputProjectionRows, 64)  \
  X(kProjectionRows, 4)         \
  X(kPanelColumns, 16)
// clang-format on

#define X(name, value) constexpr int64_t name = value;
ATTENTION_CONSTANTS(X)
#undef X

// Causal masking.
//   kTopLeft      query i attends key j when j <= i (PyTorch is_causal)
//   kBottomRight  query i attends key j when j <= i + L_k - L_q (query block at the end of the keys)
// clang-format off
#define ATTENTION_CAUSAL(X) \
  X(kNone, 0)               \
  X(kTopLeft, 1)            \
  X(kBottomRight, 2)
// clang-format on

// The user mask's element type.
//   kBoolean   uint8_t, nonzero = may attend
//   kAdditive  float, added to the scaled scores; -inf blocks
// clang-format off
#define ATTENTION_MASK_KINDS(X) \
  X(kNone, 0)                   \
  X(kBoolean, 1)                \
  X(kAdditive, 2)
// clang-format on

// Rotary position embeddings (RoPE) on q and k.
//   kNone         no rotation
//   kHalf         LLaMA/GPT-NeoX `rotate_half`: column i pairs with column i + dim/2
//   kInterleaved  GPT-J: column 2i pairs with column 2i + 1
// clang-format off
#define ATTENTION_ROPE_STYLES(X) \
  X(kNone, 0)                    \
  X(kHalf, 1)                    \
  X(kInterleaved, 2)
// clang-format on

// The choices by which the model families differ (src/core/model/forward.h), each a small named step.
//   norm kinds        kLayerNorm (x − mean)/√(var + eps)·w + b; kRmsNorm x/√(mean(x²) + eps)·w; kRmsNormPlusOne
//                     x/√(mean(x²) + eps)·(1 + w) (Gemma's)
//   norm placements   kPreNorm x + f(norm(x)) (GPT-2, LLaMA); kPostNorm norm(x + f(x)) (BERT); kParallel
//                     x + attn(norm1(x)) + mlp(norm2(x)) (GPT-NeoX's use_parallel_residual); kSandwich
//                     x + post(f(pre(x))) (Gemma 2 and 3: four norms a layer); kPostBranch x + post(f(x)) (OLMo-2)
//   activations       kGeluTanh (GPT-2's gelu_new), kGeluErf (BERT's gelu), kSiluGated down(silu(gate(x))·up(x)),
//                     kGeluTanhGated down(gelu_tanh(gate(x))·up(x)) (Gemma's GeGLU)
//   weight layouts    kInOut [in, out] (GPT-2's Conv1D), kOutIn [out, in] (torch.nn.Linear)
//   qkv layouts       a fused q|k|v projection's columns: kBlocks [q | k | v] (GPT-2's c_attn), kPerHead
//                     [q_0 | k_0 | v_0 | q_1 | …] by head, d_k each (GPT-NeoX's query_key_value, H_kv = H)
// clang-format off
#define ATTENTION_NORM_KINDS(X) \
  X(kLayerNorm, 0)              \
  X(kRmsNorm, 1)                \
  X(kRmsNormPlusOne, 2)
#define ATTENTION_NORM_PLACEMENTS(X) \
  X(kPreNorm, 0)                     \
  X(kPostNorm, 1)                    \
  X(kParallel, 2)                    \
  X(kSandwich, 3)                    \
  X(kPostBranch, 4)
#define ATTENTION_ACTIVATIONS(X) \
  X(kGeluTanh, 0)                \
  X(kGeluErf, 1)                 \
  X(kSiluGated, 2)               \
  X(kGeluTanhGated, 3)
#define ATTENTION_WEIGHT_LAYOUTS(X) \
  X(kInOut, 0)                      \
  X(kOutIn, 1)
#define ATTENTION_QKV_LAYOUTS(X) \
  X(kBlocks, 0)                  \
  X(kPerHead, 1)
// clang-format on

// The steps of a layer that model.run's `edits` may change (src/core/model/edits.h), named as its captures name
// them: attention's input, q, k, v (before RoPE) and after it, the scores, the weights, a head's output, the
// concatenation, W_o's output, the residual sum, the MLP's input, activation and output, and the layer's output.
// clang-format off
#define ATTENTION_LAYER_STEPS(X) \
  X(kX, 0)                       \
  X(kQ, 1)                       \
  X(kK, 2)                       \
  X(kV, 3)                       \
  X(kQRotated, 4)                \
  X(kKRotated, 5)                \
  X(kRawScores, 6)               \
  X(kScaledScores, 7)            \
  X(kScores, 8)                  \
  X(kWeights, 9)                 \
  X(kHeadOutput, 10)             \
  X(kConcat, 11)                 \
  X(kOutput, 12)                 \
  X(kResidual, 13)               \
  X(kMlpInput, 14)               \
  X(kMlpHidden, 15)              \
  X(kMlpOutput, 16)              \
  X(kHidden, 17)
// clang-format on

#define X(name, value) name = value,
enum class Causal : int32_t { ATTENTION_CAUSAL(X) };
enum class MaskKind : int32_t { ATTENTION_MASK_KINDS(X) };
enum class RopeStyle : int32_t { ATTENTION_ROPE_STYLES(X) };
enum class NormKind : int32_t { ATTENTION_NORM_KINDS(X) };
enum class NormPlacement : int32_t { ATTENTION_NORM_PLACEMENTS(X) };
enum class Activation : int32_t { ATTENTION_ACTIVATIONS(X) };
enum class WeightLayout : int32_t { ATTENTION_WEIGHT_LAYOUTS(X) };
enum class QkvLayout : int32_t { ATTENTION_QKV_LAYOUTS(X) };
enum class LayerStep : int32_t { ATTENTION_LAYER_STEPS(X) };
#undef X

// Every code an AttentionError can carry, in C++ or in JS, with what raises it (the error table of docs/guide.md
// and the .d.ts union are checked against this list). Codes are stable across versions.
// clang-format off
#define ATTENTION_ERROR_CODES(X) \
  X(NOT_A_TENSOR, "a value that is neither a nested array nor `{ data, shape }`; a missing weight") \
  X(NOT_A_NUMBER, "a string, `null`, an object… where a number (or a mask's boolean) belongs") \
  X(NON_FINITE, "NaN, ±Infinity, or a value beyond float32 (−Infinity is allowed in additive masks)") \
  X(RAGGED_ARRAY, "rows of different lengths or depths") \
  X(BAD_RANK, "a tensor with the wrong number of dimensions") \
  X(BAD_DIMENSION, "an empty, negative, fractional or huge dimension") \
  X(DATA_LENGTH_MISMATCH, "`data.length` differs from the product of `shape`") \
  X(SHAPE_MISMATCH, "two arguments whose shapes do not fit, e.g. \"k has 5 columns but q has 6: q and k must share d_k\"") \
  X(HEADS_DO_NOT_DIVIDE, "`numHeads` not dividing a projection's width, or `numKvHeads` not dividing `numHeads`") \
  X(MASK_DOES_NOT_BROADCAST, "a mask that does not broadcast to the weights' shape") \
  X(UNKNOWN_OPTION, "an unknown option or weight name; the message names the nearest valid one") \
  X(BAD_OPTION, "an option of the wrong kind: a NaN scale, `causal: 'yes'`, `numHeads: 0`, a `wasmUrl` that is not a string or URL…") \
  X(TOO_LARGE, "a call needing more than `MAX_CALL_BYTES`: checked before anything is allocated; the message suggests `returnWeights: false`") \
  X(SCORE_OVERFLOW, "q·kᵀ·scale beyond float32 (or, with `returnSteps`, the unscaled q·kᵀ); the message names the query row and the key") \
  X(PROJECTION_OVERFLOW, "x·W_q, x·W_k, x·W_v or concat·W_o beyond float32 (finite inputs, too large a product)") \
  X(OUTPUT_OVERFLOW, "weights·V beyond float32 (values near ±3.4e38)") \
  X(SIMD_UNSUPPORTED, "from `createAttention`: `simd: true` where WebAssembly SIMD is missing") \
  X(LOAD_FAILED, "from `createAttention`: the `.wasm` could not be fetched or started, `wasmUrl` could not be resolved, or the file is not the build asked for; the message names the URL") \
  X(BAD_FILE, "from `attention-wasm/io`: a file that is not what its format says (truncated, a bad header, an unsupported dtype, offsets or shapes beyond the file or beyond `MAX_CALL_BYTES`); the message names the part and the byte offset") \
  X(TERMINATED, "a call on a `ParallelAttention` after `terminate()`, or on a prepared layer after `free()`") \
  X(WORKER_FAILED, "a worker died or failed during a call (or, with `loadModel({ workers })`, during a run or generation)") \
  X(WORKERS_UNAVAILABLE, "from `createAttention({ workers })` or `loadModel({ workers })`: workers cannot be started here (no `Worker`, or the page's Content-Security-Policy forbids them); the message names the directive to add, e.g. `worker-src blob:`") \
  X(NULL_ARGUMENT, "a null buffer passed to the C++ core (a bug: the JS layer never passes one)") \
  X(OUT_OF_MEMORY, "WebAssembly memory could not grow for a call") \
  X(UNSUPPORTED_MODEL, "from `attention-wasm/model`: a config.json whose `model_type` (or `architectures`) is no family this package runs, or a setting it does not implement (a `rope_scaling` type, a `hidden_act`); the message names the file, the field and what is supported") \
  X(BAD_CONFIG, "from `attention-wasm/model`: a config.json that is not JSON, or a field that is missing, of the wrong kind or out of range (`n_head` not dividing `n_embd`…); the message names the file and the field") \
  X(MISSING_FILE, "from `attention-wasm/model`: a file the checkpoint needs (config.json, model.safetensors, a shard that model.safetensors.index.json names) is not in the source; the message names it and lists what is there") \
  X(MISSING_TENSOR, "from `attention-wasm/model`: a tensor the family needs is in no file of the checkpoint; the message names the tensor, the names tried and the file") \
  X(WEIGHT_SHAPE_MISMATCH, "from `attention-wasm/model`: a tensor whose shape disagrees with config.json; the message names the file, the tensor and both shapes") \
  X(TOO_MANY_TOKENS, "from `attention-wasm/model`: more tokens than the model has positions for (`n_positions`, `max_position_embeddings`)") \
  X(FETCH_FAILED, "from `attention-wasm/model`: a folder URL or Hub model that cannot be read: the server is unreachable, refuses this origin (CORS), answers an error status or ignores Range requests for a large file; the message names the URL and what the server must allow") \
  X(ABORTED, "from `attention-wasm/model`: `loadModel` or `run` stopped by its `signal` (an `AbortSignal`); the signal's reason is the error's `cause`") \
  X(INTERNAL, "a failure inside the module (not expected; please report it)")
// clang-format on

// Which entry point a call descriptor is for.
// clang-format off
#define ATTENTION_CALL_KINDS(X) \
  X(kSdpa, 0)                   \
  X(kProjected, 1)              \
  X(kOutputProjection, 2)       \
  X(kModelEmbed, 3)             \
  X(kModelAttention, 4)         \
  X(kModelNorm, 5)              \
  X(kModelLogits, 6)            \
  X(kModelMlp, 7)
// clang-format on

#define X(name, value) name = value,
enum class CallKind : int32_t { ATTENTION_CALL_KINDS(X) };
#undef X

// The call descriptor: one block of int32 slots that the JS layer writes into WebAssembly memory and passes by
// address, in place of objects that Embind would walk. X(name, count): `count` consecutive slots, at the index of
// the enumerator `name` of DescriptorSlot. Dimensions are those of AttentionDims and ProjectionDims (rows, width:
// output_projection's), of the Rope and of the model calls (model/forward.h); addresses are byte offsets into
// memory (0 = absent); `scale`, `softcap` and `eps` hold the bits of a float32; `window` is AttentionOptions'
// sliding window (0: none).
// clang-format off
#define ATTENTION_DESCRIPTOR_SLOTS(X) \
  X(batch, 1)                         \
  X(num_heads, 1)                     \
  X(num_kv_heads, 1)                  \
  X(len_q, 1)                         \
  X(len_k, 1)                         \
  X(d_k, 1)                           \
  X(d_v, 1)                           \
  X(d_model, 1)                       \
  X(d_context, 1)                     \
  X(d_out, 1)                         \
  X(rows, 1)                          \
  X(width, 1)                         \
  X(has_scale, 1)                     \
  X(scale, 1)                         \
  X(causal, 1)                        \
  X(mask_kind, 1)                     \
  X(mask, 1)                          \
  X(mask_dims, 4)                     \
  X(x, 1)                             \
  X(context, 1)                       \
  X(w_q, 1)                           \
  X(w_k, 1)                           \
  X(w_v, 1)                           \
  X(w_o, 1)                           \
  X(b_q, 1)                           \
  X(b_k, 1)                           \
  X(b_v, 1)                           \
  X(b_o, 1)                           \
  X(q, 1)                             \
  X(k, 1)                             \
  X(v, 1)                             \
  X(output, 1)                        \
  X(weights, 1)                       \
  X(scores, 1)                        \
  X(scaled_scores, 1)                 \
  X(raw_scores, 1)                    \
  X(heads, 1)                         \
  X(concat, 1)                        \
  X(stale_blocks, 1)                  \
  X(rope_style, 1)                    \
  X(rope_dim, 1)                      \
  X(rope_cos, 1)                      \
  X(rope_sin, 1)                      \
  X(q_rotated, 1)                     \
  X(k_rotated, 1)                     \
  X(softcap, 1)                       \
  X(window, 1)
// clang-format on

// The slots that only the model calls read (kModel*; src/core/model/forward.h), after the attention calls' slots:
// the main module's JS layer never writes them (src/js/generated/model-abi.js lists them for attention-wasm/model).
// A layer is two calls, kModelAttention then kModelMlp (forward.h's layer_attention and layer_mlp); cache_*: a
// kModelAttention call with cache_k set is a decode step over a KV cache (forward.h's KvCache); cells, cell_count and
// base_*: a kModelAttention call with cell_count > 0 runs a batch of cells (model/cells.h); mlp_panels: 1 when the
// MLP's weights are packed by gemm.h's pack_panels (forward.h's ModelConfig::mlp_panels).
// clang-format off
#define ATTENTION_MODEL_SLOTS(X)      \
  X(d_ff, 1)                          \
  X(norm_kind, 1)                     \
  X(norm_placement, 1)                \
  X(activation, 1)                    \
  X(weight_layout, 1)                 \
  X(qkv_layout, 1)                    \
  X(eps, 1)                           \
  X(sliding_window, 1)                \
  X(position_embeddings, 1)           \
  X(type_embeddings, 1)               \
  X(norm1_weight, 1)                  \
  X(norm1_bias, 1)                    \
  X(norm2_weight, 1)                  \
  X(norm2_bias, 1)                    \
  X(w_qkv, 1)                         \
  X(b_qkv, 1)                         \
  X(w_up, 1)                          \
  X(b_up, 1)                          \
  X(w_gate, 1)                        \
  X(b_gate, 1)                        \
  X(w_down, 1)                        \
  X(b_down, 1)                        \
  X(w_dense, 1)                       \
  X(b_dense, 1)                       \
  X(w_head, 1)                        \
  X(b_head, 1)                        \
  X(head_mask, 1)                     \
  X(normed, 1)                        \
  X(attention_output, 1)              \
  X(residual, 1)                      \
  X(mlp_input, 1)                     \
  X(mlp_hidden, 1)                    \
  X(mlp_output, 1)                    \
  X(cache_k, 1)                       \
  X(cache_v, 1)                       \
  X(cache_past, 1)                    \
  X(cache_capacity, 1)                \
  X(edits, 1)                         \
  X(edit_count, 1)                    \
  X(cells, 1)                         \
  X(cell_count, 1)                    \
  X(base_k, 1)                        \
  X(base_v, 1)                        \
  X(base_len, 1)                      \
  X(layer_input, 1)                   \
  X(q_norm, 1)                        \
  X(k_norm, 1)                        \
  X(attention_scale, 1)               \
  X(qk_norm_whole, 1)                 \
  X(embed_scale, 1)                   \
  X(final_softcap, 1)                 \
  X(attention_post_norm, 1)           \
  X(mlp_post_norm, 1)                 \
  X(qk_squares, 1)                    \
  X(qk_scales, 1)                     \
  X(qk_projections, 1)                \
  X(qk_projected, 1)                  \
  X(mlp_panels, 1)
// clang-format on

// Which of a layer's weights (forward.h's LayerWeights, named as their descriptor slots) each half of the layer reads:
// layer_attention (the attention call) and layer_mlp (the MLP call). The value says under which norm placement, as
// bits 1 << NormPlacement: 1 kPreNorm, 2 kPostNorm, 4 kParallel, 8 kSandwich, 16 kPostBranch, 31 all; each weight is
// in one list under each placement, read or not. With kPostNorm (BERT) the norm before the MLP is norm1, read by the
// MLP's call; with kPreNorm, kParallel and kSandwich norm1 comes before attention (and with kParallel the MLP's call
// reads the layer's input, slot layer_input, for norm2); kSandwich and kPostBranch norm each half's output before the
// residual sum (attention_post_norm, mlp_post_norm), and kPostBranch has no norm before either half. Each half is given
// only its own (forward.cc's half_weights), and the JS layer passes each call only these (src/js/model/layer-call.js).
// head_mask, qk_scales and qk_projected (the whole q and k norms' scales and the projections that loadModel's workers
// are given) are inputs, not weights.
// clang-format off
#define ATTENTION_LAYER_ATTENTION_WEIGHTS(X) \
  X(norm1_weight, 29)                      \
  X(norm1_bias, 29)                        \
  X(w_qkv, 31)                             \
  X(b_qkv, 31)                             \
  X(w_q, 31)                               \
  X(w_k, 31)                               \
  X(w_v, 31)                               \
  X(w_o, 31)                               \
  X(b_q, 31)                               \
  X(b_k, 31)                               \
  X(b_v, 31)                               \
  X(b_o, 31)                               \
  X(head_mask, 31)                         \
  X(q_norm, 31)                            \
  X(k_norm, 31)                            \
  X(attention_post_norm, 31)               \
  X(qk_scales, 31)                         \
  X(qk_projected, 31)
#define ATTENTION_LAYER_MLP_WEIGHTS(X) \
  X(norm1_weight, 2)                       \
  X(norm1_bias, 2)                         \
  X(norm2_weight, 31)                      \
  X(norm2_bias, 31)                        \
  X(w_up, 31)                              \
  X(b_up, 31)                              \
  X(w_gate, 31)                            \
  X(b_gate, 31)                            \
  X(w_down, 31)                            \
  X(b_down, 31)                            \
  X(mlp_post_norm, 31)
// clang-format on

namespace slot {
#define X(name, count) name, name##_end = name + (count)-1,
enum DescriptorSlot : int32_t { ATTENTION_DESCRIPTOR_SLOTS(X) ATTENTION_MODEL_SLOTS(X) kCount };
#undef X
}  // namespace slot

// Floats the core allocates for itself in one scaled_dot_product_attention call: its packed copy of one kv head's
// keys and values (rounded up to whole panels), and, when the caller keeps no weights, one block of scores (a
// [kQueryBlock, kKeyTile] tile when it streams, i.e. keeps no steps either). The JS layer's memory formula
// (plan.js) is checked against it through the built module.
constexpr int64_t sdpa_scratch_floats(int64_t len_q, int64_t len_k, int64_t d_k, int64_t d_v, bool keeps_weights,
                                      bool streaming) {
  const int64_t keys = (len_k + kKeyPanel - 1) / kKeyPanel * kKeyPanel;
  const int64_t values = (d_v + kValuePanel - 1) / kValuePanel * kValuePanel;
  const int64_t block =
      keeps_weights ? 0
                    : (len_q < kQueryBlock ? len_q : kQueryBlock) * (streaming && len_k > kKeyTile ? kKeyTile : len_k);
  return keys * d_k + values * len_k + block;
}

// Every list above as one text, "CONSTANTS:kQueryBlock=64,…;CAUSAL:kNone=0,…;…;ERROR_CODES:NOT_A_TENSOR,…;"
// (error codes by name alone), and its 32-bit FNV-1a hash. The module reports the hash at load, and the JS layer
// compares it with ABI_HASH, which scripts/gen-constants.mjs computes from this file the same way: a .wasm built
// from another version of these lists is refused (one number, where a report of every name cost ~2.5 kB gzipped).
#define ATTENTION_ABI_ENTRY(name, value) #name "=" #value ","
#define ATTENTION_ABI_CODE(name, description) #name ","
// clang-format off
inline constexpr char kAbiText[] =
    "CONSTANTS:" ATTENTION_CONSTANTS(ATTENTION_ABI_ENTRY)
    ";CAUSAL:" ATTENTION_CAUSAL(ATTENTION_ABI_ENTRY)
    ";MASK_KINDS:" ATTENTION_MASK_KINDS(ATTENTION_ABI_ENTRY)
    ";ROPE_STYLES:" ATTENTION_ROPE_STYLES(ATTENTION_ABI_ENTRY)
    ";NORM_KINDS:" ATTENTION_NORM_KINDS(ATTENTION_ABI_ENTRY)
    ";NORM_PLACEMENTS:" ATTENTION_NORM_PLACEMENTS(ATTENTION_ABI_ENTRY)
    ";ACTIVATIONS:" ATTENTION_ACTIVATIONS(ATTENTION_ABI_ENTRY)
    ";WEIGHT_LAYOUTS:" ATTENTION_WEIGHT_LAYOUTS(ATTENTION_ABI_ENTRY)
    ";QKV_LAYOUTS:" ATTENTION_QKV_LAYOUTS(ATTENTION_ABI_ENTRY)
    ";LAYER_STEPS:" ATTENTION_LAYER_STEPS(ATTENTION_ABI_ENTRY)
    ";CALL_KINDS:" ATTENTION_CALL_KINDS(ATTENTION_ABI_ENTRY)
    ";DESCRIPTOR_SLOTS:" ATTENTION_DESCRIPTOR_SLOTS(ATTENTION_ABI_ENTRY)
    ";MODEL_SLOTS:" ATTENTION_MODEL_SLOTS(ATTENTION_ABI_ENTRY)
    ";LAYER_ATTENTION_WEIGHTS:" ATTENTION_LAYER_ATTENTION_WEIGHTS(ATTENTION_ABI_ENTRY)
    ";LAYER_MLP_WEIGHTS:" ATTENTION_LAYER_MLP_WEIGHTS(ATTENTION_ABI_ENTRY)
    ";ERROR_CODES:" ATTENTION_ERROR_CODES(ATTENTION_ABI_CODE) ";";
// clang-format on
#undef ATTENTION_ABI_ENTRY
#undef ATTENTION_ABI_CODE

constexpr uint32_t abi_hash() {
  uint32_t hash = 2166136261u;
  for (size_t i = 0; i + 1 < sizeof kAbiText; ++i) {
    hash ^= static_cast<unsigned char>(kAbiText[i]);
    hash *= 16777619u;
  }
  return hash;
}

// The backend the core's kernels were compiled with (vec4.h): "wasm-simd128", "sse2" or "scalar".
const char* kernel_backend() noexcept;

}  // namespace attention
