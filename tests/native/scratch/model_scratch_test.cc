// The model calls' scratch (src/core/model/scratch.h), which the JS layer adds to each call's block for its size
// check (through _modelScratchBytes), against what the calls allocate: this binary replaces operator new and delete
// to count the bytes alive, and each call's peak above what was alive before it must equal the function's, byte for
// byte, for every family's layer, token counts at the blocks' edges (kQueryBlock 64, the few-rows product's 96),
// every choice of the result buffers given, edits of each kind and a KV cache. A buffer added to the forward without
// its place in scratch.h fails here. Its own binary: the replaced operator new would count every other test's too.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <new>

#include "model/cells.h"
#include "model/edits.h"
#include "model/forward.h"
#include "model/scratch.h"
#include "model_layers.h"

namespace {
int64_t g_live = 0;  // bytes allocated by operator new and not deleted (one thread: the tests')
int64_t g_peak = 0;
constexpr size_t kHeader = 16;  // each block's size, kept before it; 16 keeps malloc's alignment
}  // namespace

void* operator new(std::size_t size) {
  void* block = std::malloc(size + kHeader);
  if (!block) throw std::bad_alloc();
  *static_cast<std::size_t*>(block) = size;
  g_live += static_cast<int64_t>(size);
  g_peak = std::max(g_peak, g_live);
  return static_cast<char*>(block) + kHeader;
}
void* operator new[](std::size_t size) { return operator new(size); }
void operator delete(void* p) noexcept {
  if (!p) return;
  void* block = static_cast<char*>(p) - kHeader;
  g_live -= static_cast<int64_t>(*static_cast<std::size_t*>(block));
  std::free(block);
}
void operator delete[](void* p) noexcept { operator delete(p); }
void operator delete(void* p, std::size_t) noexcept { operator delete(p); }
void operator delete[](void* p, std::size_t) noexcept { operator delete(p); }

namespace attention::test {
namespace {

// The bytes `call` allocates at its peak beyond what was alive before it.
template <typename Call>
int64_t peak_of(Call&& call) {
  const int64_t before = g_live;
  g_peak = before;
  call();
  EXPECT_EQ(g_live, before) << "the call kept memory";
  return g_peak - before;
}

// Which of the result's optional buffers a call is given.
enum class Given { kNone, kWeights, kEverything };

struct Buffers {
  std::vector<std::vector<float>> owned;
  float* take(int64_t size) { return owned.emplace_back(size).data(); }
};

model::LayerResult result_of(const model::ModelConfig& c, Given given, int64_t keys, Buffers& b) {
  const int64_t n = c.len, d = c.d_model, H = c.num_heads, H_kv = c.num_kv_heads, d_k = c.d_k;
  model::LayerResult r;
  r.output = b.take(n * d), r.residual = b.take(n * d);
  if (given == Given::kNone) return r;
  r.weights = b.take(H * n * keys);
  if (given == Given::kWeights) return r;
  r.raw_scores = b.take(H * n * keys), r.scaled_scores = b.take(H * n * keys), r.scores = b.take(H * n * keys);
  r.normed = b.take(n * d), r.q = b.take(H * n * d_k), r.k = b.take(H_kv * n * d_k), r.v = b.take(H_kv * n * d_k);
  if (c.rope.style != RopeStyle::kNone) r.q_rotated = b.take(H * n * d_k), r.k_rotated = b.take(H_kv * n * d_k);
  r.heads = b.take(H * n * d_k), r.concat = b.take(n * H * d_k), r.attention_output = b.take(n * d);
  r.mlp_input = b.take(n * d), r.mlp_hidden = b.take(n * c.d_ff), r.mlp_output = b.take(n * d);
  return r;
}

std::string describe(const LayerCase& lc, Given given, const char* edit) {
  return lc.family + " n " + std::to_string(lc.c.len) + " given " + std::to_string(static_cast<int>(given)) + " edit " +
         edit;
}

TEST(ModelScratch, EachLayerHalfAllocatesWhatScratchSays) {
  // An edit of no step, of attention's input, of an inner step (the scores: every inner step is kept), of the MLP's
  // activation: rows [step, block, row, col, value].
  const std::pair<const char*, std::vector<float>> edits[] = {
      {"none", {}},
      {"x", {float(LayerStep::kX), 0, 0, 0, 0.25f}},
      {"scores", {float(LayerStep::kScores), 1, 0, 0, 0.5f}},
      {"mlpHidden", {float(LayerStep::kMlpHidden), 0, 0, 1, 0.5f}},
  };
  int checked = 0;
  for (const char* family : {"gpt2", "bert", "llama", "neox", "gemma", "olmo2"}) {
    for (const int32_t n : {1, 6, 65, 97}) {
      const LayerCase lc = layer_case(family, n);
      for (const Given given : {Given::kNone, Given::kWeights, Given::kEverything}) {
        for (const auto& [name, rows] : edits) {
          const model::LayerEdits e{rows.empty() ? nullptr : rows.data(), static_cast<int32_t>(rows.size() / 5)};
          Buffers b;
          const model::LayerResult r = result_of(lc.c, given, n, b);
          const int64_t attention = peak_of([&] { model::layer_attention(lc.c, lc.w, lc.x.data(), r, nullptr, &e); });
          EXPECT_EQ(attention, model::layer_attention_scratch_bytes(lc.c, r, nullptr, e.steps()))
              << "attention, " << describe(lc, given, name);
          const float* x = lc.c.placement == NormPlacement::kParallel ? lc.x.data() : nullptr;  // kParallel's norm2
          const int64_t mlp = peak_of([&] { model::layer_mlp(lc.c, lc.w, r.residual, r, &e, x); });
          EXPECT_EQ(mlp, model::layer_mlp_scratch_bytes(lc.c, r)) << "MLP, " << describe(lc, given, name);
          ++checked;
        }
      }
    }
  }
  EXPECT_EQ(checked, 6 * 4 * 3 * 4);
}

// A decode step over a KV cache (decode.cc): the new tokens' rows, after `past` cached ones.
TEST(ModelScratch, ADecodeStepAllocatesWhatScratchSays) {
  for (const char* family : {"gpt2", "llama", "neox", "gemma", "olmo2"}) {
    for (const auto [past, n] : {std::pair{3, 1}, std::pair{0, 6}, std::pair{70, 1}, std::pair{4, 4}}) {
      const LayerCase lc = layer_case(family, n);
      const int32_t capacity = past + n;
      std::vector<float> cache_k(lc.c.num_kv_heads * capacity * lc.c.d_k), cache_v(cache_k.size());
      const model::KvCache cache{cache_k.data(), cache_v.data(), past, capacity};
      for (const Given given : {Given::kNone, Given::kWeights}) {
        Buffers b;
        const model::LayerResult r = result_of(lc.c, given, past + n, b);
        const int64_t measured = peak_of([&] { model::layer_attention(lc.c, lc.w, lc.x.data(), r, &cache); });
        EXPECT_EQ(measured, model::layer_attention_scratch_bytes(lc.c, r, &cache, 0))
            << describe(lc, given, "none") << " past " << past;
      }
    }
  }
}

// A batch of cells (cells.cc): three cells of 4, 3 and 2 rows at positions 0, 2 and 5 of a base run of 6 tokens, and
// one cell of the whole batch, with and without their weights, with an edit of a head's output.
TEST(ModelScratch, ABatchOfCellsAllocatesWhatScratchSays) {
  const std::vector<float> edit = {float(LayerStep::kHeadOutput), 1, 2, 0, 0.5f};
  for (const char* family : {"gpt2", "llama"}) {
    const LayerCase lc = layer_case(family, 9);
    const int64_t H_kv = lc.c.num_kv_heads, d_k = lc.c.d_k;
    const std::vector<float> base(H_kv * 6 * d_k, 0.25f);
    for (const std::vector<float>& table : {std::vector<float>{0, 0, 4, 2, 7, 5}, std::vector<float>{0, 0}}) {
      const model::Cells cells{table.data(), static_cast<int32_t>(table.size() / 2), base.data(), base.data(), 6};
      for (const Given given : {Given::kNone, Given::kWeights}) {
        Buffers b;
        model::LayerResult r = result_of(lc.c, given, 0, b);
        if (given == Given::kWeights) r.weights = b.take(model::cells_weights_floats(lc.c, cells));
        const model::LayerEdits e{edit.data(), 1};
        const int64_t measured =
            peak_of([&] { model::layer_attention(lc.c, lc.w, lc.x.data(), r, nullptr, &e, &cells); });
        EXPECT_EQ(measured, model::layer_attention_scratch_bytes(lc.c, r, nullptr, e.steps(), &cells))
            << family << " " << cells.count << " cells, given " << static_cast<int>(given);
      }
    }
  }
}

// OLMo-2 on loadModel's workers: a first call giving the sums of squares of q's and k's columns and the columns
// (qk_squares, qk_projections: the projections only), then the call with the whole rows' scales and those columns
// (qk_scales, qk_projected), with and without an edit of attention's input.
TEST(ModelScratch, OLMo2sWorkerCallsAllocateWhatScratchSays) {
  const std::vector<float> edit = {float(LayerStep::kX), 0, 0, 1, 0.25f};
  for (const int32_t n : {1, 6, 65}) {
    const LayerCase lc = layer_case("olmo2", n);
    std::vector<double> squares(2 * n), scales(2 * n, 0.5);
    std::vector<float> projections(n * (lc.c.num_heads + lc.c.num_kv_heads) * lc.c.d_k);
    for (const Given given : {Given::kNone, Given::kWeights}) {
      for (const bool edited : {false, true}) {
        const model::LayerEdits e{edited ? edit.data() : nullptr, edited ? 1 : 0};
        Buffers b;
        model::LayerResult first;
        first.qk_squares = squares.data(), first.qk_projections = projections.data();
        const int64_t sums = peak_of([&] { model::layer_attention(lc.c, lc.w, lc.x.data(), first, nullptr, &e); });
        EXPECT_EQ(sums, model::layer_attention_scratch_bytes(lc.c, first, nullptr, e.steps())) << n << " tokens";
        const model::LayerResult r = result_of(lc.c, given, n, b);
        model::LayerWeights w = lc.w;
        w.qk_scales = scales.data(), w.qk_projected = projections.data();
        const int64_t scaled = peak_of([&] { model::layer_attention(lc.c, w, lc.x.data(), r, nullptr, &e); });
        EXPECT_EQ(scaled, model::layer_attention_scratch_bytes(lc.c, r, nullptr, e.steps()))
            << describe(lc, given, edited ? "x" : "none");
      }
    }
  }
}

TEST(ModelScratch, TheFinalNormAndTheLogitsAllocateWhatScratchSays) {
  for (const char* family : {"gpt2", "bert"}) {
    for (const int32_t n : {1, 97}) {
      const LayerCase lc = layer_case(family, n);
      const int64_t d = lc.c.d_model;
      const std::vector<float> dense(d * d, 0.01f), bias(d, 0.1f), head(7 * d, 0.2f);
      std::vector<float> out(n * std::max<int64_t>(d, 7));  // [n, d] normed, or [n, 7] logits
      for (const bool with_dense : {false, true}) {
        const int64_t measured = peak_of([&] {
          model::final_norm(lc.c, lc.x.data(), with_dense ? dense.data() : nullptr, bias.data(), lc.w.norm2_weight,
                            lc.w.norm2_bias, out.data());
        });
        EXPECT_EQ(measured, model::final_norm_scratch_bytes(lc.c, with_dense)) << family << " n " << n;
      }
      const int64_t measured = peak_of([&] { model::logits(lc.c, lc.x.data(), head.data(), nullptr, 7, out.data()); });
      EXPECT_EQ(measured, model::logits_scratch_bytes(lc.c)) << family << " n " << n;
    }
  }
}

}  // namespace
}  // namespace attention::test
