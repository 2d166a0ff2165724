// Which rows of x multi_head_attention projects again for result.stale_blocks. The projection (gemm.h) gives each
// row the same bits whichever rows are projected with it, so exactly the flagged groups are.
#pragma once
#include <cstdint>
#include <utility>
#include <vector>

namespace attention {

// The ranges [r0, r1) of the `rows` rows of one batch of x to project, in order: the groups of kProjectionRows rows
// flagged in `stale` (one flag per group; null = every row), neighbouring groups merged into one range.
std::vector<std::pair<int64_t, int64_t>> stale_row_ranges(int64_t rows, const uint8_t* stale);

}  // namespace attention
