// A batch of cells (model/cells.h) against the plain-loop reference (reference.h, sums in double): each cell's heads
// and weights are those of its queries over the whole sequence it stands for (the base run's keys and values before
// its position, then its own), with grouped-query heads, RoPE at each row's position and a sliding window; and bad
// tables are refused. Run under ASan and UBSan by scripts/test-native.sh.
#include "model/cells.h"

#include <array>
#include <cmath>

#include "model/forward.h"
#include "reference.h"
#include "rope.h"
#include "test_support.h"

namespace attention::test {
namespace {

// Rows [first, first + rows) of each block of a [blocks, len, d] buffer, as [blocks, rows, d].
std::vector<float> rows_of(const std::vector<float>& x, int64_t blocks, int64_t len, int64_t d, int64_t first,
                           int64_t rows) {
  std::vector<float> out;
  for (int64_t b = 0; b < blocks; ++b)
    out.insert(out.end(), x.begin() + (b * len + first) * d, x.begin() + (b * len + first + rows) * d);
  return out;
}

TEST(ModelCells, EachCellAttendsAsItsWholeSequenceWouldInThePlainLoopReference) {
  std::mt19937 rng(11);
  model::ModelConfig c;
  c.d_model = 8, c.num_heads = 4, c.num_kv_heads = 2, c.d_k = 4, c.d_ff = 8;
  c.causal = true, c.sliding_window = 4;
  const int64_t n = 7, H = c.num_heads, H_kv = c.num_kv_heads, d_k = c.d_k, half = d_k / 2;
  std::vector<float> cos(n * half), sin(n * half);  // the tables of positions 0 … n − 1
  for (int64_t p = 0; p < n; ++p) {
    for (int64_t i = 0; i < half; ++i)
      cos[p * half + i] = std::cos(0.6 * p / (i + 1)), sin[p * half + i] = std::sin(0.6 * p / (i + 1));
  }
  const Rope rope{RopeStyle::kHalf, static_cast<int32_t>(d_k), cos.data(), sin.data()};
  // the base run: keys (before RoPE) and values of n tokens; the cache holds its keys rotated
  const std::vector<float> base_k = random_values(rng, H_kv * n * d_k), base_v = random_values(rng, H_kv * n * d_k);
  std::vector<float> base_rotated(base_k.size());
  apply_rope(rope, base_k.data(), base_rotated.data(), H_kv, n, d_k, 0);

  // three cells: a whole sequence of its own (position 0), the base's from position 3, its last token alone
  const std::array<std::array<int64_t, 2>, 3> cells_at = {{{0, 0}, {7, 3}, {11, 6}}};  // first row, position
  const int64_t R = 12;
  const std::vector<float> q = random_values(rng, H * R * d_k), k = random_values(rng, H_kv * R * d_k),
                           v = random_values(rng, H_kv * R * d_k);
  std::vector<float> table, row_cos, row_sin;
  for (int64_t i = 0; i < 3; ++i) {
    const int64_t end = i + 1 < 3 ? cells_at[i + 1][0] : R;
    table.push_back(static_cast<float>(cells_at[i][0]));
    table.push_back(static_cast<float>(cells_at[i][1]));
    for (int64_t p = cells_at[i][1]; p < cells_at[i][1] + end - cells_at[i][0]; ++p) {
      row_cos.insert(row_cos.end(), cos.begin() + p * half, cos.begin() + (p + 1) * half);
      row_sin.insert(row_sin.end(), sin.begin() + p * half, sin.begin() + (p + 1) * half);
    }
  }
  c.len = static_cast<int32_t>(R);
  c.rope = Rope{RopeStyle::kHalf, static_cast<int32_t>(d_k), row_cos.data(), row_sin.data()};
  const model::Cells cells{table.data(), 3, base_rotated.data(), base_v.data(), static_cast<int32_t>(n)};
  std::vector<float> heads(H * R * d_k), weights(model::cells_weights_floats(c, cells));
  EXPECT_EQ(weights.size(), static_cast<size_t>(H * (7 * 7 + 4 * 7 + 1 * 7)));
  model::cells_attention(c, cells, q.data(), k.data(), v.data(), heads.data(), weights.data());

  size_t at = 0;  // where the cell's weights start
  for (int64_t i = 0; i < 3; ++i) {
    const int64_t start = cells_at[i][0], first = cells_at[i][1];
    const int64_t rows = (i + 1 < 3 ? cells_at[i + 1][0] : R) - start, L = first + rows;
    // the whole sequence: the base's keys and values before `first`, then the cell's, keys and queries rotated at their
    // positions (apply_rope: rope_test.cc), as the reference takes them (it rotates nothing)
    std::vector<float> kc = rows_of(k, H_kv, R, d_k, start, rows), queries = rows_of(q, H, R, d_k, start, rows);
    apply_rope(rope, kc.data(), kc.data(), H_kv, rows, d_k, first);
    apply_rope(rope, queries.data(), queries.data(), H, rows, d_k, first);
    const std::vector<float> kb = rows_of(base_rotated, H_kv, n, d_k, 0, first),
                             vb = rows_of(base_v, H_kv, n, d_k, 0, first);
    const std::vector<float> vc = rows_of(v, H_kv, R, d_k, start, rows);
    std::vector<float> keys, values;
    for (int64_t h = 0; h < H_kv; ++h) {
      keys.insert(keys.end(), kb.begin() + h * first * d_k, kb.begin() + (h + 1) * first * d_k);
      keys.insert(keys.end(), kc.begin() + h * rows * d_k, kc.begin() + (h + 1) * rows * d_k);
      values.insert(values.end(), vb.begin() + h * first * d_k, vb.begin() + (h + 1) * first * d_k);
      values.insert(values.end(), vc.begin() + h * rows * d_k, vc.begin() + (h + 1) * rows * d_k);
    }
    std::vector<uint8_t> window(rows * L);  // query r at position first + r sees key j with first + r − j < 4
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t j = 0; j < L; ++j) window[r * L + j] = first + r - j < c.sliding_window ? 1 : 0;
    AttentionOptions options;
    options.causal = Causal::kBottomRight;
    options.mask = Mask{MaskKind::kBoolean, window.data(), {1, 1, static_cast<int32_t>(rows), static_cast<int32_t>(L)}};
    std::vector<float> expected_heads(H * rows * d_k), expected_weights(H * rows * L);
    const AttentionDims dims{1,
                             static_cast<int32_t>(H),
                             static_cast<int32_t>(H_kv),
                             static_cast<int32_t>(rows),
                             static_cast<int32_t>(L),
                             static_cast<int32_t>(d_k),
                             static_cast<int32_t>(d_k)};
    reference::scaled_dot_product_attention(dims, queries.data(), keys.data(), values.data(), options,
                                            {expected_heads.data(), expected_weights.data()});
    EXPECT_TRUE(all_close(rows_of(heads, H, R, d_k, start, rows), expected_heads, 1e-5, 1e-5)) << "cell " << i;
    const std::vector<float> cell_weights(weights.begin() + at, weights.begin() + at + H * rows * L);
    EXPECT_TRUE(all_close(cell_weights, expected_weights, 1e-6, 1e-6)) << "cell " << i;
    at += H * rows * L;
  }
}

TEST(ModelCells, RefusesTablesThatAreNotCellsInOrderAndAPositionBeyondTheBase) {
  model::ModelConfig c;
  c.len = 4, c.d_model = 4, c.num_heads = 2, c.num_kv_heads = 2, c.d_k = 2, c.d_ff = 4, c.causal = true;
  const std::vector<float> base(2 * 3 * 2, 0.5f);
  const auto code_of = [&](std::vector<float> table, int32_t base_len = 3, bool causal = true) -> std::string {
    model::ModelConfig config = c;
    config.causal = causal;
    const model::Cells cells{table.data(), static_cast<int32_t>(table.size() / 2), base.data(), base.data(), base_len};
    try {
      model::cells_weights_floats(config, cells);
    } catch (const AttentionError& e) {
      return e.code();
    }
    return "none";
  };
  EXPECT_EQ(code_of({0, 0, 2, 3}), "none");
  EXPECT_EQ(code_of({1, 0}), "BAD_OPTION");        // the first cell starts at row 1
  EXPECT_EQ(code_of({0, 0, 0, 1}), "BAD_OPTION");  // an empty cell
  EXPECT_EQ(code_of({0, 0, 4, 1}), "BAD_OPTION");  // a cell past the batch
  EXPECT_EQ(code_of({0, 0.5f}), "BAD_OPTION");     // not a whole position
  EXPECT_EQ(code_of({0, 4}), "BAD_DIMENSION");     // beyond the base's 3 tokens
  EXPECT_EQ(code_of({0, 0}, 3, false), "BAD_OPTION");
}

}  // namespace
}  // namespace attention::test
