// Which rows of x multi_head_attention projects again for result.stale_blocks: Eigen-aware, so that a product
// of some rows gives those rows the bits of the product of all of them.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

namespace attention {

// The ranges [r0, r1) of the `rows` rows of one batch of x to project, in order, for the flags `stale` (one per
// group of kProjectionRows rows; null = every row), which are then set for every group in the ranges. `depth` is
// x's width, `width` the head's.
std::vector<std::pair<int64_t, int64_t>> stale_row_ranges(int64_t rows, int64_t depth, int64_t width, uint8_t* stale);

}  // namespace attention
