// The ext4 model's behaviours that follow Linux 6.x and its mount options:
// auto_da_alloc, the block layer's plug merging, the coarse timestamp
// clock, atime, the orphan list in the superblock, directory fsync and
// sync(2)'s one flush.
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fs/ext4/ext4_test_util.h"

namespace fs::ext4 {
namespace {

using testing::Stack;

// Writes `bytes` at 0 of `path` (O_TRUNC) and closes, without fsync.
sim::Task<bool> Put(Ext4* fs, std::string path, uint64_t bytes) {
  FsResult<Fd> fd = co_await fs->Open(path, kCreat | kRdWr | kTrunc);
  if (!fd.ok()) co_return false;
  if (!(co_await fs->Pwrite(fd.value, 0, {}, bytes)).ok()) co_return false;
  co_return (co_await fs->Close(fd.value)).ok();
}

uint32_t InoOf(Stack& s, const std::string& path) {
  FsResult<FileStat> st = s.Run(s.fs().Stat(path));
  EXPECT_TRUE(st.ok()) << path;
  return static_cast<uint32_t>(st.value.ino);
}

Ext4Config WithAutoDaAlloc(bool on) {
  Ext4Config c = testing::TestConfig();
  c.auto_da_alloc = on;
  return c;
}

TEST(Ext4LinuxTest, AutoDaAllocWritesAFileThatReplacesAnotherByRename) {
  for (const bool on : {true, false}) {
    Stack s(256ull << 20, WithAutoDaAlloc(on));
    s.FormatAndMount();
    ASSERT_TRUE(s.Run(Put(s.fs_ptr(), "/index", 8192)));
    ASSERT_TRUE(s.Run(s.fs().Sync()).ok());
    ASSERT_TRUE(s.Run(Put(s.fs_ptr(), "/index.lock", 8192)));
    const uint32_t ino = InoOf(s, "/index.lock");
    EXPECT_EQ(s.fs().BlockOf(ino, 0), 0u) << "delayed until the rename";
    ASSERT_TRUE(s.Run(s.fs().Rename("/index.lock", "/index")).ok());
    // ext4_alloc_da_blocks: allocated and under writeback at once.
    EXPECT_EQ(s.fs().BlockOf(ino, 0) != 0, on) << "auto_da_alloc " << on;
    // A rename to a new name (nothing replaced) leaves the blocks delayed.
    ASSERT_TRUE(s.Run(Put(s.fs_ptr(), "/fresh.tmp", 8192)));
    const uint32_t fresh = InoOf(s, "/fresh.tmp");
    ASSERT_TRUE(s.Run(s.fs().Rename("/fresh.tmp", "/fresh")).ok());
    EXPECT_EQ(s.fs().BlockOf(fresh, 0), 0u);
  }
}

// auto_da_alloc puts writes in flight at a close; the file may be freed
// and its inode number reused before they complete. Their completion must
// not count against the new inode (whose fsync would then wait forever).
sim::Task<uint32_t> ReuseWhileInFlight(Ext4* fs, uint32_t* freed) {
  if (!co_await Put(fs, "/FETCH_HEAD", 4096)) co_return 0;
  if (!(co_await fs->Sync()).ok()) co_return 0;
  *freed = static_cast<uint32_t>((co_await fs->Stat("/FETCH_HEAD")).value.ino);
  if (!co_await Put(fs, "/FETCH_HEAD", 65536)) co_return 0;       // O_TRUNC: written at close
  if (!(co_await fs->Unlink("/FETCH_HEAD")).ok()) co_return 0;    // freed, writes in flight
  FsResult<Fd> fd = co_await fs->Open("/next", kCreat | kRdWr);
  if (!fd.ok()) co_return 0;
  const uint32_t ino = static_cast<uint32_t>((co_await fs->Fstat(fd.value)).value.ino);
  if (!(co_await fs->Pwrite(fd.value, 0, {}, 4096)).ok()) co_return 0;
  if (!(co_await fs->Fsync(fd.value)).ok()) co_return 0;
  // An overwrite (not ordered data): its fsync waits for the write itself,
  // which a count thrown off by the freed inode's completions skips.
  const std::vector<uint8_t> data = testing::Pattern(4096, 7);
  if (!(co_await fs->Pwrite(fd.value, 0, data, data.size())).ok()) co_return 0;
  if (!(co_await fs->Fsync(fd.value)).ok()) co_return 0;
  co_return ino;
}

TEST(Ext4LinuxTest, WritesOfAFreedInodeCompletingLateLeaveItsReusedNumberAlone) {
  Stack s;
  s.FormatAndMount();
  // Writes take 1 ms: the freed file's are still in flight when its number
  // is reused.
  s.device().set_extra_latency([](const ssd::BlockRequest& r) {
    return r.op == ssd::BlockOp::kWrite ? sim::Ms(1) : sim::SimTime::Zero();
  });
  uint32_t freed = 0;
  const uint32_t ino = s.Run(ReuseWhileInFlight(s.fs_ptr(), &freed));
  ASSERT_NE(ino, 0u) << "the fsyncs of the new file returned";
  EXPECT_EQ(ino, freed) << "the new file took the freed inode's number";
  // Everything volatile is lost: the fsynced overwrite is there.
  s.PowerCut([](BlockNo, bool) { return false; });
  ASSERT_TRUE(s.Mount().ok());
  FsResult<Fd> fd = s.Run(s.fs().Open("/next", kRdOnly));
  ASSERT_TRUE(fd.ok());
  std::vector<uint8_t> got(4096);
  ASSERT_TRUE(s.Run(s.fs().Pread(fd.value, 0, got)).ok());
  EXPECT_EQ(got, testing::Pattern(4096, 7));
  s.ExpectCheck();
}

TEST(Ext4LinuxTest, AutoDaAllocWritesAFileTruncatedToZeroAtClose) {
  for (const bool on : {true, false}) {
    Stack s(256ull << 20, WithAutoDaAlloc(on));
    s.FormatAndMount();
    ASSERT_TRUE(s.Run(Put(s.fs_ptr(), "/FETCH_HEAD", 4096)));
    ASSERT_TRUE(s.Run(s.fs().Sync()).ok());
    // Rewritten through O_TRUNC: EXT4_STATE_DA_ALLOC_CLOSE, flushed at close.
    ASSERT_TRUE(s.Run(Put(s.fs_ptr(), "/FETCH_HEAD", 12288)));
    const uint32_t ino = InoOf(s, "/FETCH_HEAD");
    EXPECT_EQ(s.fs().BlockOf(ino, 2) != 0, on) << "auto_da_alloc " << on;
    // A new file (nothing truncated) keeps its blocks delayed past close.
    ASSERT_TRUE(s.Run(Put(s.fs_ptr(), "/new", 12288)));
    EXPECT_EQ(s.fs().BlockOf(InoOf(s, "/new"), 0), 0u);
  }
}

TEST(Ext4LinuxTest, WritesOfDifferentFilesAdjacentOnTheVolumeGoOutAsOneRequest) {
  Stack s;
  s.LogWrites();
  s.FormatAndMount();
  // Eight one-block files: the locality-group preallocation puts them side
  // by side; sync writes them back in one pass, in one plug.
  for (int i = 0; i < 8; ++i) ASSERT_TRUE(s.Run(Put(s.fs_ptr(), "/f" + std::to_string(i), 4096)));
  ASSERT_TRUE(s.Run(s.fs().Sync()).ok());
  const uint32_t first = s.fs().BlockOf(InoOf(s, "/f0"), 0);
  ASSERT_NE(first, 0u);
  for (int i = 1; i < 8; ++i) ASSERT_EQ(s.fs().BlockOf(InoOf(s, "/f" + std::to_string(i)), 0), first + i);
  bool merged = false;
  for (const auto& [offset, length] : s.device().write_log()) {
    EXPECT_FALSE(offset > uint64_t{first} * kBlockSize && offset < uint64_t{first + 8} * kBlockSize)
        << "a data write starting inside the run at block " << offset / kBlockSize;
    if (offset == uint64_t{first} * kBlockSize && length == 8 * kBlockSize) merged = true;
  }
  EXPECT_TRUE(merged) << "the eight files' blocks are one write request";
  s.ExpectCheck();
}

// Waits until `at` past the next multiple of the 4 ms tick.
sim::Task<void> ToTick(sim::EventQueue* q, sim::SimTime at) {
  const int64_t tick = sim::Ms(4).ns();
  const int64_t next = (q->now().ns() / tick + 1) * tick;
  co_await sim::Delay(q, sim::SimTime::FromNs(next) + at - q->now());
}

struct FsyncCounts {
  uint64_t commits = 0, flushes = 0;
};

// Two 4 KiB overwrites of an allocated, committed file, each followed by
// fsync, both within one 4 ms tick: the commits and flushes they cost.
FsyncCounts TwoOverwritesInOneTick(sim::SimTime granularity) {
  Ext4Config c = testing::TestConfig();
  c.timestamp_granularity = granularity;
  Stack s(256ull << 20, c);
  s.FormatAndMount();
  Ext4* fs = s.fs_ptr();
  FsResult<Fd> fd = s.Run(fs->Open("/db", kCreat | kRdWr));
  EXPECT_TRUE(fd.ok());
  EXPECT_TRUE(s.Run(fs->Pwrite(fd.value, 0, {}, 65536)).ok());
  EXPECT_TRUE(s.Run(fs->Fsync(fd.value)).ok());
  s.Run(ToTick(&s.q(), sim::Us(100)));
  const uint64_t commits0 = fs->commits(), flushes0 = s.device().requests(ssd::BlockOp::kFlush);
  for (int i = 0; i < 2; ++i) {
    EXPECT_TRUE(s.Run(fs->Pwrite(fd.value, 4096 * (i + 1), {}, 4096)).ok());
    EXPECT_TRUE(s.Run(fs->Fsync(fd.value)).ok());
  }
  EXPECT_LT(s.q().now().ns() % sim::Ms(4).ns(), sim::Ms(3).ns()) << "the test left the tick";
  return {fs->commits() - commits0, s.device().requests(ssd::BlockOp::kFlush) - flushes0};
}

TEST(Ext4LinuxTest, AWriteLogsTheInodeOnlyWhenTheCoarseClockTicked) {
  // The first overwrite moves mtime (a new tick): a commit. The second is
  // in the same tick: the inode is unchanged, fsync only flushes.
  const FsyncCounts jiffy = TwoOverwritesInOneTick(sim::Ms(4));
  EXPECT_EQ(jiffy.commits, 1u);
  EXPECT_EQ(jiffy.flushes, 2u);
  // A clock of no granularity dirties the inode on every write.
  const FsyncCounts fine = TwoOverwritesInOneTick(sim::SimTime::Zero());
  EXPECT_EQ(fine.commits, 2u);
  EXPECT_EQ(fine.flushes, 2u);
}

// After a file was written and committed: does a read, then a second read,
// leave the inode in the running transaction?
std::pair<bool, bool> ReadsLogTheInode(const std::string& atime) {
  Ext4Config c = testing::TestConfig();
  c.atime = atime;
  Stack s(256ull << 20, c);
  s.FormatAndMount();
  Ext4* fs = s.fs_ptr();
  EXPECT_TRUE(s.Run(Put(fs, "/f", 8192)));
  EXPECT_TRUE(s.Run(fs->Sync()).ok());
  const uint32_t ino = InoOf(s, "/f");
  const uint32_t iblk = s.fs().layout().InodeBlock(ino);
  EXPECT_FALSE(fs->RunningLogs(iblk));
  s.Run(ToTick(&s.q(), sim::Us(10)));
  std::vector<uint8_t> buf(100);
  FsResult<Fd> fd = s.Run(fs->Open("/f", kRdOnly));
  EXPECT_TRUE(s.Run(fs->Pread(fd.value, 0, buf)).ok());
  const bool first = fs->RunningLogs(iblk);
  EXPECT_TRUE(s.Run(fs->Sync()).ok());
  s.Run(ToTick(&s.q(), sim::Us(10)));
  EXPECT_TRUE(s.Run(fs->Pread(fd.value, 100, buf)).ok());
  const bool second = fs->RunningLogs(iblk);
  s.Run(fs->Close(fd.value));
  return {first, second};
}

TEST(Ext4LinuxTest, RelatimeLogsTheFirstReadAfterAModificationOnly) {
  EXPECT_EQ(ReadsLogTheInode("relatime"), std::make_pair(true, false));
  EXPECT_EQ(ReadsLogTheInode("strictatime"), std::make_pair(true, true));
  EXPECT_EQ(ReadsLogTheInode("noatime"), std::make_pair(false, false));
}

TEST(Ext4LinuxTest, UnlinkAndTruncateOfAClosedFileLogTheSuperblocksOrphanList) {
  Stack s;
  s.FormatAndMount();
  Ext4* fs = s.fs_ptr();
  ASSERT_TRUE(s.Run(Put(fs, "/a", 8192)));
  ASSERT_TRUE(s.Run(Put(fs, "/b", 8192)));
  ASSERT_TRUE(s.Run(fs->Sync()).ok());
  ASSERT_FALSE(fs->RunningLogs(0));
  ASSERT_TRUE(s.Run(fs->Unlink("/a")).ok());
  EXPECT_TRUE(fs->RunningLogs(0)) << "ext4_orphan_add/del: s_last_orphan";
  ASSERT_TRUE(s.Run(fs->Sync()).ok());
  ASSERT_TRUE(s.Run(fs->Truncate("/b", 100)).ok());
  EXPECT_TRUE(fs->RunningLogs(0)) << "a shrinking truncate is on the orphan list too";
  ASSERT_TRUE(s.Run(fs->Sync()).ok());
  ASSERT_TRUE(s.Run(fs->Truncate("/b", 5000)).ok());
  EXPECT_FALSE(fs->RunningLogs(0)) << "growing is not";
  s.ExpectCheck();
}

TEST(Ext4LinuxTest, FsyncOfADirectoryCommitsWhatIsRunningOrDoesNothing) {
  Stack s;
  s.FormatAndMount();
  Ext4* fs = s.fs_ptr();
  ASSERT_TRUE(s.Run(fs->Mkdir("/d")).ok());
  ASSERT_TRUE(s.Run(fs->Sync()).ok());
  FsResult<Fd> dir = s.Run(fs->Open("/d", kRdOnly | kDirectory));
  ASSERT_TRUE(dir.ok());
  // Nothing running: no commit and no flush (the kernel's
  // jbd2_journal_force_commit with no transaction).
  uint64_t commits = fs->commits(), flushes = s.device().requests(ssd::BlockOp::kFlush);
  ASSERT_TRUE(s.Run(fs->Fsync(dir.value)).ok());
  EXPECT_EQ(fs->commits(), commits);
  EXPECT_EQ(s.device().requests(ssd::BlockOp::kFlush), flushes);
  // A change anywhere (not in /d) is running: it commits, with the commit
  // block's one flush.
  ASSERT_TRUE(s.Run(fs->Mkdir("/elsewhere")).ok());
  ASSERT_TRUE(s.Run(fs->Fdatasync(dir.value)).ok());
  EXPECT_EQ(fs->commits(), commits + 1);
  EXPECT_EQ(s.device().requests(ssd::BlockOp::kFlush), flushes + 1);
  EXPECT_FALSE(fs->RunningLogs(0));
  s.Run(fs->Close(dir.value));
}

TEST(Ext4LinuxTest, SyncFlushesTheCacheOnce) {
  Stack s;
  s.FormatAndMount();
  Ext4* fs = s.fs_ptr();
  ASSERT_TRUE(s.Run(Put(fs, "/a", 65536)));
  uint64_t flushes = s.device().requests(ssd::BlockOp::kFlush);
  const uint64_t commits = fs->commits();
  ASSERT_TRUE(s.Run(fs->Sync()).ok());
  EXPECT_EQ(fs->commits(), commits + 1);
  EXPECT_EQ(s.device().requests(ssd::BlockOp::kFlush), flushes + 1) << "the commit block's flush covers the data";
  // Nothing to commit: one flush of its own (ext4_sync_fs's needs_barrier).
  flushes = s.device().requests(ssd::BlockOp::kFlush);
  ASSERT_TRUE(s.Run(fs->Sync()).ok());
  EXPECT_EQ(s.device().requests(ssd::BlockOp::kFlush), flushes + 1);
  // The data survive a cut that keeps nothing volatile.
  s.PowerCut([](BlockNo, bool) { return false; });
  ASSERT_TRUE(s.Mount().ok());
  FsResult<FileStat> st = s.Run(s.fs().Stat("/a"));
  ASSERT_TRUE(st.ok());
  EXPECT_EQ(st.value.size, 65536u);
  s.ExpectCheck();
}

}  // namespace
}  // namespace fs::ext4
