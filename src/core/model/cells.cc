#include "cells.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "../attention.h"
#include "decode.h"

namespace attention::model {
namespace {

constexpr int64_t kFloat = sizeof(float);

void require(bool ok, const char* code, const char* message) {
  if (!ok) throw AttentionError(code, message);
}

// Cell i of the table: its first row in the batch, its row count, its first position.
struct Cell {
  int64_t start, rows, first;
};

Cell cell_at(const ModelConfig& c, const Cells& cells, int32_t i) {
  const float start = cells.table[2 * i], first = cells.table[2 * i + 1];
  const float end = i + 1 < cells.count ? cells.table[2 * i + 2] : static_cast<float>(c.len);
  require(start == std::floor(start) && first == std::floor(first) && end == std::floor(end), "BAD_OPTION",
          "a cell's first row and position must be whole numbers");
  require(i > 0 || start == 0, "BAD_OPTION", "the first cell must start at row 0 of the batch");
  require(start >= 0 && start < end && end <= c.len, "BAD_OPTION",
          "each cell must have at least one row, the cells in order within the batch");
  require(first >= 0 && first <= cells.base_len, "BAD_DIMENSION", "a cell's position must be within the base run");
  require(first == 0 || (cells.base_k && cells.base_v), "NULL_ARGUMENT", "the base run's keys and values are missing");
  return {static_cast<int64_t>(start), static_cast<int64_t>(end - start), static_cast<int64_t>(first)};
}

void check(const ModelConfig& c, const Cells& cells) {
  require(cells.table && cells.count > 0, "NULL_ARGUMENT", "the cells' table must not be null");
  require(c.causal, "BAD_OPTION", "cells continue a causal run: a decoder's");
  require(cells.base_len >= 0, "BAD_DIMENSION", "the base run's length must not be negative");
}

}  // namespace

int64_t cells_weights_floats(const ModelConfig& c, const Cells& cells) {
  check(c, cells);
  int64_t floats = 0;
  for (int32_t i = 0; i < cells.count; ++i) {
    const Cell cell = cell_at(c, cells, i);
    floats += c.num_heads * cell.rows * (cell.first + cell.rows);
  }
  return floats;
}

// The largest cell's rows and keys (first + rows): the cells' buffers are allocated once, at these sizes.
struct Largest {
  int64_t rows = 0, keys = 0;
};

Largest largest(const ModelConfig& c, const Cells& cells) {
  Largest most;
  for (int32_t i = 0; i < cells.count; ++i) {
    const Cell cell = cell_at(c, cells, i);
    most.rows = std::max(most.rows, cell.rows);
    most.keys = std::max(most.keys, cell.first + cell.rows);
  }
  return most;
}

int64_t cells_scratch_bytes(const ModelConfig& c, const Cells& cells, bool weights) {
  check(c, cells);
  const int64_t H = c.num_heads, H_kv = c.num_kv_heads, d_k = c.d_k;
  const bool rope = c.rope.style != RopeStyle::kNone;
  const Largest most = largest(c, cells);
  // held throughout: the cache's keys and values, the cell's q, k, v, heads, and its rotated queries
  const int64_t held = (2 * H_kv * most.keys + (2 * H + (rope ? H : 0) + 2 * H_kv) * most.rows) * d_k * kFloat;
  int64_t call = 0;  // decode.cc's cached_attention of one cell: the attention's own buffer
  for (int32_t i = 0; i < cells.count; ++i) {
    const Cell cell = cell_at(c, cells, i);
    const int64_t L = cell.first + cell.rows;
    call = std::max(call, sdpa_scratch_floats(cell.rows, L, d_k, d_k, weights, !weights) * kFloat);
  }
  return held + call;
}

void cells_attention(const ModelConfig& c, const Cells& cells, const float* q, const float* k, const float* v,
                     float* heads, float* weights) {
  check(c, cells);
  require(q && k && v && heads, "NULL_ARGUMENT", "q, k, v and heads must not be null");
  const int64_t R = c.len, H = c.num_heads, H_kv = c.num_kv_heads, d_k = c.d_k, base = cells.base_len;
  const int64_t half = c.rope.dim / 2;
  const bool rope = c.rope.style != RopeStyle::kNone;
  const Largest most = largest(c, cells);
  std::vector<float> cache_k(H_kv * most.keys * d_k), cache_v(H_kv * most.keys * d_k);
  std::vector<float> q_cell(H * most.rows * d_k), k_cell(H_kv * most.rows * d_k), v_cell(H_kv * most.rows * d_k);
  std::vector<float> heads_cell(H * most.rows * d_k), q_rotated(rope ? H * most.rows * d_k : 0);
  for (int32_t i = 0; i < cells.count; ++i) {
    const Cell cell = cell_at(c, cells, i);
    const int64_t rows = cell.rows, L = cell.first + rows;
    // the cell's cache: the base run's keys and values before its position, then room for its own rows
    for (int64_t h = 0; h < H_kv && cell.first > 0; ++h) {
      std::copy_n(cells.base_k + h * base * d_k, cell.first * d_k, cache_k.data() + h * L * d_k);
      std::copy_n(cells.base_v + h * base * d_k, cell.first * d_k, cache_v.data() + h * L * d_k);
    }
    // its rows of q, k and v: [heads, rows, d_k] out of [heads, R, d_k]
    const auto gather = [&](const float* from, int64_t blocks, float* into) {
      for (int64_t h = 0; h < blocks; ++h)
        std::copy_n(from + (h * R + cell.start) * d_k, rows * d_k, into + h * rows * d_k);
    };
    gather(q, H, q_cell.data());
    gather(k, H_kv, k_cell.data());
    gather(v, H_kv, v_cell.data());
    ModelConfig one = c;
    one.len = static_cast<int32_t>(rows);
    if (rope) {
      one.rope.cos = c.rope.cos + cell.start * half;
      one.rope.sin = c.rope.sin + cell.start * half;
    }
    const KvCache cache{cache_k.data(), cache_v.data(), static_cast<int32_t>(cell.first), static_cast<int32_t>(L)};
    LayerResult steps;
    steps.weights = weights;
    steps.q_rotated = rope ? q_rotated.data() : nullptr;
    cached_attention(one, cache, q_cell.data(), k_cell.data(), v_cell.data(), heads_cell.data(), steps);
    if (weights) weights += H * rows * L;
    for (int64_t h = 0; h < H; ++h)
      std::copy_n(heads_cell.data() + h * rows * d_k, rows * d_k, heads + (h * R + cell.start) * d_k);
  }
}

}  // namespace attention::model
