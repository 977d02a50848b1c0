// The Cleaner's contract (cleaner.h) against a fake host: when it cleans,
// how many victims, the checkpoint before cleaning, the background thread's
// wake-ups and its stop.
#include "fs/f2fs/cleaner.h"

#include <vector>

#include <gtest/gtest.h>

#include "fs/f2fs/allocation_policy.h"
#include "fs/f2fs/segment_manager.h"
#include "sim/config.h"

namespace fs::f2fs {
namespace {

// A host whose space is the segment manager's: it wants `want_free`
// sections free; migrating a section invalidates its valid blocks.
class FakeHost final : public CleanerHost {
 public:
  explicit FakeHost(SegmentManager* sm) : sm_(sm) {}
  bool Dead() const override { return dead; }
  bool Stopping() const override { return stopping; }
  bool HasNotEnoughFreeSecs(uint32_t freed) const override { return sm_->free_sections() + freed < want_free; }
  uint32_t NeededFreeSecs() const override { return want_free > 0 ? want_free - 1 : 0; }
  uint64_t ValidBlocks() const override { return sm_->valid_blocks(); }
  bool IsIdle(sim::SimTime) const override { return idle; }
  sim::Task<void> CheckpointForCleaning() override {
    ++checkpoints;
    sm_->CommitCheckpoint();
    co_return;
  }
  sim::Task<uint32_t> MigrateSection(uint32_t sec, bool foreground) override {
    migrated.push_back(sec);
    foreground_flags.push_back(foreground);
    uint32_t moved = 0;
    const Layout& l = sm_->layout();
    for (uint32_t i = 0; i < l.segs_per_sec; ++i) {
      const SegNo seg{sec * l.segs_per_sec + i};
      const BlockAddr start = l.SegStart(seg);
      for (uint32_t off = 0; off < kBlocksPerSeg; ++off) {
        const BlockAddr a{start.v + off};
        if (sm_->BlockValid(a)) {
          sm_->Invalidate(a);
          ++moved;
        }
      }
    }
    co_return moved;
  }
  sim::Task<void> BackgroundBalance() override {
    ++balances;
    co_return;
  }

  bool dead = false, stopping = false, idle = true;
  uint32_t want_free = 0;
  int checkpoints = 0, balances = 0;
  std::vector<uint32_t> migrated;
  std::vector<bool> foreground_flags;

 private:
  SegmentManager* sm_;
};

struct Rig {
  Rig() {
    cfg.gc.bg_policy = "greedy";
    cfg.gc.fg_policy = "greedy";
    auto l = ComputeLayout({256ull << 20, 1, 1, 0});
    CHECK(l.ok()) << l.status().message();
    layout = *l;
    auto p = MakeAllocationPolicy(cfg.allocation, AllocationPolicyContext{&cfg, &layout});
    CHECK(p.ok());
    policy = std::move(p).value();
    sm = std::make_unique<SegmentManager>(layout, policy.get());
    sm->FinishLoad();
    sm->OpenLog(LogType::kColdData);
    host = std::make_unique<FakeHost>(sm.get());
    auto c = Cleaner::Create(&q, cfg, layout, sm.get(), host.get(), &stats);
    CHECK(c.ok()) << c.status().message();
    cleaner = std::move(c).value();
  }
  // Fills `n` segments of the cold data log; segment i keeps (i + 1) * 50
  // valid blocks of 512. Returns their segment numbers.
  std::vector<uint32_t> Fill(int n) {
    std::vector<uint32_t> segs;
    for (int i = 0; i < n; ++i) {
      std::vector<BlockAddr> blocks;
      const SegNo s = sm->curseg(LogType::kColdData).segno;
      segs.push_back(s.v);
      while (sm->curseg(LogType::kColdData).segno == s) {
        blocks.push_back(sm->Allocate(LogType::kColdData, Summary{Nid{3}, 0, 0}, q.now(), false));
      }
      for (size_t b = static_cast<size_t>(i + 1) * 50; b < blocks.size(); ++b) sm->Invalidate(blocks[b]);
    }
    return segs;
  }
  uint32_t Gc(bool foreground, bool from_thread) {
    uint32_t victims = 0;
    sim::Task<void> t = [](Cleaner* c, bool fg, bool th, uint32_t* out) -> sim::Task<void> {
      *out = co_await c->Gc(fg, th);
    }(cleaner.get(), foreground, from_thread, &victims);
    vfs::OwnedThread thread;
    thread.Start(&q, std::move(t));
    q.Run();
    CHECK(thread.done());
    return victims;
  }

  sim::EventQueue q;
  F2fsConfig cfg = sim::MakeDefault<F2fsConfig>();
  Layout layout;
  std::unique_ptr<AllocationPolicy> policy;
  std::unique_ptr<SegmentManager> sm;
  std::unique_ptr<FakeHost> host;
  CleanerStats stats;
  std::unique_ptr<Cleaner> cleaner;
};

TEST(CleanerTest, ForegroundWithEnoughSpaceCleansNothing) {
  Rig r;
  r.Fill(4);
  r.host->want_free = r.sm->free_sections();
  EXPECT_EQ(r.Gc(/*foreground=*/true, /*from_thread=*/false), 0u);
  EXPECT_TRUE(r.host->migrated.empty());
  EXPECT_EQ(r.stats.fg_calls.value(), 1u);
}

TEST(CleanerTest, ForegroundCleansFewestValidFirstUntilEnoughIsFree) {
  Rig r;
  const std::vector<uint32_t> segs = r.Fill(6);
  r.sm->CommitCheckpoint();
  r.host->want_free = r.sm->free_sections() + 1;
  EXPECT_EQ(r.Gc(true, false), 1u);
  // Greedy: the segment with the fewest valid blocks.
  ASSERT_EQ(r.host->migrated.size(), 1u);
  EXPECT_EQ(r.host->migrated[0], segs[0]);
  EXPECT_EQ(r.host->foreground_flags, (std::vector<bool>{true}));
  EXPECT_EQ(r.stats.victims_fg.value(), 1u);
  EXPECT_EQ(r.stats.sections_freed.value(), 1u);
  EXPECT_EQ(r.host->checkpoints, 0);
  // Short by two on entry, with the cleaned (now prefree) section: the
  // checkpoint on entry frees it, one more victim makes up the rest.
  r.host->want_free = r.sm->free_sections() + 2;
  EXPECT_EQ(r.Gc(true, false), 1u);
  ASSERT_EQ(r.host->migrated.size(), 2u);
  EXPECT_EQ(r.host->migrated[1], segs[1]);
  EXPECT_EQ(r.host->checkpoints, 1);
}

// The kernel's f2fs_gc checkpoints only on entry: sections emptied by
// foreground rounds count toward the shortfall while still prefree, and
// are neither checkpointed every round nor counted twice.
TEST(CleanerTest, ForegroundRoundsCountEmptiedSectionsWithoutCheckpoints) {
  Rig r;
  const std::vector<uint32_t> segs = r.Fill(6);
  r.sm->CommitCheckpoint();
  r.host->want_free = r.sm->free_sections() + 3;
  EXPECT_EQ(r.Gc(true, false), 3u);
  EXPECT_EQ(r.host->migrated, (std::vector<uint32_t>{segs[0], segs[1], segs[2]}));
  EXPECT_EQ(r.host->checkpoints, 0);
  EXPECT_EQ(r.sm->prefree_segments(), 3u);
}

TEST(CleanerTest, PrefreeSectionsAreFreedByACheckpointBeforeCleaning) {
  Rig r;
  const std::vector<uint32_t> segs = r.Fill(4);
  r.sm->CommitCheckpoint();
  for (uint32_t seg : {segs[0], segs[1]}) {
    const BlockAddr start = r.layout.SegStart(SegNo{seg});
    for (uint32_t off = 0; off < kBlocksPerSeg; ++off)
      if (r.sm->BlockValid(BlockAddr{start.v + off})) r.sm->Invalidate(BlockAddr{start.v + off});
  }
  ASSERT_EQ(r.sm->prefree_segments(), 2u);
  r.host->want_free = r.sm->free_sections() + 2;  // exactly what the checkpoint frees
  EXPECT_EQ(r.Gc(true, false), 0u);
  EXPECT_EQ(r.host->checkpoints, 1);
  EXPECT_TRUE(r.host->migrated.empty());
}

TEST(CleanerTest, BackgroundCallCleansOneVictim) {
  Rig r;
  const std::vector<uint32_t> segs = r.Fill(5);
  r.sm->CommitCheckpoint();
  r.host->want_free = 0;  // space is fine: background cleaning still takes one
  EXPECT_EQ(r.Gc(false, true), 1u);
  ASSERT_EQ(r.host->migrated.size(), 1u);
  EXPECT_EQ(r.host->migrated[0], segs[0]);
  EXPECT_EQ(r.host->foreground_flags[0], false);
  EXPECT_EQ(r.stats.bg_calls.value(), 1u);
  EXPECT_EQ(r.stats.victims_bg.value(), 1u);
  // A foreground call from outside the thread with enough space cleans nothing.
  EXPECT_EQ(r.Gc(true, false), 0u);
}

TEST(CleanerTest, AfterAPowerCutNothingIsCleaned) {
  Rig r;
  r.Fill(3);
  r.host->dead = true;
  r.cleaner->Kill();
  EXPECT_EQ(r.Gc(false, true), 0u);
  EXPECT_TRUE(r.host->migrated.empty());
}

TEST(CleanerTest, ThreadCleansWhenIdleAndStopsWhenAsked) {
  Rig r;
  r.Fill(5);
  r.sm->CommitCheckpoint();
  r.host->idle = false;  // busy: wakes up, balances, does not clean
  vfs::OwnedThread thread;
  thread.Start(&r.q, r.cleaner->Thread());
  sim::FunctionEvent check_busy([&] {
    EXPECT_GT(r.host->balances, 0);
    EXPECT_TRUE(r.host->migrated.empty());
  });
  r.q.Schedule(&check_busy, r.cfg.gc.max_sleep * 3 - sim::SimTime::FromNs(1));
  // The thread sleeps on a daemon timer; a plain event keeps the run going.
  sim::FunctionEvent stop_busy([&] { r.host->idle = true; });
  r.q.Schedule(&stop_busy, r.cfg.gc.max_sleep * 3);
  sim::FunctionEvent end([] {});
  r.q.Schedule(&end, r.cfg.gc.max_sleep * 12);
  r.q.Run();
  EXPECT_GT(r.host->balances, 0);
  EXPECT_GT(r.host->migrated.size(), 0u);
  EXPECT_GE(r.stats.bg_calls.value(), r.host->migrated.size());  // one victim per background call at most
  for (bool fg : r.host->foreground_flags) EXPECT_FALSE(fg);
  EXPECT_FALSE(thread.done());
  r.host->stopping = true;
  r.cleaner->Kick();
  r.q.Run();
  EXPECT_TRUE(thread.done());
}

}  // namespace
}  // namespace fs::f2fs
