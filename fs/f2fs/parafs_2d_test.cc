// ParaFS's 2-D allocation on the F2FS model: what it refuses, how it
// stripes and groups, and that a volume written with it remounts clean.
#include <algorithm>
#include <map>
#include <set>

#include <gtest/gtest.h>

#include "fs/f2fs/f2fs_test_util.h"
#include "fs/f2fs/parafs_2d_allocation_policy.h"
#include "sim/rng.h"

namespace fs::f2fs {
namespace {

using testing::FixedLayout;
using testing::RoundRobinPlacement;
using testing::Stack;

F2fsConfig ParafsConfig() {
  F2fsConfig c = testing::TestConfig();
  c.mode = "lfs";
  c.allocation = "parafs_2d";
  return c;
}

sim::Status FormatAndMountStatus(Stack& s) {
  FS_RETURN_IF_ERROR(s.TryFormat());
  return s.Mount();
}

TEST(Parafs2dTest, RefusesADeviceThatPlacesDataItself) {
  Stack s(128ull << 20, ParafsConfig());  // flat layout: no fixed placement
  sim::Status st = FormatAndMountStatus(s);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("needs a device that exposes its flash placement (ftl.kind: static_block)"),
            std::string::npos)
      << st.message();
}

TEST(Parafs2dTest, RefusesInPlaceUpdatesAndAtgc) {
  RoundRobinPlacement placement(4, testing::MetaFlashBlocks(128ull << 20, ParafsConfig()));
  F2fsConfig c = ParafsConfig();
  c.mode = "adaptive";
  Stack s(128ull << 20, c, FixedLayout(4, 8192, &placement));
  sim::Status st = FormatAndMountStatus(s);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("fs.f2fs.mode: the parafs_2d allocation writes out of place only"), std::string::npos)
      << st.message();
  F2fsConfig a = ParafsConfig();
  a.atgc = true;
  Stack s2(128ull << 20, a, FixedLayout(4, 8192, &placement));
  st = FormatAndMountStatus(s2);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("fs.f2fs.atgc"), std::string::npos) << st.message();
}

TEST(Parafs2dTest, RefusesASectionThatIsNotOneFlashBlock) {
  RoundRobinPlacement placement(4, testing::MetaFlashBlocks(128ull << 20, ParafsConfig()) / 2);
  ssd::DeviceLayout d = FixedLayout(4, 8192, &placement);
  d.pages_per_block = 512;  // 4 MiB flash blocks, 2 MiB sections
  Stack s(128ull << 20, ParafsConfig(), d);
  sim::Status st = FormatAndMountStatus(s);
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("fs.f2fs.mkfs.segs_per_sec: parafs_2d maps one section to one flash block"),
            std::string::npos)
      << st.message();
  EXPECT_NE(st.message().find("set segs_per_sec: 2"), std::string::npos) << st.message();
  // With two segments a section (and the metadata area page-mapped) the
  // volume mounts.
  F2fsConfig c = ParafsConfig();
  c.mkfs.segs_per_sec = 2;
  RoundRobinPlacement placement2(4, testing::MetaFlashBlocks(256ull << 20, c) / 2);
  d.fixed = &placement2;
  Stack ok(256ull << 20, c, d);
  st = FormatAndMountStatus(ok);
  EXPECT_TRUE(st.ok()) << st.message();
}

// A large fsynced write: consecutive flash pages (two 4 KiB blocks) of the
// file land on consecutive channels, every flash block holds blocks of one
// log only, and each log's blocks stay on their own region's channel.
TEST(Parafs2dTest, RefusesAMetadataAreaTheDeviceDoesNotPageMap) {
  for (uint64_t fixed_from : {uint64_t{0}, testing::MetaFlashBlocks(256ull << 20, ParafsConfig()) + 1}) {
    RoundRobinPlacement placement(4, fixed_from);
    Stack s(256ull << 20, ParafsConfig(), FixedLayout(4, 8192, &placement));
    sim::Status st = FormatAndMountStatus(s);
    ASSERT_FALSE(st.ok()) << fixed_from;
    EXPECT_NE(st.message().find("ftl.static_block.page_mapped: F2FS updates its metadata area"), std::string::npos)
        << st.message();
  }
}

TEST(Parafs2dTest, StripesFlashPagesOverChannelsAndGroupsByTemperature) {
  constexpr uint32_t kChannels = 4;
  RoundRobinPlacement placement(kChannels, testing::MetaFlashBlocks(256ull << 20, ParafsConfig()));
  Stack s(256ull << 20, ParafsConfig(), FixedLayout(kChannels, 8192, &placement));
  ASSERT_TRUE(FormatAndMountStatus(s).ok());
  const Layout& l = s.fs().layout();
  FsResult<Fd> fd = s.Run(s.fs().Open("/big", kCreat | kRdWr));
  ASSERT_TRUE(fd.ok());
  const std::vector<uint8_t> data = testing::Pattern(8 << 20, 1);
  ASSERT_TRUE(s.Run(s.fs().Pwrite(fd.value, 0, data, data.size())).ok());
  ASSERT_TRUE(s.Run(s.fs().Fsync(fd.value)).ok());
  auto channel_of = [&](uint64_t byte) {
    return placement.PlaceOf(byte / (2u << 20)).channel;
  };
  // The data writes of the file (warm data log) in submission order: one
  // flash page each, aligned, on consecutive channels.
  const SegmentManager& sm = s.fs().segments();
  uint32_t data_writes = 0, wrong_channel = 0;
  int64_t prev_channel = -1;
  for (const auto& [off, len] : s.device().write_log()) {
    const BlockAddr a{static_cast<uint32_t>(off / kBlockSize)};
    if (!l.InMain(a) || sm.seg(l.SegOf(a)).type != static_cast<uint8_t>(LogType::kWarmData)) continue;
    ++data_writes;
    EXPECT_EQ(off % 8192, 0u) << "a data write does not start on a flash page";
    EXPECT_LE(len, 8192u) << "a data write spans two flash pages of one channel";
    const uint32_t ch = channel_of(off);
    if (prev_channel >= 0 && ch != (prev_channel + 1) % kChannels) ++wrong_channel;
    prev_channel = ch;
  }
  EXPECT_EQ(data_writes, data.size() / 8192);
  EXPECT_EQ(wrong_channel, 0u);
  // Grouping: each section (= flash block) was written by one log, on the
  // channel of its region.
  std::map<uint32_t, std::set<uint8_t>> types_by_region;
  for (uint32_t seg = 0; seg < sm.main_segments(); ++seg) {
    const auto& e = sm.seg(SegNo{seg});
    if (e.valid == 0) continue;
    EXPECT_EQ(sm.RegionOf(SegNo{seg}), channel_of(uint64_t{l.SegStart(SegNo{seg}).v} * kBlockSize));
    types_by_region[sm.RegionOf(SegNo{seg})].insert(e.type);
  }
  EXPECT_EQ(types_by_region.size(), kChannels) << "data did not reach every channel";
  s.ExpectCheck();
  EXPECT_EQ(s.sequential().violations, 0u) << s.sequential().first_violation;
}

// After a clean unmount every region's logs continue where they stood
// (nothing was written past the umount checkpoint); after a power cut
// every log moves to a fresh section of its region (what was written past
// the checkpoint cannot be overwritten). The data stays either way.
TEST(Parafs2dTest, RemountKeepsTheLogsAndAPowerCutMovesThem) {
  RoundRobinPlacement placement(3, testing::MetaFlashBlocks(256ull << 20, ParafsConfig()));
  Stack s(256ull << 20, ParafsConfig(), FixedLayout(3, 8192, &placement));
  ASSERT_TRUE(FormatAndMountStatus(s).ok());
  for (int f = 0; f < 20; ++f) {
    FsResult<Fd> fd = s.Run(s.fs().Open("/f" + std::to_string(f), kCreat | kRdWr));
    ASSERT_TRUE(fd.ok());
    const std::vector<uint8_t> data = testing::Pattern(100000 + 7919 * f, f);
    ASSERT_TRUE(s.Run(s.fs().Pwrite(fd.value, 0, data, data.size())).ok());
    if (f % 3 == 0) {
      ASSERT_TRUE(s.Run(s.fs().Fsync(fd.value)).ok());
    }
  }
  ASSERT_TRUE(s.Run(s.fs().Sync()).ok());
  auto logs = [&] {
    std::vector<std::pair<uint32_t, uint32_t>> v;
    const SegmentManager& sm = s.fs().segments();
    for (uint32_t r = 0; r < sm.regions(); ++r)
      for (int l = 0; l < kNumPersistentLogs; ++l) {
        const auto& c = sm.curseg(static_cast<LogType>(l), r);
        EXPECT_EQ(sm.RegionOf(c.segno), r) << "log " << l << " of region " << r;
        v.emplace_back(c.segno.v, c.next_blkoff);
      }
    return v;
  };
  const auto before = logs();
  s.Remount();
  s.ExpectCheck();
  ASSERT_EQ(s.fs().segments().regions(), 3u);
  EXPECT_EQ(logs(), before) << "a clean remount moved logs";
  // A power cut after an fsync: roll-forward recovery runs, and every log
  // leaves its segment (none may overwrite what recovery adopted).
  FsResult<Fd> fd = s.Run(s.fs().Open("/late", kCreat | kRdWr));
  ASSERT_TRUE(fd.ok());
  ASSERT_TRUE(s.Run(s.fs().Pwrite(fd.value, 0, testing::Pattern(300000, 99), 300000)).ok());
  ASSERT_TRUE(s.Run(s.fs().Fsync(fd.value)).ok());
  const auto at_cut = logs();
  s.PowerCut([](BlockAddr, bool completed) { return completed; });
  ASSERT_TRUE(s.Mount().ok());
  s.ExpectCheck();
  const auto after = logs();
  for (size_t i = 0; i < after.size(); ++i) EXPECT_NE(after[i].first, at_cut[i].first) << "log " << i << " stayed";
  for (int f = 0; f < 20; ++f) {
    const std::vector<uint8_t> want = testing::Pattern(100000 + 7919 * f, f);
    FsResult<Fd> fd = s.Run(s.fs().Open("/f" + std::to_string(f), kRdOnly));
    ASSERT_TRUE(fd.ok());
    std::vector<uint8_t> got(want.size());
    FsResult<uint64_t> n = s.Run(s.fs().Pread(fd.value, 0, got));
    ASSERT_TRUE(n.ok());
    EXPECT_EQ(got, want) << "file " << f;
  }
  EXPECT_EQ(s.sequential().violations, 0u) << s.sequential().first_violation;
}

// A ParaFS checkpoint carries region 0's data summaries and, of the other
// regions' data logs, only those whose open-segment summary changed since
// the last pack: an unchanged one is written once to its segment's SSA
// block (the last pack held it) and then no more. A mount finds every
// log's summary, after a clean unmount and after a cut between those SSA
// writes and the commit (the last pack, which holds them, is mounted).
TEST(Parafs2dTest, CheckpointCarriesOnlyChangedRegionSummaries) {
  constexpr uint32_t kChannels = 3;
  F2fsConfig cfg = ParafsConfig();
  cfg.checkpoint.background = false;
  cfg.gc.background = false;
  RoundRobinPlacement placement(kChannels, testing::MetaFlashBlocks(256ull << 20, cfg));
  Stack s(256ull << 20, cfg, FixedLayout(kChannels, 8192, &placement));
  ASSERT_TRUE(FormatAndMountStatus(s).ok());
  const LogType dl[3] = {LogType::kHotData, LogType::kWarmData, LogType::kColdData};
  // The data logs of regions 1 .. R-1 with an open segment.
  auto open_logs = [&] {
    std::vector<std::pair<LogType, uint32_t>> v;
    const SegmentManager& sm = s.fs().segments();
    for (uint32_t r = 1; r < sm.regions(); ++r)
      for (LogType t : dl)
        if (sm.curseg(t, r).segno != kNullSegNo) v.emplace_back(t, r);
    return v;
  };
  auto summaries = [&] {
    std::vector<std::vector<Summary>> v;
    for (const auto& [t, r] : open_logs()) v.push_back(s.fs().segments().CursegSummaries(t, r));
    return v;
  };
  // The pack of the file system's checkpoint version.
  auto pack = [&]() -> std::pair<const CheckpointBlock*, const CpSummaryBlock*> {
    const BlockAddr base = s.fs().layout().CpPackAddr(static_cast<int>(s.fs().checkpoint_version() % 2));
    const BlockPtr& cp = s.image().Read(base);
    EXPECT_TRUE(cp && cp->type == BlockData::Type::kCheckpoint);
    const auto* c = static_cast<const CheckpointBlock*>(cp.get());
    const BlockPtr& sum = s.image().Read(BlockAddr{base.v + c->cp_pack_start_sum});
    EXPECT_TRUE(sum && sum->type == BlockData::Type::kCpSummary);
    return {c, static_cast<const CpSummaryBlock*>(sum.get())};
  };
  // Writes since write_log index `from` to the SSA blocks of the open logs' segments.
  auto ssa_writes = [&](size_t from) {
    std::set<uint32_t> segs;
    for (const auto& [t, r] : open_logs()) segs.insert(s.fs().segments().curseg(t, r).segno.v);
    uint32_t n = 0;
    const auto& log = s.device().write_log();
    const uint32_t ssa = s.fs().layout().ssa_blkaddr;
    for (size_t i = from; i < log.size(); ++i)
      for (uint64_t b = log[i].first / kBlockSize; b < (log[i].first + log[i].second) / kBlockSize; ++b)
        if (b >= ssa && segs.count(static_cast<uint32_t>(b - ssa))) ++n;
    return n;
  };
  auto create = [&](const std::string& path) {
    FsResult<Fd> fd = s.Run(s.fs().Open(path, kCreat | kRdWr));
    ASSERT_TRUE(fd.ok());
    s.Run(s.fs().Close(fd.value));
  };
  auto expect_big = [&](const std::vector<uint8_t>& want) {
    FsResult<Fd> fd = s.Run(s.fs().Open("/big", kRdOnly));
    ASSERT_TRUE(fd.ok());
    std::vector<uint8_t> got(want.size());
    ASSERT_TRUE(s.Run(s.fs().Pread(fd.value, 0, got)).ok());
    EXPECT_TRUE(got == want);
    s.Run(s.fs().Close(fd.value));
  };

  // 1. Data in every region; the first pack after the mount carries every log.
  std::vector<uint8_t> data = testing::Pattern(3 << 20, 5);
  {
    FsResult<Fd> fd = s.Run(s.fs().Open("/big", kCreat | kRdWr));
    ASSERT_TRUE(fd.ok());
    ASSERT_TRUE(s.Run(s.fs().Pwrite(fd.value, 0, data, data.size())).ok());
    s.Run(s.fs().Close(fd.value));
  }
  ASSERT_TRUE(s.Run(s.fs().Sync()).ok());
  const size_t logs = open_logs().size();
  ASSERT_EQ(logs, 3u * (kChannels - 1));
  {
    const auto [cp, sum] = pack();
    EXPECT_EQ(cp->data_sum_blocks, 3 + logs);
    EXPECT_EQ(std::count(sum->region_data_in_ssa.begin(), sum->region_data_in_ssa.end(), 1), 0);
  }
  // 2. Only node logs change: no region summary in the pack; each moves to
  //    its SSA block once, with what the log holds.
  size_t mark = s.device().write_log().size();
  create("/e1");
  ASSERT_TRUE(s.Run(s.fs().Sync()).ok());
  {
    const auto [cp, sum] = pack();
    EXPECT_EQ(cp->data_sum_blocks, 3u);
    EXPECT_EQ(static_cast<size_t>(std::count(sum->region_data_in_ssa.begin(), sum->region_data_in_ssa.end(), 1)),
              logs);
    EXPECT_EQ(ssa_writes(mark), logs);
    for (const auto& [t, r] : open_logs()) {
      const BlockPtr& b = s.image().Read(s.fs().layout().SsaBlockAddr(s.fs().segments().curseg(t, r).segno));
      ASSERT_TRUE(b && b->type == BlockData::Type::kSummary);
      const auto& e = static_cast<const SummaryBlock*>(b.get())->entries;
      EXPECT_EQ(std::vector<Summary>(e.begin(), e.end()), s.fs().segments().CursegSummaries(t, r));
    }
  }
  // 3. Still unchanged: nothing written for them.
  mark = s.device().write_log().size();
  create("/e2");
  ASSERT_TRUE(s.Run(s.fs().Sync()).ok());
  EXPECT_EQ(pack().first->data_sum_blocks, 3u);
  EXPECT_EQ(ssa_writes(mark), 0u);
  // 4. A clean remount takes them from the SSA blocks.
  const auto before = summaries();
  s.Remount();
  s.ExpectCheck();
  EXPECT_EQ(summaries(), before);
  expect_big(data);
  // 5. The data changes (the pack after the mount carries every log), then
  //    a checkpoint without data changes is cut after its first SSA write.
  data = testing::Pattern(3 << 20, 6);
  {
    FsResult<Fd> fd = s.Run(s.fs().Open("/big", kRdWr));
    ASSERT_TRUE(fd.ok());
    ASSERT_TRUE(s.Run(s.fs().Pwrite(fd.value, 0, data, data.size())).ok());
    s.Run(s.fs().Close(fd.value));
  }
  ASSERT_TRUE(s.Run(s.fs().Sync()).ok());
  EXPECT_EQ(pack().first->data_sum_blocks, 3 + logs);
  const uint64_t durable_ver = s.fs().checkpoint_version();
  mark = s.device().write_log().size();
  create("/e3");
  bool done = false;
  auto body = [&]() -> sim::Task<void> {
    co_await s.fs().Sync();
    done = true;
  };
  sim::Task<void> t = body();
  auto h = t.Release();
  sim::Resume(h);
  while (!done && ssa_writes(mark) == 0 && s.q().Step()) {
  }
  ASSERT_FALSE(done) << "the checkpoint wrote no SSA block of an open segment";
  s.fs().PowerCut();
  s.q().Clear();
  h.destroy();
  s.PowerCut([](BlockAddr, bool) { return true; });
  ASSERT_TRUE(s.Mount().ok());
  EXPECT_EQ(s.fs().mounted_checkpoint_version(), durable_ver);
  s.ExpectCheck();
  expect_big(data);
  EXPECT_EQ(s.sequential().violations, 0u) << s.sequential().first_violation;
}

// ParaFS's multi-threaded GC (fs.f2fs.parafs_2d.gc_threads: per_region):
// under random overwrites that force foreground cleaning, the cleaning
// tasks of different regions migrate sections at the same simulated time
// (gc.max_parallel >= 2, one task per region, so at least two regions
// overlap) and each pass ends in the manager's checkpoint; with one thread
// a section migrates at a time. Both leave a volume fsck accepts with
// every byte written, and no flash block written out of order.
TEST(Parafs2dTest, PerRegionCleaningThreadsOverlapInTime) {
  constexpr uint32_t kChannels = 4;
  for (const char* mode : {"single", "per_region"}) {
    SCOPED_TRACE(mode);
    F2fsConfig c = ParafsConfig();
    c.gc.background = false;
    c.impl_configs.Mutable<Parafs2dConfig>("parafs_2d").gc_threads = mode;
    RoundRobinPlacement placement(kChannels, testing::MetaFlashBlocks(128ull << 20, c));
    Stack s(128ull << 20, c, FixedLayout(kChannels, 8192, &placement));
    ASSERT_TRUE(FormatAndMountStatus(s).ok());
    EXPECT_EQ(s.fs().segments().regions(), kChannels);
    // Files of about half the user blocks, then random 64 KiB overwrites
    // (fsync every 8) of 3x the volume.
    constexpr int kFiles = 4;
    const uint64_t file_bytes = s.fs().layout().user_block_count * kBlockSize / 2 / kFiles / 65536 * 65536;
    std::vector<std::vector<uint8_t>> ref(kFiles);
    std::vector<Fd> fds;
    for (int f = 0; f < kFiles; ++f) {
      FsResult<Fd> fd = s.Run(s.fs().Open("/f" + std::to_string(f), kCreat | kRdWr));
      ASSERT_TRUE(fd.ok());
      fds.push_back(fd.value);
      ref[f] = testing::Pattern(file_bytes, 100 + f);
      ASSERT_TRUE(s.Run(s.fs().Pwrite(fd.value, 0, ref[f], ref[f].size())).ok());
    }
    sim::Rng rng(7, "parafs.gc_threads.test");
    const uint64_t chunks = file_bytes / 65536;
    const int writes = static_cast<int>(3 * (128ull << 20) / 65536);
    for (int i = 0; i < writes; ++i) {
      const int f = static_cast<int>(rng.Uniform(kFiles));
      const uint64_t off = rng.Uniform(chunks) * 65536;
      const std::vector<uint8_t> v = testing::Pattern(65536, 1000 + i);
      std::copy(v.begin(), v.end(), ref[f].begin() + static_cast<std::ptrdiff_t>(off));
      ASSERT_TRUE(s.Run(s.fs().Pwrite(fds[f], off, v, v.size())).ok());
      if (i % 8 == 7) {
        ASSERT_TRUE(s.Run(s.fs().Fsync(fds[f])).ok());
      }
    }
    const sim::StatsRegistry& st = s.stats();
    EXPECT_GT(st.Value("fs.gc.victims_fg"), 0) << "no foreground cleaning";
    if (std::string(mode) == "per_region") {
      EXPECT_GE(st.Value("fs.gc.max_parallel"), 2) << "no two regions cleaned at once";
      EXPECT_GT(st.Value("fs.gc.region_passes"), 0);
      EXPECT_GT(st.Value("fs.cp.reason.gc"), 0) << "the manager never checkpointed";
    } else {
      EXPECT_EQ(st.Value("fs.gc.max_parallel"), 1);
      EXPECT_EQ(st.Value("fs.gc.region_passes"), 0);
    }
    s.ExpectCheck();
    s.Remount();
    s.ExpectCheck();
    for (int f = 0; f < kFiles; ++f) {
      FsResult<Fd> fd = s.Run(s.fs().Open("/f" + std::to_string(f), kRdOnly));
      ASSERT_TRUE(fd.ok());
      std::vector<uint8_t> got(ref[f].size());
      ASSERT_TRUE(s.Run(s.fs().Pread(fd.value, 0, got)).ok());
      EXPECT_TRUE(got == ref[f]) << "file " << f;
    }
    EXPECT_EQ(s.sequential().violations, 0u) << s.sequential().first_violation;
  }
}

// Several writers of the same logs, on a device that takes each flash
// block's writes only in page order: a writer that waits with blocks
// allocated but not yet submitted (cleaning reading a cold inode or dnode
// while it moves blocks; a write that reads its dnode) must submit them
// first, or another writer's later blocks of the same flash block reach the
// device before them (the kernel keeps each log's blocks in one merged bio,
// in allocation order). Small page cache, so node reads happen; a nearly
// full volume, so foreground cleaning moves blocks while threads write.
TEST(Parafs2dTest, ConcurrentWritersSubmitEachFlashBlockInOrder) {
  constexpr uint32_t kChannels = 4;
  constexpr uint64_t kVolume = 128ull << 20;
  F2fsConfig c = ParafsConfig();
  c.gc.background = false;
  c.page_cache.memory = sim::MiB(2);
  RoundRobinPlacement placement(kChannels, testing::MetaFlashBlocks(kVolume, c));
  Stack s(kVolume, c, FixedLayout(kChannels, 8192, &placement));
  ASSERT_TRUE(FormatAndMountStatus(s).ok());
  constexpr int kThreads = 4;
  constexpr uint64_t kChunk = 16384;
  const uint64_t file_bytes = s.fs().layout().user_block_count * kBlockSize * 3 / 5 / kThreads / kChunk * kChunk;
  std::vector<std::vector<uint8_t>> ref(kThreads);
  std::vector<Fd> fds;
  for (int t = 0; t < kThreads; ++t) {
    FsResult<Fd> fd = s.Run(s.fs().Open("/f" + std::to_string(t), kCreat | kRdWr));
    ASSERT_TRUE(fd.ok());
    fds.push_back(fd.value);
    ref[t] = testing::Pattern(file_bytes, 300 + t);
    ASSERT_TRUE(s.Run(s.fs().Pwrite(fd.value, 0, ref[t], ref[t].size())).ok());
    ASSERT_TRUE(s.Run(s.fs().Fsync(fd.value)).ok());
  }
  const int writes_per_thread = static_cast<int>(kVolume / kChunk / kThreads);
  int done = 0, failed = 0;
  auto writer = [](F2fs* fs, Fd fd, std::vector<uint8_t>* r, int t, int n, int* d, int* f) -> sim::Task<void> {
    sim::Rng rng(static_cast<uint64_t>(11 + t), "parafs.in_order.test");
    const uint64_t chunks = r->size() / kChunk;
    for (int i = 0; i < n; ++i) {
      const uint64_t off = rng.Uniform(chunks) * kChunk;
      const std::vector<uint8_t> v = testing::Pattern(kChunk, static_cast<uint64_t>(t) * 1000003 + i);
      std::copy(v.begin(), v.end(), r->begin() + static_cast<std::ptrdiff_t>(off));
      if (!(co_await fs->Pwrite(fd, off, v, v.size())).ok()) ++*f;
      if (i % 16 == 15 && !(co_await fs->Fsync(fd)).ok()) ++*f;
    }
    ++*d;
  };
  for (int t = 0; t < kThreads; ++t)
    sim::Spawn(&s.q(), writer(s.fs_ptr(), fds[t], &ref[t], t, writes_per_thread, &done, &failed));
  while (done < kThreads && s.q().Step()) {
  }
  ASSERT_EQ(done, kThreads);
  EXPECT_EQ(failed, 0);
  const sim::StatsRegistry& st = s.stats();
  EXPECT_GT(st.Value("fs.gc.victims_fg"), 0) << "no foreground cleaning";
  EXPECT_GT(st.Value("fs.io.submits_before_wait"), 0) << "no writer waited holding blocks: the test tests nothing";
  EXPECT_EQ(s.sequential().violations, 0u) << s.sequential().first_violation;
  s.ExpectCheck();
  s.Remount();
  s.ExpectCheck();
  for (int t = 0; t < kThreads; ++t) {
    FsResult<Fd> fd = s.Run(s.fs().Open("/f" + std::to_string(t), kRdOnly));
    ASSERT_TRUE(fd.ok());
    std::vector<uint8_t> got(ref[t].size());
    ASSERT_TRUE(s.Run(s.fs().Pread(fd.value, 0, got)).ok());
    EXPECT_TRUE(got == ref[t]) << "file " << t;
  }
}

}  // namespace
}  // namespace fs::f2fs
