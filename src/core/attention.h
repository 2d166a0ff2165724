// attention-wasm core: scaled dot-product attention ("Attention Is All You Need") and multi-head attention.
//
// Plain C++17 with no knowledge of the web. Every array crosses this API as a row-major float buffer
// owned by the caller; results are written straight into the caller's buffers.
//
// Who does what:
//   - attention itself (q·kᵀ·scale, masks, softmax, weights·V): hand-written SIMD kernels (kernels.cc over
//     vec4.h, so WebAssembly SIMD128, SSE or scalar code), fused by blocks of 64 query rows whose scores stay
//     in cache from the product through the softmax to the weighted sum; without weights or steps, keys
//     stream through in tiles with an online softmax, so no [L_q, L_k] matrix is ever held.
//   - the projections x·W_q, context·W_k, context·W_v: gemm.h's product (the model forward's), a float32 chain
//     per value in the order of the weights' rows, so any split of the rows gives the same bits.
//   - the output projection concat·W_o: gemm.h's product too, reading W_o where it lies (a prepared layer's
//     resident copy included): nothing is packed into memory of its own, and any split of the rows gives the same
//     bits. No product on the attention API's path is Eigen's.
// Why fused: one head of n = 512, d = 64 (median of 200-500 runs, g++ -O3 -msse4.2 natively; em++ -O3 with
// SIMD128 under Node 20) took 2.2 ms natively and 4.9 ms in WebAssembly with Eigen products (Q·Kᵀ as a GEMM,
// a softmax by rows, weights·V as a GEMM), against 2.0 ms and 1.7 ms with the fused kernels: about 1.1x
// natively and 2.9x in WebAssembly, where Eigen's GEMM runs on SSE emulated over SIMD128.
//
// Accuracy: every sum is float32. weights·V is summed in blocks of 128 keys whose sums are added in order (or,
// streaming, in tiles of 512 keys), so long rows stay within a few 1e-6 of the exact mean; a score row that is
// not finite in float32 is computed again in double (see scaled_dot_product_attention).
//
// Shape names used throughout (the TypeScript layer spells them the same, in camelCase):
//   batch   B      leading batch dimension (1 when absent)
//   H, H_kv        num_heads, num_kv_heads: query heads and key/value heads; H_kv divides H
//   L_q, L_k       len_q, len_k: query and key sequence lengths
//   d_k, d_v       per-head width of queries/keys and of values
//   d_model        width of the query input x; d_context: width of the key/value input (self: = d_model)
//   d_out          width of the output projection W_o
#pragma once

#include <cstdint>
#include <stdexcept>
#include <string>

#include "abi.h"
#include "rope.h"

namespace attention {

// Thrown for arguments the core cannot work with. `code` is stable and matches the JS AttentionError codes.
class AttentionError : public std::invalid_argument {
 public:
  AttentionError(std::string code, const std::string& message)
      : std::invalid_argument(message), code_(std::move(code)) {}
  const std::string& code() const { return code_; }

 private:
  std::string code_;
};

// A user mask that broadcasts to [B, H, L_q, L_k]: each of `dims` is 1 or the full size.
struct Mask {
  MaskKind kind = MaskKind::kNone;
  const void* data = nullptr;  // uint8_t* for kBoolean, float* for kAdditive; row-major over `dims`
  int32_t dims[4] = {1, 1, 1, 1};
};

struct AttentionOptions {
  bool has_scale = false;  // false: scale = 1/sqrt(d_k)
  float scale = 0.0f;      // used when has_scale, 0 included
  Causal causal = Causal::kNone;
  Mask mask;
  // > 0: logit softcapping (Gemma 2): each scaled score s becomes tanh(s / softcap) · softcap, before the masks.
  float softcap = 0.0f;
  // > 0: a sliding window (Mistral, Gemma 2), with causal only: query i, at key position p_i = i (kTopLeft) or
  // i + L_k − L_q (kBottomRight), also sees only keys j with p_i − j < window, so `window` keys at most.
  int32_t window = 0;
  // Rotates q and k before q·kᵀ (rope.h). Its tables hold L_k rows, the keys' positions; query i takes row
  // L_k − L_q + i (queries at the end of the keys, as with causal kBottomRight), so L_q must not exceed L_k.
  Rope rope;
};

struct AttentionDims {
  int32_t batch = 1;
  int32_t num_heads = 1;
  int32_t num_kv_heads = 1;
  int32_t len_q = 0;
  int32_t len_k = 0;
  int32_t d_k = 0;
  int32_t d_v = 0;
};

// Where scaled_dot_product_attention writes. Every pointer but `output` may be null (= not wanted).
//   output         [B, H, L_q, d_v]
//   weights        [B, H, L_q, L_k]   softmax of `scores`; rows with every key masked are all 0
//   scores         [B, H, L_q, L_k]   softcap(q·kᵀ·scale) + mask, the softmax input (masked entries are -inf)
//   scaled_scores  [B, H, L_q, L_k]   q·kᵀ·scale (before the softcap)
//   raw_scores     [B, H, L_q, L_k]   q·kᵀ
//   q_rotated      [B, H, L_q, d_k]   q after options.rope (with a rope only)
//   k_rotated      [B, H_kv, L_k, d_k]  k after options.rope (with a rope only)
struct AttentionResult {
  float* output = nullptr;
  float* weights = nullptr;
  float* scores = nullptr;
  float* scaled_scores = nullptr;
  float* raw_scores = nullptr;
  float* q_rotated = nullptr;
  float* k_rotated = nullptr;
};

// Scaled dot-product attention, batched, with grouped-query heads.
//
//   argument  shape                       notes
//   q         [B, H,    L_q, d_k]
//   k         [B, H_kv, L_k, d_k]         query head h reads kv head h / (H / H_kv)
//   v         [B, H_kv, L_k, d_v]
//   result    see AttentionResult
//
// Order: q and k rotated when options.rope is set, scores = q·kᵀ·scale, then the softcap (options.softcap > 0:
// tanh(s / softcap) · softcap), then the causal, window and user masks, then a softmax per row with the row max
// subtracted, then output = weights·v. A row whose keys are all masked gets weights 0 and output 0. Throws
// AttentionError for bad dims, a mask that does not broadcast or a bad rope (BAD_OPTION), and:
//   SCORE_OVERFLOW   a score q·k·scale beyond float32 (a q·k that overflows only before a small scale, or scale
//                    0, is not one: such rows are summed again in double), a score + additive mask beyond it,
//                    or, when raw_scores is wanted, an unscaled q·k beyond it; the message names the
//                    batch, head, query row and key, and the value
//   OUTPUT_OVERFLOW  weights·v beyond float32 (values near ±3.4e38 with weights that round to a sum over 1)
void scaled_dot_product_attention(const AttentionDims& dims, const float* q, const float* k, const float* v,
                                  const AttentionOptions& options, const AttentionResult& result);

struct ProjectionDims {
  int32_t batch = 1;
  int32_t len_q = 0;      // rows of x
  int32_t len_k = 0;      // rows of context (self-attention: = len_q)
  int32_t d_model = 0;    // columns of x
  int32_t d_context = 0;  // columns of context (self-attention: = d_model)
  int32_t num_heads = 1;
  int32_t num_kv_heads = 1;
  int32_t d_k = 0;    // per head
  int32_t d_v = 0;    // per head
  int32_t d_out = 0;  // columns of W_o; 0 = no output projection
};

// Projection weights, row-major. Biases may be null; w_o and b_o are used only when d_out > 0.
//   w_q [d_model, H·d_k]      b_q [H·d_k]
//   w_k [d_context, H_kv·d_k] b_k [H_kv·d_k]
//   w_v [d_context, H_kv·d_v] b_v [H_kv·d_v]
//   w_o [H·d_v, d_out]        b_o [d_out]
struct ProjectionWeights {
  const float* w_q = nullptr;
  const float* w_k = nullptr;
  const float* w_v = nullptr;
  const float* w_o = nullptr;
  const float* b_q = nullptr;
  const float* b_k = nullptr;
  const float* b_v = nullptr;
  const float* b_o = nullptr;
};

// Where multi_head_attention writes. Null pointers are not wanted, except `output`, which is required.
//   q          [B, H,    L_q, d_k]   x·W_q (+ b_q), split into heads
//   k          [B, H_kv, L_k, d_k]   context·W_k (+ b_k)
//   v          [B, H_kv, L_k, d_v]   context·W_v (+ b_v)
//   attention  per head, as in scaled_dot_product_attention (its `output` is [B, H, L_q, d_v])
//   concat     [B, L_q, H·d_v]       the heads side by side
//   output     [B, L_q, d_out]       concat·W_o (+ b_o); [B, L_q, H·d_v] (= concat) when d_out is 0
//   stale_blocks  [B, ⌈L_q / kProjectionRows⌉] uint8, in: nonzero = project this group of rows of x; zero = q, k
//                 and v already hold its projections (self-attention only); null = project every row.
//                 out: nonzero for every group projected (the groups flagged in)
struct MultiHeadResult {
  float* q = nullptr;
  float* k = nullptr;
  float* v = nullptr;
  AttentionResult attention;
  float* concat = nullptr;
  float* output = nullptr;
  uint8_t* stale_blocks = nullptr;
};

// Multi-head attention from inputs: project, split into heads, attend, concatenate, project out.
//
//   argument  shape                   notes
//   x         [B, L_q, d_model]       the queries' input
//   context   [B, L_k, d_context]     keys' and values' input; null = self-attention (context = x)
//   weights   see ProjectionWeights   W_q and W_k may point to the same matrix
//   result    see MultiHeadResult
//
// Heads are consecutive column blocks of the projections. Single-head attention is num_heads = 1, d_out = 0.
// With options.rope, q and k are rotated after the projection (result.q and k hold them before, and
// result.attention.q_rotated and k_rotated after, when given).
// result.stale_blocks (self-attention only) lets a caller that kept result.q, k and v from an earlier call with the
// same weights project again only the groups of kProjectionRows rows of x that changed, with the same bits as
// projecting every row (gemm.h gives each row the same bits whichever rows are projected with it).
void multi_head_attention(const ProjectionDims& dims, const float* x, const float* context,
                          const ProjectionWeights& weights, const AttentionOptions& options,
                          const MultiHeadResult& result);

// The output projection of multi_head_attention, on its own: output = concat·W_o (+ b_o).
//
//   argument  shape
//   concat    [rows, width]   rows = B·L_q, width = H·d_v
//   w_o       [width, d_out]
//   b_o       [d_out]         may be null
//   output    [rows, d_out]
//
// gemm.h's product ([in, out] weights): each output value is one float32 chain over concat's columns in order,
// then + b_o, whatever the rows around it, so any split of the rows gives the same bits as one call (the JS
// layer's workers share the rows out by kOutputProjectionRows and still match a single thread exactly). Allocates
// nothing. Throws PROJECTION_OVERFLOW when a value overflows float32.
void output_projection(const float* concat, int64_t rows, int64_t width, const float* w_o, const float* b_o,
                       int64_t d_out, float* output);

// The index of the first value of data[0, count) that is NaN or ±inf, or -1 when there is none.
// With allow_negative_infinity, -inf is accepted (additive masks use it to forbid a key).
// The JS wrapper checks its Float32Array inputs with it once they are in WebAssembly memory: in SIMD this is
// several times faster than the same scan in JS.
int64_t find_non_finite(const float* data, int64_t count, bool allow_negative_infinity) noexcept;

// The SIMD instruction sets Eigen was compiled to use ("None" in a scalar build).
std::string simd_instruction_sets();

}  // namespace attention
