#include "ssd/write_buffer.h"

#include <deque>
#include <map>
#include <vector>

#include <gtest/gtest.h>

#include "sim/rng.h"

namespace ssd {
namespace {

TEST(WriteBufferTest, PlaceMergesDirtyPages) {
  WriteBuffer b(4);
  EXPECT_TRUE(b.Place(10, 0x1, 1));
  EXPECT_TRUE(b.Place(10, 0x4, 2));
  EXPECT_EQ(b.Lookup(10), 0x5u);
  EXPECT_EQ(b.occupied(), 1u);
  EXPECT_EQ(b.OldestPendingSeq(), 2u);
  EXPECT_EQ(b.Lookup(11), 0u);
}

TEST(WriteBufferTest, FullBufferRefusesNewPagesButMergesExisting) {
  WriteBuffer b(2);
  EXPECT_TRUE(b.Place(1, 1, 1));
  EXPECT_TRUE(b.Place(2, 1, 2));
  EXPECT_TRUE(b.full());
  EXPECT_FALSE(b.Place(3, 1, 3));
  EXPECT_TRUE(b.Place(1, 2, 3));
  EXPECT_EQ(b.Lookup(1), 3u);
}

TEST(WriteBufferTest, DestageOrderIsLeastRecentlyWritten) {
  WriteBuffer b(4);
  b.Place(1, 1, 1);
  b.Place(2, 1, 2);
  b.Place(1, 1, 3);  // page 1 rewritten: now the newest
  const uint32_t s = b.StartDestage();
  EXPECT_EQ(b.slot_lpn(s), 2u);
  EXPECT_EQ(b.OldestPendingSeq(), 2u);
  EXPECT_EQ(b.OldestDirtySeq(), 3u);
  b.FinishDestage(s);
  EXPECT_EQ(b.Lookup(2), 0u);
  EXPECT_EQ(b.OldestPendingSeq(), 3u);
}

TEST(WriteBufferTest, RewriteDuringDestageTakesANewSlot) {
  WriteBuffer b(2);
  b.Place(7, 0x1, 1);
  const uint32_t s = b.StartDestage();
  EXPECT_TRUE(b.Place(7, 0x2, 2));
  EXPECT_EQ(b.occupied(), 2u);
  EXPECT_EQ(b.Lookup(7), 0x3u);  // the new slot holds both
  b.FinishDestage(s);
  EXPECT_EQ(b.Lookup(7), 0x3u);  // the newer copy stays
  EXPECT_EQ(b.occupied(), 1u);
  EXPECT_EQ(b.OldestPendingSeq(), 2u);
}

TEST(WriteBufferTest, DiscardOnlyWhenCovered) {
  WriteBuffer b(4);
  b.Place(5, 0x3, 1);
  b.Discard(5, 0x1);
  EXPECT_EQ(b.Lookup(5), 0x3u);
  b.Discard(5, 0x7);
  EXPECT_EQ(b.Lookup(5), 0u);
  EXPECT_EQ(b.occupied(), 0u);
  EXPECT_EQ(b.OldestPendingSeq(), WriteBuffer::kNoSeq);
}

TEST(WriteBufferTest, DiscardRangeBothWays) {
  WriteBuffer b(64);
  for (uint64_t l = 0; l < 40; ++l) b.Place(l * 3, 1, l + 1);
  b.DiscardRange(0, 30, 1);  // small range: per page
  for (uint64_t l = 0; l < 10; ++l) EXPECT_EQ(b.Lookup(l * 3), 0u) << l;
  EXPECT_EQ(b.Lookup(30), 1u);
  b.DiscardRange(60, 1000000, 1);  // large range: walks the dirty list
  EXPECT_EQ(b.Lookup(57), 1u);
  EXPECT_EQ(b.Lookup(60), 0u);
  EXPECT_EQ(b.occupied(), 10u);
}

// Random operations against a simple per-page model.
TEST(WriteBufferTest, RandomAgainstModel) {
  const uint32_t slots = 64;
  const uint64_t lpns = 200;
  WriteBuffer b(slots);
  sim::Rng rng(1, "wb");
  enum class St { kNone, kDirty, kDestaging };
  struct Page {
    St st = St::kNone;
    uint64_t mask = 0;
    uint32_t slot = WriteBuffer::kNone;  // when destaging
  };
  std::vector<Page> model(lpns);
  std::vector<uint32_t> destaging;  // slots in flight
  std::map<uint32_t, uint64_t> destaging_seq;
  uint64_t seq = 0, placed = 0, finished = 0;
  for (int step = 0; step < 100000; ++step) {
    const uint64_t r = rng.Uniform(100);
    const uint64_t lpn = rng.Uniform(lpns);
    Page& p = model[lpn];
    if (r < 50) {
      const uint64_t mask = 1ull << rng.Uniform(16);
      if (b.Place(lpn, mask, seq + 1)) {
        ++seq;
        ++placed;
        p.mask = p.st == St::kNone ? mask : (p.mask | mask);
        p.st = St::kDirty;
      } else {
        ASSERT_TRUE(b.full());
        ASSERT_NE(p.st, St::kDirty);
      }
    } else if (r < 70) {
      const uint32_t s = b.StartDestage();
      if (s != WriteBuffer::kNone) {
        Page& d = model[b.slot_lpn(s)];
        ASSERT_EQ(d.st, St::kDirty);
        ASSERT_EQ(b.slot_mask(s), d.mask);
        d.st = St::kDestaging;
        d.slot = s;
        destaging.push_back(s);
        destaging_seq[s] = b.slot_seq(s);
      } else {
        ASSERT_EQ(b.dirty(), 0u);
      }
    } else if (r < 95) {
      if (!destaging.empty()) {
        const size_t i = rng.Uniform(destaging.size());
        const uint32_t s = destaging[i];
        destaging.erase(destaging.begin() + static_cast<long>(i));
        Page& d = model[b.slot_lpn(s)];
        if (d.st == St::kDestaging && d.slot == s) d = Page{};
        b.FinishDestage(s);
        destaging_seq.erase(s);
        ++finished;
      }
    } else {
      b.Discard(lpn, ~0ull);
      if (p.st == St::kDirty) p = Page{};
    }
    if (step % 61 == 0) {
      for (uint64_t l = 0; l < lpns; ++l) ASSERT_EQ(b.Lookup(l), model[l].mask) << "lpn " << l << " step " << step;
      ASSERT_LE(b.occupied(), slots);
      ASSERT_EQ(b.destaging(), destaging.size());
      uint64_t oldest_destaging = WriteBuffer::kNoSeq;
      for (const auto& [slot, q] : destaging_seq) oldest_destaging = std::min(oldest_destaging, q);
      // Invariant: writes in flight are older than dirty ones.
      if (oldest_destaging != WriteBuffer::kNoSeq && b.OldestDirtySeq() != WriteBuffer::kNoSeq) {
        uint64_t newest_destaging = 0;
        for (const auto& [slot, q] : destaging_seq) newest_destaging = std::max(newest_destaging, q);
        ASSERT_LT(newest_destaging, b.OldestDirtySeq());
      }
      ASSERT_EQ(b.OldestPendingSeq(), std::min(oldest_destaging, b.OldestDirtySeq()));
    }
  }
  EXPECT_GT(placed, 10000u);
  EXPECT_GT(finished, 5000u);
}

}  // namespace
}  // namespace ssd
