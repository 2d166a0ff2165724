#include "row_groups.h"

#include <algorithm>

#include "abi.h"

namespace attention {

std::vector<std::pair<int64_t, int64_t>> stale_row_ranges(int64_t rows, const uint8_t* stale) {
  if (!stale) return {{0, rows}};
  const int64_t groups = (rows + kProjectionRows - 1) / kProjectionRows;
  std::vector<std::pair<int64_t, int64_t>> ranges;
  for (int64_t g = 0; g < groups; ++g) {
    if (!stale[g]) continue;
    const int64_t r0 = g * kProjectionRows, r1 = std::min(rows, r0 + kProjectionRows);
    if (!ranges.empty() && ranges.back().second == r0) {
      ranges.back().second = r1;
    } else {
      ranges.push_back({r0, r1});
    }
  }
  return ranges;
}

}  // namespace attention
