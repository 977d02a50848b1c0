// Transactions on the F2FS model (tx_manager.h): the API's errors, what a
// running transaction shows and hides, commit, abort, and recovery after
// power cuts — scripted, and at random events with an all-or-nothing
// oracle.
#include <algorithm>
#include <cstdlib>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "fs/f2fs/f2fs_crash_oracle.h"
#include "fs/f2fs/f2fs_model_test_util.h"
#include "sim/rng.h"

namespace fs::f2fs {
namespace {

using testing::Pattern;
using testing::Stack;

using Bytes = std::vector<uint8_t>;

sim::Task<bool> Sleep(sim::EventQueue* q, sim::SimTime d) {
  co_await sim::Delay(q, d);
  co_return true;
}

F2fsConfig QuietConfig() {
  // No background checkpoint or cleaning: the tests decide what is durable.
  F2fsConfig c = testing::TestConfig();
  c.checkpoint.background = false;
  c.gc.background = false;
  return c;
}

class F2fsTxTest : public ::testing::Test {
 protected:
  explicit F2fsTxTest(F2fsConfig cfg = QuietConfig()) : s_(128ull << 20, cfg) {}
  void SetUp() override { s_.FormatAndMount(); }
  F2fs& fs() { return s_.fs(); }
  template <class T>
  T Run(sim::Task<T> t) {
    return s_.Run(std::move(t));
  }
  Fd OpenOk(const std::string& p, uint32_t flags = kCreat | kRdWr) {
    FsResult<Fd> r = Run(fs().Open(p, flags));
    EXPECT_TRUE(r.ok()) << p << ": " << ErrnoName(r.err);
    return r.value;
  }
  void WriteAt(Fd fd, uint64_t off, const Bytes& d) {
    FsResult<uint64_t> r = Run(fs().Pwrite(fd, off, d, d.size()));
    ASSERT_TRUE(r.ok()) << ErrnoName(r.err);
    ASSERT_EQ(r.value, d.size());
  }
  Bytes ReadAll(Fd fd) {
    FsResult<FileStat> st = Run(fs().Fstat(fd));
    EXPECT_TRUE(st.ok());
    Bytes out(st.value.size);
    FsResult<uint64_t> r = Run(fs().Pread(fd, 0, out));
    EXPECT_TRUE(r.ok());
    out.resize(r.value);
    return out;
  }
  Bytes ReadPath(const std::string& p) {
    FsResult<Fd> fd = Run(fs().Open(p, kRdOnly));
    if (!fd.ok()) return {};
    Bytes b = ReadAll(fd.value);
    Run(fs().Close(fd.value));
    return b;
  }
  // Creates `p` with `content` and makes it durable by a checkpoint.
  Fd Durable(const std::string& p, const Bytes& content) {
    const Fd fd = OpenOk(p);
    WriteAt(fd, 0, content);
    EXPECT_TRUE(Run(fs().Sync()).ok());
    return fd;
  }
  // Power cut that keeps every volatile write (the worst case for a
  // transaction that must leave no trace), then mount and fsck.
  void CutKeepAllAndMount() {
    s_.PowerCut([](BlockAddr, bool) { return true; });
    sim::Status st = s_.Mount();
    ASSERT_TRUE(st.ok()) << st.message();
    s_.ExpectCheck();
  }
  void CutKeepNoneAndMount() {
    s_.PowerCut([](BlockAddr, bool) { return false; });
    sim::Status st = s_.Mount();
    ASSERT_TRUE(st.ok()) << st.message();
    s_.ExpectCheck();
  }

  Stack s_;
};

TEST_F(F2fsTxTest, MisuseGetsErrors) {
  const Fd a = OpenOk("/a"), b = OpenOk("/b");
  ASSERT_TRUE(Run(fs().Mkdir("/d")).ok());
  const Fd d = OpenOk("/d", kRdOnly | kDirectory);
  const Fd ro = OpenOk("/a", kRdOnly);
  // Unknown sets.
  EXPECT_EQ(Run(fs().TxCommit(12345)).err, Errno::kNoEnt);
  EXPECT_EQ(Run(fs().TxStart(12345)).err, Errno::kNoEnt);
  EXPECT_EQ(Run(fs().TxEnd(12345)).err, Errno::kNoEnt);
  EXPECT_EQ(Run(fs().TxAdd(12345, a)).err, Errno::kNoEnt);
  // Bad descriptors and directories.
  EXPECT_EQ(Run(fs().TxAdd(0, 999)).err, Errno::kBadF);
  EXPECT_EQ(Run(fs().TxAdd(0, ro)).err, Errno::kBadF);
  EXPECT_EQ(Run(fs().TxAdd(0, d)).err, Errno::kIsDir);
  EXPECT_EQ(Run(fs().AtomicWriteStart(d)).err, Errno::kIsDir);
  // A file in one set only, once.
  FsResult<uint64_t> k1 = Run(fs().TxAdd(0, a));
  ASSERT_TRUE(k1.ok());
  EXPECT_NE(k1.value, 0u);
  EXPECT_EQ(Run(fs().TxAdd(k1.value, a)).err, Errno::kBusy);
  EXPECT_EQ(Run(fs().TxAdd(0, a)).err, Errno::kBusy);
  FsResult<uint64_t> k2 = Run(fs().TxAdd(0, b));
  ASSERT_TRUE(k2.ok());
  EXPECT_NE(k2.value, k1.value);
  EXPECT_EQ(Run(fs().TxAdd(k2.value, a)).err, Errno::kBusy);
  EXPECT_EQ(Run(fs().AtomicWriteStart(a)).err, Errno::kBusy);
  // Commit of a set not started; start twice.
  EXPECT_EQ(Run(fs().TxCommit(k1.value)).err, Errno::kInval);
  EXPECT_TRUE(Run(fs().TxStart(k1.value)).ok());
  EXPECT_EQ(Run(fs().TxStart(k1.value)).err, Errno::kInval);
  // Atomic-write calls on a file not in an atomic write (a set member is not one).
  EXPECT_EQ(Run(fs().AtomicWriteCommit(a)).err, Errno::kInval);
  EXPECT_EQ(Run(fs().AtomicWriteAbort(b)).err, Errno::kInval);
  EXPECT_TRUE(Run(fs().TxCommit(k1.value)).ok());
  EXPECT_EQ(Run(fs().TxCommit(k1.value)).err, Errno::kInval);  // committed: idle again
  EXPECT_TRUE(Run(fs().TxEnd(k1.value)).ok());
  EXPECT_EQ(Run(fs().TxEnd(k1.value)).err, Errno::kNoEnt);
  EXPECT_TRUE(Run(fs().TxEnd(k2.value)).ok());
  // After the sets are gone the files can join again.
  FsResult<uint64_t> k3 = Run(fs().TxAdd(0, a));
  EXPECT_TRUE(k3.ok());
  EXPECT_TRUE(Run(fs().TxEnd(k3.value)).ok());
  s_.ExpectCheck();
}

TEST(F2fsTxJournalTest, JournalModeRefuses) {
  F2fsConfig c = QuietConfig();
  c.durability = "journal";
  c.impl_configs.Mutable<JournalConfig>("journal").size = sim::MiB(1);
  Stack s(128ull << 20, c);
  s.FormatAndMount();
  FsResult<Fd> fd = s.Run(s.fs().Open("/a", kCreat | kRdWr));
  ASSERT_TRUE(fd.ok());
  EXPECT_EQ(s.Run(s.fs().TxAdd(0, fd.value)).err, Errno::kNotSup);
  EXPECT_EQ(s.Run(s.fs().AtomicWriteStart(fd.value)).err, Errno::kNotSup);
}

// A running transaction's writes are visible to reads and stat at once but
// reach no durable state: neither sync (a checkpoint), nor an fsync of the
// member, nor the flusher makes them survive a power cut that keeps every
// write the device received.
TEST_F(F2fsTxTest, RunningWritesAreVisibleButNeverDurable) {
  const Bytes old_a = Pattern(3 * kBlockSize + 100, 1), old_b = Pattern(5000, 2);
  const Fd a = Durable("/a", old_a);
  const Fd b = Durable("/b", old_b);
  FsResult<uint64_t> k = Run(fs().TxAdd(0, a));
  ASSERT_TRUE(k.ok());
  ASSERT_TRUE(Run(fs().TxAdd(k.value, b)).ok());
  ASSERT_TRUE(Run(fs().TxStart(k.value)).ok());
  Bytes new_a = old_a;
  const Bytes patch = Pattern(6000, 3);
  std::copy(patch.begin(), patch.end(), new_a.begin() + 1000);
  WriteAt(a, 1000, patch);
  const Bytes tail = Pattern(20000, 4);
  WriteAt(b, 5000, tail);  // append
  Bytes new_b = old_b;
  new_b.insert(new_b.end(), tail.begin(), tail.end());
  EXPECT_EQ(ReadAll(a), new_a);
  EXPECT_EQ(ReadAll(b), new_b);
  EXPECT_EQ(Run(fs().Fstat(b)).value.size, new_b.size());
  // A second descriptor sees them too.
  EXPECT_EQ(ReadPath("/b"), new_b);
  ASSERT_TRUE(Run(fs().Fsync(a)).ok());
  ASSERT_TRUE(Run(fs().Sync()).ok());
  Run(Sleep(&s_.q(), sim::Sec(2)));  // the flusher's interval passes
  EXPECT_EQ(fs().dirty_data_pages(), 0u);
  s_.ExpectCheck();
  CutKeepAllAndMount();
  EXPECT_EQ(ReadPath("/a"), old_a);
  EXPECT_EQ(ReadPath("/b"), old_b);
  EXPECT_EQ(fs().tx_recovered(), 0u);
}

// A commit makes every member's writes durable without a checkpoint (the
// master node is the commit record); roll-forward recovery replays them.
TEST_F(F2fsTxTest, CommitIsDurableByRollForward) {
  std::vector<Fd> fds;
  std::vector<Bytes> want;
  for (int i = 0; i < 4; ++i) {
    want.push_back(Pattern(10 * kBlockSize, 10 + i));
    fds.push_back(Durable("/f" + std::to_string(i), want.back()));
  }
  FsResult<uint64_t> k = Run(fs().TxAdd(0, fds[0]));
  ASSERT_TRUE(k.ok());
  for (int i = 1; i < 4; ++i) ASSERT_TRUE(Run(fs().TxAdd(k.value, fds[i])).ok());
  ASSERT_TRUE(Run(fs().TxStart(k.value)).ok());
  for (int i = 0; i < 4; ++i) {
    const Bytes d = Pattern(2 * kBlockSize + 7, 20 + i);
    const uint64_t off = (i * 3 + 1) * kBlockSize - 3;
    WriteAt(fds[i], off, d);
    if (want[i].size() < off + d.size()) want[i].resize(off + d.size());
    std::copy(d.begin(), d.end(), want[i].begin() + off);
  }
  ASSERT_TRUE(Run(fs().Ftruncate(fds[3], 5 * kBlockSize + 1)).ok());
  want[3].resize(5 * kBlockSize + 1);
  const uint64_t cps = fs().checkpoints();
  ASSERT_TRUE(Run(fs().TxCommit(k.value)).ok());
  EXPECT_EQ(fs().checkpoints(), cps) << "the commit should not need a checkpoint";
  EXPECT_EQ(fs().tx_commits(), 1u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(ReadAll(fds[i]), want[i]) << i;
  s_.ExpectCheck();
  CutKeepNoneAndMount();
  EXPECT_EQ(fs().tx_recovered(), 1u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(ReadPath("/f" + std::to_string(i)), want[i]) << i;
}

// Abort (TxEnd of a running set) drops the writes, truncates included.
TEST_F(F2fsTxTest, AbortRestoresThePreviousState) {
  const Bytes old_a = Pattern(4 * kBlockSize, 5);
  const Fd a = Durable("/a", old_a);
  FsResult<uint64_t> k = Run(fs().TxAdd(0, a));
  ASSERT_TRUE(k.ok());
  ASSERT_TRUE(Run(fs().TxStart(k.value)).ok());
  ASSERT_TRUE(Run(fs().Ftruncate(a, 10)).ok());
  WriteAt(a, 8 * kBlockSize, Pattern(100, 6));
  EXPECT_EQ(Run(fs().Fstat(a)).value.size, 8 * kBlockSize + 100);
  Bytes mid = ReadAll(a);
  EXPECT_TRUE(std::equal(old_a.begin(), old_a.begin() + 10, mid.begin()));
  EXPECT_TRUE(std::all_of(mid.begin() + 10, mid.begin() + 8 * kBlockSize, [](uint8_t c) { return c == 0; }));
  ASSERT_TRUE(Run(fs().TxEnd(k.value)).ok());
  EXPECT_EQ(ReadAll(a), old_a);
  // The file is ordinary again: a plain write and fsync are durable.
  WriteAt(a, 0, Pattern(10, 7));
  ASSERT_TRUE(Run(fs().Fsync(a)).ok());
  Bytes want = old_a;
  const Bytes p = Pattern(10, 7);
  std::copy(p.begin(), p.end(), want.begin());
  CutKeepNoneAndMount();
  EXPECT_EQ(ReadPath("/a"), want);
}

// Truncate and extend inside a transaction, over several commits of one set.
TEST_F(F2fsTxTest, TruncateExtendAndRepeatedCommits) {
  const Bytes old_a = Pattern(6 * kBlockSize + 5, 8);
  const Fd a = Durable("/a", old_a);
  FsResult<uint64_t> k = Run(fs().TxAdd(0, a));
  ASSERT_TRUE(k.ok());
  Bytes want = old_a;
  for (int round = 0; round < 3; ++round) {
    ASSERT_TRUE(Run(fs().TxStart(k.value)).ok());
    const uint64_t cut = kBlockSize + 17 * (round + 1);
    ASSERT_TRUE(Run(fs().Ftruncate(a, cut)).ok());
    want.resize(cut);
    const Bytes d = Pattern(3000, 30 + round);
    const uint64_t off = 4 * kBlockSize + 11;
    WriteAt(a, off, d);
    want.resize(off + d.size());
    std::copy(d.begin(), d.end(), want.begin() + off);
    EXPECT_EQ(ReadAll(a), want);
    ASSERT_TRUE(Run(fs().TxCommit(k.value)).ok());
    EXPECT_EQ(ReadAll(a), want);
    s_.ExpectCheck();
  }
  ASSERT_TRUE(Run(fs().TxEnd(k.value)).ok());
  CutKeepNoneAndMount();
  EXPECT_EQ(ReadPath("/a"), want);
}

// F2FS's single-file atomic write: all or nothing for one file.
TEST_F(F2fsTxTest, SingleFileAtomicWrite) {
  const Bytes old_a = Pattern(8 * kBlockSize, 9);
  const Fd a = Durable("/a", old_a);
  ASSERT_TRUE(Run(fs().AtomicWriteStart(a)).ok());
  Bytes want = old_a;
  for (int i = 0; i < 3; ++i) {
    const Bytes d = Pattern(kBlockSize, 40 + i);
    WriteAt(a, (i * 3) * kBlockSize, d);
    std::copy(d.begin(), d.end(), want.begin() + i * 3 * kBlockSize);
  }
  ASSERT_TRUE(Run(fs().AtomicWriteCommit(a)).ok());
  EXPECT_EQ(Run(fs().AtomicWriteCommit(a)).err, Errno::kInval);  // ordinary again
  CutKeepNoneAndMount();
  EXPECT_EQ(ReadPath("/a"), want);
  // An uncommitted one leaves no trace.
  const Fd a2 = OpenOk("/a", kRdWr);
  ASSERT_TRUE(Run(fs().AtomicWriteStart(a2)).ok());
  WriteAt(a2, 0, Pattern(5 * kBlockSize, 50));
  CutKeepAllAndMount();
  EXPECT_EQ(ReadPath("/a"), want);
}

// A member whose name no checkpoint holds yet commits by a checkpoint.
TEST_F(F2fsTxTest, NewFileCommitsByCheckpoint) {
  const Fd a = Durable("/a", Pattern(100, 1));
  const Fd n = OpenOk("/new");
  FsResult<uint64_t> k = Run(fs().TxAdd(0, a));
  ASSERT_TRUE(k.ok());
  ASSERT_TRUE(Run(fs().TxAdd(k.value, n)).ok());
  ASSERT_TRUE(Run(fs().TxStart(k.value)).ok());
  const Bytes da = Pattern(9000, 2), dn = Pattern(7000, 3);
  WriteAt(a, 0, da);
  WriteAt(n, 0, dn);
  ASSERT_TRUE(Run(fs().TxCommit(k.value)).ok());
  EXPECT_EQ(fs().tx_commit_checkpoints(), 1u);
  CutKeepNoneAndMount();
  EXPECT_EQ(ReadPath("/a"), da);
  EXPECT_EQ(ReadPath("/new"), dn);
}

// ---- Stealing and shadow GC.

F2fsConfig SmallCacheConfig() {
  F2fsConfig c = QuietConfig();
  c.page_cache.memory = sim::MiB(4);  // 1,024 pages
  return c;
}

class F2fsTxStealTest : public F2fsTxTest {
 protected:
  F2fsTxStealTest() : F2fsTxTest(SmallCacheConfig()) {}

  // Four files of `old_pages` pages each, checkpointed; then one running
  // transaction over them writing `new_pages` pages to each (far more
  // than the page cache holds).
  void StartBig(uint64_t old_pages, uint64_t new_pages) {
    for (int i = 0; i < 4; ++i) {
      old_.push_back(Pattern(old_pages * kBlockSize, 60 + i));
      fds_.push_back(Durable("/big" + std::to_string(i), old_[i]));
    }
    free_before_tx_ = fs().free_user_blocks();
    FsResult<uint64_t> k = Run(fs().TxAdd(0, fds_[0]));
    ASSERT_TRUE(k.ok());
    key_ = k.value;
    for (int i = 1; i < 4; ++i) ASSERT_TRUE(Run(fs().TxAdd(key_, fds_[i])).ok());
    ASSERT_TRUE(Run(fs().TxStart(key_)).ok());
    for (int i = 0; i < 4; ++i) {
      new_.push_back(Pattern(new_pages * kBlockSize, 70 + i));
      for (uint64_t off = 0; off < new_[i].size(); off += 256 * kBlockSize) {
        const uint64_t n = std::min<uint64_t>(256 * kBlockSize, new_[i].size() - off);
        WriteAt(fds_[i], off, Bytes(new_[i].begin() + off, new_[i].begin() + off + n));
      }
    }
  }
  std::vector<Fd> fds_;
  std::vector<Bytes> old_, new_;
  uint64_t key_ = 0;
  uint64_t free_before_tx_ = 0;
};

// A transaction of 16 MiB over four files with a 4 MiB page cache: its
// pages are written early (stolen), stay out of the files until the
// commit, and the commit makes all of it durable at once.
TEST_F(F2fsTxStealTest, TransactionLargerThanThePageCache) {
  StartBig(64, 1024);
  EXPECT_GT(fs().tx_stolen_pages(), 3000u);
  EXPECT_GT(fs().tx_stolen_blocks(), 3000u);
  s_.ExpectCheck();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(ReadAll(fds_[i]), new_[i]) << i;  // read back through the stolen blocks
  // A checkpoint while the stolen blocks exist, then a cut keeping every
  // write: the mount frees them and the files are as before.
  ASSERT_TRUE(Run(fs().Sync()).ok());
  const uint64_t free_before = fs().free_user_blocks() + fs().tx_stolen_blocks();
  CutKeepAllAndMount();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(ReadPath("/big" + std::to_string(i)), old_[i]) << i;
  EXPECT_EQ(fs().free_user_blocks(), free_before);
}

TEST_F(F2fsTxStealTest, CommitTakesTheStolenBlocks) {
  StartBig(64, 1024);
  ASSERT_TRUE(Run(fs().Sync()).ok());  // the stolen blocks are in a checkpoint's SIT
  ASSERT_TRUE(Run(fs().TxCommit(key_)).ok());
  EXPECT_EQ(fs().tx_stolen_blocks(), 0u);
  s_.ExpectCheck();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(ReadAll(fds_[i]), new_[i]) << i;
  // Recovered by roll-forward over a checkpoint that counted them stolen.
  CutKeepNoneAndMount();
  EXPECT_EQ(fs().tx_recovered(), 1u);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(ReadPath("/big" + std::to_string(i)), new_[i]) << i;
}

// The SSA is updated in place: a commit re-owns its stolen blocks there, and
// the next checkpoint writes that SSA before its pack is durable. A cut in
// between mounts the previous pack (which counted the blocks stolen) over
// the newer SSA: the pack's own list of stolen blocks is what the mount
// frees. Cuts at every point of that checkpoint; each mount recovers the
// commit by roll-forward or finds it checkpointed, and the checker is clean.
TEST_F(F2fsTxStealTest, CutsThroughTheCheckpointAfterACommitOfStolenBlocks) {
  struct Case : F2fsTxStealTest {
    void TestBody() override {}
    // Returns whether the checkpoint finished within `k` events.
    bool CutAt(uint64_t k) {
      SetUp();
      StartBig(16, 600);
      EXPECT_GT(fs().tx_stolen_blocks(), 1000u);
      EXPECT_TRUE(Run(fs().Sync()).ok());  // the pack counts and lists the stolen blocks
      EXPECT_TRUE(Run(fs().TxCommit(key_)).ok());
      sim::Task<FsStatus> sync = fs().Sync();
      auto h = sync.Release();
      sim::Resume(h);
      uint64_t steps = 0;
      while (steps < k && s_.q().Step()) ++steps;
      s_.fs().PowerCut();
      s_.q().Clear();
      h.destroy();
      CutKeepNoneAndMount();
      for (int i = 0; i < 4; ++i) EXPECT_EQ(ReadPath("/big" + std::to_string(i)), new_[i]) << i;
      return steps < k;
    }
  };
  int cuts = 0;
  for (uint64_t k = 1;; ++k) {
    SCOPED_TRACE("cut after " + std::to_string(k) + " events of the checkpoint");
    Case c;
    const bool finished = c.CutAt(k);
    if (HasFailure()) return;
    ++cuts;
    if (finished) break;
  }
  EXPECT_GT(cuts, 3);
}

TEST_F(F2fsTxStealTest, AbortFreesTheStolenBlocks) {
  StartBig(16, 600);
  EXPECT_GT(fs().tx_stolen_blocks(), 1000u);
  ASSERT_TRUE(Run(fs().TxEnd(key_)).ok());
  EXPECT_EQ(fs().tx_stolen_blocks(), 0u);
  EXPECT_EQ(fs().free_user_blocks(), free_before_tx_);
  for (int i = 0; i < 4; ++i) EXPECT_EQ(ReadAll(fds_[i]), old_[i]) << i;
  s_.ExpectCheck();
}

// Shadow GC: cleaning moves the stolen blocks of a running transaction
// (and the committed blocks of its files) without making any of it
// durable; the commit takes the moved blocks.
TEST_F(F2fsTxStealTest, CleaningMovesStolenBlocks) {
  StartBig(64, 512);
  // Overwrite half of each file inside the transaction: its stolen blocks
  // of those pages go, leaving partly valid segments behind.
  for (int i = 0; i < 4; ++i) {
    const Bytes d = Pattern(256 * kBlockSize, 80 + i);
    for (uint64_t p = 0; p < 512; p += 2) {
      WriteAt(fds_[i], p * kBlockSize, Bytes(d.begin(), d.begin() + kBlockSize));
      std::copy(d.begin(), d.begin() + kBlockSize, new_[i].begin() + p * kBlockSize);
    }
  }
  for (int round = 0; round < 40 && fs().tx_stolen_moved() == 0; ++round) Run(fs().GarbageCollect(/*foreground=*/false));
  EXPECT_GT(fs().tx_stolen_moved(), 0u);
  s_.ExpectCheck();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(ReadAll(fds_[i]), new_[i]) << i;
  // A checkpoint with the moved blocks stolen, then the commit takes them.
  ASSERT_TRUE(Run(fs().Sync()).ok());
  ASSERT_TRUE(Run(fs().TxCommit(key_)).ok());
  s_.ExpectCheck();
  CutKeepNoneAndMount();
  for (int i = 0; i < 4; ++i) EXPECT_EQ(ReadPath("/big" + std::to_string(i)), new_[i]) << i;
}

// ---- What a commit costs (the reference's throughput_volume benchmark,
// scaled down, and its multi-file form).

struct CommitCost {
  double us_per_tx = 0;      // simulated time per transaction
  double blocks_per_tx = 0;  // blocks written to the device per transaction
  double flushes_per_tx = 0;
  double fua_per_tx = 0;
};

// `files` files of 4 MiB; each transaction overwrites `per_file` random
// 4 KiB pages of each: "set" one multi-file transaction, "atomic" one
// single-file atomic write per file, "fsync" plain writes and an fsync
// per file (no atomicity: the baseline cost).
CommitCost MeasureCommits(const std::string& how, int files, int per_file, int txs) {
  Stack s(256ull << 20, QuietConfig());
  s.FormatAndMount();
  std::vector<Fd> fds;
  for (int i = 0; i < files; ++i) {
    FsResult<Fd> fd = s.Run(s.fs().Open("/db" + std::to_string(i), kCreat | kRdWr));
    CHECK(fd.ok());
    CHECK(s.Run(s.fs().Pwrite(fd.value, 0, Pattern(4 << 20, i), 4 << 20)).ok());
    fds.push_back(fd.value);
  }
  CHECK(s.Run(s.fs().Sync()).ok());
  sim::Rng rng(5, "f2fs.test.tx.bench");
  const Bytes page = Pattern(kBlockSize, 77);
  const uint64_t b0 = s.fs().blocks_written();
  const double f0 = s.stats().Value("fs.io.flushes");
  const double fua0 = s.stats().Value("fs.io.fua_writes");
  const sim::SimTime t0 = s.q().now();
  for (int t = 0; t < txs; ++t) {
    uint64_t key = 0;
    if (how == "set") {
      for (Fd fd : fds) key = s.Run(s.fs().TxAdd(key, fd)).value;
      CHECK(s.Run(s.fs().TxStart(key)).ok());
    }
    for (Fd fd : fds) {
      if (how == "atomic") CHECK(s.Run(s.fs().AtomicWriteStart(fd)).ok());
      for (int w = 0; w < per_file; ++w)
        CHECK(s.Run(s.fs().Pwrite(fd, rng.Uniform(1024) * kBlockSize, page, kBlockSize)).ok());
      if (how == "atomic") CHECK(s.Run(s.fs().AtomicWriteCommit(fd)).ok());
      if (how == "fsync") CHECK(s.Run(s.fs().Fsync(fd)).ok());
    }
    if (how == "set") {
      CHECK(s.Run(s.fs().TxCommit(key)).ok());
      CHECK(s.Run(s.fs().TxEnd(key)).ok());
    }
  }
  CommitCost c;
  c.us_per_tx = static_cast<double>((s.q().now() - t0).ns()) / 1000.0 / txs;
  c.blocks_per_tx = static_cast<double>(s.fs().blocks_written() - b0) / txs;
  c.flushes_per_tx = (s.stats().Value("fs.io.flushes") - f0) / txs;
  c.fua_per_tx = (s.stats().Value("fs.io.fua_writes") - fua0) / txs;
  std::printf("%-6s %d file(s) x %d page(s): %.1f us, %.2f blocks, %.2f flushes per transaction\n", how.c_str(),
              files, per_file, c.us_per_tx, c.blocks_per_tx, c.flushes_per_tx);
  return c;
}

// One file, three random overwrites per transaction: a set of one and the
// single-file atomic write cost about the same (the set adds its master
// node), as in the reference's measurement.
TEST(F2fsTxCostTest, ThreeOverwritesOfOneFile) {
  const CommitCost set = MeasureCommits("set", 1, 3, 300);
  const CommitCost atomic = MeasureCommits("atomic", 1, 3, 300);
  EXPECT_NEAR(set.blocks_per_tx, atomic.blocks_per_tx + 1, 0.5);  // the master node
  EXPECT_NEAR(set.us_per_tx, atomic.us_per_tx, atomic.us_per_tx * 0.25);
}

// Four files, one overwrite each: one multi-file transaction flushes once
// per commit record where an atomic write per file flushes per file, so
// it takes a fraction of the time (and less than unatomic fsyncs), for
// the same blocks plus its master node.
TEST(F2fsTxCostTest, OneTransactionOverFourFiles) {
  const CommitCost set = MeasureCommits("set", 4, 1, 200);
  const CommitCost atomic = MeasureCommits("atomic", 4, 1, 200);
  const CommitCost fsync = MeasureCommits("fsync", 4, 1, 200);
  // One REQ_PREFLUSH | REQ_FUA commit record per commit: one flush each.
  EXPECT_EQ(set.flushes_per_tx, 1);
  EXPECT_EQ(atomic.flushes_per_tx, 4);
  EXPECT_EQ(set.fua_per_tx, 1);
  EXPECT_EQ(atomic.fua_per_tx, 4);
  EXPECT_LT(set.us_per_tx, atomic.us_per_tx / 2);
  EXPECT_NEAR(set.blocks_per_tx, atomic.blocks_per_tx + 1, 0.5);
  EXPECT_LT(set.us_per_tx, fsync.us_per_tx);
}

// The commit record is one write with REQ_PREFLUSH | REQ_FUA (the
// artifact's __write_node_page for the master node, and F2FS's for an
// atomic file): the device sees one cache flush, then the record as a FUA
// write, and no flush after it — for a multi-file transaction and for a
// single-file atomic write. The committed content survives a power cut
// that loses every write not made durable.
TEST_F(F2fsTxTest, CommitRecordIsOnePreflushFuaWrite) {
  const Fd a = Durable("/a", Pattern(8 * kBlockSize, 1));
  const Fd b = Durable("/b", Pattern(8 * kBlockSize, 2));
  fakes::FixedLatencyDevice& dev = s_.device();
  std::vector<uint64_t> flushes_at_fua;
  dev.set_extra_latency([&](const ssd::BlockRequest& r) {
    if (r.fua) flushes_at_fua.push_back(dev.requests(ssd::BlockOp::kFlush));
    return sim::SimTime::Zero();
  });
  // A multi-file transaction.
  uint64_t key = Run(fs().TxAdd(0, a)).value;
  ASSERT_TRUE(Run(fs().TxAdd(key, b)).ok());
  ASSERT_TRUE(Run(fs().TxStart(key)).ok());
  const Bytes na = Pattern(kBlockSize, 11), nb = Pattern(kBlockSize, 12);
  WriteAt(a, 3 * kBlockSize, na);
  WriteAt(b, 5 * kBlockSize, nb);
  uint64_t flush0 = dev.requests(ssd::BlockOp::kFlush);
  ASSERT_TRUE(Run(fs().TxCommit(key)).ok());
  EXPECT_EQ(dev.requests(ssd::BlockOp::kFlush) - flush0, 1u);
  ASSERT_EQ(flushes_at_fua.size(), 1u) << "one FUA write: the master node";
  EXPECT_EQ(flushes_at_fua[0], flush0 + 1) << "the flush goes first";
  ASSERT_TRUE(Run(fs().TxEnd(key)).ok());
  // A single-file atomic write.
  flushes_at_fua.clear();
  ASSERT_TRUE(Run(fs().AtomicWriteStart(a)).ok());
  const Bytes na2 = Pattern(kBlockSize, 13);
  WriteAt(a, 6 * kBlockSize, na2);
  flush0 = dev.requests(ssd::BlockOp::kFlush);
  ASSERT_TRUE(Run(fs().AtomicWriteCommit(a)).ok());
  EXPECT_EQ(dev.requests(ssd::BlockOp::kFlush) - flush0, 1u);
  ASSERT_EQ(flushes_at_fua.size(), 1u) << "one FUA write: the inode with its fsync mark";
  EXPECT_EQ(flushes_at_fua[0], flush0 + 1);
  dev.set_extra_latency(nullptr);
  Bytes want_a = Pattern(8 * kBlockSize, 1), want_b = Pattern(8 * kBlockSize, 2);
  std::copy(na.begin(), na.end(), want_a.begin() + 3 * kBlockSize);
  std::copy(na2.begin(), na2.end(), want_a.begin() + 6 * kBlockSize);
  std::copy(nb.begin(), nb.end(), want_b.begin() + 5 * kBlockSize);
  CutKeepNoneAndMount();
  EXPECT_EQ(ReadPath("/a"), want_a);
  EXPECT_EQ(ReadPath("/b"), want_b);
}

// ---- Random power cuts during multi-file transactions.

// The transaction thread's model: each file's committed content after
// every commit (absent: not committed yet, may be missing or empty).
struct TxModel {
  std::vector<std::map<std::string, Bytes>> snaps{{}};  // snaps[c]: after c commits
  uint64_t in_flight = 0;                               // 0 or the commit running
  std::string failure;
};

// A plain file written whole and fsynced: its versions.
struct PlainModel {
  std::vector<Bytes> versions;  // versions[v]
  size_t fsynced = 0;           // versions[fsynced] is durable (0: empty file)
  bool exists_durably = false;
};

struct TxCrashFigures {
  uint64_t cuts = 0, commits_done = 0, recovered_commits = 0, in_flight_cuts = 0, in_flight_present = 0;
  uint64_t gc_moved = 0, stolen = 0, stolen_moved = 0, checkpoint_commits = 0;
};

sim::Task<void> TxThread(F2fs* fs, sim::EventQueue* q, uint64_t seed, TxModel* m, bool* stop) {
  sim::Rng rng(seed, "f2fs.test.tx");
  std::map<std::string, Fd> fds;
  std::map<std::string, Bytes> cur;  // committed content
  std::vector<std::string> names;
  for (int i = 0; i < 8; ++i) names.push_back("/t" + std::to_string(i));
  const size_t max_names = 24;  // bounded: the volume stays below full
  auto fail = [&](const std::string& what) {
    if (m->failure.empty()) m->failure = what;
    *stop = true;
  };
  int next_new = 0;
  while (!*stop) {
    // A file created now and never synced commits by a checkpoint.
    if (names.size() < max_names && rng.Bernoulli(0.08)) names.push_back("/n" + std::to_string(next_new++));
    // Members: 1..5 distinct files.
    std::vector<std::string> members;
    const int n = 1 + static_cast<int>(rng.Uniform(5));
    for (int j = 0; j < n; ++j) {
      const std::string& p = names[rng.Uniform(names.size())];
      if (std::find(members.begin(), members.end(), p) == members.end()) members.push_back(p);
    }
    // Now and then a transaction bigger than the page cache's dirty limit
    // (its pages are stolen).
    const bool big = rng.Bernoulli(0.06);
    if (big) members.push_back("/big" + std::to_string(rng.Uniform(2)));
    // A transaction of one file is, now and then, a single-file atomic write.
    const bool atomic = members.size() == 1 && rng.Bernoulli(0.3);
    uint64_t key = 0;
    for (const std::string& p : members) {
      if (!fds.count(p)) {
        FsResult<Fd> fd = co_await fs->Open(p, kCreat | kRdWr);
        if (!fd.ok()) co_return fail("open " + p);
        fds[p] = fd.value;
      }
      if (atomic) break;
      FsResult<uint64_t> k = co_await fs->TxAdd(key, fds[p]);
      if (!k.ok()) co_return fail("add " + p + ": " + std::string(ErrnoName(k.err)));
      key = k.value;
    }
    if (atomic) {
      if (!(co_await fs->AtomicWriteStart(fds[members[0]])).ok()) co_return fail("atomic start");
    } else if (!(co_await fs->TxStart(key)).ok()) {
      co_return fail("start");
    }
    std::map<std::string, Bytes> work;
    for (const std::string& p : members) work[p] = cur.count(p) ? cur[p] : Bytes{};
    const int ops = 1 + static_cast<int>(rng.Uniform(8));
    for (int o = 0; o < ops && !*stop; ++o) {
      const std::string& p = big && o == 0 ? members.back() : members[rng.Uniform(members.size())];
      Bytes& w = work[p];
      if (big && o == 0) {
        const uint64_t len = (150 + rng.Uniform(170)) * kBlockSize;
        const Bytes d = Pattern(len, static_cast<uint32_t>(rng.Next()));
        FsResult<uint64_t> r = co_await fs->Pwrite(fds[p], 0, d, d.size());
        if (!r.ok() || r.value != len) co_return fail("big pwrite");
        if (w.size() < len) w.resize(len);
        std::copy(d.begin(), d.end(), w.begin());
      } else if (rng.Bernoulli(0.1)) {
        const uint64_t size = rng.Uniform(w.size() + 3 * kBlockSize + 1);
        if (!(co_await fs->Ftruncate(fds[p], size)).ok()) co_return fail("truncate");
        w.resize(size);
      } else {
        // Mostly small overwrites; now and then a big write (up to 64 pages).
        const uint64_t len = rng.Bernoulli(0.1) ? 1 + rng.Uniform(64 * kBlockSize) : 1 + rng.Uniform(3 * kBlockSize);
        const uint64_t off = rng.Uniform(std::min<uint64_t>(w.size() + kBlockSize, 32 * kBlockSize));
        const Bytes d = Pattern(len, static_cast<uint32_t>(rng.Next()));
        FsResult<uint64_t> r = co_await fs->Pwrite(fds[p], off, d, d.size());
        if (!r.ok() || r.value != len) co_return fail("pwrite");
        if (w.size() < off + len) w.resize(off + len);
        std::copy(d.begin(), d.end(), w.begin() + static_cast<std::ptrdiff_t>(off));
      }
      if (rng.Bernoulli(0.3)) {
        // Reads inside the transaction see its writes.
        Bytes got(w.size() + 10);
        FsResult<uint64_t> r = co_await fs->Pread(fds[p], 0, got);
        got.resize(r.value);
        if (got != w) co_return fail("read inside the transaction differs: " + p);
      }
      co_await sim::Delay(q, sim::Us(static_cast<int64_t>(rng.Uniform(200))));
    }
    if (*stop) co_return;
    if (rng.Bernoulli(0.1)) {
      const FsStatus a = atomic ? co_await fs->AtomicWriteAbort(fds[members[0]]) : co_await fs->TxEnd(key);
      if (!a.ok()) co_return fail("abort");
      continue;
    }
    std::map<std::string, Bytes> next = m->snaps.back();
    for (auto& [p, w] : work) next[p] = w;
    m->snaps.push_back(next);
    m->in_flight = m->snaps.size() - 1;
    FsStatus c = atomic ? co_await fs->AtomicWriteCommit(fds[members[0]]) : co_await fs->TxCommit(key);
    if (!c.ok())
      co_return fail("commit: " + std::string(ErrnoName(c.err)) + " valid " + std::to_string(fs->valid_block_count()) +
                     " of " + std::to_string(fs->layout().user_block_count));
    m->in_flight = 0;
    for (auto& [p, w] : work) cur[p] = w;
    if (!atomic && !(co_await fs->TxEnd(key)).ok()) co_return fail("end");
    co_await sim::Delay(q, sim::Us(static_cast<int64_t>(rng.Uniform(300))));
  }
}

// Plain files beside the transactions: whole-file rewrites, each fsynced.
sim::Task<void> PlainThread(F2fs* fs, sim::EventQueue* q, uint64_t seed, std::vector<PlainModel>* m,
                            std::string* failure, bool* stop) {
  sim::Rng rng(seed, "f2fs.test.tx.plain");
  std::vector<Fd> fds;
  for (size_t i = 0; i < m->size(); ++i) {
    FsResult<Fd> fd = co_await fs->Open("/p" + std::to_string(i), kCreat | kRdWr);
    if (!fd.ok()) {
      *failure = "open plain";
      co_return;
    }
    fds.push_back(fd.value);
  }
  while (!*stop) {
    const size_t i = rng.Uniform(m->size());
    PlainModel& pm = (*m)[i];
    const Bytes d = Pattern(1 + rng.Uniform(12 * kBlockSize), static_cast<uint32_t>(rng.Next()));
    pm.versions.push_back(d);
    const size_t v = pm.versions.size() - 1;
    if (!(co_await fs->Ftruncate(fds[i], 0)).ok() || !(co_await fs->Pwrite(fds[i], 0, d, d.size())).ok()) {
      *failure = "plain write";
      co_return;
    }
    if (!(co_await fs->Fsync(fds[i])).ok()) {
      *failure = "plain fsync";
      co_return;
    }
    pm.fsynced = v;
    co_await sim::Delay(q, sim::Us(static_cast<int64_t>(rng.Uniform(400))));
  }
}

// Cleaning rounds (F2FS_IOC_GARBAGE_COLLECT, background mode) every
// millisecond or so: the volume is too roomy for space pressure to start
// them often.
sim::Task<void> GcThread(F2fs* fs, sim::EventQueue* q, uint64_t seed, bool* stop) {
  sim::Rng rng(seed, "f2fs.test.tx.gc");
  while (!*stop) {
    co_await sim::Delay(q, sim::Us(static_cast<int64_t>(500 + rng.Uniform(1000))));
    if (*stop) break;
    co_await fs->GarbageCollect(/*foreground=*/false);
  }
}

F2fsConfig TxCrashConfig() {
  F2fsConfig c = testing::CrashTimingConfig();
  c.page_cache.memory = sim::MiB(4);  // big transactions steal
  return c;
}

std::string CheckFile(const Bytes& got, const std::optional<Bytes>& want) {
  if (!want) return got.empty() ? "" : "uncommitted file holds data";
  return got == *want ? "" : "content differs";
}

void RunTxCrashIterations(int first, int iterations, uint64_t base_seed, TxCrashFigures* fig) {
  for (int it = first; it < first + iterations; ++it) {
    SCOPED_TRACE("iteration " + std::to_string(it));
    if (std::getenv("FLASHSTACK_TX_CRASH_VERBOSE")) std::fprintf(stderr, "iteration %d\n", it);
    // Each iteration draws from its own stream, so one can be rerun alone.
    sim::Rng rng(base_seed + static_cast<uint64_t>(it), "f2fs.test.tx.crash");
    Stack s(128ull << 20, TxCrashConfig());
    s.FormatAndMount();
    testing::FillHalfValidBallast(s, 86);
    TxModel tm;
    std::vector<PlainModel> pms(3);
    for (auto& pm : pms) pm.versions.push_back({});
    std::string plain_failure;
    bool stop = false;
    const uint64_t seed = rng.Next();
    sim::Task<void> t1 = TxThread(s.fs_ptr(), &s.q(), seed, &tm, &stop);
    sim::Task<void> t2 = PlainThread(s.fs_ptr(), &s.q(), seed + 1, &pms, &plain_failure, &stop);
    sim::Task<void> t3 = GcThread(s.fs_ptr(), &s.q(), seed + 2, &stop);
    auto h1 = t1.Release(), h2 = t2.Release(), h3 = t3.Release();
    sim::Resume(h1);
    sim::Resume(h2);
    sim::Resume(h3);
    const uint64_t cut = 50 + rng.Uniform(40000);
    uint64_t steps = 0;
    while (!stop && steps < cut && s.q().Step()) ++steps;
    ASSERT_TRUE(tm.failure.empty()) << tm.failure;
    ASSERT_TRUE(plain_failure.empty()) << plain_failure;
    fig->gc_moved += s.fs().gc_moved_blocks();
    fig->stolen += s.fs().tx_stolen_pages();
    fig->stolen_moved += s.fs().tx_stolen_moved();
    fig->checkpoint_commits += s.fs().tx_commit_checkpoints();
    const uint64_t done = tm.snaps.size() - 1 - (tm.in_flight ? 1 : 0);
    fig->commits_done += done;
    s.fs().PowerCut();
    s.q().Clear();
    h1.destroy();
    h2.destroy();
    h3.destroy();
    const std::set<uint32_t> lost = s.RandomPowerCut(rng);
    sim::Status st = s.Mount();
    ASSERT_TRUE(st.ok()) << st.message();
    s.ExpectCheck();
    ++fig->cuts;
    fig->recovered_commits += s.fs().tx_recovered();
    // Transaction files: the state after `done` commits, or with the
    // commit in flight, after it — the same for every file at once.
    std::map<std::string, Bytes> got;
    std::set<std::string> present;
    for (const auto& [p, c] : tm.snaps.back()) {
      FsResult<Fd> fd = s.Run(s.fs().Open(p, kRdOnly));
      if (!fd.ok()) continue;
      present.insert(p);
      FsResult<FileStat> fst = s.Run(s.fs().Fstat(fd.value));
      Bytes b(fst.value.size);
      b.resize(s.Run(s.fs().Pread(fd.value, 0, b)).value);
      s.Run(s.fs().Close(fd.value));
      got[p] = std::move(b);
    }
    std::string err;
    auto matches = [&](uint64_t c) {
      const auto& snap = tm.snaps[c];
      for (const auto& [p, last] : tm.snaps.back()) {
        std::optional<Bytes> want;
        if (auto w = snap.find(p); w != snap.end()) want = w->second;
        if (want && !present.count(p)) {
          err = "committed file missing: " + p;
          return false;
        }
        const std::string e = CheckFile(got.count(p) ? got[p] : Bytes{}, want);
        if (!e.empty()) {
          err = p + ": " + e + " (snapshot " + std::to_string(c) + ")";
          return false;
        }
      }
      return true;
    };
    bool ok = matches(done);
    if (!ok && tm.in_flight) {
      const std::string e1 = err;
      ok = matches(tm.in_flight);
      if (ok) ++fig->in_flight_present;
      else err = e1 + " / with the commit in flight: " + err;
    }
    if (tm.in_flight) ++fig->in_flight_cuts;
    if (!ok) {
      // Which commits each file's content matches, for the report.
      for (const auto& [p, b] : got) {
        err += "\n  " + p + " size " + std::to_string(b.size()) + " matches snapshots:";
        for (uint64_t c = 0; c < tm.snaps.size(); ++c)
          if (auto w = tm.snaps[c].find(p); w != tm.snaps[c].end() && w->second == b) err += " " + std::to_string(c);
      }
    }
    ASSERT_TRUE(ok) << "cut after " << steps << " events, " << done << " commits: " << err;
    // Plain files: the fsynced version or a later one, page by page (a
    // page of the version being written whose block the cut lost may show
    // what the block held before, and one a checkpoint found reserved but
    // not yet written reads as zeros).
    for (size_t i = 0; i < pms.size(); ++i) {
      const std::string p = "/p" + std::to_string(i);
      const PlainModel& pm = pms[i];
      FsResult<Fd> fd = s.Run(s.fs().Open(p, kRdOnly));
      if (!fd.ok()) {
        ASSERT_EQ(pm.fsynced, 0u) << p << " lost after an fsync";
        continue;
      }
      FsResult<FileStat> fst = s.Run(s.fs().Fstat(fd.value));
      Bytes b(fst.value.size);
      b.resize(s.Run(s.fs().Pread(fd.value, 0, b)).value);
      s.Run(s.fs().Close(fd.value));
      // Each rewrite truncates to 0 first: with one in flight, 0 is a size
      // the file held since its fsync.
      bool size_ok = b.empty() && pm.fsynced + 1 < pm.versions.size();
      for (size_t v = pm.fsynced; v < pm.versions.size(); ++v) size_ok |= pm.versions[v].size() == b.size();
      ASSERT_TRUE(size_ok) << p << ": size " << b.size() << " never held since its fsync";
      for (uint64_t page = 0; page * kBlockSize < b.size(); ++page) {
        const uint64_t from = page * kBlockSize, n = std::min<uint64_t>(kBlockSize, b.size() - from);
        bool page_ok = false;
        for (size_t v = pm.fsynced; v < pm.versions.size() && !page_ok; ++v) {
          Bytes cand(n, 0);
          const Bytes& ver = pm.versions[v];
          for (uint64_t k = 0; k < n && from + k < ver.size(); ++k) cand[k] = ver[from + k];
          page_ok = std::equal(cand.begin(), cand.end(), b.begin() + static_cast<std::ptrdiff_t>(from));
        }
        if (!page_ok && pm.fsynced + 1 < pm.versions.size()) {
          const BlockAddr a = testing::FileBlockAddress(
              s.fs(), s.image(), Nid{static_cast<uint32_t>(s.Run(s.fs().Stat(p)).value.ino)}, page);
          page_ok = lost.count(a.v) > 0 || !IsValidBlkaddr(a);
        }
        ASSERT_TRUE(page_ok) << p << ": page " << page << " holds content no version since its fsync had";
      }
    }
    // The recovered volume keeps working: one more transaction commits.
    FsResult<Fd> fd = s.Run(s.fs().Open("/t0", kCreat | kRdWr));
    ASSERT_TRUE(fd.ok());
    FsResult<uint64_t> k = s.Run(s.fs().TxAdd(0, fd.value));
    ASSERT_TRUE(k.ok());
    ASSERT_TRUE(s.Run(s.fs().TxStart(k.value)).ok());
    ASSERT_TRUE(s.Run(s.fs().Pwrite(fd.value, 0, Pattern(5000, 1), 5000)).ok());
    ASSERT_TRUE(s.Run(s.fs().TxCommit(k.value)).ok());
    s.ExpectCheck();
  }
}

// FLASHSTACK_TX_CRASH_ITERATIONS=1000 runs the long version;
// FLASHSTACK_TX_CRASH_FIRST=n starts at iteration n (to rerun one).
int EnvInt(const char* name, int dflt) {
  const char* v = std::getenv(name);
  return v ? std::max(0, std::atoi(v)) : dflt;
}

TEST(F2fsTxCrashTest, RandomCutsDuringMultiFileTransactions) {
  TxCrashFigures fig;
  RunTxCrashIterations(EnvInt("FLASHSTACK_TX_CRASH_FIRST", 0), std::max(1, EnvInt("FLASHSTACK_TX_CRASH_ITERATIONS", 10)),
                       7, &fig);
  auto u = [](uint64_t v) { return static_cast<unsigned long long>(v); };
  std::printf("tx crash: %llu cuts, %llu commits done before the cuts, %llu commits recovered by roll-forward, "
              "%llu cuts during a commit (%llu of them kept it), %llu commits by checkpoint, %llu blocks moved by "
              "cleaning, %llu pages stolen, %llu stolen blocks moved by cleaning\n",
              u(fig.cuts), u(fig.commits_done), u(fig.recovered_commits), u(fig.in_flight_cuts),
              u(fig.in_flight_present), u(fig.checkpoint_commits), u(fig.gc_moved), u(fig.stolen),
              u(fig.stolen_moved));
  if (fig.cuts >= 10) {  // what the runs must have exercised
    EXPECT_GT(fig.recovered_commits, 0u);
    EXPECT_GT(fig.in_flight_cuts, 0u);
    EXPECT_GT(fig.checkpoint_commits, 0u);
    EXPECT_GT(fig.stolen, 0u);
    EXPECT_GT(fig.gc_moved, 0u);
    EXPECT_GT(fig.stolen_moved, 0u);
  }
}

}  // namespace
}  // namespace fs::f2fs
