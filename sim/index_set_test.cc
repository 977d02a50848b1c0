// Conformance of IndexSet (sim/index_set.h) against std::set: membership,
// size, next-member queries, ascending visits and growth.
#include "sim/index_set.h"

#include <algorithm>
#include <cstdint>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "sim/rng.h"

namespace sim {
namespace {

std::vector<uint64_t> Visit(const IndexSet& s, uint64_t max = UINT64_MAX) {
  std::vector<uint64_t> v;
  s.ForEach([&](uint64_t i) {
    if (v.size() >= max) return false;
    v.push_back(i);
    return true;
  });
  return v;
}

TEST(IndexSetTest, MatchesStdSetUnderRandomOperations) {
  for (uint64_t cap : {1u, 63u, 64u, 65u, 4095u, 4096u, 4097u, 300000u}) {
    IndexSet s(cap);
    std::set<uint64_t> ref;
    Rng rng(cap, "indexset");
    for (int i = 0; i < 3000; ++i) {
      const uint64_t k = rng.Uniform(cap);
      if (rng.Uniform(3) != 0) {
        EXPECT_EQ(s.Insert(k), ref.insert(k).second);
      } else {
        EXPECT_EQ(s.Erase(k), ref.erase(k) == 1);
      }
      const uint64_t q = rng.Uniform(cap + 1);
      auto it = ref.lower_bound(q);
      const int64_t want = it == ref.end() ? IndexSet::kNone : static_cast<int64_t>(*it);
      ASSERT_EQ(s.NextAtOrAfter(q), want) << "cap " << cap << " q " << q;
      const int64_t wrap = want != IndexSet::kNone ? want : (ref.empty() ? IndexSet::kNone : *ref.begin());
      ASSERT_EQ(s.NextWrap(q), wrap);
      ASSERT_EQ(s.size(), ref.size());
      ASSERT_EQ(s.Contains(q), ref.count(q) == 1) << "cap " << cap << " q " << q;
      if (i % 61 == 0) {
        ASSERT_EQ(Visit(s), std::vector<uint64_t>(ref.begin(), ref.end())) << "cap " << cap;
        const uint64_t max = rng.Uniform(ref.size() + 2);
        const std::vector<uint64_t> all(ref.begin(), ref.end());
        ASSERT_EQ(Visit(s, max), std::vector<uint64_t>(all.begin(), all.begin() + std::min<uint64_t>(max, all.size())));
      }
    }
  }
}

// Growth keeps the members, and the new range takes members at once,
// across summary words (4,096 indices each).
TEST(IndexSetTest, GrowKeepsMembersAndWidensTheRange) {
  IndexSet s(100);
  for (uint64_t i : {0u, 63u, 64u, 99u}) s.Insert(i);
  s.Grow(100);
  s.Grow(10000);
  EXPECT_EQ(s.capacity(), 10000u);
  EXPECT_EQ(s.size(), 4u);
  EXPECT_TRUE(s.Insert(4096));
  EXPECT_TRUE(s.Insert(9999));
  EXPECT_FALSE(s.Insert(99));
  EXPECT_EQ(Visit(s), (std::vector<uint64_t>{0, 63, 64, 99, 4096, 9999}));
  EXPECT_EQ(s.NextAtOrAfter(100), 4096);
  EXPECT_FALSE(s.Contains(10000));
}

}  // namespace
}  // namespace sim
