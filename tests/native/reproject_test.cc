// multi_head_attention's result.stale_blocks: projecting again only the groups of kProjectionRows rows of x that
// changed gives every result the bits of a call that projects every row, over a sweep of shapes, and leaves the other
// groups' q, k and v as they were.
#include <cstring>

#include "test_support.h"

namespace attention::test {
namespace {

struct Layer {
  ProjectionDims dims;
  std::vector<float> x, w_q, w_k, w_v, w_o, b_q, b_k, b_v;

  Layer(const ProjectionDims& d, bool biases, uint32_t seed) : dims(d) {
    std::mt19937 rng(seed);
    x = random_values(rng, product({d.batch, d.len_q, d.d_model}));
    w_q = random_values(rng, product({d.d_model, d.num_heads, d.d_k}));
    w_k = random_values(rng, product({d.d_model, d.num_kv_heads, d.d_k}));
    w_v = random_values(rng, product({d.d_model, d.num_kv_heads, d.d_v}));
    if (d.d_out > 0) w_o = random_values(rng, product({d.num_heads, d.d_v, d.d_out}));
    if (biases) {
      b_q = random_values(rng, product({d.num_heads, d.d_k}));
      b_k = random_values(rng, product({d.num_kv_heads, d.d_k}));
      b_v = random_values(rng, product({d.num_kv_heads, d.d_v}));
    }
  }

  int64_t groups() const { return (dims.len_q + kProjectionRows - 1) / kProjectionRows; }
};

// Every result of one call; q, k and v start as `kept` (the projections an earlier call left) when given.
struct Results {
  std::vector<float> q, k, v, heads, weights, concat, output;
};

Results run(const Layer& layer, const Results* kept, uint8_t* stale) {
  const ProjectionDims& d = layer.dims;
  Results out;
  if (kept) {
    out.q = kept->q;
    out.k = kept->k;
    out.v = kept->v;
  } else {
    out.q.assign(product({d.batch, d.num_heads, d.len_q, d.d_k}), -7.0f);
    out.k.assign(product({d.batch, d.num_kv_heads, d.len_k, d.d_k}), -7.0f);
    out.v.assign(product({d.batch, d.num_kv_heads, d.len_k, d.d_v}), -7.0f);
  }
  out.heads.assign(product({d.batch, d.num_heads, d.len_q, d.d_v}), -7.0f);
  out.weights.assign(product({d.batch, d.num_heads, d.len_q, d.len_k}), -7.0f);
  out.concat.assign(product({d.batch, d.len_q, d.num_heads, d.d_v}), -7.0f);
  out.output.assign(product({d.batch, d.len_q, d.d_out > 0 ? d.d_out : d.num_heads * d.d_v}), -7.0f);
  auto or_null = [](const std::vector<float>& v) { return v.empty() ? nullptr : v.data(); };
  ProjectionWeights w;
  w.w_q = layer.w_q.data();
  w.w_k = layer.w_k.data();
  w.w_v = layer.w_v.data();
  w.w_o = or_null(layer.w_o);
  w.b_q = or_null(layer.b_q);
  w.b_k = or_null(layer.b_k);
  w.b_v = or_null(layer.b_v);
  MultiHeadResult r;
  r.q = out.q.data();
  r.k = out.k.data();
  r.v = out.v.data();
  r.attention.output = out.heads.data();
  r.attention.weights = out.weights.data();
  r.concat = out.concat.data();
  r.output = out.output.data();
  r.stale_blocks = stale;
  AttentionOptions options;
  options.causal = Causal::kTopLeft;
  multi_head_attention(d, layer.x.data(), nullptr, w, options, r);
  return out;
}

bool same_bits(const std::vector<float>& a, const std::vector<float>& b) {
  return a.size() == b.size() && std::memcmp(a.data(), b.data(), a.size() * sizeof(float)) == 0;
}

// clang-format off
//                                          B  L_q L_k d_mod d_ctx H  H_kv d_k d_v d_out
const ProjectionDims kShapes[] = {
    {1, 64, 64, 768, 768, 12, 12, 64, 64, 768},  // GPT-2's layer at n = 64
    {1, 5,  5,  8,   8,   2,  2,  4,  4,  0},    // the page's default: too small for groups
    {2, 17, 17, 96,  96,  4,  2,  24, 16, 32},   // a last group of one row, grouped-query
    {1, 30, 30, 33,  33,  3,  3,  5,  7,  9},    // odd widths, a last group of two rows
    {1, 9,  9,  16,  16,  2,  1,  2,  3,  0},    // two whole groups and one row
    {3, 12, 12, 40,  40,  1,  1,  40, 40, 40},   // one head, whole groups only
    {1, 64, 64, 64,  64,  8,  8,  8,  8,  64},   // the page's old caps
};
// clang-format on

class Reproject : public ::testing::TestWithParam<ProjectionDims> {};

// Each row in turn changes; the call that projects only its group matches the call that projects every row.
TEST_P(Reproject, OneChangedRowGivesTheBitsOfTheWholeCall) {
  Layer layer(GetParam(), true, 31);
  const ProjectionDims& d = layer.dims;
  Results kept = run(layer, nullptr, nullptr);
  std::mt19937 rng(5);
  const int64_t rows_to_try = std::min<int64_t>(d.len_q, 20);
  for (int64_t t = 0; t < rows_to_try; ++t) {
    const int64_t b = t % d.batch, i = d.len_q - 1 - (t * 7) % d.len_q;  // the last row first, then spread out
    for (int64_t c = 0; c < d.d_model; ++c) layer.x[(b * d.len_q + i) * d.d_model + c] = uniform(rng, -1, 1);
    std::vector<uint8_t> stale(d.batch * layer.groups(), 0);
    stale[b * layer.groups() + i / kProjectionRows] = 1;
    const Results whole = run(layer, nullptr, nullptr);
    const Results some = run(layer, &kept, stale.data());
    ASSERT_TRUE(same_bits(some.q, whole.q)) << "q, row " << i << " of batch " << b;
    ASSERT_TRUE(same_bits(some.k, whole.k)) << "k, row " << i << " of batch " << b;
    ASSERT_TRUE(same_bits(some.v, whole.v)) << "v, row " << i << " of batch " << b;
    ASSERT_TRUE(same_bits(some.weights, whole.weights)) << "weights, row " << i;
    ASSERT_TRUE(same_bits(some.output, whole.output)) << "output, row " << i;
    kept = some;
  }
}

INSTANTIATE_TEST_SUITE_P(Shapes, Reproject, ::testing::ValuesIn(kShapes));

// The groups not flagged are not projected again: their q, k and v keep what the caller left there, and the flags
// come back saying which groups were.
TEST(ReprojectTest, GroupsNotFlaggedKeepTheirProjections) {
  const Layer layer(kShapes[0], false, 8);
  const ProjectionDims& d = layer.dims;
  Results kept = run(layer, nullptr, nullptr);
  std::fill(kept.q.begin(), kept.q.end(), 0.25f);  // not x·W_q: a call that projected a row would overwrite it
  std::vector<uint8_t> stale(layer.groups(), 0);
  stale[3] = 1;
  const Results some = run(layer, &kept, stale.data());
  const Results whole = run(layer, nullptr, nullptr);
  int64_t kept_values = 0, projected_values = 0;
  for (int64_t h = 0; h < d.num_heads; ++h)
    for (int64_t i = 0; i < d.len_q; ++i)
      for (int64_t c = 0; c < d.d_k; ++c) {
        const int64_t at = (h * d.len_q + i) * d.d_k + c;
        if (i / kProjectionRows == 3)
          projected_values += some.q[at] == whole.q[at];
        else
          kept_values += some.q[at] == 0.25f;
      }
  EXPECT_EQ(projected_values, d.num_heads * kProjectionRows * d.d_k);
  EXPECT_EQ(std::count(stale.begin(), stale.end(), 1), 1) << "the flags say which groups were projected: group 3";
  EXPECT_EQ(kept_values, d.num_heads * (d.len_q - kProjectionRows) * d.d_k);
}

// A layer of any size projects only the flagged group, with the bits of the whole call, and says so.
TEST(ReprojectTest, SmallLayersProjectOnlyTheFlaggedGroup) {
  Layer layer(kShapes[1], false, 10);  // 5 rows, d_model 8
  Results kept = run(layer, nullptr, nullptr);
  std::fill(kept.q.begin(), kept.q.end(), 0.25f);  // not x·W_q: a call that projected a row would overwrite it
  std::vector<uint8_t> stale(layer.groups(), 0);
  stale[1] = 1;
  const Results some = run(layer, &kept, stale.data());
  const Results whole = run(layer, nullptr, nullptr);
  const ProjectionDims& d = layer.dims;
  for (int64_t h = 0; h < d.num_heads; ++h) {
    for (int64_t i = 0; i < d.len_q; ++i) {
      for (int64_t c = 0; c < d.d_k; ++c) {
        const int64_t at = (h * d.len_q + i) * d.d_k + c;
        EXPECT_EQ(some.q[at], i / kProjectionRows == 1 ? whole.q[at] : 0.25f) << "head " << h << ", row " << i;
      }
    }
  }
  EXPECT_EQ(std::vector<uint8_t>(stale), (std::vector<uint8_t>{0, 1}));
}

// No stale flag at all projects nothing: the kept q, k and v are used as they are.
TEST(ReprojectTest, NoFlagProjectsNothing) {
  const Layer layer(kShapes[2], false, 9);
  Results kept = run(layer, nullptr, nullptr);
  std::fill(kept.v.begin(), kept.v.end(), 0.5f);  // every value 0.5: every output of the heads is 0.5
  std::vector<uint8_t> stale(layer.dims.batch * layer.groups(), 0);
  const Results some = run(layer, &kept, stale.data());
  EXPECT_TRUE(std::all_of(some.heads.begin(), some.heads.end(), [](float h) { return std::abs(h - 0.5f) < 1e-6f; }));
}

}  // namespace
}  // namespace attention::test
