#include "fs/f2fs/discard_queue.h"

#include <utility>
#include <vector>

#include <gtest/gtest.h>

namespace fs::f2fs {
namespace {

using Range = std::pair<uint32_t, uint32_t>;  // start, len

std::vector<Range> All(const DiscardQueue& q, bool issued) {
  std::vector<Range> out;
  for (const auto& [s, c] : q.commands_by_address())
    if (c.issued == issued) out.emplace_back(s, c.len);
  return out;
}

struct Harness {
  explicit Harness(DiscardQueue::Options o = {}) : q(o, &stats) {}
  // One round; returns what was submitted, in order.
  std::vector<Range> Round(const DiscardQueue::Policy& p, int allow = 1 << 30, DiscardQueue::Round* out = nullptr) {
    std::vector<Range> sent;
    int left = allow;
    const DiscardQueue::Round r = q.Issue(
        p, [&] { return left-- > 0; }, [&](BlockAddr a, uint32_t n) { sent.emplace_back(a.v, n); });
    if (out) *out = r;
    return sent;
  }
  DiscardStats stats;
  DiscardQueue q;
};

DiscardQueue::Policy Background(uint32_t granularity = 16) {
  DiscardQueue::Policy p;
  p.granularity = granularity;
  p.max_requests = 8;
  p.ordered = true;
  return p;
}

TEST(DiscardQueueTest, AdjacentRangesMergeUpToTheLongestCommand) {
  DiscardQueue::Options o;
  o.max_blocks = 100;
  Harness h(o);
  h.q.Add(BlockAddr{1000}, 40);
  h.q.Add(BlockAddr{1080}, 20);
  h.q.Add(BlockAddr{1040}, 40);  // joins both neighbours
  EXPECT_EQ(All(h.q, false), (std::vector<Range>{{1000, 100}}));
  EXPECT_EQ(h.stats.merged.value(), 2u);
  h.q.Add(BlockAddr{1100}, 30);  // would exceed 100 blocks: a command of its own
  h.q.Add(BlockAddr{2000}, 250);  // longer than 100: split when queued
  EXPECT_EQ(All(h.q, false), (std::vector<Range>{{1000, 100}, {1100, 30}, {2000, 100}, {2100, 100}, {2200, 50}}));
  EXPECT_EQ(h.q.pending_blocks(), 380u);
  // A range overlapping queued commands adds only what they do not cover.
  h.q.Add(BlockAddr{1090}, 60);
  EXPECT_EQ(h.q.pending_blocks(), 400u);
}

TEST(DiscardQueueTest, NoMergeKeepsEachRange) {
  DiscardQueue::Options o;
  o.merge = false;
  Harness h(o);
  h.q.Add(BlockAddr{0}, 512);
  h.q.Add(BlockAddr{512}, 512);
  EXPECT_EQ(All(h.q, false), (std::vector<Range>{{0, 512}, {512, 512}}));
}

TEST(DiscardQueueTest, AllocationPunchesPendingCommands) {
  Harness h;
  h.q.Add(BlockAddr{100}, 50);
  h.q.OnBlocksAllocated(BlockAddr{100}, 1);  // first block
  h.q.OnBlocksAllocated(BlockAddr{120}, 1);  // middle: splits
  h.q.OnBlocksAllocated(BlockAddr{149}, 1);  // last block
  h.q.OnBlocksAllocated(BlockAddr{500}, 1);  // not covered
  EXPECT_EQ(All(h.q, false), (std::vector<Range>{{101, 19}, {121, 28}}));
  EXPECT_EQ(h.stats.punched.value(), 3u);
  h.q.OnBlocksAllocated(BlockAddr{90}, 40);  // across a command
  EXPECT_EQ(All(h.q, false), (std::vector<Range>{{130, 19}}));
  EXPECT_EQ(h.q.pending_blocks(), 19u);
}

TEST(DiscardQueueTest, IssuedCommandsAreNeitherPunchedNorMergedAndAreWaitedFor) {
  Harness h;
  h.q.Add(BlockAddr{0}, 64);
  ASSERT_EQ(h.Round(Background()).size(), 1u);
  EXPECT_TRUE(h.q.IssuedOverlaps(BlockAddr{63}, 1));
  EXPECT_FALSE(h.q.IssuedOverlaps(BlockAddr{64}, 8));
  h.q.OnBlocksAllocated(BlockAddr{10}, 1);  // the caller waits for the trim
  EXPECT_EQ(h.stats.punched.value(), 0u);
  h.q.Add(BlockAddr{64}, 32);  // next to an issued command: its own
  h.q.Add(BlockAddr{32}, 40);  // covered part skipped
  EXPECT_EQ(All(h.q, false), (std::vector<Range>{{64, 32}}));
  EXPECT_EQ(All(h.q, true), (std::vector<Range>{{0, 64}}));
  h.q.Done(BlockAddr{0});
  EXPECT_FALSE(h.q.IssuedOverlaps(BlockAddr{0}, 64));
  EXPECT_EQ(h.q.commands(), 1u);
}

TEST(DiscardQueueTest, BackgroundIssuesLargestFirstAtMostEightPerRound) {
  DiscardQueue::Options o;
  o.merge = false;
  Harness h(o);
  // Twelve commands of 20..130 blocks, queued in no particular order.
  const uint32_t lens[] = {40, 130, 20, 90, 60, 120, 30, 110, 50, 100, 70, 80};
  uint32_t at = 0;
  for (uint32_t n : lens) {
    h.q.Add(BlockAddr{at}, n);
    at += 1000;
  }
  std::vector<Range> r1 = h.Round(Background());
  ASSERT_EQ(r1.size(), 8u);
  for (size_t i = 0; i < r1.size(); ++i) EXPECT_EQ(r1[i].second, 130u - 10 * i);
  std::vector<Range> r2 = h.Round(Background());
  ASSERT_EQ(r2.size(), 4u);
  EXPECT_EQ(r2.back().second, 20u);
}

TEST(DiscardQueueTest, LongCommandsShareOneClassInArrivalOrder) {
  DiscardQueue::Options o;
  o.merge = false;
  Harness h(o);
  h.q.Add(BlockAddr{0}, 600);
  h.q.Add(BlockAddr{10000}, 2000);
  h.q.Add(BlockAddr{5000}, 512);
  std::vector<Range> r = h.Round(Background());
  EXPECT_EQ(r, (std::vector<Range>{{0, 600}, {10000, 2000}, {5000, 512}}));
}

// 5.15's ordered phase: once the classes reach DEFAULT_DISCARD_GRANULARITY
// (16) blocks, the remaining commands go by address from where the last
// walk stopped, whatever their length.
TEST(DiscardQueueTest, ShortCommandsGoInAddressOrderAfterTheLongOnes) {
  DiscardQueue::Options o;
  o.merge = false;
  Harness h(o);
  h.q.Add(BlockAddr{900}, 4);
  h.q.Add(BlockAddr{100}, 16);
  h.q.Add(BlockAddr{500}, 1);
  h.q.Add(BlockAddr{300}, 40);
  h.q.Add(BlockAddr{700}, 8);
  DiscardQueue::Round res;
  std::vector<Range> r = h.Round(Background(), 1 << 30, &res);
  EXPECT_EQ(r, (std::vector<Range>{{300, 40}, {100, 16}, {500, 1}, {700, 8}, {900, 4}}));
  EXPECT_EQ(res.issued, 4u);  // the ordered phase's count is the round's
  EXPECT_EQ(res.submitted, 5u);
  // The walk resumes where it stopped, at most max_requests at a time.
  for (uint32_t a = 2000; a < 2020; ++a) h.q.Add(BlockAddr{a * 10}, 2);
  DiscardQueue::Policy p = Background();
  p.max_requests = 3;
  EXPECT_EQ(h.Round(p), (std::vector<Range>{{20000, 2}, {20010, 2}, {20020, 2}}));
  EXPECT_EQ(h.Round(p), (std::vector<Range>{{20030, 2}, {20040, 2}, {20050, 2}}));
}

TEST(DiscardQueueTest, GranularityWithoutTheOrderedPhase) {
  DiscardQueue::Options o;
  o.merge = false;
  o.max_ordered = 0;  // no ordered phase: the granularity holds for every command
  Harness h(o);
  h.q.Add(BlockAddr{0}, 15);
  h.q.Add(BlockAddr{100}, 16);
  h.q.Add(BlockAddr{200}, 1);
  EXPECT_EQ(h.Round(Background(16)), (std::vector<Range>{{100, 16}}));
  EXPECT_EQ(h.Round(Background(16)), (std::vector<Range>{}));
  EXPECT_TRUE(h.q.HasPendingAtLeast(1));
  EXPECT_FALSE(h.q.HasPendingAtLeast(16));
  // Utilization above discard_urgent_util: granularity 1.
  EXPECT_EQ(h.Round(Background(1)), (std::vector<Range>{{0, 15}, {200, 1}}));
  // A granularity above the ordered length stops before the ordered phase.
  Harness g;  // default options: ordered phase up to 16 blocks
  g.q.Add(BlockAddr{0}, 8);
  g.q.Add(BlockAddr{100}, 600);
  EXPECT_EQ(g.Round(Background(512)), (std::vector<Range>{{100, 600}}));
  EXPECT_EQ(g.Round(Background(512)), (std::vector<Range>{}));
}

TEST(DiscardQueueTest, NotIdleInterruptsTheRound) {
  Harness h;
  h.q.Add(BlockAddr{0}, 100);
  h.q.Add(BlockAddr{1000}, 50);
  DiscardQueue::Round res;
  EXPECT_EQ(h.Round(Background(), 1, &res), (std::vector<Range>{{0, 100}}));
  EXPECT_TRUE(res.interrupted);
  EXPECT_EQ(res.issued, 1u);
  EXPECT_EQ(h.Round(Background(), 0, &res), (std::vector<Range>{}));
  EXPECT_TRUE(res.interrupted);
  EXPECT_EQ(res.issued, 0u);
}

TEST(DiscardQueueTest, DroppingPendingCommands) {
  Harness h;
  h.q.Add(BlockAddr{0}, 1024);
  h.q.DropPending(BlockAddr{512}, 512);
  EXPECT_EQ(All(h.q, false), (std::vector<Range>{{0, 512}}));
  h.q.Add(BlockAddr{4096}, 64);
  ASSERT_EQ(h.Round(Background(), 1).size(), 1u);  // the 512 go out
  EXPECT_EQ(h.q.DropAllPending(), 64u);
  EXPECT_EQ(h.q.pending_commands(), 0u);
  EXPECT_EQ(h.q.issued_commands(), 1u);
  EXPECT_EQ(h.stats.dropped_blocks.value(), 512u + 64u);
}

}  // namespace
}  // namespace fs::f2fs
