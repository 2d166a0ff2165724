// find_non_finite: the scan the JS wrapper runs on its Float32Array inputs once they are in WebAssembly memory.
// Every position of the first bad value, across block and vector-tail boundaries, against a plain loop.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

#include "attention.h"

namespace attention::test {
namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
const float kNaN = std::numeric_limits<float>::quiet_NaN();

int64_t plain_find(const std::vector<float>& data, bool allow_negative_infinity) {
  for (size_t i = 0; i < data.size(); ++i) {
    const float x = data[i];
    if (std::isnan(x) || x == kInf || (x == -kInf && !allow_negative_infinity)) return static_cast<int64_t>(i);
  }
  return -1;
}

TEST(FindNonFiniteTest, AllFiniteIsMinusOne) {
  for (int64_t count : {0, 1, 3, 4, 5, 1023, 1024, 1025, 3000}) {
    std::vector<float> data(count);
    for (int64_t i = 0; i < count; ++i) data[i] = std::numeric_limits<float>::max() * (i % 2 ? -1.0f : 1.0f);
    EXPECT_EQ(find_non_finite(data.data(), count, false), -1) << "count " << count;
  }
}

TEST(FindNonFiniteTest, FindsTheFirstBadValueAtEveryPosition) {
  for (int64_t count : {1, 7, 1024, 2051}) {
    for (float bad : {kNaN, kInf, -kInf}) {
      for (bool allow : {false, true}) {
        for (int64_t at = 0; at < count; at += (count > 64 ? 97 : 1)) {
          std::vector<float> data(count, 1.5f);
          data[at] = bad;
          if (at + 5 < count) data[at + 5] = kNaN;  // a later bad value must not win
          const int64_t found = find_non_finite(data.data(), count, allow);
          EXPECT_EQ(found, plain_find(data, allow))
              << "count " << count << ", " << bad << " at " << at << ", allow -inf " << allow;
        }
      }
    }
  }
}

TEST(FindNonFiniteTest, AcceptsNegativeInfinityOnlyWhenAllowed) {
  std::vector<float> mask(2000, 0.0f);
  for (size_t i = 0; i < mask.size(); i += 3) mask[i] = -kInf;
  EXPECT_EQ(find_non_finite(mask.data(), 2000, true), -1);
  EXPECT_EQ(find_non_finite(mask.data(), 2000, false), 0);
  mask[1500] = kInf;
  EXPECT_EQ(find_non_finite(mask.data(), 2000, true), 1500);
}

}  // namespace
}  // namespace attention::test
