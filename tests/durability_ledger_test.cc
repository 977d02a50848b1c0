// The durability ledger's contract (fs/durability_ledger.h), on memfs: a
// "recovered" volume is the same memfs, changed behind the ledger's back
// to stand for what a power cut took.
#include "fs/durability_ledger.h"

#include <algorithm>

#include <gtest/gtest.h>

#include "fs/memfs/mem_fs.h"
#include "sim/event_queue.h"
#include "sim/rng.h"
#include "tests/fakes/run_task.h"

namespace fs {
namespace {

using fakes::RunTask;

std::vector<uint8_t> Bytes(size_t n, uint8_t seed) {
  std::vector<uint8_t> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = static_cast<uint8_t>(seed + i * 7);
  return v;
}

class LedgerTest : public ::testing::Test {
 protected:
  LedgerTest() : mem_(&q_, MemFsConfig{}), ledger_(&mem_) {}

  // Through the ledger.
  Fd Create(const std::string& p, uint32_t extra = 0) {
    FsResult<Fd> r = RunTask(q_, ledger_.Open(p, kCreat | kRdWr | extra));
    EXPECT_TRUE(r.ok()) << p;
    return r.value;
  }
  void Write(Fd fd, uint64_t off, const std::vector<uint8_t>& d) {
    ASSERT_TRUE(RunTask(q_, ledger_.Pwrite(fd, off, d, d.size())).ok());
  }
  void WriteZeros(Fd fd, uint64_t off, uint64_t n) {
    ASSERT_TRUE(RunTask(q_, ledger_.Pwrite(fd, off, {}, n)).ok());
  }
  void Fsync(Fd fd) { ASSERT_TRUE(RunTask(q_, ledger_.Fsync(fd)).ok()); }
  DurabilityLedger::Report Verify() { return RunTask(q_, ledger_.Verify(&mem_)); }

  sim::EventQueue q_;
  MemFs mem_;
  DurabilityLedger ledger_;
};

TEST_F(LedgerTest, NormalizesPaths) {
  EXPECT_EQ(DurabilityLedger::Normalize("a//b/"), "/a/b");
  EXPECT_EQ(DurabilityLedger::Normalize("/./a/./b"), "/a/b");
  EXPECT_EQ(DurabilityLedger::Normalize("///"), "/");
  EXPECT_EQ(DurabilityLedger::Normalize(""), "/");
}

TEST_F(LedgerTest, AnUntouchedVolumeKeepsEverything) {
  const Fd a = Create("/a");
  Write(a, 0, Bytes(10000, 1));
  Fsync(a);
  Write(a, 10000, Bytes(100, 2));  // not acknowledged
  ASSERT_TRUE(RunTask(q_, ledger_.Mkdir("/d")).ok());
  const Fd b = Create("/d/b");
  WriteZeros(b, 0, 8192);
  Fsync(b);
  const DurabilityLedger::Report r = Verify();
  EXPECT_EQ(r.violations(), 0u) << r.first_violation;
  EXPECT_EQ(r.acknowledged.files, 2u);
  EXPECT_EQ(r.acknowledged.bytes, 10000u + 8192u);
  EXPECT_EQ(r.acknowledged.fsyncs, 2u);
  // The data file's blocks 0 and 1 (block 2 was written since); zeros are
  // checked by size.
  EXPECT_EQ(r.blocks_compared, 2u);
  EXPECT_EQ(r.files_at_cut, 2u);
  EXPECT_EQ(r.bytes_at_cut, 10100u + 8192u);
  EXPECT_EQ(r.bytes_lost, 0u);
  EXPECT_EQ(r.names_at_cut, 3u);
  EXPECT_EQ(r.names_lost + r.names_back, 0u);
}

TEST_F(LedgerTest, AFsyncedFileShorterOrMissingOrChangedIsAViolation) {
  const Fd a = Create("/a");
  Write(a, 0, Bytes(12288, 1));
  Fsync(a);
  const Fd b = Create("/b");
  WriteZeros(b, 0, 4096);
  Fsync(b);
  const Fd c = Create("/c");
  Write(c, 0, Bytes(8192, 3));
  Fsync(c);
  // The "cut": a loses its tail, b its name, c's first block other bytes.
  const Fd ma = RunTask(q_, mem_.Open("/a", kRdWr)).value;
  ASSERT_TRUE(RunTask(q_, mem_.Ftruncate(ma, 5000)).ok());
  ASSERT_TRUE(RunTask(q_, mem_.Unlink("/b")).ok());
  const Fd mc = RunTask(q_, mem_.Open("/c", kRdWr)).value;
  const std::vector<uint8_t> other = Bytes(4096, 9);
  ASSERT_TRUE(RunTask(q_, mem_.Pwrite(mc, 0, other, other.size())).ok());
  const DurabilityLedger::Report r = Verify();
  EXPECT_EQ(r.files_short, 1u);
  EXPECT_EQ(r.files_missing, 1u);
  EXPECT_EQ(r.blocks_wrong, 1u);
  EXPECT_EQ(r.violations(), 3u);
  EXPECT_EQ(r.bytes_lost_acknowledged, (12288u - 5000u) + 4096u + 4096u);
  EXPECT_FALSE(r.first_violation.empty());
  EXPECT_EQ(r.names_lost, 1u);
}

TEST_F(LedgerTest, WhatWasDoneAfterTheAcknowledgementMayBeLost) {
  const Fd a = Create("/a");
  Write(a, 0, Bytes(8192, 1));
  Fsync(a);
  // Block 1 rewritten, then the file shrinks and is renamed: none of it acknowledged.
  Write(a, 4096, Bytes(4096, 5));
  ASSERT_TRUE(RunTask(q_, ledger_.Ftruncate(a, 6000)).ok());
  ASSERT_TRUE(RunTask(q_, ledger_.Rename("/a", "/a2")).ok());
  // A fsynced file unlinked since: it may be gone.
  const Fd b = Create("/b");
  WriteZeros(b, 0, 4096);
  Fsync(b);
  ASSERT_TRUE(RunTask(q_, ledger_.Unlink("/b")).ok());
  // The "cut" keeps a2 at 5000 bytes with block 1 garbage: allowed (the
  // truncate to 6000 may have been lost or kept; block 1 changed since).
  const Fd m = RunTask(q_, mem_.Open("/a2", kRdWr)).value;
  ASSERT_TRUE(RunTask(q_, mem_.Ftruncate(m, 6000)).ok());
  const std::vector<uint8_t> junk = Bytes(1904, 77);
  ASSERT_TRUE(RunTask(q_, mem_.Pwrite(m, 4096, junk, junk.size())).ok());
  DurabilityLedger::Report r = Verify();
  EXPECT_EQ(r.violations(), 0u) << r.first_violation;
  // Found under its old name only: still fine (the rename was not acknowledged).
  ASSERT_TRUE(RunTask(q_, mem_.Rename("/a2", "/a")).ok());
  r = Verify();
  EXPECT_EQ(r.violations(), 0u) << r.first_violation;
  EXPECT_EQ(r.names_lost, 1u);  // /a2
  EXPECT_EQ(r.names_back, 1u);  // /a
  // But below the truncated size, block 0 must hold the acknowledged bytes.
  const Fd m2 = RunTask(q_, mem_.Open("/a", kRdWr)).value;
  ASSERT_TRUE(RunTask(q_, mem_.Pwrite(m2, 0, junk, junk.size())).ok());
  r = Verify();
  EXPECT_EQ(r.blocks_wrong, 1u);
}

TEST_F(LedgerTest, FdatasyncAcknowledgesDataButNotTheName) {
  const Fd a = Create("/a");
  Write(a, 0, Bytes(4096, 1));
  ASSERT_TRUE(RunTask(q_, ledger_.Fdatasync(a)).ok());
  ASSERT_TRUE(RunTask(q_, mem_.Unlink("/a")).ok());
  DurabilityLedger::Report r = Verify();
  EXPECT_EQ(r.violations(), 0u) << r.first_violation;
  EXPECT_EQ(r.acknowledged.files, 1u);
  // Once fsynced, the name is acknowledged too.
  const Fd b = Create("/b");
  Write(b, 0, Bytes(4096, 2));
  ASSERT_TRUE(RunTask(q_, ledger_.Fdatasync(b)).ok());
  Fsync(b);
  ASSERT_TRUE(RunTask(q_, mem_.Unlink("/b")).ok());
  r = Verify();
  EXPECT_EQ(r.files_missing, 1u);
}

TEST_F(LedgerTest, SyncAndDirectoryFsyncAcknowledgeNames) {
  ASSERT_TRUE(RunTask(q_, ledger_.Mkdir("/d")).ok());
  const Fd x = Create("/d/x");
  ASSERT_TRUE(RunTask(q_, ledger_.Close(x)).ok());
  const Fd y = Create("/d/y");
  ASSERT_TRUE(RunTask(q_, ledger_.Close(y)).ok());
  const Fd d = RunTask(q_, ledger_.Open("/d", kRdOnly | kDirectory)).value;
  ASSERT_TRUE(RunTask(q_, ledger_.Unlink("/d/y")).ok());
  Fsync(d);  // /d/x present, /d/y removed
  EXPECT_EQ(ledger_.acknowledged().names, 2u);
  // The "cut" loses x and brings y back.
  ASSERT_TRUE(RunTask(q_, mem_.Unlink("/d/x")).ok());
  const Fd my = RunTask(q_, mem_.Open("/d/y", kCreat | kRdWr)).value;
  ASSERT_TRUE(RunTask(q_, mem_.Close(my)).ok());
  DurabilityLedger::Report r = Verify();
  EXPECT_EQ(r.names_wrong, 2u);
  // Back as the ledger has it; sync acknowledges every name.
  const Fd mx = RunTask(q_, mem_.Open("/d/x", kCreat | kRdWr)).value;
  ASSERT_TRUE(RunTask(q_, mem_.Close(mx)).ok());
  ASSERT_TRUE(RunTask(q_, mem_.Unlink("/d/y")).ok());
  ASSERT_TRUE(RunTask(q_, ledger_.Sync()).ok());
  EXPECT_EQ(ledger_.acknowledged().names, 3u);  // /d and /d/x present, /d/y removed
  // A name changed after its acknowledgement is not checked: the rename
  // may be lost.
  ASSERT_TRUE(RunTask(q_, ledger_.Rename("/d/x", "/d/z")).ok());
  ASSERT_TRUE(RunTask(q_, mem_.Rename("/d/z", "/d/x")).ok());
  r = Verify();
  EXPECT_EQ(r.names_wrong, 0u) << r.first_violation;
  EXPECT_EQ(r.names_lost, 1u);
  EXPECT_EQ(r.names_back, 1u);
}

TEST_F(LedgerTest, OSyncWritesAreAcknowledgedOnReturn) {
  const Fd a = Create("/a", kSync);
  Write(a, 0, Bytes(4096, 1));
  EXPECT_EQ(ledger_.acknowledged().files, 1u);
  EXPECT_EQ(ledger_.acknowledged().bytes, 4096u);
  ASSERT_TRUE(RunTask(q_, mem_.Truncate("/a", 0)).ok());
  EXPECT_EQ(Verify().files_short, 1u);
}

TEST_F(LedgerTest, ADirectoryRenameMovesItsFiles) {
  ASSERT_TRUE(RunTask(q_, ledger_.Mkdir("/d")).ok());
  const Fd a = Create("/d/a");
  Write(a, 0, Bytes(4096, 1));
  Fsync(a);
  ASSERT_TRUE(RunTask(q_, ledger_.Rename("/d", "/e")).ok());
  // Found under the new name: fine; and under the old one (the rename lost): fine.
  EXPECT_EQ(Verify().violations(), 0u);
  ASSERT_TRUE(RunTask(q_, mem_.Rename("/e", "/d")).ok());
  EXPECT_EQ(Verify().violations(), 0u);
  // Nowhere: a violation.
  ASSERT_TRUE(RunTask(q_, mem_.Unlink("/d/a")).ok());
  EXPECT_EQ(Verify().files_missing, 1u);
}

// Randomized: any sequence of calls through the ledger (creates, writes
// with and without data, appends, truncates, renames of files and
// directories, links, unlinks, fsync, fdatasync, sync, directory fsync)
// on a volume nobody changes behind its back verifies clean: no violation,
// nothing lost, nothing back. Then a random acknowledged file is damaged
// behind its back and the damage is found.
TEST_F(LedgerTest, RandomCallsOnAnUntouchedVolumeVerifyCleanAndDamageIsFound) {
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    sim::EventQueue q;
    MemFs mem(&q, MemFsConfig{});
    DurabilityLedger ledger(&mem);
    sim::Rng rng(seed, "ledger_test");
    const std::vector<std::string> dirs = {"/", "/a", "/b", "/a/c"};
    for (const std::string& d : dirs)
      if (d != "/") RunTask(q, ledger.Mkdir(d));
    auto path = [&] {
      const std::string& d = dirs[rng.Uniform(dirs.size())];
      return (d == "/" ? "" : d) + "/f" + std::to_string(rng.Uniform(6));
    };
    std::vector<Fd> open;
    for (int step = 0; step < 300; ++step) {
      const uint64_t op = rng.Uniform(12);
      if (op < 2 || open.empty()) {
        const uint32_t extra = rng.Bernoulli(0.1) ? kTrunc : (rng.Bernoulli(0.1) ? kAppend : 0);
        FsResult<Fd> fd = RunTask(q, ledger.Open(path(), kCreat | kRdWr | extra));
        if (fd.ok()) open.push_back(fd.value);
        continue;
      }
      const Fd fd = open[rng.Uniform(open.size())];
      switch (op) {
        case 2: case 3: {
          const uint64_t off = rng.Uniform(20000), n = 1 + rng.Uniform(9000);
          if (rng.Bernoulli(0.5)) {
            const std::vector<uint8_t> d = Bytes(n, static_cast<uint8_t>(rng.Uniform(256)));
            RunTask(q, ledger.Pwrite(fd, off, d, n));
          } else {
            RunTask(q, ledger.Pwrite(fd, off, {}, n));
          }
          break;
        }
        case 4: {
          const std::vector<uint8_t> d = Bytes(1 + rng.Uniform(5000), 3);
          RunTask(q, ledger.Write(fd, d, d.size()));
          break;
        }
        case 5: RunTask(q, ledger.Ftruncate(fd, rng.Uniform(15000))); break;
        case 6: RunTask(q, ledger.Fsync(fd)); break;
        case 7: RunTask(q, ledger.Fdatasync(fd)); break;
        case 8: RunTask(q, ledger.Rename(path(), path())); break;
        case 9: RunTask(q, rng.Bernoulli(0.5) ? ledger.Unlink(path()) : ledger.Link(path(), path())); break;
        case 10: {
          if (rng.Bernoulli(0.2)) {
            RunTask(q, ledger.Sync());
          } else {
            FsResult<Fd> d = RunTask(q, ledger.Open(dirs[rng.Uniform(dirs.size())], kRdOnly | kDirectory));
            if (d.ok()) {
              RunTask(q, ledger.Fsync(d.value));
              RunTask(q, ledger.Close(d.value));
            }
          }
          break;
        }
        case 11:
          if (rng.Bernoulli(0.3)) {
            RunTask(q, ledger.Rename(rng.Bernoulli(0.5) ? "/a/c" : "/b/c", rng.Bernoulli(0.5) ? "/b/c" : "/a/c"));
          } else {
            RunTask(q, ledger.Close(fd));
            open.erase(std::find(open.begin(), open.end(), fd));
          }
          break;
      }
    }
    RunTask(q, ledger.Fsync(open.empty() ? RunTask(q, ledger.Open("/z", kCreat | kRdWr)).value : open.front()));
    const DurabilityLedger::Report r = RunTask(q, ledger.Verify(&mem));
    ASSERT_TRUE(r.walk_error.empty()) << r.walk_error;
    EXPECT_EQ(r.violations(), 0u) << "seed " << seed << ": " << r.first_violation;
    EXPECT_EQ(r.bytes_lost, 0u) << "seed " << seed;
    EXPECT_EQ(r.names_lost + r.names_back, 0u) << "seed " << seed;
    EXPECT_GT(r.acknowledged.files, 0u) << "seed " << seed;
    // Damage: an acknowledged file of content loses its name.
    for (const std::string& d : dirs)
      for (int i = 0; i < 6; ++i) {
        const std::string p = (d == "/" ? "" : d) + "/f" + std::to_string(i);
        FsResult<FileStat> st = RunTask(q, mem.Stat(p));
        if (st.ok() && !st.value.is_dir) RunTask(q, mem.Truncate(p, 0));
      }
    const DurabilityLedger::Report damaged = RunTask(q, ledger.Verify(&mem));
    if (damaged.acknowledged.bytes > 0) {
      EXPECT_GT(damaged.violations(), 0u) << "seed " << seed << ": truncating every file went unnoticed";
    }
  }
}

}  // namespace
}  // namespace fs
