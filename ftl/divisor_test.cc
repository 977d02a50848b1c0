#include "ftl/divisor.h"

#include <gtest/gtest.h>

#include "sim/rng.h"

namespace ftl {
namespace {

TEST(Divisor, MatchesHardwareDivisionForPowersOfTwoAndOthers) {
  sim::Rng rng(3, "test.divisor");
  for (const uint64_t d : {uint64_t{1}, uint64_t{2}, uint64_t{3}, uint64_t{12}, uint64_t{256}, uint64_t{1000},
                           uint64_t{2048}, (uint64_t{1} << 40) + 7}) {
    const Divisor div(d);
    EXPECT_EQ(div.value(), d);
    for (int i = 0; i < 1000; ++i) {
      const uint64_t x = i < 500 ? static_cast<uint64_t>(i) : rng.Next();
      EXPECT_EQ(div.Div(x), x / d) << x << " / " << d;
      EXPECT_EQ(div.Mod(x), x % d) << x << " % " << d;
    }
  }
}

}  // namespace
}  // namespace ftl
