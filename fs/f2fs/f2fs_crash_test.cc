// Crash consistency: run a random workload with fsyncs and background
// checkpoints, cut the power at a random event (the device keeps a random
// subset of its volatile writes), mount (checkpoint selection, orphans,
// roll-forward recovery) and check:
//  - fsck passes;
//  - every entry of the namespace the last durable checkpoint persisted is
//    there (a file may only be replaced by one that was fsynced), and the
//    only extra entries are fsynced files (roll-forward re-links them);
//  - every file shows, per page and for its size, a state it had at or
//    after its last completed fsync (files with an fsync cut in the middle
//    are exempt: posix-mode fsync promises nothing until it returns); a
//    page written since that fsync whose block's write the cut lost may
//    show what the block held before (a checkpoint does not wait for plain
//    file data, so it may point at such a block).
#include <algorithm>
#include <deque>
#include <set>

#include <gtest/gtest.h>

#include "fs/f2fs/f2fs_crash_oracle.h"
#include "fs/f2fs/f2fs_model_test_util.h"
#include "fs/f2fs/parafs_2d_allocation_policy.h"

namespace fs::f2fs {
namespace {

using testing::CheckRecovered;
using testing::CommitWatch;
using testing::CpRecorder;
using testing::JournalWatch;
using testing::StalePages;
using testing::StalePagesOf;
using testing::RandomWorkload;
using testing::RefEntry;
using testing::RefFile;
using testing::RefFs;
using testing::Stack;
using testing::WorkloadOptions;

F2fsConfig CrashConfig() {
  F2fsConfig c = testing::CrashTimingConfig();
  // Discards go out in the workload's think-time gaps, so a power cut
  // finds trims of every kind (pending, in flight, completed, flushed).
  c.discard.idle_interval = sim::Us(100);
  c.discard.min_interval = sim::Ms(1);
  c.discard.mid_interval = sim::Us(500);
  c.discard.max_interval = sim::Ms(5);
  return c;
}

// CrashConfig without the background checkpoint and cleaning threads: the
// test decides when each runs.
F2fsConfig ForegroundOnlyConfig() {
  F2fsConfig c = CrashConfig();
  c.checkpoint.background = false;
  c.gc.background = false;
  return c;
}

// The content of the file at `path` (at most `max` bytes), empty if it
// cannot be opened.
std::vector<uint8_t> ReadFile(Stack& s, const std::string& path, size_t max) {
  FsResult<Fd> r = s.Run(s.fs().Open(path, kRdOnly));
  if (!r.ok()) return {};
  std::vector<uint8_t> out(max + 1);
  out.resize(s.Run(s.fs().Pread(r.value, 0, out)).value);
  s.Run(s.fs().Close(r.value));
  return out;
}

// Fills the volume with non-zero content in `path` (until it is full),
// deletes it and syncs: the free blocks hold stale content.
sim::Task<void> FillAndDelete(F2fs* fs, std::string path) {
  FsResult<Fd> fd = co_await fs->Open(path, kCreat | kRdWr);
  CHECK(fd.ok());
  const std::vector<uint8_t> chunk = testing::Pattern(1 << 20, 99);
  for (uint64_t off = 0;; off += chunk.size()) {
    FsResult<uint64_t> r = co_await fs->Pwrite(fd.value, off, chunk, chunk.size());
    if (!r.ok() || r.value < chunk.size()) break;
  }
  co_await fs->Close(fd.value);
  co_await fs->Sync();
  CHECK((co_await fs->Unlink(path)).ok());
  co_await fs->Sync();
}


// The data logs of regions 1 .. R-1 whose summaries the mounted
// checkpoint pack leaves in their open segments' SSA blocks (unchanged
// since an earlier pack; CheckpointWriter). Call right after the mount.
size_t SummariesLeftInSsa(Stack& s) {
  const BlockAddr base = s.fs().layout().CpPackAddr(static_cast<int>(s.fs().mounted_checkpoint_version() % 2));
  const BlockPtr cp_ptr = s.image().Read(base);
  if (!cp_ptr || cp_ptr->type != BlockData::Type::kCheckpoint) return 0;
  const auto* cp = static_cast<const CheckpointBlock*>(cp_ptr.get());
  const BlockPtr sum_ptr = s.image().Read(BlockAddr{base.v + cp->cp_pack_start_sum});
  if (!sum_ptr || sum_ptr->type != BlockData::Type::kCpSummary) return 0;
  const auto* sum = static_cast<const CpSummaryBlock*>(sum_ptr.get());
  return static_cast<size_t>(std::count(sum->region_data_in_ssa.begin(), sum->region_data_in_ssa.end(), 1));
}

// `slow_writes`: a random third of the device's writes take up to 10 ms
// more (held up in the device), so checkpoints commit while plain data
// writes are in flight, and in half the iterations the cut comes right
// after the first checkpoint past the random event that commits while the
// device still has writes in flight.
void RunCrashIterations(const F2fsConfig& cfg, int iterations, uint64_t base_seed, bool big_writes = false,
                        const ssd::DeviceLayout& device_layout = {}, bool slow_writes = false,
                        bool expect_bg_gc = false, double link_ratio = 0, bool expect_parallel_gc = false,
                        bool structural_only = false) {
  sim::Rng rng(base_seed, "f2fs.test.crash");
  sim::Rng slow_rng(base_seed, "f2fs.test.crash.slow");
  int recovered_runs = 0, journal_replays = 0, ssa_summary_mounts = 0;
  uint64_t gc_moved = 0, bg_moved = 0, stale_pages = 0;
  double max_parallel = 0;
  double discarded = 0;
  for (int it = 0; it < iterations; ++it) {
    SCOPED_TRACE("iteration " + std::to_string(it));
    Stack s(96ull << 20, cfg, device_layout);
    s.FormatAndMount();
    // Checkpoints up to here (mkfs's, and with a journal the mount's) hold
    // the empty volume.
    const uint64_t mount_ver = s.fs().checkpoint_version();
    if (slow_writes) {
      s.device().set_extra_latency([&slow_rng](const ssd::BlockRequest& r) {
        if (r.op != ssd::BlockOp::kWrite || !slow_rng.Bernoulli(1.0 / 3)) return sim::SimTime::Zero();
        return sim::Us(static_cast<int64_t>(slow_rng.Uniform(10000)));
      });
    }
    WorkloadOptions opt;
    opt.ops = 300;
    opt.check_every_step = false;
    opt.fsync_ratio = 0.1;
    opt.think = sim::Us(60);
    opt.q = &s.q();
    opt.link_ratio = link_ratio;
    if (big_writes) {
      opt.ops = 700;
      opt.max_file = 8 << 20;
      opt.max_write = 1 << 20;
    }
    JournalWatch* jw = nullptr;
    opt.on_op_done = [&jw] {
      if (jw) jw->OpDone();
    };
    auto w = std::make_unique<RandomWorkload>(s.fs_ptr(), rng.Next(), opt);
    CpRecorder rec(&w->ref());
    CommitWatch watch(&rec, [&s] { return s.device().in_flight() > 0; });
    JournalWatch jwatch(&watch, &w->ref());
    jw = &jwatch;
    s.fs().set_listener(&jwatch);
    // Run up to a random event.
    bool done = false;
    if (big_writes) s.Run(w->Prefill("/ballast", s.fs().layout().user_block_count * kBlockSize * 7 / 10));
    auto body = [&]() -> sim::Task<void> {
      co_await w->Run();
      done = true;
    };
    sim::Task<void> t = body();
    auto h = t.Release();
    sim::Resume(h);
    const uint64_t cut = 20 + rng.Uniform(big_writes ? 3500 : 1500);
    uint64_t steps = 0;
    while (!done && steps < cut && s.q().Step()) ++steps;
    if (slow_writes && slow_rng.Bernoulli(0.5)) {
      watch.committed_busy = false;
      while (!done && !watch.committed_busy && s.q().Step()) ++steps;
    }
    ASSERT_TRUE(w->failure.empty()) << w->failure;
    gc_moved += s.fs().gc_moved_blocks() + s.fs().ssr_allocations();
    bg_moved += s.fs().gc_moved_bg_blocks();
    max_parallel = std::max(max_parallel, s.stats().Value("fs.gc.max_parallel"));
    if (device_layout.fixed) {
      // Free sections were trimmed whole when freed: no discard is pending there.
      const Layout& l = s.fs().layout();
      for (const auto& [start, c] : s.fs().discards().commands_by_address()) {
        if (c.issued) continue;
        for (uint32_t seg = l.SegOf(BlockAddr{start}).v; seg <= l.SegOf(BlockAddr{start + c.len - 1}).v; ++seg)
          ASSERT_FALSE(s.fs().segments().SectionFree(l.SecOf(SegNo{seg}))) << "pending discard at " << start;
      }
    }
    discarded += s.stats().Value("fs.discard.blocks");
    // Power cut: volatile writes survive at random.
    s.fs().PowerCut();
    s.q().Clear();
    h.destroy();
    const std::set<uint32_t> lost = s.RandomPowerCut(rng);
    sim::Status st = s.Mount();
    ASSERT_TRUE(st.ok()) << st.message();
    if (SummariesLeftInSsa(s) > 0) ++ssa_summary_mounts;
    const StalePages stale = StalePagesOf(s, {&w->ref()}, lost);
    stale_pages += stale.size();
    s.ExpectCheck();
    if (s.fs().recovered_dnodes() > 0) ++recovered_runs;
    const uint64_t ver = s.fs().mounted_checkpoint_version();
    std::map<std::string, RefEntry> cp_ns;
    uint64_t cp_clock = 0;
    if (ver > mount_ver) {
      ASSERT_TRUE(rec.snapshots.count(ver)) << "checkpoint " << ver << " was never begun";
      cp_ns = rec.snapshots.at(ver);
      cp_clock = rec.clocks.at(ver);
    } else {
      cp_ns = {{"/", RefEntry{true, 0}}};
    }
    std::string err;
    if (structural_only) {
      // The recovered namespace is no state the operations went through
      // (see RandomCutsJournalArtifact): only the mount, the checker and
      // the volume's further use are judged.
      if (s.fs().journal_recovered_key() > 0) ++journal_replays;
    } else if (const uint64_t key = s.fs().journal_recovered_key(); key > 0) {
      // Replay restored the state at that commit's epoch switch, with or
      // without the operation then in flight.
      ++journal_replays;
      ASSERT_TRUE(jwatch.before.count(key)) << "commit " << key << " was never switched";
      const JournalWatch::State& b = jwatch.before.at(key);
      err = s.Run(CheckRecovered(s.fs_ptr(), &w->ref(), &b.ns, b.clock, &stale));
      if (!err.empty() && jwatch.after.count(key)) {
        const JournalWatch::State& a = jwatch.after.at(key);
        const std::string err2 = s.Run(CheckRecovered(s.fs_ptr(), &w->ref(), &a.ns, a.clock, &stale));
        if (err2.empty()) err.clear();
        else err += " / with the operation in flight: " + err2;
      }
    } else {
      err = s.Run(CheckRecovered(s.fs_ptr(), &w->ref(), &cp_ns, cp_clock, &stale));
    }
    ASSERT_TRUE(err.empty()) << "cut after " << steps << " events (cp " << ver << ", journal key "
                             << s.fs().journal_recovered_key() << "): " << err;
    // The recovered volume keeps working.
    FsResult<Fd> fd = s.Run(s.fs().Open("/after_crash", kCreat | kRdWr));
    ASSERT_TRUE(fd.ok());
    ASSERT_TRUE(s.Run(s.fs().Pwrite(fd.value, 0, {}, 100000)).ok());
    ASSERT_TRUE(s.Run(s.fs().Fsync(fd.value)).ok());
    s.ExpectCheck();
    // On a device of fixed placement no flash block was written out of
    // order or rewritten before its trim, across the power cut too.
    ASSERT_EQ(s.sequential().violations, 0u) << s.sequential().first_violation;
  }
  // Roll-forward recovery (and with big writes, cleaning or SSR) and
  // discards must actually have been exercised.
  // With a journal, fsync commits it instead of writing dnodes for
  // roll-forward: replay is what recovers.
  if (cfg.durability == "journal") {
    EXPECT_GT(journal_replays, 0);
    if (cfg.impl_configs.Get<JournalConfig>("journal").fsync == "rollforward") EXPECT_GT(recovered_runs, 0);
  } else {
    EXPECT_GT(recovered_runs, 0);
  }
  // With slow writes some cut must have lost the write of a block a
  // checkpoint points at.
  if (slow_writes) {
    EXPECT_GT(stale_pages, 0u);
  }
  EXPECT_GT(discarded, 0);
  if (big_writes) {
    EXPECT_GT(gc_moved, 0u);
  }
  if (expect_bg_gc) {
    EXPECT_GT(bg_moved, 0u);
  }
  // With regions, some mounts took open-segment summaries from the SSA
  // blocks a pack named instead of carrying them.
  if (cfg.allocation == "parafs_2d") {
    EXPECT_GT(ssa_summary_mounts, 0);
  }
  if (expect_parallel_gc) {
    EXPECT_GE(max_parallel, 2) << "no two regions were ever cleaned at once";
  }
}

TEST(CrashTest, RandomCutsDefaultConfig) { RunCrashIterations(CrashConfig(), 60, 1); }

F2fsConfig JournalCrashConfig(sim::SimTime commit_interval, sim::Bytes size) {
  F2fsConfig c = CrashConfig();
  c.durability = "journal";
  JournalConfig& j = c.impl_configs.Mutable<JournalConfig>("journal");
  j.size = size;
  j.commit_interval = commit_interval;
  j.checkpoint_interval = sim::Ms(6);  // CrashConfig's checkpoint.interval
  return c;
}

// F2FS-J: commits every 3 ms and at every fsync, besides the checkpoints;
// a cut recovers the checkpoint's state plus the committed epochs. Each
// of these ran 1,000 to 3,000 iterations clean before being cut down to
// the suite's share.
TEST(CrashTest, RandomCutsJournal) { RunCrashIterations(JournalCrashConfig(sim::Ms(3), sim::MiB(1)), 60, 21); }

// fs.f2fs.journal.fsync rollforward (the F2FS-J artifact's fsync): fsyncs
// write dnodes for roll-forward beside the journal's commits; a cut
// recovers the checkpoint, the committed epochs, then the fsynced files.
TEST(CrashTest, RandomCutsJournalRollForwardFsync) {
  F2fsConfig c = JournalCrashConfig(sim::Ms(3), sim::MiB(1));
  c.impl_configs.Mutable<JournalConfig>("journal").fsync = "rollforward";
  RunCrashIterations(c, 40, 23);
}

// The F2FS-J artifact's profile (configs/f2fs/journal_artifact.yaml):
// namespace records only, commits as unwaited plain writes, checkpoints
// after commits, stock fsync. Its replay re-applies creates, mkdirs and
// unlinks on the checkpoint, without the renames, links and size changes
// between them, so the recovered namespace is no state the operations went
// through and the reference model cannot judge it; the cuts check that the
// volume mounts, passes the checker and keeps working.
TEST(CrashTest, RandomCutsJournalArtifact) {
  F2fsConfig c = JournalCrashConfig(sim::Ms(3), sim::MiB(1));
  JournalConfig& j = c.impl_configs.Mutable<JournalConfig>("journal");
  j.records = "namespace";
  j.list_lock = "global";
  j.barrier = false;
  j.commit_wait = false;
  j.apply = "checkpoint";
  j.checkpoint_after_commit = true;
  j.fsync = "rollforward";
  RunCrashIterations(c, 40, 25, /*big_writes=*/false, {}, /*slow_writes=*/false, /*expect_bg_gc=*/false,
                     /*link_ratio=*/0, /*expect_parallel_gc=*/false, /*structural_only=*/true);
}

TEST(CrashTest, RandomCutsJournalWithHardLinks) {
  RunCrashIterations(JournalCrashConfig(sim::Ms(3), sim::MiB(1)), 40, 31, /*big_writes=*/false, {},
                     /*slow_writes=*/false, /*expect_bg_gc=*/false, /*link_ratio=*/0.08);
}

TEST(CrashTest, RandomCutsJournalLowSpaceCleaning) {
  F2fsConfig c = JournalCrashConfig(sim::Ms(3), sim::MiB(1));
  c.mode = "lfs";
  RunCrashIterations(c, 25, 35, /*big_writes=*/true);
}

// A journal of 8 blocks: commits keep waiting for checkpoints; slow
// writes make checkpoints commit with data writes in flight.
TEST(CrashTest, RandomCutsSmallJournal) {
  RunCrashIterations(JournalCrashConfig(sim::Ms(2), sim::KiB(32)), 40, 29, /*big_writes=*/false, {},
                     /*slow_writes=*/true);
}

// Checkpoints commit while plain data writes are still in flight (they do
// not wait for them) and the cut loses some: recovered files may point at
// blocks whose write was lost, which is legal for pages written since the
// last fsync; everything else is checked as before.
TEST(CrashTest, RandomCutsSlowDataWrites) {
  RunCrashIterations(CrashConfig(), 60, 11, /*big_writes=*/false, {}, /*slow_writes=*/true);
}

// A directory renamed after the checkpoint; in it, an empty subdirectory
// removed and a file fsynced under the subdirectory's name. The fsync
// needs no checkpoint (the file's parent directory is checkpointed), so
// roll-forward finds the name held by a directory where the checkpoint
// has the parent (/a/x, not /b/x) and leaves the file unlinked. The oracle
// looks for that directory where the checkpoint has the parent; looked for
// at the file's path at fsync it would call the file lost.
TEST(CrashTest, FsyncedFileWhoseNameADirectoryHoldsUnderTheRenamedParent) {
  Stack s(96ull << 20, ForegroundOnlyConfig());
  s.FormatAndMount();
  RefFs ref;
  CpRecorder rec(&ref);
  s.fs().set_listener(&rec);
  ASSERT_TRUE(s.Run(s.fs().Mkdir("/a")).ok());
  ASSERT_TRUE(s.Run(s.fs().Mkdir("/a/x")).ok());
  ref.ns["/a"] = RefEntry{true, 0, 1};
  ref.ns["/a/x"] = RefEntry{true, 0, 2};
  ref.clock = 2;
  s.Run(s.fs().WriteCheckpointNow());
  const uint64_t ver = s.fs().checkpoint_version();
  ASSERT_TRUE(s.Run(s.fs().Rename("/a", "/b")).ok());
  ASSERT_TRUE(s.Run(s.fs().Rmdir("/b/x")).ok());
  const Fd fd = s.Run(s.fs().Open("/b/x", kCreat | kRdWr)).value;
  RefFile& f = ref.files[1];
  f.id = 1;
  f.data = testing::Pattern(3 * kBlockSize, 1);
  ASSERT_TRUE(s.Run(s.fs().Pwrite(fd, 0, f.data, f.data.size())).ok());
  ASSERT_TRUE(s.Run(s.fs().Fsync(fd)).ok());
  ASSERT_EQ(s.fs().checkpoint_version(), ver) << "the fsync checkpointed: nothing left to roll forward";
  f.ino = s.Run(s.fs().Fstat(fd)).value.ino;
  f.fsynced = true;
  f.last_fsync_clock = ref.clock = 5;
  f.path_at_fsync = "/b/x";
  f.parent_at_fsync = 1;
  RefFs::MarkDurable(f);
  ref.ns.erase("/a");
  ref.ns.erase("/a/x");
  ref.ns["/b"] = RefEntry{true, 0, 1};
  ref.ns["/b/x"] = RefEntry{false, 1};
  s.PowerCut([](BlockAddr, bool) { return true; });
  ASSERT_TRUE(s.Mount().ok());
  ASSERT_EQ(s.fs().mounted_checkpoint_version(), ver);
  s.ExpectCheck();
  FsResult<FileStat> x = s.Run(s.fs().Stat("/a/x"));
  ASSERT_TRUE(x.ok());
  EXPECT_TRUE(x.value.is_dir);
  EXPECT_FALSE(s.Run(s.fs().Stat("/b")).ok());
  const StalePages none;
  const std::string err = s.Run(CheckRecovered(s.fs_ptr(), &ref, &rec.snapshots.at(ver), rec.clocks.at(ver), &none));
  EXPECT_TRUE(err.empty()) << err;
  // The same recovered volume with the file's parent unknown to the
  // checkpoint: the file is lost.
  f.parent_at_fsync = 99;
  EXPECT_NE(s.Run(CheckRecovered(s.fs_ptr(), &ref, &rec.snapshots.at(ver), rec.clocks.at(ver), &none)), "");
}

// A page fsynced, then rewritten: the checkpoint points at the rewrite's
// block while its write is still in flight, and the cut loses it. The page
// shows what that block held before, content the file never had; the
// oracle accepts it because nothing promised the rewrite durable.
TEST(CrashTest, LostWriteOfACheckpointedPageShowsStaleContent) {
  F2fsConfig c = ForegroundOnlyConfig();
  c.page_cache.writeback_interval = sim::Ms(1);
  c.page_cache.dirty_expire = sim::Ms(1);
  Stack s(96ull << 20, c);
  s.FormatAndMount();
  s.Run(FillAndDelete(s.fs_ptr(), "/stale"));
  constexpr uint64_t kPages = 8;
  RefFs ref;
  RefFile& f = ref.files[1];
  f.id = 1;
  ref.ns["/f"] = RefEntry{false, 1};
  const Fd fd = s.Run(s.fs().Open("/f", kCreat | kRdWr)).value;
  f.data = testing::Pattern(kPages * kBlockSize, 1);
  ASSERT_TRUE(s.Run(s.fs().Pwrite(fd, 0, f.data, f.data.size())).ok());
  ASSERT_TRUE(s.Run(s.fs().Fsync(fd)).ok());
  f.ino = s.Run(s.fs().Fstat(fd)).value.ino;
  f.fsynced = true;
  f.last_fsync_clock = ++ref.clock;
  f.path_at_fsync = "/f";
  RefFs::MarkDurable(f);
  // The rewrite, written back by the flusher, stays 100 ms in the device.
  s.device().set_extra_latency([](const ssd::BlockRequest& r) {
    return r.op == ssd::BlockOp::kWrite && r.length == kPages * kBlockSize ? sim::Ms(100) : sim::SimTime::Zero();
  });
  const std::vector<uint8_t> next = testing::Pattern(kPages * kBlockSize, 2);
  RefFs::AllowTransition(f, next);
  RefFs::MarkWritten(f, 0, next.size());
  ++ref.clock;
  ASSERT_TRUE(s.Run(s.fs().Pwrite(fd, 0, next, next.size())).ok());
  f.data = next;
  s.Run([](sim::EventQueue* q) -> sim::Task<void> { co_await sim::Delay(q, sim::Ms(3)); }(&s.q()));
  ASSERT_EQ(s.device().in_flight(), 1u);
  CpRecorder rec(&ref);
  s.fs().set_listener(&rec);
  s.Run(s.fs().WriteCheckpointNow());
  const uint64_t ver = s.fs().checkpoint_version();
  std::set<uint32_t> lost;
  s.PowerCut([&](BlockAddr a, bool) {
    lost.insert(a.v);
    return false;
  });
  ASSERT_TRUE(s.Mount().ok());
  ASSERT_EQ(s.fs().mounted_checkpoint_version(), ver);
  const StalePages stale = StalePagesOf(s, {&ref}, lost);
  EXPECT_EQ(stale.size(), kPages);
  s.ExpectCheck();
  uint64_t shown = 0;
  const std::string err =
      s.Run(CheckRecovered(s.fs_ptr(), &ref, &rec.snapshots.at(ver), rec.clocks.at(ver), &stale, "", &shown));
  EXPECT_TRUE(err.empty()) << err;
  EXPECT_EQ(shown, kPages);
}

// Background cleaning dirties the fsynced pages of a victim; the flusher
// writes them to a new segment and the device holds that write up. The
// checkpoint that follows points the file at the new blocks, so it must
// wait for that write (page_private_gcing is checkpoint-guaranteed): a cut
// right after its commit, losing everything not yet flushed, keeps the file.
TEST(CrashTest, CheckpointWaitsForPagesMovedByBackgroundCleaning) {
  F2fsConfig c = ForegroundOnlyConfig();
  c.page_cache.writeback_interval = sim::Ms(1);
  c.page_cache.dirty_expire = sim::Ms(1);
  Stack s(96ull << 20, c);
  s.FormatAndMount();
  s.Run(FillAndDelete(s.fs_ptr(), "/stale"));
  constexpr uint64_t kPages = 32;  // more than min_hot_blocks: the warm data log
  const std::vector<uint8_t> keep = testing::Pattern(kPages * kBlockSize, 1);
  const Fd fd = s.Run(s.fs().Open("/keep", kCreat | kRdWr)).value;
  ASSERT_TRUE(s.Run(s.fs().Pwrite(fd, 0, keep, keep.size())).ok());
  ASSERT_TRUE(s.Run(s.fs().Fsync(fd)).ok());
  // Fill the rest of /keep's segment (and more) with a file then deleted:
  // the segment holds /keep's blocks alone, the cheapest victim.
  const Fd junk = s.Run(s.fs().Open("/junk", kCreat | kRdWr)).value;
  const std::vector<uint8_t> j = testing::Pattern(3 * kBlocksPerSeg * kBlockSize, 2);
  ASSERT_TRUE(s.Run(s.fs().Pwrite(junk, 0, j, j.size())).ok());
  ASSERT_TRUE(s.Run(s.fs().Fsync(junk)).ok());
  ASSERT_TRUE(s.Run(s.fs().Close(junk)).ok());
  ASSERT_TRUE(s.Run(s.fs().Unlink("/junk")).ok());
  ASSERT_TRUE(s.Run(s.fs().Sync()).ok());
  // From here the device holds big writes (the moved pages) 100 ms.
  s.device().set_extra_latency([](const ssd::BlockRequest& r) {
    return r.op == ssd::BlockOp::kWrite && r.length >= 16 * kBlockSize ? sim::Ms(100) : sim::SimTime::Zero();
  });
  // Background rounds until /keep's segment was a victim (another, of
  // fewer valid blocks, may come first).
  for (int round = 0; round < 8 && s.fs().gc_moved_bg_blocks() < kPages; ++round) {
    s.Run(s.fs().GarbageCollect(/*foreground=*/false));
  }
  ASSERT_GE(s.fs().gc_moved_bg_blocks(), kPages);
  s.Run([](sim::EventQueue* q) -> sim::Task<void> { co_await sim::Delay(q, sim::Ms(3)); }(&s.q()));
  ASSERT_GE(s.device().in_flight(), 1u) << "the flusher should have written the moved pages";
  s.Run(s.fs().WriteCheckpointNow());
  const uint64_t ver = s.fs().checkpoint_version();
  s.PowerCut([](BlockAddr, bool) { return false; });
  ASSERT_TRUE(s.Mount().ok());
  ASSERT_EQ(s.fs().mounted_checkpoint_version(), ver);
  const Fd rd = s.Run(s.fs().Open("/keep", kRdWr)).value;
  std::vector<uint8_t> got(keep.size());
  ASSERT_EQ(s.Run(s.fs().Pread(rd, 0, got)).value, keep.size());
  EXPECT_TRUE(got == keep) << "the moved blocks of /keep were lost";
  s.ExpectCheck();
}

// A file created, then a checkpoint writes its inode and flushes its NAT
// entry (flags reset) but its commit block is held up in the device; an
// fsync of the file then finds nothing to write. It must not return before
// that checkpoint commits: a cut right after the fsync keeps the file.
TEST(CrashTest, FsyncDuringCheckpointWaitsForItsCommit) {
  F2fsConfig c = ForegroundOnlyConfig();
  c.discard.enabled = false;
  Stack s(96ull << 20, c);
  s.FormatAndMount();
  const Fd fd = s.Run(s.fs().Open("/f", kCreat | kRdWr)).value;
  s.device().set_extra_latency([](const ssd::BlockRequest& r) {
    return r.op == ssd::BlockOp::kWrite && r.fua ? sim::Ms(100) : sim::SimTime::Zero();
  });
  bool cp_done = false, fsync_done = false;
  auto cp = [](F2fs* fs, bool* d) -> sim::Task<void> {
    co_await fs->WriteCheckpointNow();
    *d = true;
  }(s.fs_ptr(), &cp_done);
  auto cp_h = cp.Release();
  sim::Resume(cp_h);
  // Run until only the commit block is in flight.
  while (!cp_done && !(s.device().in_flight() == 1 && s.q().now() > sim::Ms(1)) && s.q().Step()) {
  }
  ASSERT_FALSE(cp_done);
  auto fs_task = [](F2fs* fs, Fd fd, bool* d) -> sim::Task<void> {
    CHECK((co_await fs->Fsync(fd)).ok());
    *d = true;
  }(s.fs_ptr(), fd, &fsync_done);
  auto fs_h = fs_task.Release();
  sim::Resume(fs_h);
  while (!fsync_done && s.q().Step()) {
  }
  ASSERT_TRUE(fsync_done);
  EXPECT_TRUE(cp_done) << "fsync returned before the checkpoint that wrote the file committed";
  s.fs().PowerCut();
  s.q().Clear();
  cp_h.destroy();
  fs_h.destroy();
  s.PowerCut([](BlockAddr, bool) { return false; });
  ASSERT_TRUE(s.Mount().ok());
  EXPECT_TRUE(s.Run(s.fs().Open("/f", kRdWr)).ok()) << "the fsynced file was lost";
  s.ExpectCheck();
}

// Hard links: an fsync of a file with two names writes a checkpoint
// (CP_HARDLINK: roll-forward recovery restores one name only), so a cut
// right after it keeps both names. After one name is unlinked the file has
// one link again and fsync rolls forward: a cut after it keeps the data
// written since, and the unlink, never made durable, is undone — both
// names again, with the link count the checkpoint has.
TEST(CrashTest, HardLinkedFilesSurviveCuts) {
  F2fsConfig c = ForegroundOnlyConfig();
  Stack s(96ull << 20, c);
  s.FormatAndMount();
  const std::vector<uint8_t> v1 = testing::Pattern(30000, 1);
  Fd fd = s.Run(s.fs().Open("/a", kCreat | kRdWr)).value;
  ASSERT_TRUE(s.Run(s.fs().Pwrite(fd, 0, v1, v1.size())).ok());
  ASSERT_TRUE(s.Run(s.fs().Link("/a", "/b")).ok());
  const uint64_t cps = s.fs().checkpoints();
  ASSERT_TRUE(s.Run(s.fs().Fsync(fd)).ok());
  EXPECT_EQ(s.fs().checkpoints(), cps + 1) << "fsync of a hard-linked file checkpoints";
  s.PowerCut([](BlockAddr, bool) { return false; });
  ASSERT_TRUE(s.Mount().ok());
  s.ExpectCheck();
  auto content = [&](const std::string& p, size_t n) { return ReadFile(s, p, n); };
  EXPECT_EQ(content("/a", v1.size()), v1);
  EXPECT_EQ(content("/b", v1.size()), v1);
  EXPECT_EQ(s.Run(s.fs().Stat("/b")).value.nlink, 2u);
  // One name gone: fsync rolls forward.
  ASSERT_TRUE(s.Run(s.fs().Unlink("/a")).ok());
  const std::vector<uint8_t> v2 = testing::Pattern(30000, 2);
  fd = s.Run(s.fs().Open("/b", kRdWr)).value;
  ASSERT_TRUE(s.Run(s.fs().Pwrite(fd, 0, v2, v2.size())).ok());
  const uint64_t cps2 = s.fs().checkpoints();
  ASSERT_TRUE(s.Run(s.fs().Fsync(fd)).ok());
  EXPECT_EQ(s.fs().checkpoints(), cps2) << "one link: roll-forward, no checkpoint";
  s.PowerCut([](BlockAddr, bool) { return false; });
  ASSERT_TRUE(s.Mount().ok());
  EXPECT_GT(s.fs().recovered_dnodes(), 0u);
  s.ExpectCheck();
  EXPECT_EQ(content("/b", v2.size()), v2);
  EXPECT_EQ(content("/a", v2.size()), v2) << "the unlink was not durable: /a names the file again";
  EXPECT_EQ(s.Run(s.fs().Stat("/b")).value.nlink, 2u);
}

// O_DIRECT writes, new blocks and then in place, made durable by fsync:
// a cut right after each fsync keeps what it covered.
TEST(CrashTest, DirectWritesSurviveCutsAfterFsync) {
  F2fsConfig c = ForegroundOnlyConfig();
  Stack s(96ull << 20, c);
  s.FormatAndMount();
  auto content = [&](size_t n) { return ReadFile(s, "/f", n); };
  for (uint32_t round = 1; round <= 3; ++round) {
    SCOPED_TRACE("round " + std::to_string(round));
    const std::vector<uint8_t> v = testing::Pattern(128 * 1024, round);
    const Fd fd = s.Run(s.fs().Open("/f", kCreat | kRdWr | kDirect)).value;
    const uint64_t ipu0 = s.fs().ipu_blocks();
    ASSERT_EQ(s.Run(s.fs().Pwrite(fd, 0, v, v.size())).value, v.size());
    if (round > 1) {
      EXPECT_EQ(s.fs().ipu_blocks(), ipu0 + 32) << "in place";
    }
    ASSERT_TRUE(s.Run(s.fs().Fsync(fd)).ok());
    s.PowerCut([](BlockAddr, bool) { return false; });
    ASSERT_TRUE(s.Mount().ok());
    s.ExpectCheck();
    EXPECT_EQ(content(v.size()), v);
  }
}

TEST(CrashTest, RandomCutsPerFileNodeListNoInline) {
  F2fsConfig c = CrashConfig();
  c.fsync_node_lookup = "list";
  c.inline_data = false;
  c.inline_dentry = false;
  RunCrashIterations(c, 40, 2);
}

// Hard links among the operations: fsync of a file with several names
// checkpoints; unlinks and renames of one name leave the others.
TEST(CrashTest, RandomCutsWithHardLinks) {
  RunCrashIterations(CrashConfig(), 40, 13, /*big_writes=*/false, {}, /*slow_writes=*/false,
                     /*expect_bg_gc=*/false, /*link_ratio=*/0.08);
}

TEST(CrashTest, RandomCutsLowSpaceCleaning) {
  F2fsConfig c = CrashConfig();
  c.mode = "lfs";  // no SSR: foreground cleaning under low space
  RunCrashIterations(c, 25, 4, /*big_writes=*/true);
}

// ParaFS's 2-D allocation: logs per region (flash channel), striped flash
// page by flash page; recovery follows the fsync chain across regions.
TEST(CrashTest, RandomCutsParafs2d) {
  F2fsConfig c = CrashConfig();
  c.mode = "lfs";
  c.allocation = "parafs_2d";
  testing::RoundRobinPlacement placement(2, testing::MetaFlashBlocks(96ull << 20, c));
  RunCrashIterations(c, 40, 7, /*big_writes=*/false, testing::FixedLayout(2, 8192, &placement));
}

TEST(CrashTest, RandomCutsParafs2dLeastBusyDispatch) {
  F2fsConfig c = CrashConfig();
  c.mode = "lfs";
  c.allocation = "parafs_2d";
  c.impl_configs.Mutable<Parafs2dConfig>("parafs_2d").dispatch = "least_busy";
  testing::RoundRobinPlacement placement(3, testing::MetaFlashBlocks(96ull << 20, c));
  RunCrashIterations(c, 30, 9, /*big_writes=*/false, testing::FixedLayout(3, 8192, &placement));
}

TEST(CrashTest, RandomCutsParafs2dLowSpaceCleaning) {
  F2fsConfig c = CrashConfig();
  c.mode = "lfs";
  c.allocation = "parafs_2d";
  testing::RoundRobinPlacement placement(2, testing::MetaFlashBlocks(96ull << 20, c));
  RunCrashIterations(c, 20, 8, /*big_writes=*/true, testing::FixedLayout(2, 8192, &placement));
}

// F2FS-J on ParaFS: the journal ring at the head of the volume, in the
// S-FTL's page-mapped area, beside the 2-D allocation's logs.
TEST(CrashTest, RandomCutsParafs2dJournal) {
  F2fsConfig c = JournalCrashConfig(sim::Ms(3), sim::MiB(1));
  c.mode = "lfs";
  c.allocation = "parafs_2d";
  testing::RoundRobinPlacement placement(2, testing::MetaFlashBlocks(96ull << 20, c));
  RunCrashIterations(c, 30, 37, /*big_writes=*/false, testing::FixedLayout(2, 8192, &placement));
}

// ParaFS's multi-threaded GC: one cleaning task per region migrating at
// the same time, the manager's checkpoint after each pass; cuts land
// inside concurrent migrations too.
TEST(CrashTest, RandomCutsParafs2dPerRegionCleaningThreads) {
  F2fsConfig c = CrashConfig();
  c.mode = "lfs";
  c.allocation = "parafs_2d";
  c.impl_configs.Mutable<Parafs2dConfig>("parafs_2d").gc_threads = "per_region";
  testing::RoundRobinPlacement placement(2, testing::MetaFlashBlocks(96ull << 20, c));
  RunCrashIterations(c, 25, 14, /*big_writes=*/true, testing::FixedLayout(2, 8192, &placement),
                     /*slow_writes=*/false, /*expect_bg_gc=*/false, /*link_ratio=*/0, /*expect_parallel_gc=*/true);
}

// Background cleaning only dirties its victims' pages; their writes are of
// a kind a checkpoint guarantees (page_private_gcing), so the checkpoint
// that frees a victim waits for them even while the device holds writes
// up, and a cut right after its commit loses no block it moved.
TEST(CrashTest, RandomCutsSlowWritesBackgroundCleaning) {
  RunCrashIterations(CrashConfig(), 25, 12, /*big_writes=*/true, {}, /*slow_writes=*/true, /*expect_bg_gc=*/true);
}

TEST(CrashTest, RandomCutsLowSpaceSsr) {
  RunCrashIterations(CrashConfig(), 25, 5, /*big_writes=*/true);
}

TEST(CrashTest, RandomCutsIpuAndSmallCache) {
  F2fsConfig c = CrashConfig();
  c.ipu_policy = {"fsync", "util"};
  c.min_ipu_util = sim::Ratio{0.0};
  c.page_cache.memory = sim::MiB(1);
  RunCrashIterations(c, 40, 3);
}

// Listener fan-out: several workloads record the checkpoints.
class Fanout : public F2fs::Listener {
 public:
  std::vector<F2fs::Listener*> to;
  void OnCheckpointBegin(uint64_t v) override {
    for (auto* l : to) l->OnCheckpointBegin(v);
  }
  void OnCheckpointCommitted(uint64_t v) override {
    for (auto* l : to) l->OnCheckpointCommitted(v);
  }
};

// Four simulated threads, each with its own directory and reference model,
// run concurrently (sharing checkpoints, the flusher and cleaning).
TEST(CrashTest, RandomCutsConcurrentThreads) {
  const F2fsConfig cfg = CrashConfig();
  sim::Rng rng(6, "f2fs.test.crash.concurrent");
  constexpr int kThreads = 4;
  for (int it = 0; it < 30; ++it) {
    SCOPED_TRACE("iteration " + std::to_string(it));
    Stack s(128ull << 20, cfg);
    s.FormatAndMount();
    std::vector<std::unique_ptr<RandomWorkload>> ws;
    std::vector<std::unique_ptr<CpRecorder>> recs;
    Fanout fan;
    for (int t = 0; t < kThreads; ++t) {
      const std::string dir = "/t" + std::to_string(t);
      ASSERT_TRUE(s.Run(s.fs().Mkdir(dir)).ok());
      WorkloadOptions opt;
      opt.ops = 150;
      opt.check_every_step = false;
      opt.think = sim::Us(40);
      opt.q = &s.q();
      opt.prefix = dir;
      ws.push_back(std::make_unique<RandomWorkload>(s.fs_ptr(), rng.Next(), opt));
      recs.push_back(std::make_unique<CpRecorder>(&ws.back()->ref()));
      fan.to.push_back(recs.back().get());
    }
    s.Run(s.fs().Sync());  // the thread directories are checkpointed
    s.fs().set_listener(&fan);
    int done = 0;
    std::vector<sim::Task<void>::Handle> hs;
    for (int t = 0; t < kThreads; ++t) {
      auto body = [](RandomWorkload* w, int* d) -> sim::Task<void> {
        co_await w->Run();
        ++*d;
      };
      sim::Task<void> task = body(ws[t].get(), &done);
      hs.push_back(task.Release());
      sim::Resume(hs.back());
    }
    const uint64_t cut = 20 + rng.Uniform(3000);
    uint64_t steps = 0;
    while (done < kThreads && steps < cut && s.q().Step()) ++steps;
    for (auto& w : ws) ASSERT_TRUE(w->failure.empty()) << w->failure;
    if (done == kThreads) {
      // Finished before the cut: the live state must be consistent too.
      s.ExpectCheck();
    }
    s.fs().PowerCut();
    s.q().Clear();
    for (auto h : hs) h.destroy();
    const std::set<uint32_t> lost = s.RandomPowerCut(rng);
    sim::Status st = s.Mount();
    ASSERT_TRUE(st.ok()) << st.message();
    std::vector<const RefFs*> refs;
    for (auto& w : ws) refs.push_back(&w->ref());
    const StalePages stale = StalePagesOf(s, refs, lost);
    s.ExpectCheck();
    const uint64_t ver = s.fs().mounted_checkpoint_version();
    for (int t = 0; t < kThreads; ++t) {
      std::map<std::string, RefEntry> cp_ns = {{"/", RefEntry{true, 0}}};
      uint64_t cp_clock = 0;
      if (recs[t]->snapshots.count(ver)) {
        cp_ns = recs[t]->snapshots.at(ver);
        cp_clock = recs[t]->clocks.at(ver);
      }
      const std::string err =
          s.Run(CheckRecovered(s.fs_ptr(), &ws[t]->ref(), &cp_ns, cp_clock, &stale, "/t" + std::to_string(t)));
      ASSERT_TRUE(err.empty()) << "thread " << t << ", cut after " << steps << " events (cp " << ver << "): " << err;
    }
  }
}

}  // namespace
}  // namespace fs::f2fs
