// Conformance of PageIndexSet (fs/vfs/page_index_set.h) against std::set:
// membership, size and ascending visits over random steps on both sides of
// the bitmap's limit.
#include "fs/vfs/page_index_set.h"

#include <cstdint>
#include <set>
#include <vector>

#include <gtest/gtest.h>

#include "fs/vfs/page_index_test_util.h"
#include "sim/rng.h"

namespace fs::vfs {
namespace {

std::vector<uint64_t> All(const PageIndexSet& s) {
  std::vector<uint64_t> v;
  s.ForEach([&](uint64_t i) {
    v.push_back(i);
    return true;
  });
  return v;
}

TEST(PageIndexSetTest, AgreesWithAStdSetOverRandomSteps) {
  const uint64_t limit = PageIndexSet::kBitmapLimit;
  sim::Rng rng(7);
  PageIndexSet s;
  std::set<uint64_t> ref;
  auto pick = [&] { return testing::PickPageIndex(rng, limit); };
  for (int step = 0; step < 30000; ++step) {
    const uint64_t idx = pick();
    if (rng.Uniform(3) == 0) {
      ASSERT_EQ(s.Erase(idx), ref.erase(idx) == 1) << "step " << step << " erase " << idx;
    } else {
      ASSERT_EQ(s.Insert(idx), ref.insert(idx).second) << "step " << step << " insert " << idx;
    }
    const uint64_t probe = pick();
    ASSERT_EQ(s.Contains(probe), ref.count(probe) == 1) << "step " << step << " probe " << probe;
    ASSERT_EQ(s.size(), ref.size());
    ASSERT_EQ(s.empty(), ref.empty());
    if (step % 97 == 0) {
      ASSERT_EQ(All(s), std::vector<uint64_t>(ref.begin(), ref.end())) << "step " << step;
      const uint64_t max = rng.Uniform(ref.size() + 2);
      std::vector<uint64_t> want;
      for (uint64_t i : ref) {
        if (want.size() >= max) break;
        want.push_back(i);
      }
      ASSERT_EQ(s.First(max), want) << "step " << step << " first " << max;
    }
  }
}

TEST(PageIndexSetTest, ForEachStopsWhenTheVisitorSaysSo) {
  PageIndexSet s;
  for (uint64_t i : {3u, 64u, 65u, 4095u, 4096u, 9000u}) s.Insert(i);
  std::vector<uint64_t> seen;
  s.ForEach([&](uint64_t i) {
    seen.push_back(i);
    return i < 4095;
  });
  EXPECT_EQ(seen, (std::vector<uint64_t>{3, 64, 65, 4095}));
  EXPECT_EQ(s.First(5), (std::vector<uint64_t>{3, 64, 65, 4095, 4096}));
  EXPECT_TRUE(s.First(0).empty());
}

}  // namespace
}  // namespace fs::vfs
