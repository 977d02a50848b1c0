// The ext4 model: layout, the POSIX calls, delayed allocation and mballoc
// placement, htree directories, the journal (commit, wrap-around,
// checkpoint, replay, revoke), orphans, and fsck after remounts.
#include <algorithm>
#include <map>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fs/ext4/ext4_test_util.h"
#include "sim/task.h"

namespace fs::ext4 {
namespace {

using testing::Pattern;
using testing::Stack;

sim::Task<std::vector<uint8_t>> ReadAll(Ext4* fs, std::string path) {
  FsResult<Fd> fd = co_await fs->Open(path, kRdOnly);
  if (!fd.ok()) co_return std::vector<uint8_t>{};
  FsResult<FileStat> st = co_await fs->Fstat(fd.value);
  std::vector<uint8_t> out(st.value.size);
  FsResult<uint64_t> r = co_await fs->Pread(fd.value, 0, out);
  out.resize(r.value);
  co_await fs->Close(fd.value);
  co_return out;
}

sim::Task<bool> WriteFile(Ext4* fs, std::string path, std::vector<uint8_t> data, bool fsync) {
  FsResult<Fd> fd = co_await fs->Open(path, kCreat | kRdWr | kTrunc);
  if (!fd.ok()) co_return false;
  FsResult<uint64_t> w = co_await fs->Pwrite(fd.value, 0, data, data.size());
  if (!w.ok()) co_return false;
  if (fsync && !(co_await fs->Fsync(fd.value)).ok()) co_return false;
  co_await fs->Close(fd.value);
  co_return true;
}

TEST(Ext4LayoutTest, MatchesMke2fsDefaults) {
  // 1 GiB: 8 groups of 32,768 blocks, 8,192 inodes per group (16 KiB per
  // inode), 512 inode-table blocks per group, a 32 MiB journal.
  const Layout l = ComputeLayout(262144, 32768, 16384, 256, 16, 0).value();
  EXPECT_EQ(l.groups, 8u);
  EXPECT_EQ(l.inodes_per_group, 8192u);
  EXPECT_EQ(l.itable_blocks, 512u);
  EXPECT_EQ(l.gdt_blocks, 1u);
  EXPECT_EQ(l.journal_blocks, 8192u);
  // flex_bg: every group's bitmaps sit in group 0, after the descriptors.
  EXPECT_EQ(l.block_bitmap[0], 2u);
  EXPECT_EQ(l.block_bitmap[7], 9u);
  EXPECT_EQ(l.inode_bitmap[0], 10u);
  EXPECT_EQ(l.inode_table[0], 18u);
  EXPECT_EQ(l.inode_table[1], 18u + 512);
  EXPECT_TRUE(l.has_super[1] && l.has_super[3] && l.has_super[5] && l.has_super[7]);
  EXPECT_FALSE(l.has_super[2] || l.has_super[4] || l.has_super[6]);
  EXPECT_EQ(DefaultJournalBlocks(262143), 4096u);
  EXPECT_EQ(DefaultJournalBlocks(uint64_t{1} << 30), 262144u);
  EXPECT_FALSE(ComputeLayout(1000, 32768, 16384, 256, 16, 0).ok());
}

TEST(Ext4Test, FormatMountsCleanAndEmpty) {
  Stack s;
  s.FormatAndMount();
  s.ExpectCheck();
  FsResult<std::vector<std::string>> l = s.Run(s.fs().Readdir("/"));
  ASSERT_TRUE(l.ok());
  EXPECT_TRUE(l.value.empty());
  s.Remount();
  s.ExpectCheck();
}

TEST(Ext4Test, DataAndNamesSurviveRemount) {
  Stack s;
  s.FormatAndMount();
  Ext4* fs = s.fs_ptr();
  ASSERT_TRUE(s.Run(fs->Mkdir("/d")).ok());
  ASSERT_TRUE(s.Run(fs->Mkdir("/d/e")).ok());
  const auto a = Pattern(100000, 1), b = Pattern(5000, 2);
  ASSERT_TRUE(s.Run(WriteFile(fs, "/d/a", a, false)));
  ASSERT_TRUE(s.Run(WriteFile(fs, "/d/e/b", b, false)));
  ASSERT_TRUE(s.Run(fs->Link("/d/a", "/a2")).ok());
  ASSERT_TRUE(s.Run(fs->Rename("/d/e/b", "/b")).ok());
  EXPECT_EQ(s.Run(ReadAll(fs, "/d/a")), a);
  s.ExpectCheck();
  s.Remount();
  s.ExpectCheck();
  fs = s.fs_ptr();
  EXPECT_EQ(s.Run(ReadAll(fs, "/d/a")), a);
  EXPECT_EQ(s.Run(ReadAll(fs, "/a2")), a);
  EXPECT_EQ(s.Run(ReadAll(fs, "/b")), b);
  EXPECT_EQ(s.Run(fs->Stat("/d/e/b")).err, Errno::kNoEnt);
  EXPECT_EQ(s.Run(fs->Stat("/d/a")).value.nlink, 2u);
  EXPECT_EQ(s.Run(fs->Rmdir("/d")).err, Errno::kNotEmpty);
  ASSERT_TRUE(s.Run(fs->Unlink("/d/a")).ok());
  ASSERT_TRUE(s.Run(fs->Rmdir("/d/e")).ok());
  ASSERT_TRUE(s.Run(fs->Rmdir("/d")).ok());
  s.ExpectCheck();
  s.Remount();
  s.ExpectCheck();
  EXPECT_EQ(s.Run(ReadAll(s.fs_ptr(), "/a2")), a);
}

TEST(Ext4Test, DelayedAllocationPlacesAWholeFileInOneExtentAtWriteback) {
  Stack s;
  s.FormatAndMount();
  Ext4* fs = s.fs_ptr();
  FsResult<Fd> fd = s.Run(fs->Open("/big", kCreat | kRdWr));
  ASSERT_TRUE(fd.ok());
  // Written in 64 KiB pieces: nothing is allocated until writeback.
  for (uint64_t off = 0; off < (4u << 20); off += 65536) ASSERT_TRUE(s.Run(fs->Pwrite(fd.value, off, {}, 65536)).ok());
  const uint32_t ino = static_cast<uint32_t>(s.Run(fs->Fstat(fd.value)).value.ino);
  EXPECT_EQ(fs->BlockOf(ino, 0), 0u);
  ASSERT_TRUE(s.Run(fs->Fsync(fd.value)).ok());
  const uint32_t first = fs->BlockOf(ino, 0);
  ASSERT_NE(first, 0u);
  for (uint64_t i = 1; i < 1024; ++i) ASSERT_EQ(fs->BlockOf(ino, i), first + i) << "block " << i;
  // Files go to the second group of the flex group (ext4_inode_to_goal_block).
  EXPECT_EQ(fs->layout().GroupOf(first), 1u);
  s.ExpectCheck();
}

TEST(Ext4Test, SmallFilesShareTheLocalityGroupPreallocation) {
  Stack s;
  s.FormatAndMount();
  Ext4* fs = s.fs_ptr();
  std::vector<uint32_t> firsts;
  for (int i = 0; i < 8; ++i) {
    const std::string p = "/s" + std::to_string(i);
    ASSERT_TRUE(s.Run(WriteFile(fs, p, Pattern(8192, i), true)));
    firsts.push_back(fs->BlockOf(static_cast<uint32_t>(s.Run(fs->Stat(p)).value.ino), 0));
  }
  // Each 2-block file follows the previous one.
  for (size_t i = 1; i < firsts.size(); ++i) EXPECT_EQ(firsts[i], firsts[i - 1] + 2);
  s.ExpectCheck();
}

TEST(Ext4Test, LargeDirectoriesBecomeHashedAndReadInHashOrder) {
  Stack s;
  s.FormatAndMount();
  Ext4* fs = s.fs_ptr();
  ASSERT_TRUE(s.Run(fs->Mkdir("/d")).ok());
  std::vector<std::string> names;
  for (int i = 0; i < 3000; ++i) {
    names.push_back("file_with_a_longish_name_" + std::to_string(i));
    FsResult<Fd> fd = s.Run(fs->Open("/d/" + names.back(), kCreat | kWrOnly));
    ASSERT_TRUE(fd.ok()) << i;
    s.Run(fs->Close(fd.value));
  }
  FsResult<FileStat> st = s.Run(fs->Stat("/d"));
  // 3,000 entries of 40 bytes need at least 30 leaves of 4,084 bytes.
  EXPECT_GT(st.value.size, 30u * kBlockSize);
  FsResult<std::vector<std::string>> l = s.Run(fs->Readdir("/d"));
  ASSERT_EQ(l.value.size(), names.size());
  std::vector<std::string> sorted = l.value;
  std::sort(sorted.begin(), sorted.end());
  std::vector<std::string> want = names;
  std::sort(want.begin(), want.end());
  EXPECT_EQ(sorted, want);
  EXPECT_NE(l.value, sorted) << "an indexed directory reads in hash order, not name order";
  s.ExpectCheck();
  for (int i = 0; i < 3000; i += 2) ASSERT_TRUE(s.Run(fs->Unlink("/d/" + names[i])).ok());
  s.ExpectCheck();
  s.Remount();
  s.ExpectCheck();
  EXPECT_EQ(s.Run(s.fs().Readdir("/d")).value.size(), 1500u);
  EXPECT_EQ(s.Run(s.fs().Stat("/d/" + names[1])).err, Errno::kOk);
  EXPECT_EQ(s.Run(s.fs().Stat("/d/" + names[0])).err, Errno::kNoEnt);
}

TEST(Ext4Test, FsyncedDataSurvivesAPowerCutThatLosesEverythingVolatile) {
  Stack s;
  s.FormatAndMount();
  Ext4* fs = s.fs_ptr();
  const auto a = Pattern(300000, 7);
  ASSERT_TRUE(s.Run(WriteFile(fs, "/kept", a, true)));
  ASSERT_TRUE(s.Run(WriteFile(fs, "/notsynced", Pattern(9000, 8), false)));
  s.PowerCut([](BlockNo, bool) { return false; });
  ASSERT_TRUE(s.Mount().ok());
  s.ExpectCheck();
  EXPECT_EQ(s.Run(ReadAll(s.fs_ptr(), "/kept")), a);
  // The unsynced file's creation may be lost with its transaction; if its
  // name survived, its size is what was committed (no stale blocks).
  FsResult<FileStat> st = s.Run(s.fs().Stat("/notsynced"));
  if (st.ok()) EXPECT_TRUE(st.value.size == 0 || st.value.size == 9000);
}

TEST(Ext4Test, TheJournalWrapsAndCheckpointsWhenFull) {
  Ext4Config cfg = testing::TestConfig();
  cfg.mkfs.journal_size = sim::MiB(4);  // 1,024 blocks: the smallest mke2fs makes
  Stack s(256ull << 20, cfg);
  s.FormatAndMount();
  Ext4* fs = s.fs_ptr();
  // Each fsync commits the directory, inode, bitmap and descriptor blocks.
  for (int i = 0; i < 1200; ++i) {
    const std::string p = "/dir" + std::to_string(i % 40);
    if (i < 40) ASSERT_TRUE(s.Run(fs->Mkdir(p)).ok());
    ASSERT_TRUE(s.Run(WriteFile(fs, p + "/f" + std::to_string(i), Pattern(5000, i), true))) << i;
  }
  EXPECT_GT(fs->commits(), 1000u);
  EXPECT_GT(s.stats().Value("fs.journal.checkpoints"), 0);
  EXPECT_GT(s.stats().Value("fs.journal.blocks"), 1024 * 3);
  s.ExpectCheck();
  // A cut now replays what the log holds past its tail.
  s.PowerCut([](BlockNo, bool completed) { return completed; });
  ASSERT_TRUE(s.Mount().ok());
  s.ExpectCheck();
  for (int i = 0; i < 1200; i += 97)
    EXPECT_EQ(s.Run(ReadAll(s.fs_ptr(), "/dir" + std::to_string(i % 40) + "/f" + std::to_string(i))),
              Pattern(5000, i))
        << i;
}

TEST(Ext4Test, AFileUnlinkedWhileOpenIsFreedAtMountAfterACut) {
  Stack s;
  s.FormatAndMount();
  Ext4* fs = s.fs_ptr();
  const uint64_t free0 = fs->free_blocks();
  FsResult<Fd> fd = s.Run(fs->Open("/tmpfile", kCreat | kRdWr));
  ASSERT_TRUE(s.Run(fs->Pwrite(fd.value, 0, {}, 1 << 20)).ok());
  ASSERT_TRUE(s.Run(fs->Fsync(fd.value)).ok());
  ASSERT_TRUE(s.Run(fs->Unlink("/tmpfile")).ok());
  ASSERT_TRUE(s.Run(fs->Sync()).ok());
  EXPECT_LT(fs->free_blocks(), free0 - 200);  // still held by the open file
  s.ExpectCheck();
  s.PowerCut([](BlockNo, bool) { return false; });
  ASSERT_TRUE(s.Mount().ok());
  s.ExpectCheck();
  EXPECT_GE(s.fs().free_blocks() + 8, free0);
}

// A directory block freed and reused as file data: the revoke record keeps
// replay from writing the old directory content over the data.
TEST(Ext4Test, RevokedDirectoryBlocksAreNotReplayedOverReusedData) {
  Stack s;
  s.FormatAndMount();
  Ext4* fs = s.fs_ptr();
  ASSERT_TRUE(s.Run(fs->Mkdir("/d")).ok());
  for (int i = 0; i < 600; ++i) {
    FsResult<Fd> fd = s.Run(fs->Open("/d/name_" + std::to_string(i), kCreat | kWrOnly));
    s.Run(fs->Close(fd.value));
  }
  ASSERT_TRUE(s.Run(fs->Sync()).ok());
  for (int i = 0; i < 600; ++i) ASSERT_TRUE(s.Run(fs->Unlink("/d/name_" + std::to_string(i))).ok());
  ASSERT_TRUE(s.Run(fs->Rmdir("/d")).ok());
  ASSERT_TRUE(s.Run(fs->Sync()).ok());
  // New files take the freed blocks.
  std::vector<std::vector<uint8_t>> data;
  for (int i = 0; i < 40; ++i) {
    data.push_back(Pattern(4096 * 3, 100 + i));
    ASSERT_TRUE(s.Run(WriteFile(fs, "/n" + std::to_string(i), data.back(), true)));
  }
  s.PowerCut([](BlockNo, bool) { return false; });
  ASSERT_TRUE(s.Mount().ok());
  s.ExpectCheck();
  for (int i = 0; i < 40; ++i) EXPECT_EQ(s.Run(ReadAll(s.fs_ptr(), "/n" + std::to_string(i))), data[i]) << i;
}

TEST(Ext4Test, DropCachesMakesTheNextReadsGoToTheDevice) {
  Ext4Config c = testing::TestConfig();
  c.atime = "noatime";  // reads leave the inode clean
  Stack s(256ull << 20, c);
  s.FormatAndMount();
  Ext4* fs = s.fs_ptr();
  ASSERT_TRUE(s.Run(WriteFile(fs, "/f", Pattern(200000, 3), true)));
  ASSERT_TRUE(s.Run(fs->Sync()).ok());
  const double before = s.stats().Value("fs.blocks_read.data");
  s.Run(ReadAll(fs, "/f"));
  EXPECT_EQ(s.stats().Value("fs.blocks_read.data"), before);  // cached
  fs->DropCaches();
  double meta_before = s.stats().Value("fs.blocks_read.meta");
  EXPECT_EQ(s.Run(ReadAll(fs, "/f")), Pattern(200000, 3));
  EXPECT_GE(s.stats().Value("fs.blocks_read.data"), before + 49);
  // The metadata sync wrote home is still on jbd2's checkpoint list: kept.
  EXPECT_EQ(s.stats().Value("fs.blocks_read.meta"), meta_before);
}

// JBD2's T_LOCKED phase: a commit that starts while a handle is open (a
// mkdir in its CPU time, 1 ms here) waits for it to stop before it takes
// the transaction's blocks, and a handle that starts meanwhile (another
// mkdir, in another directory) waits for the commit to move on; the first
// mkdir's change is in the commit, the second's in the next transaction.
TEST(Ext4Test, ACommitWaitsForOpenHandlesAndNewHandlesWaitForTheLockedPhase) {
  Ext4Config c = testing::TestConfig();
  c.cpu.namespace_op = sim::Ms(1);
  Stack s(256ull << 20, c);
  s.FormatAndMount();
  Ext4* fs = s.fs_ptr();
  ASSERT_TRUE(s.Run(WriteFile(fs, "/f", Pattern(5000, 1), false)));
  // Two parents, so the second mkdir does not wait for the first's i_rwsem.
  ASSERT_TRUE(s.Run(fs->Mkdir("/d1")).ok());
  ASSERT_TRUE(s.Run(fs->Mkdir("/d2")).ok());
  const sim::SimTime t0 = s.q().now();
  sim::SimTime first_done, second_done, fsync_done;
  sim::Spawn(&s.q(), [](Ext4* fs, sim::SimTime* done, sim::EventQueue* q) -> sim::Task<void> {
    EXPECT_TRUE((co_await fs->Mkdir("/d1/a")).ok());
    *done = q->now();
  }(fs, &first_done, &s.q()));
  sim::Spawn(&s.q(), [](Ext4* fs, sim::SimTime* done, sim::EventQueue* q) -> sim::Task<void> {
    co_await sim::Delay(q, sim::Us(100));  // the first mkdir is in its handle: fsync commits
    FsResult<Fd> fd = co_await fs->Open("/f", kRdWr);
    EXPECT_TRUE(fd.ok());
    EXPECT_TRUE((co_await fs->Fsync(fd.value)).ok());
    *done = q->now();
  }(fs, &fsync_done, &s.q()));
  sim::Spawn(&s.q(), [](Ext4* fs, sim::SimTime* done, sim::EventQueue* q) -> sim::Task<void> {
    co_await sim::Delay(q, sim::Us(300));  // the commit is locked, waiting for the first mkdir
    EXPECT_TRUE((co_await fs->Mkdir("/d2/b")).ok());
    *done = q->now();
  }(fs, &second_done, &s.q()));
  while ((first_done == sim::SimTime() || second_done == sim::SimTime() || fsync_done == sim::SimTime()) &&
         s.q().Step()) {
  }
  ASSERT_NE(second_done, sim::SimTime());
  const sim::StatsRegistry& st = s.stats();
  // The commit waited for the first mkdir's handle (about 0.9 ms of its 1 ms).
  const sim::Histogram* locked = st.FindHistogram("fs.journal.commit_locked");
  ASSERT_NE(locked, nullptr);
  EXPECT_GE(locked->max(), sim::Us(800).ns());
  // The second mkdir's handle waited for the locked phase to end.
  EXPECT_EQ(st.Value("fs.journal.handle_locked_waits"), 1);
  const sim::Histogram* waited = st.FindHistogram("fs.journal.handle_locked_wait");
  ASSERT_NE(waited, nullptr);
  EXPECT_GE(waited->max(), sim::Us(600).ns());
  // So it ended at least 1 ms (its own CPU) after the first one's end.
  EXPECT_GE((second_done - t0).ns(), (first_done - t0).ns() + sim::Ms(1).ns());
  // The committed transaction holds /a, not /b: a power cut now keeps /a.
  s.PowerCut([](BlockNo, bool completed) { return completed; });
  ASSERT_TRUE(s.Mount().ok());
  EXPECT_TRUE(s.Run(s.fs().Stat("/d1/a")).ok());
  EXPECT_FALSE(s.Run(s.fs().Stat("/d2/b")).ok());
  s.ExpectCheck();
}


// The locked phase with a handle blocked on a cold read: after a remount
// (cold cache) a shrinking truncate to mid-block reads the partial last
// block under its handle (ext4_truncate, ext4_block_truncate_page; 2 ms
// per device read here) while an fsync's commit locks the transaction: the
// commit waits for that read, and a mkdir that starts meanwhile waits for
// the commit to move on. Run twice: the figures are the same
// (determinism).
struct ColdHandleRun {
  int64_t first_done = 0, fsync_done = 0, second_done = 0;
  int64_t commit_locked_max = 0, handle_wait_max = 0;
  double handle_waits = 0, data_reads_in_run = 0, meta_reads_in_run = 0;
  bool first_survives_cut = false;
};

// sparse: /g has 21 one-block extents (an extent tree with a leaf block)
// and is truncated to a block boundary, so the read under the handle is
// the leaf's (ext4_ext_remove_space) instead of the partial block's.
ColdHandleRun RunColdHandle(bool sparse) {
  Stack s;
  s.FormatAndMount();
  Ext4* fs = s.fs_ptr();
  if (sparse) {
    FsResult<Fd> g = s.Run(fs->Open("/g", kCreat | kRdWr));
    EXPECT_TRUE(g.ok());
    const auto blk = Pattern(4096, 3);
    for (uint64_t i = 0; i <= 40; i += 2) EXPECT_TRUE(s.Run(fs->Pwrite(g.value, i * 4096, blk, blk.size())).ok());
    EXPECT_TRUE(s.Run(fs->Close(g.value)).ok());
  } else {
    EXPECT_TRUE(s.Run(WriteFile(fs, "/g", Pattern(8192, 3), false)));
  }
  EXPECT_TRUE(s.Run(WriteFile(fs, "/f", Pattern(5000, 1), false)));
  s.Remount();
  fs = s.fs_ptr();
  // Warm what the calls look up (before their handles): /, /g, /f.
  EXPECT_TRUE(s.Run(fs->Stat("/g")).ok());
  FsResult<Fd> fd = s.Run(fs->Open("/f", kRdWr));
  EXPECT_TRUE(fd.ok());
  const auto more = Pattern(100, 2);
  EXPECT_TRUE(s.Run(fs->Pwrite(fd.value, 8192, more, more.size())).ok());  // a new block: the fsync commits
  const double data_before = s.stats().Value("fs.blocks_read.data");
  const double meta_before = s.stats().Value("fs.blocks_read.meta");
  const uint64_t new_size = sparse ? 4096 : 1000;
  s.device().set_extra_latency([](const ssd::BlockRequest& r) {
    return r.op == ssd::BlockOp::kRead ? sim::Ms(2) : sim::SimTime();
  });
  const sim::SimTime t0 = s.q().now();
  sim::SimTime first_done, second_done, fsync_done;
  sim::Spawn(&s.q(), [](Ext4* fs, uint64_t size, sim::SimTime* done, sim::EventQueue* q) -> sim::Task<void> {
    EXPECT_TRUE((co_await fs->Truncate("/g", size)).ok());
    *done = q->now();
  }(fs, new_size, &first_done, &s.q()));
  sim::Spawn(&s.q(), [](Ext4* fs, Fd f, sim::SimTime* done, sim::EventQueue* q) -> sim::Task<void> {
    co_await sim::Delay(q, sim::Us(100));  // the truncate waits for its block read, in its handle
    EXPECT_TRUE((co_await fs->Fsync(f)).ok());
    *done = q->now();
  }(fs, fd.value, &fsync_done, &s.q()));
  sim::Spawn(&s.q(), [](Ext4* fs, sim::SimTime* done, sim::EventQueue* q) -> sim::Task<void> {
    co_await sim::Delay(q, sim::Ms(1));  // the commit is locked, waiting for the read
    EXPECT_TRUE((co_await fs->Mkdir("/e")).ok());
    *done = q->now();
  }(fs, &second_done, &s.q()));
  while ((first_done == sim::SimTime() || second_done == sim::SimTime() || fsync_done == sim::SimTime()) &&
         s.q().Step()) {
  }
  ColdHandleRun r;
  r.first_done = (first_done - t0).ns();
  r.fsync_done = (fsync_done - t0).ns();
  r.second_done = (second_done - t0).ns();
  const sim::StatsRegistry& st = s.stats();
  r.commit_locked_max = st.FindHistogram("fs.journal.commit_locked")->max();
  r.handle_wait_max = st.FindHistogram("fs.journal.handle_locked_wait")->max();
  r.handle_waits = st.Value("fs.journal.handle_locked_waits");
  r.data_reads_in_run = st.Value("fs.blocks_read.data") - data_before;
  r.meta_reads_in_run = st.Value("fs.blocks_read.meta") - meta_before;
  // The truncate whose handle the commit waited for is in the fsync's commit.
  s.PowerCut([](BlockNo, bool completed) { return completed; });
  EXPECT_TRUE(s.Mount().ok());
  const FsResult<FileStat> g = s.Run(s.fs().Stat("/g"));
  r.first_survives_cut = g.ok() && g.value.size == new_size;
  s.ExpectCheck();
  return r;
}

class Ext4ColdHandleTest : public ::testing::TestWithParam<bool> {};

TEST_P(Ext4ColdHandleTest, ACommitWaitsForAHandleBlockedOnAColdRead) {
  const bool sparse = GetParam();
  const ColdHandleRun r = RunColdHandle(sparse);
  ASSERT_NE(r.second_done, 0);
  // The truncate read its partial block, or its extent leaf, under its
  // handle (a device read).
  EXPECT_GE(sparse ? r.meta_reads_in_run : r.data_reads_in_run, 1);
  EXPECT_GE(r.first_done, sim::Ms(2).ns());
  // The commit locked ~100 us in and waited for the read to finish (~1.9 ms).
  EXPECT_GE(r.commit_locked_max, sim::Us(1500).ns());
  // So the fsync ended after the truncate, and the truncate is durable.
  EXPECT_GE(r.fsync_done, r.first_done);
  EXPECT_TRUE(r.first_survives_cut);
  // The mkdir's handle waited from 1 ms until the lock ended.
  EXPECT_GE(r.handle_waits, 1);
  EXPECT_GE(r.handle_wait_max, sim::Us(500).ns());
  EXPECT_GE(r.second_done, r.first_done);
  const ColdHandleRun again = RunColdHandle(sparse);
  EXPECT_EQ(again.first_done, r.first_done);
  EXPECT_EQ(again.fsync_done, r.fsync_done);
  EXPECT_EQ(again.second_done, r.second_done);
  EXPECT_EQ(again.commit_locked_max, r.commit_locked_max);
  EXPECT_EQ(again.handle_wait_max, r.handle_wait_max);
  EXPECT_EQ(again.handle_waits, r.handle_waits);
}

INSTANTIATE_TEST_SUITE_P(PartialBlockOrExtentLeaf, Ext4ColdHandleTest, ::testing::Bool());
TEST(Ext4Test, ErrorsAreTheKernels) {
  Stack s;
  s.FormatAndMount();
  Ext4* fs = s.fs_ptr();
  EXPECT_EQ(s.Run(fs->Open("/missing", kRdOnly)).err, Errno::kNoEnt);
  ASSERT_TRUE(s.Run(fs->Mkdir("/d")).ok());
  EXPECT_EQ(s.Run(fs->Mkdir("/d")).err, Errno::kExist);
  EXPECT_EQ(s.Run(fs->Open("/d", kRdWr)).err, Errno::kIsDir);
  EXPECT_EQ(s.Run(fs->Unlink("/d")).err, Errno::kIsDir);
  EXPECT_EQ(s.Run(fs->Rename("/d", "/d/x")).err, Errno::kInval);
  ASSERT_TRUE(s.Run(WriteFile(fs, "/f", Pattern(10, 1), false)));
  EXPECT_EQ(s.Run(fs->Open("/f/x", kCreat | kRdWr)).err, Errno::kNotDir);
  EXPECT_EQ(s.Run(fs->Link("/d", "/d2")).err, Errno::kPerm);
  EXPECT_EQ(s.Run(fs->Open(std::string(300, 'x'), kCreat | kRdWr)).err, Errno::kNameTooLong);
  EXPECT_EQ(s.Run(fs->Close(99)).err, Errno::kBadF);
}

TEST(Ext4Test, FillingTheVolumeIsEnospcNotACrash) {
  Stack s(64ull << 20);
  s.FormatAndMount();
  Ext4* fs = s.fs_ptr();
  FsResult<Fd> fd = s.Run(fs->Open("/fill", kCreat | kRdWr));
  uint64_t off = 0;
  Errno e = Errno::kOk;
  while (e == Errno::kOk && off < (128ull << 20)) {
    e = s.Run(fs->Pwrite(fd.value, off, {}, 1 << 20)).err;
    off += 1 << 20;
  }
  EXPECT_EQ(e, Errno::kNoSpc);
  ASSERT_TRUE(s.Run(fs->Fsync(fd.value)).ok());
  s.ExpectCheck();
  s.Run(fs->Close(fd.value));
  ASSERT_TRUE(s.Run(fs->Unlink("/fill")).ok());
  s.Remount();
  s.ExpectCheck();
}

TEST(Ext4Test, AnAppendFindsFreeBlocksBeforeItsGoalInTheSameGroup) {
  // A 64 MiB volume is one group. /x's next blocks would follow its last
  // extent, where the volume is full to its end; the only free space is
  // /a's, before that goal. Writeback must find it there.
  Stack s(64ull << 20);
  s.FormatAndMount();
  Ext4* fs = s.fs_ptr();
  ASSERT_TRUE(s.Run(WriteFile(fs, "/a", Pattern(16 << 20, 1), true)));
  ASSERT_TRUE(s.Run(WriteFile(fs, "/x", Pattern(64 << 10, 2), true)));
  FsResult<Fd> fill = s.Run(fs->Open("/fill", kCreat | kRdWr));
  uint64_t off = 0;
  while (s.Run(fs->Pwrite(fill.value, off, {}, 1 << 20)).ok()) off += 1 << 20;
  ASSERT_TRUE(s.Run(fs->Fsync(fill.value)).ok());
  ASSERT_TRUE(s.Run(fs->Unlink("/a")).ok());
  ASSERT_TRUE(s.Run(fs->Sync()).ok());
  // /fill grows over the last free blocks at the volume's end and wraps
  // to /a's, so nothing after /x's goal is free.
  ASSERT_TRUE(s.Run(fs->Pwrite(fill.value, off, {}, 1 << 20)).ok());
  ASSERT_TRUE(s.Run(fs->Fsync(fill.value)).ok());
  s.Run(fs->Close(fill.value));
  FsResult<Fd> x = s.Run(fs->Open("/x", kRdWr));
  const auto more = Pattern(1 << 20, 3);
  ASSERT_TRUE(s.Run(fs->Pwrite(x.value, 64 << 10, more, more.size())).ok());
  ASSERT_TRUE(s.Run(fs->Fsync(x.value)).ok());
  s.Run(fs->Close(x.value));
  std::vector<uint8_t> want = Pattern(64 << 10, 2);
  want.insert(want.end(), more.begin(), more.end());
  EXPECT_EQ(s.Run(ReadAll(fs, "/x")), want);
  s.ExpectCheck();
  s.Remount();
  s.ExpectCheck();
  EXPECT_EQ(s.Run(ReadAll(s.fs_ptr(), "/x")), want);
}

}  // namespace
}  // namespace fs::ext4
