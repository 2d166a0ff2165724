#include "row_groups.h"

#include <algorithm>

#include "abi.h"

namespace attention {

std::vector<std::pair<int64_t, int64_t>> stale_row_ranges(int64_t rows, int64_t depth, int64_t width, uint8_t* stale) {
  // Eigen's product kernel sums every row of a whole packet of rows alike, wherever it lies: a product of whole
  // groups of kProjectionRows rows gives their rows the bits of the whole product. The rows after the last whole
  // group take another path, and so does a product small enough for Eigen's coefficient loop
  // (rows + width + depth < 20): such rows are projected with the group before them, or everything is.
  const int64_t whole = rows / kProjectionRows * kProjectionRows;
  const int64_t groups = (rows + kProjectionRows - 1) / kProjectionRows;
  const bool groups_alike = whole >= 2 * kProjectionRows && width >= 2 && kProjectionRows + width + depth >= 20;
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (int64_t g = 0; g < groups; ++g) {
    if (stale && !stale[g]) continue;
    int64_t r0 = g * kProjectionRows, r1 = std::min(rows, r0 + kProjectionRows);
    if (!stale || !groups_alike) {  // every row, in one product
      r0 = 0;
      r1 = rows;
    } else if (r1 > whole) {  // the last rows: with the whole group before them, as in the whole product
      r0 = std::min(r0, whole - kProjectionRows);
      r1 = rows;
    }
    if (!ranges.empty() && ranges.back().second >= r0) {
      ranges.back().second = std::max(ranges.back().second, r1);
    } else {
      ranges.push_back({r0, r1});
    }
  }
  for (const auto& [r0, r1] : ranges) {  // the flags now say which groups are projected
    for (int64_t g = r0 / kProjectionRows; stale && g * kProjectionRows < r1; ++g) stale[g] = 1;
  }
  return ranges;
}

}  // namespace attention
