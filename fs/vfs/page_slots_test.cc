// Conformance of PageSlots (fs/vfs/page_slots.h) against a std::map of
// owned pages: lookups, inserts, takes, size and ascending visits of random
// ranges over random steps on both sides of the direct slots' limit.
#include "fs/vfs/page_slots.h"

#include <cstdint>
#include <map>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "fs/vfs/page_index_test_util.h"
#include "sim/rng.h"

namespace fs::vfs {
namespace {

struct Item {
  uint64_t tag;
};

TEST(PageSlotsTest, AgreesWithAStdMapOverRandomSteps) {
  const uint64_t limit = PageSlots<Item>::kDirectLimit;
  sim::Rng rng(11);
  PageSlots<Item> s;
  std::map<uint64_t, uint64_t> ref;  // index -> tag
  auto pick = [&] { return testing::PickPageIndex(rng, limit); };
  uint64_t next_tag = 1;
  for (int step = 0; step < 40000; ++step) {
    const uint64_t idx = pick();
    const uint64_t r = rng.Uniform(10);
    if (r < 4) {  // insert where absent
      if (ref.count(idx)) continue;
      Item* p = s.Insert(idx, std::make_unique<Item>(Item{next_tag}));
      ASSERT_EQ(p->tag, next_tag);
      ref[idx] = next_tag++;
    } else if (r < 7) {  // take
      std::unique_ptr<Item> p = s.Take(idx);
      auto it = ref.find(idx);
      ASSERT_EQ(p != nullptr, it != ref.end()) << "step " << step << " index " << idx;
      if (p != nullptr) {
        ASSERT_EQ(p->tag, it->second);
        ref.erase(it);
      }
    } else {  // find
      const Item* p = s.Find(idx);
      auto it = ref.find(idx);
      ASSERT_EQ(p != nullptr, it != ref.end()) << "step " << step << " index " << idx;
      ASSERT_EQ(s.Contains(idx), it != ref.end());
      if (p != nullptr) ASSERT_EQ(p->tag, it->second);
    }
    ASSERT_EQ(s.size(), ref.size());
    ASSERT_EQ(s.empty(), ref.empty());
    if (step % 50 == 0) {
      uint64_t first = pick(), last = pick();
      if (rng.Uniform(4) == 0) first = 0;
      if (rng.Uniform(4) == 0) last = UINT64_MAX;
      std::vector<std::pair<uint64_t, uint64_t>> got, want;
      s.ForEach(first, last, [&](uint64_t i, Item* p) { got.emplace_back(i, p->tag); });
      for (auto it = ref.lower_bound(first); it != ref.end() && it->first <= last; ++it) want.emplace_back(*it);
      ASSERT_EQ(got, want) << "step " << step << " range [" << first << ", " << last << "]";
      std::vector<uint64_t> idxs;
      for (const auto& [i, tag] : want) idxs.push_back(i);
      ASSERT_EQ(s.Indices(first, last), idxs);
      // A walk that stops after k pages visits the first k.
      const size_t k = rng.Uniform(idxs.size() + 1);
      std::vector<uint64_t> prefix;
      s.ForEach(first, last, [&](uint64_t i, Item*) {
        if (prefix.size() == k) return false;
        prefix.push_back(i);
        return true;
      });
      ASSERT_EQ(prefix, std::vector<uint64_t>(idxs.begin(), idxs.begin() + static_cast<std::ptrdiff_t>(k)));
    }
  }
  EXPECT_GT(ref.size(), 100u);
}

TEST(PageSlotsTest, EmptyRangesAndTakingAbsentPages) {
  PageSlots<Item> s;
  EXPECT_EQ(s.Take(3), nullptr);
  EXPECT_EQ(s.Take(uint64_t{1} << 40), nullptr);
  s.Insert(5, std::make_unique<Item>(Item{1}));
  EXPECT_TRUE(s.Indices(6, 4).empty());  // first > last
  EXPECT_TRUE(s.Indices(6, 100).empty());
  EXPECT_EQ(s.Indices(0, 5), std::vector<uint64_t>{5});
  EXPECT_EQ(s.Take(5)->tag, 1u);
  EXPECT_TRUE(s.empty());
  EXPECT_TRUE(s.Indices().empty());
}

}  // namespace
}  // namespace fs::vfs
