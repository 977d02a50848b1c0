// Allocation, in-place update, checkpoint, fsync and cleaning policies.
#include <functional>
#include <map>

#include <gtest/gtest.h>

#include "fs/f2fs/f2fs_test_util.h"
#include "sim/rng.h"

namespace fs::f2fs {
namespace {

using testing::Pattern;
using testing::Stack;

// Keeps the simulation alive for `d` so background threads (daemons) run.
sim::Task<void> Idle(sim::EventQueue* q, sim::SimTime d) { co_await sim::Delay(q, d); }

struct Files {
  explicit Files(Stack* stack) : s(stack) {}
  Stack* s;
  std::map<std::string, std::vector<uint8_t>> model;
  std::map<std::string, Fd> fds;

  Fd Open(const std::string& p) {
    auto it = fds.find(p);
    if (it != fds.end()) return it->second;
    FsResult<Fd> r = s->Run(s->fs().Open(p, kCreat | kRdWr));
    CHECK(r.ok()) << p << " " << ErrnoName(r.err);
    fds[p] = r.value;
    return r.value;
  }
  void Write(const std::string& p, uint64_t off, std::vector<uint8_t> data) {
    const Fd fd = Open(p);
    FsResult<uint64_t> r = s->Run(s->fs().Pwrite(fd, off, data, data.size()));
    CHECK(r.ok() && r.value == data.size()) << ErrnoName(r.err);
    auto& m = model[p];
    if (m.size() < off + data.size()) m.resize(off + data.size());
    std::copy(data.begin(), data.end(), m.begin() + off);
  }
  void Fsync(const std::string& p) { CHECK(s->Run(s->fs().Fsync(Open(p))).ok()); }
  void Unlink(const std::string& p) {
    auto it = fds.find(p);
    if (it != fds.end()) {
      s->Run(s->fs().Close(it->second));
      fds.erase(it);
    }
    CHECK(s->Run(s->fs().Unlink(p)).ok());
    model.erase(p);
  }
  void CloseAll() {
    for (auto& [p, fd] : fds) s->Run(s->fs().Close(fd));
    fds.clear();
  }
  void Verify() {
    for (const auto& [p, want] : model) {
      const Fd fd = Open(p);
      std::vector<uint8_t> got(want.size());
      FsResult<uint64_t> r = s->Run(s->fs().Pread(fd, 0, got));
      ASSERT_EQ(r.value, want.size()) << p;
      ASSERT_TRUE(got == want) << p;
    }
  }
};

TEST(PolicyTest, InPlaceUpdateOnSmallFsyncOutOfPlaceOtherwise) {
  Stack s;
  s.FormatAndMount();
  Files f(&s);
  f.Write("/ipu", 0, Pattern(64 * kBlockSize, 1));
  f.Fsync("/ipu");
  s.Run(s.fs().Sync());
  const uint64_t ipu0 = s.fs().ipu_blocks();
  // <= min_fsync_blocks (8) dirty pages: updated in place.
  for (int i = 0; i < 4; ++i) f.Write("/ipu", uint64_t(i) * 7 * kBlockSize, Pattern(kBlockSize, 10 + i));
  f.Fsync("/ipu");
  EXPECT_EQ(s.fs().ipu_blocks() - ipu0, 4u);
  // 32 dirty pages (the seed-001 fio pattern): out of place.
  for (int i = 0; i < 32; ++i) f.Write("/ipu", uint64_t(i) * 2 * kBlockSize, Pattern(kBlockSize, 20 + i));
  f.Fsync("/ipu");
  EXPECT_EQ(s.fs().ipu_blocks() - ipu0, 4u);
  // fdatasync always asks for in-place updates.
  for (int i = 0; i < 12; ++i) f.Write("/ipu", uint64_t(i) * kBlockSize, Pattern(kBlockSize, 60 + i));
  ASSERT_TRUE(s.Run(s.fs().Fdatasync(f.Open("/ipu"))).ok());
  EXPECT_EQ(s.fs().ipu_blocks() - ipu0, 16u);
  // Cold files (media extensions) are always updated in place. (The first
  // write converts the inline file: page 0 is written at once, so the
  // fsync rewrites it in place: one more.)
  f.Write("/movie.mp4", 0, Pattern(8 * kBlockSize, 2));
  f.Fsync("/movie.mp4");
  EXPECT_EQ(s.fs().ipu_blocks() - ipu0, 17u);
  f.Write("/movie.mp4", 0, Pattern(8 * kBlockSize, 3));
  s.Run(s.fs().Sync());
  EXPECT_EQ(s.fs().ipu_blocks() - ipu0, 25u);
  s.ExpectCheck();
  f.Verify();
  f.CloseAll();
  s.Remount();
  s.ExpectCheck();
  f.Verify();
}

TEST(PolicyTest, LfsModeNeverUpdatesInPlace) {
  F2fsConfig c = testing::TestConfig();
  c.mode = "lfs";
  Stack s(256ull << 20, c);
  s.FormatAndMount();
  Files f(&s);
  f.Write("/a", 0, Pattern(16 * kBlockSize, 1));
  f.Fsync("/a");
  f.Write("/a", 0, Pattern(kBlockSize, 2));
  f.Fsync("/a");
  f.Write("/x.mp4", 0, Pattern(kBlockSize, 3));
  s.Run(s.fs().Sync());
  f.Write("/x.mp4", 0, Pattern(kBlockSize, 4));
  s.Run(s.fs().Sync());
  EXPECT_EQ(s.fs().ipu_blocks(), 0u);
  s.ExpectCheck();
  f.Verify();
}

TEST(PolicyTest, FsyncCheckpointCases) {
  Stack s;
  s.FormatAndMount();
  F2fs& fs = s.fs();
  auto cps = [&] { return fs.checkpoints(); };
  Files f(&s);
  // A new file in the (checkpointed) root: roll-forward, no checkpoint.
  uint64_t c0 = cps();
  f.Write("/a", 0, Pattern(10000, 1));
  f.Fsync("/a");
  EXPECT_EQ(cps(), c0);
  // A file in a directory created since the last checkpoint: checkpoint.
  ASSERT_TRUE(s.Run(fs.Mkdir("/d")).ok());
  f.Write("/d/b", 0, Pattern(10000, 2));
  c0 = cps();
  f.Fsync("/d/b");
  EXPECT_EQ(cps(), c0 + 1);
  // The parent is checkpointed now: the next one rolls forward.
  f.Write("/d/c", 0, Pattern(100, 3));
  c0 = cps();
  f.Fsync("/d/c");
  EXPECT_EQ(cps(), c0);
  // Renamed files lost their parent pointer: checkpoint, then fixed.
  ASSERT_TRUE(s.Run(fs.Rename("/a", "/d/a2")).ok());
  f.Write("/d/c", 0, Pattern(100, 4));
  f.model["/d/a2"] = f.model["/a"];
  f.model.erase("/a");
  f.fds["/d/a2"] = f.fds["/a"];
  f.fds.erase("/a");
  f.Write("/d/a2", 0, Pattern(10, 5));
  c0 = cps();
  f.Fsync("/d/a2");
  EXPECT_EQ(cps(), c0 + 1);
  f.Write("/d/a2", 0, Pattern(10, 6));
  c0 = cps();
  f.Fsync("/d/a2");
  EXPECT_EQ(cps(), c0);
  // Directories always need a checkpoint.
  FsResult<Fd> dfd = s.Run(fs.Open("/d", kRdOnly));
  ASSERT_TRUE(dfd.ok());
  c0 = cps();
  ASSERT_TRUE(s.Run(fs.Fsync(dfd.value)).ok());
  EXPECT_EQ(cps(), c0 + 1);
  // Nothing new since the last fsync: no node write, no checkpoint.
  const uint64_t nodes0 = s.stats().Value("fs.fsync.nodes_written");
  f.Fsync("/d/c");
  EXPECT_EQ(s.stats().Value("fs.fsync.nodes_written"), nodes0);
  s.ExpectCheck();
}

TEST(PolicyTest, TwoActiveLogsAndFastbootCheckpointOnEveryFsync) {
  for (int variant = 0; variant < 2; ++variant) {
    F2fsConfig c = testing::TestConfig();
    if (variant == 0) c.active_logs = 2;
    else c.fastboot = true;
    Stack s(256ull << 20, c);
    s.FormatAndMount();
    Files f(&s);
    f.Write("/a", 0, Pattern(5000, 1));
    const uint64_t c0 = s.fs().checkpoints();
    f.Fsync("/a");
    f.Write("/a", 0, Pattern(5000, 2));
    f.Fsync("/a");
    EXPECT_EQ(s.fs().checkpoints(), c0 + 2) << variant;
    s.ExpectCheck();
  }
}

TEST(PolicyTest, FsyncNodeLookupScanVisitsAllDirtyNodesListOnlyTheFiles) {
  for (const char* mode : {"scan", "list"}) {
    F2fsConfig c = testing::TestConfig();
    c.fsync_node_lookup = mode;
    c.checkpoint.background = false;
    Stack s(256ull << 20, c);
    s.FormatAndMount();
    Files f(&s);
    // 40 files, checkpointed; then every file appends (block reservations
    // dirty their inode pages) and /f0 is fsynced.
    for (int i = 0; i < 40; ++i) f.Write("/f" + std::to_string(i), 0, Pattern(20 * kBlockSize, i));
    s.Run(s.fs().Sync());
    ASSERT_EQ(s.fs().dirty_node_pages(), 0u);
    for (int i = 0; i < 40; ++i) f.Write("/f" + std::to_string(i), 20 * kBlockSize, Pattern(kBlockSize, 100 + i));
    const uint64_t dirty = s.fs().dirty_node_pages();
    const sim::Histogram* h = s.stats().FindHistogram("fs.fsync.nodes_visited");
    const uint64_t n0 = h->count();
    f.Fsync("/f0");
    ASSERT_EQ(h->count(), n0 + 1);
    if (std::string(mode) == "scan") {
      EXPECT_GE(static_cast<uint64_t>(h->max()), dirty);  // every dirty node page of the FS
      EXPECT_GE(dirty, 40u);
    } else {
      EXPECT_LE(h->max(), 2);  // only /f0's own dirty nodes
    }
    s.ExpectCheck();
  }
}

// Fills ~75% of the user space, then overwrites random 4 KiB pages for
// three times the user space.
void LowSpaceOverwrites(Stack& s, Files& f, const std::function<void()>& before_remount) {
  const uint64_t user = s.fs().layout().user_block_count;
  const int nfiles = 16;
  const uint64_t per = user * 3 / 4 / nfiles;
  for (int i = 0; i < nfiles; ++i) {
    f.Write("/f" + std::to_string(i), 0, Pattern(per * kBlockSize, i));
    f.Fsync("/f" + std::to_string(i));
  }
  s.Run(s.fs().Sync());
  s.ExpectCheck();
  sim::Rng rng(7, "test");
  const uint64_t writes = user * 3;
  for (uint64_t k = 0; k < writes; ++k) {
    const int i = static_cast<int>(rng.Uniform(nfiles));
    const uint64_t page = rng.Uniform(per);
    f.Write("/f" + std::to_string(i), page * kBlockSize, Pattern(kBlockSize, static_cast<uint32_t>(1000 + k)));
    if (k % 64 == 63) f.Fsync("/f" + std::to_string(i));
    if (k % 4096 == 0) s.ExpectCheck();
  }
  s.ExpectCheck();
  f.Verify();
  before_remount();
  f.CloseAll();
  s.Remount();
  s.ExpectCheck();
  f.Verify();
}

TEST(PolicyTest, SsrReusesInvalidBlocksUnderLowSpace) {
  F2fsConfig c = testing::TestConfig();
  c.gc.background = false;
  Stack s(128ull << 20, c);
  s.FormatAndMount();
  Files f(&s);
  LowSpaceOverwrites(s, f, [&] {
    EXPECT_GT(s.stats().Value("fs.alloc.ssr_blocks"), 0);
  });
}

TEST(PolicyTest, ForegroundCleaningUnderLowSpaceInLfsMode) {
  F2fsConfig c = testing::TestConfig();
  c.gc.background = false;
  c.mode = "lfs";
  Stack s(128ull << 20, c);
  s.FormatAndMount();
  Files f(&s);
  LowSpaceOverwrites(s, f, [&] {
    EXPECT_GT(s.stats().Value("fs.gc.fg_calls"), 0);
    EXPECT_GT(s.stats().Value("fs.gc.moved_fg"), 0);
    EXPECT_GT(s.stats().Value("fs.gc.sections_freed"), 0);
    EXPECT_GT(s.stats().Value("fs.cp.reason.gc"), 0);
    EXPECT_EQ(s.stats().Value("fs.alloc.ssr_blocks"), 0);
  });
}

struct BgGcCase {
  const char* name;
  const char* policy;
  bool atgc;
  uint32_t segs_per_sec;
  uint64_t volume;
};

class BackgroundCleaningTest : public ::testing::TestWithParam<BgGcCase> {};

TEST_P(BackgroundCleaningTest, RunsWhenIdleWithKernelThresholds) {
  F2fsConfig c = testing::TestConfig();
  c.gc.bg_policy = GetParam().policy;
  c.atgc = GetParam().atgc;
  c.gc.atgc_age_threshold = sim::Sec(60);
  c.mkfs.segs_per_sec = GetParam().segs_per_sec;
  Stack s(GetParam().volume, c);
  s.FormatAndMount();
  Files f(&s);
  const uint64_t user = s.fs().layout().user_block_count;
  // Two files written in alternating chunks share segments; deleting one
  // leaves every segment half valid.
  const uint64_t chunk = 16, total = user * 7 / 10;
  for (uint64_t off = 0; off < total / 2; off += chunk) {
    f.Write("/keep", off * kBlockSize, Pattern(chunk * kBlockSize, static_cast<uint32_t>(off)));
    f.Fsync("/keep");
    f.Write("/drop", off * kBlockSize, Pattern(chunk * kBlockSize, static_cast<uint32_t>(off + 1)));
    f.Fsync("/drop");
  }
  f.Unlink("/drop");
  s.Run(s.fs().Sync());
  const uint64_t free0 = s.fs().segments().free_segments();
  EXPECT_EQ(s.stats().Value("fs.gc.bg_calls"), 0);
  // Ten idle minutes: the thread wakes every 30-60 s and cleans.
  s.Run(Idle(&s.q(), sim::Sec(600)));
  EXPECT_GT(s.stats().Value("fs.gc.bg_calls"), 0);
  EXPECT_GT(s.stats().Value("fs.gc.moved_bg"), 0);
  EXPECT_GT(s.stats().Value("fs.cp.reason.background"), 0);  // periodic checkpoint while idle
  s.Run(s.fs().Sync());
  EXPECT_GT(s.fs().segments().free_segments(), free0);
  s.ExpectCheck();
  f.Verify();
  f.CloseAll();
  s.Remount();
  s.ExpectCheck();
  f.Verify();
}

INSTANTIATE_TEST_SUITE_P(Policies, BackgroundCleaningTest,
                         ::testing::Values(BgGcCase{"cost_benefit", "cost_benefit", false, 1, 128ull << 20},
                                           BgGcCase{"greedy", "greedy", false, 1, 128ull << 20},
                                           BgGcCase{"atgc", "atgc", true, 1, 128ull << 20},
                                           BgGcCase{"sections", "cost_benefit", false, 4, 512ull << 20}),
                         [](const ::testing::TestParamInfo<BgGcCase>& i) { return std::string(i.param.name); });

// f2fs_allocate_data_block: blocks moved into the ATGC log keep their
// victim segment's age (from_gc); moved into the cold data log, and written
// by the application, they are stamped with the current time.
TEST(PolicyTest, AtgcCleaningKeepsTheVictimsAge) {
  for (const bool atgc : {true, false}) {
    SCOPED_TRACE(atgc ? "atgc" : "cold log");
    F2fsConfig c = testing::TestConfig();
    c.atgc = atgc;
    c.gc.bg_policy = atgc ? "atgc" : "greedy";
    c.gc.background = false;
    Stack s(128ull << 20, c);
    s.FormatAndMount();
    Files f(&s);
    for (uint64_t off = 0; off < 2048; off += 16) {
      f.Write("/keep", off * kBlockSize, Pattern(16 * kBlockSize, static_cast<uint32_t>(off)));
      f.Write("/drop", off * kBlockSize, Pattern(16 * kBlockSize, static_cast<uint32_t>(off + 1)));
      f.Fsync("/keep");
      f.Fsync("/drop");
    }
    f.Unlink("/drop");
    s.Run(s.fs().Sync());
    const sim::SimTime written = s.q().now();
    s.Run(Idle(&s.q(), sim::Sec(3600)));
    const sim::SimTime cleaned = s.q().now();
    ASSERT_GT(s.Run(s.fs().GarbageCollect(/*foreground=*/false)), 0u);
    const SegmentManager& sm = s.fs().segments();
    const LogType log = atgc ? LogType::kAtgcData : LogType::kColdData;
    ASSERT_TRUE(sm.LogActive(log));
    const sim::SimTime age = sim::SimTime::FromNs(sm.seg(sm.curseg(log).segno).mtime_ns);
    if (atgc) {
      EXPECT_LE(age, written);  // the victim's age
    } else {
      EXPECT_GE(age, cleaned);  // now
    }
    s.ExpectCheck();
    f.Verify();
  }
}

TEST(PolicyTest, DiscardFollowsTheCheckpointThatFreesSegments) {
  Stack s;
  s.FormatAndMount();
  Files f(&s);
  f.Write("/big", 0, Pattern(6 << 20, 1));
  s.Run(s.fs().Sync());
  f.Unlink("/big");
  s.Run(Idle(&s.q(), sim::Sec(1)));
  // The blocks are prefree until a checkpoint: nothing is discarded yet.
  EXPECT_EQ(s.device().requests(ssd::BlockOp::kTrim), 0u);
  EXPECT_GT(s.fs().segments().prefree_segments(), 0u);
  s.Run(s.fs().Sync());
  EXPECT_EQ(s.fs().segments().prefree_segments(), 0u);
  // Queued now; the discard thread, asleep for max_interval (60 s) since
  // nothing was queued, finds the file system idle when it wakes.
  EXPECT_GE(s.fs().discards().pending_blocks(), 3 * kBlocksPerSeg);
  s.Run(Idle(&s.q(), sim::Sec(1)));
  EXPECT_EQ(s.device().requests(ssd::BlockOp::kTrim), 0u);
  s.Run(Idle(&s.q(), sim::Sec(60)));
  EXPECT_GT(s.device().requests(ssd::BlockOp::kTrim), 0u);
  EXPECT_GE(s.stats().Value("fs.io.discard_blocks"), 3 * kBlocksPerSeg);
  s.ExpectCheck();
}

// fs.cp.blocks counts every block a checkpoint writes: the directories'
// dentry pages and the dirty nodes as well as NAT/SIT/SSA and the CP pack.
TEST(PolicyTest, CheckpointBlocksCountNodesAndDentries) {
  F2fsConfig c = testing::TestConfig();
  c.page_cache.writeback_interval = sim::Ms(1000);  // no flusher during the test
  c.page_cache.dirty_expire = sim::Ms(1000);
  Stack s(256ull << 20, c);
  s.FormatAndMount();
  s.Run(s.fs().WriteCheckpointNow());
  Files f(&s);
  CHECK(s.Run(s.fs().Mkdir("/d")).ok());
  for (int i = 0; i < 300; ++i) f.Open("/d/f" + std::to_string(i));  // dentry blocks beyond the inline area
  f.CloseAll();
  auto written = [&](const char* kind) { return s.stats().Value(std::string("fs.io.written.") + kind); };
  const double cp0 = s.stats().Value("fs.cp.blocks");
  const double before = written("dentry") + written("node") + written("meta") + written("cp");
  s.Run(s.fs().WriteCheckpointNow());
  const double nodes_and_dentries = written("dentry") + written("node") + written("meta") + written("cp") - before;
  EXPECT_GT(written("dentry"), 0);
  EXPECT_GT(nodes_and_dentries, 300);  // 300 new inodes at least
  EXPECT_EQ(s.stats().Value("fs.cp.blocks") - cp0, nodes_and_dentries);
}

// f2fs_space_for_roll_forward counts blocks and nodes newly allocated since
// the checkpoint (alloc_valid_block_count); overwriting existing blocks out
// of place allocates none, so on a nearly full volume fsyncs of overwrites
// roll forward instead of checkpointing.
TEST(PolicyTest, OverwritesDoNotExhaustTheRollForwardSpace) {
  F2fsConfig c = testing::TestConfig();
  c.page_cache.writeback_interval = sim::Ms(1000);
  c.page_cache.dirty_expire = sim::Ms(1000);
  Stack s(256ull << 20, c);
  s.FormatAndMount();
  Files f(&s);
  f.Write("/b", 0, Pattern(64 * kBlockSize, 1));
  // Fill all but ~300 blocks of user space (the file's nodes take a few).
  const uint64_t fill = s.fs().free_user_blocks() - 300;
  const Fd big = f.Open("/big");
  for (uint64_t off = 0; off < fill; off += 1024) {
    const uint64_t n = std::min<uint64_t>(1024, fill - off);
    CHECK(s.Run(s.fs().Pwrite(big, off * kBlockSize, {}, n * kBlockSize)).ok());
  }
  s.Run(s.fs().Sync());
  ASSERT_LT(s.fs().free_user_blocks(), 300u);
  const double cps = s.stats().Value("fs.fsync.checkpoints");
  // 20 fsyncs of 32 overwritten blocks each (out of place: more than
  // min_fsync_blocks), 640 data blocks and their nodes rewritten.
  for (int round = 0; round < 20; ++round) {
    for (int i = 0; i < 32; ++i) f.Write("/b", uint64_t(i) * 2 * kBlockSize, Pattern(kBlockSize, 100 + round));
    f.Fsync("/b");
  }
  EXPECT_GT(s.fs().app_blocks_written(), 640u);
  EXPECT_EQ(s.stats().Value("fs.fsync.checkpoints") - cps, 0);
  f.Verify();
}

TEST(PolicyTest, CheckpointTriggersAndOperationsStall) {
  F2fsConfig c = testing::TestConfig();
  c.checkpoint.dirty_nodes_threshold = 64;
  c.page_cache.writeback_interval = sim::Ms(5);
  c.page_cache.dirty_expire = sim::Ms(5);
  Stack s(256ull << 20, c);
  s.FormatAndMount();
  Files f(&s);
  // Many files with written-back data: dirty dnodes accumulate until the
  // flusher's balance check writes a checkpoint.
  for (int i = 0; i < 100; ++i) f.Write("/f" + std::to_string(i), 0, Pattern(8 * kBlockSize, i));
  s.Run(Idle(&s.q(), sim::Ms(30)));
  EXPECT_GT(s.stats().Value("fs.cp.reason.background"), 0);
  // A writer running during checkpoints waits for cp_rwsem.
  auto writer = [&]() -> sim::Task<void> {
    const Fd fd = f.Open("/w");
    for (int i = 0; i < 400; ++i) {
      co_await s.fs().Pwrite(fd, uint64_t(i % 64) * kBlockSize, {}, kBlockSize);
      co_await sim::Delay(&s.q(), sim::Us(20));
    }
  };
  auto syncer = [&]() -> sim::Task<void> {
    for (int i = 0; i < 20; ++i) {
      co_await s.fs().WriteCheckpointNow();
      co_await sim::Delay(&s.q(), sim::Us(300));
    }
  };
  sim::Spawn(&s.q(), syncer());
  s.Run(writer());
  s.Run(Idle(&s.q(), sim::Ms(10)));
  EXPECT_GT(s.stats().FindHistogram("fs.cp.stall")->count(), 0u);
  EXPECT_GT(s.stats().Value("fs.cp.stall_total"), 0);
  s.ExpectCheck();
}

}  // namespace
}  // namespace fs::f2fs
