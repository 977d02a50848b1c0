// Allocation, in-place update, checkpoint, fsync and cleaning policies.
#include <algorithm>
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

// f2fs_inplace_write_data rewrites the block where it is: the SIT entry
// (valid map, count, mtime) of its segment does not change, so an in-place
// update neither dirties the SIT nor makes the segment look young to
// cost-benefit cleaning (fixed by commit 1b96032; this guards it).
TEST(PolicyTest, InPlaceUpdatesLeaveTheSitAlone) {
  F2fsConfig c = testing::TestConfig();
  c.gc.background = false;
  c.checkpoint.background = false;
  Stack s(128ull << 20, c);
  s.FormatAndMount();
  Files f(&s);
  f.Write("/a", 0, Pattern(64 * kBlockSize, 1));
  f.Fsync("/a");
  s.Run(s.fs().Sync());
  const SegmentManager& sm = s.fs().segments();
  ASSERT_TRUE(sm.dirty_sit().empty());
  std::vector<int64_t> mtimes;
  for (uint32_t seg = 0; seg < sm.main_segments(); ++seg) mtimes.push_back(sm.seg(SegNo{seg}).mtime_ns);
  s.Run(Idle(&s.q(), sim::Sec(10)));
  const uint64_t ipu0 = s.fs().ipu_blocks();
  for (int i = 0; i < 4; ++i) f.Write("/a", uint64_t(i) * 5 * kBlockSize, Pattern(kBlockSize, 10 + i));
  ASSERT_TRUE(s.Run(s.fs().Fdatasync(f.Open("/a"))).ok());
  ASSERT_EQ(s.fs().ipu_blocks() - ipu0, 4u);
  EXPECT_TRUE(sm.dirty_sit().empty());
  for (uint32_t seg = 0; seg < sm.main_segments(); ++seg)
    EXPECT_EQ(sm.seg(SegNo{seg}).mtime_ns, mtimes[seg]) << "segment " << seg;
  s.ExpectCheck();
  f.Verify();
}

// ipu_policy bit async (F2FS_IPU_ASYNC): rewrites by background writeback
// (not REQ_SYNC) go in place; writes an fsync waits for do not.
TEST(PolicyTest, AsyncIpuPolicyUpdatesInPlaceOnBackgroundWritebackOnly) {
  F2fsConfig c = testing::TestConfig();
  c.ipu_policy = {"async"};
  c.gc.background = false;
  Stack s(128ull << 20, c);
  s.FormatAndMount();
  Files f(&s);
  f.Write("/a", 0, Pattern(64 * kBlockSize, 1));
  s.Run(s.fs().Sync());
  ASSERT_EQ(s.fs().ipu_blocks(), 0u);
  // The flusher writes expired pages: in place.
  for (int i = 0; i < 16; ++i) f.Write("/a", uint64_t(i) * 3 * kBlockSize, Pattern(kBlockSize, 10 + i));
  s.Run(Idle(&s.q(), sim::Sec(60)));
  EXPECT_EQ(s.fs().dirty_data_pages(), 0u);
  EXPECT_EQ(s.fs().ipu_blocks(), 16u);
  // fsync's writes are synchronous: out of place (no fsync bit here).
  for (int i = 0; i < 4; ++i) f.Write("/a", uint64_t(i) * 5 * kBlockSize, Pattern(kBlockSize, 40 + i));
  f.Fsync("/a");
  EXPECT_EQ(s.fs().ipu_blocks(), 16u);
  s.ExpectCheck();
  f.Verify();
  f.CloseAll();
  s.Remount();
  s.ExpectCheck();
  f.Verify();
}

// A checkpoint resets the NAT flags of the entries it persists
// (nat_reset_flag: checkpointed, last_fsync): an fsync after it of a file
// whose data was written before it finds nothing to recover and writes no
// node (f2fs_need_inode_block_update is false), only a cache flush.
TEST(PolicyTest, FsyncAfterACheckpointOfAnUnchangedFileWritesNoNode) {
  F2fsConfig c = testing::TestConfig();
  c.gc.background = false;
  c.checkpoint.background = false;
  Stack s(128ull << 20, c);
  s.FormatAndMount();
  Files f(&s);
  f.Write("/a", 0, Pattern(64 * kBlockSize, 1));
  s.Run(s.fs().Sync());  // data written out of place, then the checkpoint writes the nodes
  const int64_t nodes0 = s.stats().Value("fs.fsync.nodes_written");
  const int64_t flushes0 = s.stats().Value("fs.io.flushes");
  f.Fsync("/a");
  EXPECT_EQ(s.stats().Value("fs.fsync.nodes_written"), nodes0);
  EXPECT_EQ(s.stats().Value("fs.io.flushes"), flushes0 + 1);
  // A change after the checkpoint is fsynced as before.
  f.Write("/a", 0, Pattern(16 * kBlockSize, 2));
  f.Fsync("/a");
  EXPECT_GT(s.stats().Value("fs.fsync.nodes_written"), nodes0);
  s.ExpectCheck();
  f.fds.clear();
  s.PowerCut([](BlockAddr, bool completed) { return completed; });
  ASSERT_TRUE(s.Mount().ok());
  s.ExpectCheck();
  f.Verify();
}

// f2fs_sync_file takes no inode lock: while an fsync writes and waits for a
// large dirty file, a read of that file is served from the cache at once,
// and a second fsync runs (it waits for the file's writes in flight).
TEST(PolicyTest, FsyncRunsBesideReadsAndOtherFsyncsOfTheFile) {
  Stack s;
  s.FormatAndMount();
  Files f(&s);
  f.Write("/a", 0, Pattern(1024 * kBlockSize, 1));
  const Fd fd = f.Open("/a");
  const Fd fd2 = s.Run(s.fs().Open("/a", kRdWr)).value;
  sim::SimTime fsync_end, read_end;
  bool fsync_done = false;
  auto fsync = [&]() -> sim::Task<void> {
    EXPECT_TRUE((co_await s.fs().Fsync(fd)).ok());
    fsync_end = s.q().now();
    fsync_done = true;
  };
  auto rest = [&]() -> sim::Task<void> {
    vfs::OwnedThread t;
    t.Start(&s.q(), fsync());
    co_await sim::Delay(&s.q(), sim::Us(50));  // the fsync is writing by now
    std::vector<uint8_t> buf(kBlockSize);
    EXPECT_EQ((co_await s.fs().Pread(fd2, 7 * kBlockSize, buf)).value, kBlockSize);
    read_end = s.q().now();
    EXPECT_TRUE((co_await s.fs().Fsync(fd2)).ok());
    while (!fsync_done) co_await sim::Delay(&s.q(), sim::Us(10));
  };
  const sim::SimTime t0 = s.q().now();
  s.Run(rest());
  EXPECT_LT(read_end, fsync_end);
  EXPECT_LT(read_end - t0, sim::Us(100));
  s.Run(s.fs().Close(fd2));
  s.ExpectCheck();
  f.Verify();
}

// f2fs_get_node_info: after a mount (or drop_caches) NAT entries are not
// cached; the first node lookup in a NAT block reads that block, later
// lookups in the same block do not; the mount reads only the blocks of its
// free-nid scan.
TEST(PolicyTest, ColdNodeLookupsReadTheirNatBlock) {
  F2fsConfig c = testing::TestConfig();
  c.gc.background = false;
  Stack s(256ull << 20, c);
  s.FormatAndMount();
  Files f(&s);
  for (int i = 0; i < 1200; ++i) f.Write("/f" + std::to_string(i), 0, Pattern(100, i));
  f.CloseAll();
  s.Remount();
  // Meta blocks read after the mount are NAT blocks (fs.io.nat_reads).
  const int64_t meta0 = s.stats().Value("fs.io.read.meta");
  auto nat_reads = [&] { return s.stats().Value("fs.io.read.meta") - meta0; };
  auto ino = [&](int i) {
    FsResult<FileStat> st = s.Run(s.fs().Stat("/f" + std::to_string(i)));
    CHECK(st.ok());
    return st.value.ino;
  };
  EXPECT_EQ(nat_reads(), 0);
  // The root (nid 3) and /f0 share NAT block 0: one read.
  ASSERT_LT(ino(0), kNatEntriesPerBlock);
  EXPECT_EQ(nat_reads(), 1);
  ASSERT_LT(ino(1), kNatEntriesPerBlock);
  EXPECT_EQ(nat_reads(), 1);
  // A file in the next NAT block: one more. (The mount's free-nid scan
  // read the eight blocks from the next free nid on: /f1199 is in them.)
  const uint64_t mid = ino(500);
  ASSERT_GE(mid, kNatEntriesPerBlock);
  ASSERT_LT(mid, 2 * kNatEntriesPerBlock);
  EXPECT_EQ(nat_reads(), 2);
  ASSERT_GE(ino(1199), 2 * kNatEntriesPerBlock);
  EXPECT_EQ(nat_reads(), 2);
  // drop_caches forgets clean entries and NAT pages.
  s.fs().DropCaches();
  ino(1);
  EXPECT_EQ(nat_reads(), 3);
  EXPECT_EQ(s.stats().Value("fs.io.nat_reads"), 3);
  s.ExpectCheck();
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

// Under space pressure the warm node log, whose fsynced dnodes roll-forward
// recovery follows, moves into dirty segments (SSR) like the other logs;
// after a power cut the chain through the reused slots is recovered.
TEST(PolicyTest, WarmNodeLogUsesSsrAndItsChainRecovers) {
  F2fsConfig c = testing::TestConfig();
  c.gc.background = false;
  Stack s(128ull << 20, c);
  s.FormatAndMount();
  Files f(&s);
  const uint64_t user = s.fs().layout().user_block_count;
  const int nfiles = 16;
  const uint64_t per = user * 2 / 3 / nfiles;
  for (int i = 0; i < nfiles; ++i) {
    f.Write("/f" + std::to_string(i), 0, Pattern(per * kBlockSize, i));
    f.Fsync("/f" + std::to_string(i));
  }
  // Small files whose inodes fill warm node segments; every other one is
  // deleted, so those segments stay dirty (half valid).
  for (int i = 0; i < 3000; ++i) f.Write("/s" + std::to_string(i), 0, Pattern(100, i));
  s.Run(s.fs().Sync());
  for (int i = 0; i < 3000; i += 2) f.Unlink("/s" + std::to_string(i));
  f.CloseAll();
  s.Run(s.fs().Sync());
  const SegmentManager& sm = s.fs().segments();
  sim::Rng rng(11, "test");
  // Rounds of 12 random pages (out of place: more than min_fsync_blocks)
  // and an fsync, each writing dnodes to the warm node log.
  auto round = [&](uint32_t k) {
    const std::string p = "/f" + std::to_string(rng.Uniform(nfiles));
    for (int j = 0; j < 12; ++j)
      f.Write(p, rng.Uniform(per) * kBlockSize, Pattern(kBlockSize, 5000 + k * 16 + static_cast<uint32_t>(j)));
    f.Fsync(p);
  };
  uint32_t k = 0;
  while (!sm.curseg(LogType::kWarmNode).ssr && k < user / 4) round(k++);
  ASSERT_TRUE(sm.curseg(LogType::kWarmNode).ssr) << "no SSR after " << k << " rounds; ssr blocks "
      << s.fs().ssr_allocations() << " free secs " << sm.free_sections() << " cps " << s.fs().checkpoints()
      << " reserved " << s.fs().layout().reserved_sections() << " warm seg " << sm.curseg(LogType::kWarmNode).segno.v;
  const uint64_t cp = s.fs().checkpoints();
  for (int j = 0; j < 8; ++j) round(k++);
  EXPECT_EQ(s.fs().checkpoints(), cp) << "the chain should start at the last checkpoint";
  s.ExpectCheck();
  f.fds.clear();
  s.PowerCut([](BlockAddr, bool completed) { return completed; });
  ASSERT_TRUE(s.Mount().ok());
  EXPECT_GT(s.fs().recovered_dnodes(), 0u);
  s.ExpectCheck();
  f.Verify();
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
// victim segment's age (from_gc), also when background cleaning's pages are
// written a minute later; moved into the cold data log, and written by the
// application, they are stamped with the current time.
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
    // Background cleaning only dirtied the pages: they move (and take
    // their age) when written back.
    const SegmentManager& sm = s.fs().segments();
    const LogType log = atgc ? LogType::kAtgcData : LogType::kColdData;
    s.Run(Idle(&s.q(), sim::Sec(60)));
    s.Run(s.fs().Sync());
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

// Background cleaning (move_data_page / f2fs_move_node_page with BG_GC)
// only dirties the victim's pages: nothing is written and the victim keeps
// its blocks until writeback moves them to the cold log; the next
// background round takes another victim (victim_secmap); a checkpoint
// after the writeback frees both. A power cut before the writeback loses
// nothing (the old blocks stay valid).
TEST(PolicyTest, BackgroundCleaningDefersTheMovesToWriteback) {
  for (const bool crash : {false, true}) {
    SCOPED_TRACE(crash ? "power cut before writeback" : "writeback");
    F2fsConfig c = testing::TestConfig();
    c.gc.bg_policy = "cost_benefit";
    c.gc.background = false;
    c.checkpoint.background = false;
    Stack s(128ull << 20, c);
    s.FormatAndMount();
    Files f(&s);
    for (uint64_t off = 0; off < 4096; off += 16) {
      f.Write("/keep", off * kBlockSize, Pattern(16 * kBlockSize, static_cast<uint32_t>(off)));
      f.Write("/drop", off * kBlockSize, Pattern(16 * kBlockSize, static_cast<uint32_t>(off + 1)));
      f.Fsync("/keep");
      f.Fsync("/drop");
    }
    f.Unlink("/drop");
    s.Run(s.fs().Sync());
    const SegmentManager& sm = s.fs().segments();
    const uint64_t written0 = s.fs().blocks_written();
    auto dirty = [&] { return s.fs().dirty_data_pages() + s.fs().dirty_node_pages(); };
    ASSERT_EQ(dirty(), 0u);
    ASSERT_EQ(s.Run(s.fs().GarbageCollect(/*foreground=*/false)), 1u);
    const int64_t moved1 = s.stats().Value("fs.gc.moved_bg");
    EXPECT_GT(moved1, 0);
    EXPECT_EQ(static_cast<int64_t>(dirty()), moved1);
    EXPECT_EQ(s.fs().blocks_written(), written0);
    EXPECT_EQ(sm.prefree_segments(), 0u);
    // The second round skips the first victim: other pages are dirtied.
    ASSERT_EQ(s.Run(s.fs().GarbageCollect(/*foreground=*/false)), 1u);
    const int64_t moved2 = s.stats().Value("fs.gc.moved_bg");
    EXPECT_GT(moved2, moved1);
    EXPECT_EQ(static_cast<int64_t>(dirty()), moved2);
    const uint64_t data_moved = s.fs().dirty_data_pages();
    EXPECT_EQ(s.fs().blocks_written(), written0);
    EXPECT_EQ(s.stats().Value("fs.gc.sections_freed"), 0);
    s.ExpectCheck();
    f.Verify();
    if (crash) {
      f.fds.clear();
      s.PowerCut([](BlockAddr, bool completed) { return completed; });
      ASSERT_TRUE(s.Mount().ok());
      s.ExpectCheck();
      f.Verify();
      continue;
    }
    // sync(2): the data pages go to the cold data log, the checkpoint
    // writes the nodes and frees the two victims.
    const int64_t gc_written0 = s.stats().Value("fs.io.written.gc_data");
    s.Run(s.fs().Sync());
    EXPECT_EQ(s.stats().Value("fs.io.written.gc_data") - gc_written0, static_cast<int64_t>(data_moved));
    EXPECT_EQ(sm.prefree_segments(), 0u);
    ASSERT_GT(s.Run(s.fs().GarbageCollect(/*foreground=*/false)), 0u);
    EXPECT_EQ(s.stats().Value("fs.gc.sections_freed"), 2);
    s.ExpectCheck();
    f.Verify();
    f.CloseAll();
    s.Remount();
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

// f2fs_space_for_roll_forward compares the valid count at the last
// checkpoint plus the blocks allocated since (last_valid_block_count +
// alloc_valid_block_count) with the user space: new blocks that fit the
// space free at the checkpoint roll forward, even when they take more than
// half of it (adding them to the current count would count them twice).
// Fills a 256 MiB volume to `free_left` free user blocks and checkpoints.
void FillToFree(Stack* s, Files* f, uint64_t free_left) {
  const uint64_t fill = s->fs().free_user_blocks() - free_left;
  const Fd big = f->Open("/big");
  for (uint64_t off = 0; off < fill; off += 1024) {
    const uint64_t n = std::min<uint64_t>(1024, fill - off);
    CHECK(s->Run(s->fs().Pwrite(big, off * kBlockSize, {}, n * kBlockSize)).ok());
  }
  CHECK(s->Run(s->fs().Sync()).ok());
}

F2fsConfig QuietConfig() {
  F2fsConfig c = testing::TestConfig();
  c.page_cache.writeback_interval = sim::Ms(1000);
  c.page_cache.dirty_expire = sim::Ms(1000);
  c.checkpoint.background = false;
  return c;
}

TEST(PolicyTest, NewBlocksThatFitTheCheckpointsFreeSpaceRollForward) {
  Stack s(256ull << 20, QuietConfig());
  s.FormatAndMount();
  Files f(&s);
  FillToFree(&s, &f, 1000);
  const uint64_t free_at_cp = s.fs().free_user_blocks();
  ASSERT_GE(free_at_cp, 900u);
  ASSERT_LE(free_at_cp, 1000u);
  const double cps = s.stats().Value("fs.fsync.checkpoints");
  // 700 new blocks (and their few nodes): more than half the free space
  // (700 + 700 > free: the count of now plus those allocated since would
  // not fit), less than all of it.
  f.Write("/new", 0, Pattern(700 * kBlockSize, 3));
  f.Fsync("/new");
  EXPECT_EQ(s.stats().Value("fs.fsync.checkpoints") - cps, 0) << "free at the checkpoint " << free_at_cp;
  f.Verify();
}

TEST(PolicyTest, NewBlocksBeyondTheCheckpointsFreeSpaceCheckpoint) {
  Stack s(256ull << 20, QuietConfig());
  s.FormatAndMount();
  Files f(&s);
  f.Write("/old", 0, Pattern(600 * kBlockSize, 1));
  FillToFree(&s, &f, 1000);
  const uint64_t free_at_cp = s.fs().free_user_blocks();
  // Freed after the checkpoint: usable now, in use again for a recovery
  // that starts from the checkpoint.
  f.Unlink("/old");
  ASSERT_GE(s.fs().free_user_blocks(), free_at_cp + 600);
  const double cps = s.stats().Value("fs.fsync.checkpoints");
  f.Write("/new", 0, Pattern(1200 * kBlockSize, 3));
  f.Fsync("/new");
  EXPECT_EQ(s.stats().Value("fs.fsync.checkpoints") - cps, 1) << "free at the checkpoint " << free_at_cp;
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

// A workload that is never idle for idle_interval: a 4 KiB write every
// `gap` for `total`.
sim::Task<void> SustainedWrites(F2fs* fs, sim::EventQueue* q, Fd fd, sim::SimTime gap, sim::SimTime total) {
  const sim::SimTime end = q->now() + total;
  for (uint64_t i = 0; q->now() < end; ++i) {
    co_await fs->Pwrite(fd, (i % 32) * kBlockSize, {}, kBlockSize);
    co_await sim::Delay(q, gap);
  }
}

// f2fs_balance_fs_bg: excess prefree segments trigger a checkpoint whatever
// the load (the space they hold is freed only by a checkpoint).
TEST(PolicyTest, ExcessPrefreeSegmentsCheckpointUnderSustainedLoad) {
  F2fsConfig c = testing::TestConfig();
  c.page_cache.writeback_interval = sim::Ms(20);
  c.page_cache.dirty_expire = sim::Ms(20);
  Stack s(256ull << 20, c);
  s.FormatAndMount();
  Files f(&s);
  f.Write("/big", 0, Pattern(20 << 20, 1));
  s.Run(s.fs().Sync());
  f.Unlink("/big");
  const uint32_t reclaim = static_cast<uint32_t>(c.checkpoint.prefree_ratio.value * s.fs().segments().main_segments());
  ASSERT_GT(s.fs().segments().prefree_segments(), reclaim);
  const double bg = s.stats().Value("fs.cp.reason.background");
  s.Run(SustainedWrites(s.fs_ptr(), &s.q(), f.Open("/small"), sim::Ms(2), sim::Ms(300)));
  EXPECT_GT(s.stats().Value("fs.cp.reason.background"), bg);
  EXPECT_LE(s.fs().segments().prefree_segments(), reclaim);
  s.ExpectCheck();
}

// f2fs_balance_fs_bg: the cp_interval checkpoint needs no idle period, only
// no I/O in flight and no operation of a recent request holding cp_rwsem.
TEST(PolicyTest, PeriodicCheckpointUnderSustainedLoad) {
  F2fsConfig c = testing::TestConfig();
  c.checkpoint.interval = sim::Ms(100);
  c.page_cache.writeback_interval = sim::Ms(20);
  c.page_cache.dirty_expire = sim::Ms(50);
  Stack s(256ull << 20, c);
  s.FormatAndMount();
  Files f(&s);
  const Fd fd = f.Open("/small");
  s.Run(s.fs().Sync());
  const double bg = s.stats().Value("fs.cp.reason.background");
  // Every request is 2 ms after the previous one, far less than idle_interval.
  s.Run(SustainedWrites(s.fs_ptr(), &s.q(), fd, sim::Ms(2), sim::Ms(500)));
  const double periodic = s.stats().Value("fs.cp.reason.background") - bg;
  EXPECT_GE(periodic, 2);
  EXPECT_LE(periodic, 5);  // at most one per cp_interval
  s.ExpectCheck();
}

// do_checkpoint waits only for the writes a checkpoint guarantees
// (f2fs_wait_on_all_pages(F2FS_WB_CP_DATA)): nodes, meta, dentries and data
// moved by cleaning. Plain file data in flight is not waited for (only
// fsync promises it): after a power cut the file may show what its blocks
// held before.
TEST(PolicyTest, CheckpointDoesNotWaitForPlainDataInFlight) {
  F2fsConfig c = testing::TestConfig();
  c.checkpoint.background = false;
  c.page_cache.writeback_interval = sim::Ms(1);
  c.page_cache.dirty_expire = sim::Ms(1);
  Stack s(256ull << 20, c);
  s.FormatAndMount();
  // The data write of the file's 64 blocks (one request) takes 100 ms in the device.
  constexpr uint64_t kBlocks = 64;
  s.device().set_extra_latency([](const ssd::BlockRequest& r) {
    return r.op == ssd::BlockOp::kWrite && r.length == kBlocks * kBlockSize ? sim::Ms(100) : sim::SimTime::Zero();
  });
  Files f(&s);
  f.Write("/a", 0, Pattern(kBlocks * kBlockSize, 7));
  f.CloseAll();
  s.Run(Idle(&s.q(), sim::Ms(3)));  // the flusher writes /a back
  ASSERT_EQ(s.device().in_flight(), 1u);
  const sim::SimTime start = s.q().now();
  s.Run(s.fs().WriteCheckpointNow());
  EXPECT_EQ(s.fs().checkpoints(), 1u);
  EXPECT_LT((s.q().now() - start).ns(), sim::Ms(5).ns()) << "the checkpoint waited for plain data";
  EXPECT_GE(s.device().in_flight(), 1u) << "the data write is still in flight";
  // A power cut loses the data write: the checkpointed file has its size and
  // the blocks' old content (never written: zeros).
  s.PowerCut([](BlockAddr, bool) { return false; });
  ASSERT_TRUE(s.Mount().ok());
  s.ExpectCheck();
  FsResult<Fd> fd = s.Run(s.fs().Open("/a", kRdOnly));
  ASSERT_TRUE(fd.ok());
  std::vector<uint8_t> got(kBlocks * kBlockSize, 1);
  EXPECT_EQ(s.Run(s.fs().Pread(fd.value, 0, got)).value, got.size());
  EXPECT_TRUE(std::all_of(got.begin(), got.end(), [](uint8_t b) { return b == 0; }));
}

// sync(2) waits for every data write in flight, also those the flusher
// started (sync_inodes_sb), before its checkpoint: everything is durable.
TEST(PolicyTest, SyncWaitsForDataWritesOthersStarted) {
  F2fsConfig c = testing::TestConfig();
  c.checkpoint.background = false;
  c.page_cache.writeback_interval = sim::Ms(1);
  c.page_cache.dirty_expire = sim::Ms(1);
  Stack s(256ull << 20, c);
  s.FormatAndMount();
  constexpr uint64_t kBlocks = 64;
  s.device().set_extra_latency([](const ssd::BlockRequest& r) {
    return r.op == ssd::BlockOp::kWrite && r.length == kBlocks * kBlockSize ? sim::Ms(100) : sim::SimTime::Zero();
  });
  Files f(&s);
  f.Write("/a", 0, Pattern(kBlocks * kBlockSize, 7));
  f.CloseAll();
  s.Run(Idle(&s.q(), sim::Ms(3)));  // the flusher writes /a back: slow
  ASSERT_EQ(s.device().in_flight(), 1u);
  ASSERT_TRUE(s.Run(s.fs().Sync()).ok());
  EXPECT_EQ(s.device().in_flight(), 0u);
  s.PowerCut([](BlockAddr, bool) { return false; });
  ASSERT_TRUE(s.Mount().ok());
  s.ExpectCheck();
  f.fds.clear();
  f.Verify();
}

// A page rewritten while its write is in flight invalidates the block that
// write targets; the checkpoint whose commit would let that block be reused
// or discarded waits for the write (the kernel makes the rewrite wait).
TEST(PolicyTest, CheckpointWaitsForPlainDataToBlocksItFrees) {
  F2fsConfig c = testing::TestConfig();
  c.mode = "lfs";  // every rewrite out of place
  c.checkpoint.background = false;
  c.page_cache.writeback_interval = sim::Ms(1);
  c.page_cache.dirty_expire = sim::Ms(1);
  Stack s(256ull << 20, c);
  s.FormatAndMount();
  constexpr uint64_t kBlocks = 64;
  bool first = true;  // only the first write of the file's blocks is slow
  s.device().set_extra_latency([&first](const ssd::BlockRequest& r) {
    if (r.op != ssd::BlockOp::kWrite || r.length != kBlocks * kBlockSize || !first) return sim::SimTime::Zero();
    first = false;
    return sim::Ms(100);
  });
  Files f(&s);
  f.Write("/a", 0, Pattern(kBlocks * kBlockSize, 7));
  s.Run(Idle(&s.q(), sim::Ms(3)));  // the flusher writes /a back: slow
  f.Write("/a", 0, Pattern(kBlocks * kBlockSize, 8));
  s.Run(Idle(&s.q(), sim::Ms(3)));  // and again, elsewhere: the first write's blocks are invalid
  ASSERT_TRUE(!first);
  ASSERT_EQ(s.device().in_flight(), 1u);
  s.Run(s.fs().WriteCheckpointNow());
  EXPECT_EQ(s.device().in_flight(), 0u) << "the checkpoint freed blocks a write still targets";
  s.ExpectCheck();
  f.Verify();
}

// block_operations writes dirty dentry pages with cp_rwsem released
// (f2fs_sync_dirty_inodes(DIR_INODE)) before it takes the lock for good: an
// operation queued behind the checkpoint runs during that writeback instead
// of waiting for the whole checkpoint.
TEST(PolicyTest, OperationsProceedWhileTheCheckpointWritesDentries) {
  F2fsConfig c = testing::TestConfig();
  c.checkpoint.background = false;
  c.page_cache.writeback_interval = sim::Sec(100);
  c.page_cache.dirty_expire = sim::Sec(100);
  Stack s(256ull << 20, c);
  s.FormatAndMount();
  Files f(&s);
  const Fd big = f.Open("/big");
  const Fd other = f.Open("/other");
  ASSERT_TRUE(s.Run(s.fs().Mkdir("/d")).ok());
  s.Run(s.fs().Sync());
  for (int i = 0; i < 300; ++i) f.Open("/d/f" + std::to_string(i));  // dirty dentry pages
  const sim::SimTime t0 = s.q().now();
  sim::SimTime a_done, b_done, cp_done;
  // A: a 4 MiB write holding cp_rwsem shared (~0.4 ms of copying).
  sim::Spawn(&s.q(), [](F2fs* fs, Fd fd, sim::EventQueue* q, sim::SimTime* done) -> sim::Task<void> {
    co_await fs->Pwrite(fd, 0, {}, 4 << 20);
    *done = q->now();
  }(s.fs_ptr(), big, &s.q(), &a_done));
  // The checkpoint asks for the lock while A holds it.
  sim::Spawn(&s.q(), [](F2fs* fs, sim::EventQueue* q, sim::SimTime* done) -> sim::Task<void> {
    co_await sim::Delay(q, sim::Us(50));
    co_await fs->WriteCheckpointNow();
    *done = q->now();
  }(s.fs_ptr(), &s.q(), &cp_done));
  // B arrives after the checkpoint: it queues behind it for cp_rwsem.
  auto b = [](F2fs* fs, Fd fd, sim::EventQueue* q, sim::SimTime* done) -> sim::Task<void> {
    co_await sim::Delay(q, sim::Us(100));
    co_await fs->Pwrite(fd, 0, {}, kBlockSize);
    *done = q->now();
  };
  s.Run(b(s.fs_ptr(), other, &s.q(), &b_done));
  s.Run(Idle(&s.q(), sim::Ms(20)));
  ASSERT_GT((a_done - t0).ns(), sim::Us(100).ns()) << "A must hold the lock when B arrives";
  ASSERT_GT(cp_done.ns(), t0.ns());
  EXPECT_LT(b_done.ns(), cp_done.ns()) << "B waited for the whole checkpoint";
  // B's only stall: A's rest, not the checkpoint.
  const sim::Histogram* stall = s.stats().FindHistogram("fs.cp.stall");
  ASSERT_NE(stall, nullptr);
  EXPECT_LE(stall->max(), (a_done - t0).ns());
  // B's change is in this checkpoint: it ran before the lock was taken for good.
  EXPECT_EQ(s.fs().dirty_node_pages(), 0u);
  s.ExpectCheck();
}

// A checkpoint completes while threads keep creating files in one
// directory (the unlocked dentry rounds are bounded), and it holds every
// entry created before its last round.
TEST(PolicyTest, CheckpointCompletesUnderAStormOfCreates) {
  F2fsConfig c = testing::TestConfig();
  c.checkpoint.background = false;
  c.page_cache.writeback_interval = sim::Sec(100);
  c.page_cache.dirty_expire = sim::Sec(100);
  Stack s(256ull << 20, c);
  s.FormatAndMount();
  ASSERT_TRUE(s.Run(s.fs().Mkdir("/d")).ok());
  s.Run(s.fs().Sync());
  constexpr int kThreads = 16, kFiles = 400;
  int finished = 0;
  for (int t = 0; t < kThreads; ++t) {
    sim::Spawn(&s.q(), [](F2fs* fs, int t, int* finished) -> sim::Task<void> {
      for (int i = 0; i < kFiles; ++i) {
        FsResult<Fd> fd = co_await fs->Open("/d/t" + std::to_string(t) + "_" + std::to_string(i), kCreat | kRdWr);
        if (fd.ok()) co_await fs->Close(fd.value);
      }
      ++*finished;
    }(s.fs_ptr(), t, &finished));
  }
  auto cp = [](F2fs* fs, sim::EventQueue* q) -> sim::Task<void> {
    co_await sim::Delay(q, sim::Us(200));
    co_await fs->WriteCheckpointNow();
  };
  s.Run(cp(s.fs_ptr(), &s.q()));
  EXPECT_EQ(s.fs().checkpoints(), 2u);
  EXPECT_EQ(finished, 0) << "the checkpoint waited for the creators to finish";
  s.Run(Idle(&s.q(), sim::Sec(1)));
  EXPECT_EQ(finished, kThreads);
  s.ExpectCheck();
}

}  // namespace
}  // namespace fs::f2fs
