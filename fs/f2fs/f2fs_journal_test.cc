// Durability mode journal (F2FS-J) end to end: committed operations
// survive a power cut that loses everything the last checkpoint does not
// hold; a cut at every event of a commit and a checkpoint (before the data,
// after it, mid-journal-write, after the commit block, mid-checkpoint)
// recovers to a checker-clean state holding every committed operation and
// its data; a damaged journal block stops replay at the last good commit;
// a full journal makes the commit wait for a checkpoint.
#include <map>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <glog/logging.h>
#include <gtest/gtest.h>

#include "fs/f2fs/f2fs_test_util.h"
#include "sim/rng.h"
#include "sim/task.h"

namespace fs::f2fs {
namespace {

using testing::Pattern;
using testing::Stack;

F2fsConfig JournalConfigFor(sim::SimTime commit_interval, uint64_t journal_bytes = 1 << 20) {
  F2fsConfig c = testing::TestConfig();
  c.durability = "journal";
  JournalConfig& j = c.impl_configs.Mutable<JournalConfig>("journal");
  j.size = sim::Bytes{journal_bytes};
  j.commit_interval = commit_interval;
  // Data reaches the device by writeback, not by checkpoints or fsync.
  c.page_cache.writeback_interval = sim::Ms(1);
  c.page_cache.dirty_expire = sim::Ms(1);
  c.checkpoint.background = false;
  c.gc.background = false;
  c.discard.enabled = false;
  return c;
}

// Path -> (is_dir, size, content hash) of the whole namespace.
struct Entry {
  bool is_dir = false;
  uint64_t size = 0;
  uint32_t links = 0;
  std::vector<uint8_t> data;
  bool operator==(const Entry& o) const {
    return is_dir == o.is_dir && size == o.size && links == o.links && data == o.data;
  }
};
using Namespace = std::map<std::string, Entry>;

sim::Task<Namespace> Snapshot(F2fs* fs) {
  Namespace out;
  std::vector<std::string> todo{"/"};
  while (!todo.empty()) {
    const std::string d = todo.back();
    todo.pop_back();
    FsResult<std::vector<std::string>> l = co_await fs->Readdir(d);
    CHECK(l.ok()) << d;
    for (const std::string& n : l.value) {
      const std::string p = d == "/" ? "/" + n : d + "/" + n;
      FsResult<FileStat> st = co_await fs->Stat(p);
      CHECK(st.ok()) << p;
      Entry e;
      e.is_dir = st.value.is_dir;
      e.links = st.value.nlink;
      if (e.is_dir) {
        todo.push_back(p);
      } else {
        e.size = st.value.size;
        FsResult<Fd> fd = co_await fs->Open(p, kRdOnly);
        CHECK(fd.ok());
        e.data.resize(e.size);
        FsResult<uint64_t> r = co_await fs->Pread(fd.value, 0, e.data);
        CHECK(r.ok());
        e.data.resize(r.value);
        co_await fs->Close(fd.value);
      }
      out[p] = std::move(e);
    }
  }
  co_return out;
}

std::string Describe(const Namespace& n) {
  std::string s;
  for (const auto& [p, e] : n) s += p + (e.is_dir ? "/ " : fmt::format("({} B, {} links) ", e.size, e.links));
  return s.empty() ? "(empty)" : s;
}

sim::Task<void> WriteFile(F2fs* fs, std::string path, uint64_t bytes, uint32_t seed) {
  FsResult<Fd> fd = co_await fs->Open(path, kCreat | kRdWr);
  CHECK(fd.ok()) << path;
  if (bytes > 0) {
    const std::vector<uint8_t> d = Pattern(bytes, seed);
    CHECK((co_await fs->Pwrite(fd.value, 0, d, d.size())).ok());
  }
  co_await fs->Close(fd.value);
}

// Batch 1 at 0, its commit at the first commit interval (20 ms), a
// checkpoint at 25 ms, batch 2 at 30 ms, its commit at 40 ms.
sim::Task<void> Script(F2fs* fs, sim::EventQueue* q, bool checkpoint) {
  CHECK((co_await fs->Mkdir("/d")).ok());
  co_await WriteFile(fs, "/d/a", 3 * kBlockSize + 100, 1);
  co_await WriteFile(fs, "/d/b", 9 * kBlockSize, 2);
  co_await WriteFile(fs, "/e", 0, 3);
  CHECK((co_await fs->Link("/d/b", "/b2")).ok());
  CHECK((co_await fs->Mkdir("/gone")).ok());
  CHECK((co_await fs->Rmdir("/gone")).ok());
  co_await sim::Delay(q, sim::Ms(25));
  if (checkpoint) co_await fs->WriteCheckpointNow();
  co_await sim::Delay(q, sim::Ms(30) - q->now());
  CHECK((co_await fs->Rename("/d/a", "/a")).ok());
  CHECK((co_await fs->Unlink("/e")).ok());
  CHECK((co_await fs->Truncate("/d/b", kBlockSize + 7)).ok());
  co_await WriteFile(fs, "/d/c", 2 * kBlockSize, 4);
  co_await sim::Delay(q, sim::Ms(20));
}

// The namespace after batch 1 and after batch 2.
struct States {
  Namespace s1, s2;
};
States Expected() {
  Stack s(64ull << 20, JournalConfigFor(sim::Ms(20)));
  s.FormatAndMount();
  States out;
  auto run = [&](bool second) -> sim::Task<void> {
    F2fs* fs = s.fs_ptr();
    CHECK((co_await fs->Mkdir("/d")).ok());
    co_await WriteFile(fs, "/d/a", 3 * kBlockSize + 100, 1);
    co_await WriteFile(fs, "/d/b", 9 * kBlockSize, 2);
    co_await WriteFile(fs, "/e", 0, 3);
    CHECK((co_await fs->Link("/d/b", "/b2")).ok());
    out.s1 = co_await Snapshot(fs);
    if (!second) co_return;
    CHECK((co_await fs->Rename("/d/a", "/a")).ok());
    CHECK((co_await fs->Unlink("/e")).ok());
    CHECK((co_await fs->Truncate("/d/b", kBlockSize + 7)).ok());
    co_await WriteFile(fs, "/d/c", 2 * kBlockSize, 4);
    out.s2 = co_await Snapshot(fs);
  };
  s.Run(run(true));
  return out;
}

TEST(JournalModeTest, CommittedOperationsSurviveAPowerCutThatCheckpointModeLoses) {
  const States want = Expected();
  for (const bool journal : {true, false}) {
    SCOPED_TRACE(journal ? "journal" : "checkpoint");
    F2fsConfig c = JournalConfigFor(sim::Ms(20));
    if (!journal) c.durability = "checkpoint";
    Stack s(64ull << 20, c);
    s.FormatAndMount();
    s.Run(Script(s.fs_ptr(), &s.q(), /*checkpoint=*/false));
    if (journal) {
      EXPECT_GE(s.stats().Value("fs.journal.commits"), 2);
      EXPECT_GT(s.stats().Value("fs.io.written.journal"), 0);
    }
    // Everything not acknowledged durable is lost.
    s.PowerCut([](BlockAddr, bool) { return false; });
    ASSERT_TRUE(s.Mount().ok());
    s.ExpectCheck();
    const Namespace got = s.Run(Snapshot(s.fs_ptr()));
    if (journal) {
      EXPECT_TRUE(got == want.s2) << "got " << Describe(got) << "\nwant " << Describe(want.s2);
      EXPECT_GT(s.stats().Value("fs.journal.replayed"), 0);
    } else {
      EXPECT_TRUE(got.empty()) << Describe(got);  // no checkpoint since mkfs: all lost
    }
  }
}

// fs.f2fs.journal.fsync: commit (the paper's) commits the running epoch
// at fsync and writes no node for it; rollforward (the F2FS-J artifact's)
// is stock F2FS fsync beside the journal: the file's dnodes with the fsync
// mark and a cache flush, no journal commit, and after a power cut that
// loses everything volatile roll-forward recovery brings the fsynced data
// back (the journal, never committed, replays nothing).
TEST(JournalModeTest, FsyncCommitsTheJournalOrRollsForward) {
  for (const std::string how : {"commit", "rollforward"}) {
    SCOPED_TRACE(how);
    // No commit by the thread within the test (1 s interval).
    F2fsConfig c = JournalConfigFor(sim::Ms(1000));
    c.impl_configs.Mutable<JournalConfig>("journal").fsync = how;
    c.page_cache.writeback_interval = sim::Ms(1000);
    c.page_cache.dirty_expire = sim::Ms(1000);
    Stack s(64ull << 20, c);
    s.FormatAndMount();
    // The parent directory, checkpointed: the file's fsync needs no
    // checkpoint (need_do_checkpoint's CP_NODE_NEED_CP).
    ASSERT_TRUE(s.Run(s.fs().Mkdir("/d")).ok());
    ASSERT_TRUE(s.Run(s.fs().Sync()).ok());
    const double commits0 = s.stats().Value("fs.journal.commits");
    const double cps0 = s.stats().Value("fs.cp.count");
    FsResult<Fd> fd = s.Run(s.fs().Open("/d/f", kCreat | kRdWr));
    ASSERT_TRUE(fd.ok());
    const std::vector<uint8_t> data = Pattern(5 * kBlockSize, 9);
    ASSERT_TRUE(s.Run(s.fs().Pwrite(fd.value, 0, data, data.size())).ok());
    ASSERT_TRUE(s.Run(s.fs().Fsync(fd.value)).ok());
    EXPECT_EQ(s.stats().Value("fs.cp.count") - cps0, 0);
    if (how == "commit") {
      EXPECT_EQ(s.stats().Value("fs.journal.commits") - commits0, 1);
      EXPECT_EQ(s.stats().Value("fs.journal.fsync_commits"), 1);
      EXPECT_EQ(s.stats().Value("fs.fsync.nodes_written"), 0);
    } else {
      EXPECT_EQ(s.stats().Value("fs.journal.commits") - commits0, 0);
      EXPECT_EQ(s.stats().Value("fs.journal.fsync_commits"), 0);
      EXPECT_GT(s.stats().Value("fs.fsync.nodes_written"), 0);
    }
    s.PowerCut([](BlockAddr, bool) { return false; });
    ASSERT_TRUE(s.Mount().ok());
    s.ExpectCheck();
    if (how == "commit") {
      EXPECT_GT(s.stats().Value("fs.journal.replayed"), 0);
    } else {
      EXPECT_EQ(s.stats().Value("fs.journal.replayed"), 0);
      EXPECT_GT(s.fs().recovered_dnodes(), 0u);
    }
    const Namespace got = s.Run(Snapshot(s.fs_ptr()));
    ASSERT_TRUE(got.count("/d/f")) << Describe(got);
    EXPECT_TRUE(got.at("/d/f").data == data);
  }
}

// rollforward: an fsync in need_do_checkpoint's cases (a file whose parent
// no checkpoint holds) checkpoints, as stock F2FS; commit never does.
TEST(JournalModeTest, RollForwardFsyncCheckpointsInStockF2fsCases) {
  for (const std::string how : {"commit", "rollforward"}) {
    SCOPED_TRACE(how);
    F2fsConfig c = JournalConfigFor(sim::Ms(1000));
    c.impl_configs.Mutable<JournalConfig>("journal").fsync = how;
    Stack s(64ull << 20, c);
    s.FormatAndMount();
    ASSERT_TRUE(s.Run(s.fs().Mkdir("/new")).ok());
    FsResult<Fd> fd = s.Run(s.fs().Open("/new/f", kCreat | kRdWr));
    ASSERT_TRUE(fd.ok());
    ASSERT_TRUE(s.Run(s.fs().Pwrite(fd.value, 0, Pattern(kBlockSize, 3), kBlockSize)).ok());
    ASSERT_TRUE(s.Run(s.fs().Fsync(fd.value)).ok());
    EXPECT_EQ(s.stats().Value("fs.fsync.checkpoints"), how == "rollforward" ? 1 : 0);
  }
}

// The F2FS-J artifact's profile (configs/f2fs/journal_artifact.yaml).
F2fsConfig ArtifactConfigFor(sim::SimTime commit_interval) {
  F2fsConfig c = JournalConfigFor(commit_interval);
  JournalConfig& j = c.impl_configs.Mutable<JournalConfig>("journal");
  j.records = "namespace";
  j.list_lock = "global";
  j.barrier = false;
  j.commit_wait = false;
  j.apply = "checkpoint";
  j.checkpoint_after_commit = true;
  j.fsync = "rollforward";
  return c;
}

sim::Task<void> EveryKindOfChange(F2fs* fs, sim::EventQueue* q) {
  CHECK((co_await fs->Mkdir("/d")).ok());                     // MKDIR
  co_await WriteFile(fs, "/d/a", 3 * kBlockSize, 1);          // CREATE (+ 3 DATA_WRITE with records all)
  CHECK((co_await fs->Rename("/d/a", "/a")).ok());            // RENAME
  CHECK((co_await fs->Link("/a", "/a2")).ok());               // LINK
  CHECK((co_await fs->Truncate("/a", kBlockSize)).ok());      // SETATTR
  CHECK((co_await fs->Unlink("/a2")).ok());                   // UNLINK
  CHECK((co_await fs->Mkdir("/gone")).ok());                  // MKDIR
  CHECK((co_await fs->Rmdir("/gone")).ok());                  // RMDIR (the artifact's f2fs_unlink)
  co_await sim::Delay(q, sim::Ms(5));                         // the data written back
}

// records: namespace (the artifact's) journals create, mkdir, unlink and
// rmdir only; all (the paper's) every change, data blocks' new addresses
// included.
TEST(JournalModeTest, ArtifactJournalsOnlyNamespaceChanges) {
  for (const bool artifact : {false, true}) {
    SCOPED_TRACE(artifact ? "artifact" : "paper");
    Stack s(64ull << 20, artifact ? ArtifactConfigFor(sim::Ms(1000)) : JournalConfigFor(sim::Ms(1000)));
    s.FormatAndMount();
    const double r0 = s.stats().Value("fs.journal.records");
    s.Run(EveryKindOfChange(s.fs_ptr(), &s.q()));
    const double records = s.stats().Value("fs.journal.records") - r0;
    if (artifact) {
      EXPECT_EQ(records, 5);  // 2 MKDIR, CREATE, UNLINK, RMDIR
    } else {
      EXPECT_GE(records, 9);  // + RENAME, LINK, SETATTR and the data written back (DATA_WRITE)
    }
  }
}

// commit_wait false with barrier false (the artifact's commit): the commit
// thread submits its journal blocks as plain writes and does not wait for
// them — no flush, no FUA, no time; the paper's commit waits for a flush
// and its FUA commit block.
TEST(JournalModeTest, ArtifactCommitIsAnUnwaitedPlainWrite) {
  for (const bool artifact : {false, true}) {
    SCOPED_TRACE(artifact ? "artifact" : "paper");
    Stack s(64ull << 20, artifact ? ArtifactConfigFor(sim::Ms(20)) : JournalConfigFor(sim::Ms(20)));
    s.FormatAndMount();
    const double flushes0 = s.stats().Value("fs.io.flushes");
    const double fua0 = s.stats().Value("fs.io.fua_writes");
    s.Run(EveryKindOfChange(s.fs_ptr(), &s.q()));
    auto idle = [&]() -> sim::Task<void> { co_await sim::Delay(&s.q(), sim::Ms(40)); };
    s.Run(idle());
    ASSERT_GE(s.stats().Value("fs.journal.commits"), 1);
    EXPECT_GT(s.stats().Value("fs.io.written.journal"), 0);
    const sim::Histogram* lat = s.stats().FindHistogram("fs.journal.commit_lat");
    ASSERT_NE(lat, nullptr);
    if (artifact) {
      EXPECT_EQ(s.stats().Value("fs.io.flushes") - flushes0, 0);
      EXPECT_EQ(s.stats().Value("fs.io.fua_writes") - fua0, 0);
      EXPECT_EQ(lat->max(), 0) << "the commit waited";
    } else {
      EXPECT_GE(s.stats().Value("fs.io.flushes") - flushes0, 1);
      EXPECT_GE(s.stats().Value("fs.io.fua_writes") - fua0, 1);
      EXPECT_GT(lat->max(), 0);
    }
  }
}

// checkpoint_after_commit: background checkpoints run only right after the
// commit thread's commits (the artifact's j_checkpoint); without it, with
// apply checkpoint, whenever a writeback pass finds one due.
TEST(JournalModeTest, CheckpointsOnlyAfterACommit) {
  double cps[2] = {0, 0}, commits[2] = {0, 0};
  for (const bool after_commit : {false, true}) {
    F2fsConfig c = JournalConfigFor(sim::Ms(50));
    JournalConfig& j = c.impl_configs.Mutable<JournalConfig>("journal");
    j.apply = "checkpoint";
    j.checkpoint_interval = sim::Ms(5);
    j.checkpoint_after_commit = after_commit;
    Stack s(64ull << 20, c);
    s.FormatAndMount();
    const double cp0 = s.stats().Value("fs.cp.reason.background");
    auto work = [&]() -> sim::Task<void> {
      for (int i = 0; i < 200; ++i) {
        co_await WriteFile(s.fs_ptr(), "/f" + std::to_string(i), kBlockSize, i);
        co_await sim::Delay(&s.q(), sim::Ms(1));
      }
    };
    s.Run(work());
    cps[after_commit] = s.stats().Value("fs.cp.reason.background") - cp0;
    commits[after_commit] = s.stats().Value("fs.journal.commits");
  }
  EXPECT_GT(cps[0], commits[0] + 2) << "due checkpoints run between commits";
  EXPECT_GT(cps[1], 0);
  EXPECT_LE(cps[1], commits[1]) << "at most one checkpoint per commit";
}

TEST(JournalModeTest, ArtifactKeysNeedRollForwardFsync) {
  F2fsConfig c = ArtifactConfigFor(sim::Ms(20));
  EXPECT_TRUE(c.Validate().ok());
  JournalConfig& j = c.impl_configs.Mutable<JournalConfig>("journal");
  j.fsync = "commit";
  sim::Status st = c.Validate();
  EXPECT_FALSE(st.ok());
  EXPECT_NE(st.message().find("journal.records: namespace"), std::string::npos) << st.message();
  j.records = "all";
  st = c.Validate();
  EXPECT_NE(st.message().find("journal.commit_wait: false"), std::string::npos) << st.message();
  j.fsync = "rollforward";
  j.barrier = true;
  st = c.Validate();
  EXPECT_NE(st.message().find("journal.barrier: false (is true)"), std::string::npos) << st.message();
}

// apply: committed — the checkpoint first writes the node pages of
// committed records while operations go on, and holds operations only for
// what is left; apply: checkpoint writes them all with operations held. Four threads keep creating files through the
// checkpoint: they stall far less with the apply, and the volume is the
// same either way.
TEST(JournalModeTest, ApplyWritesCommittedNodePagesWhileOperationsGoOn) {
  std::map<std::string, double> stalled, applied;
  std::map<std::string, Namespace> result;
  for (const std::string apply : {"committed", "checkpoint"}) {
    SCOPED_TRACE(apply);
    F2fsConfig c = JournalConfigFor(sim::Ms(1000), 8 << 20);
    c.impl_configs.Mutable<JournalConfig>("journal").apply = apply;
    Stack s(256ull << 20, c);
    s.FormatAndMount();
    auto creates = [](F2fs* fs, std::string dir, int from, int n) -> sim::Task<void> {
      for (int i = from; i < from + n; ++i) {
        FsResult<Fd> fd = co_await fs->Open(fmt::format("{}/f{}", dir, i), kCreat | kRdWr);
        CHECK(fd.ok());
        co_await fs->Close(fd.value);
      }
    };
    for (int t = 0; t < 4; ++t) ASSERT_TRUE(s.Run(s.fs().Mkdir(fmt::format("/d{}", t))).ok());
    for (int t = 0; t < 4; ++t) s.Run(creates(s.fs_ptr(), fmt::format("/d{}", t), 0, 500));
    // An fsync commits the journal: those creates' records are durable.
    const Fd fd = s.Run(s.fs().Open("/d0/f0", kRdWr)).value;
    ASSERT_TRUE(s.Run(s.fs().Fsync(fd)).ok());
    ASSERT_TRUE(s.Run(s.fs().Close(fd)).ok());
    const double stall_before = s.stats().Value("fs.cp.stall_total");
    bool cp_done = false;
    auto cp = [&]() -> sim::Task<void> {
      co_await s.fs().WriteCheckpointNow();
      cp_done = true;
    };
    sim::ThreadGroup threads(&s.q());
    threads.Spawn(cp());
    for (int t = 0; t < 4; ++t) threads.Spawn(creates(s.fs_ptr(), fmt::format("/d{}", t), 500, 100));
    while (!threads.empty() && s.q().Step()) {
    }
    ASSERT_TRUE(cp_done);
    stalled[apply] = s.stats().Value("fs.cp.stall_total") - stall_before;
    applied[apply] = s.stats().Value("fs.journal.apply_blocks");
    s.Run(s.fs().WriteCheckpointNow());
    result[apply] = s.Run(Snapshot(s.fs_ptr()));
    s.ExpectCheck();
  }
  EXPECT_GE(applied["committed"], 2000);  // the 2,000 inodes and their directories' dnodes
  EXPECT_EQ(applied["checkpoint"], 0);
  EXPECT_GT(stalled["checkpoint"], 0);
  EXPECT_LT(stalled["committed"], stalled["checkpoint"] / 2) << stalled["committed"] << " ns vs " << stalled["checkpoint"] << " ns";
  EXPECT_TRUE(result["committed"] == result["checkpoint"]);
  EXPECT_EQ(result["committed"].size(), 4u * 600 + 4);  // files and directories
}

// Cuts at every event of the script: batch 1's writeback and commit, the
// checkpoint, batch 2 and its commit. The recovered namespace is a state
// the file system passed through at a commit or checkpoint, never older
// than the last one acknowledged, and fsck passes.
TEST(JournalModeTest, CutAtEveryPhaseOfCommitAndCheckpoint) {
  const States want = Expected();
  uint64_t total = 0;
  {
    Stack s(64ull << 20, JournalConfigFor(sim::Ms(20)));
    s.FormatAndMount();
    sim::Task<void> t = Script(s.fs_ptr(), &s.q(), true);
    auto h = t.Release();
    sim::Resume(h);
    while (s.q().Step()) ++total;
    h.destroy();
  }
  ASSERT_GT(total, 100u);
  sim::Rng rng(3, "f2fs.test.journal.cut");
  int states[3] = {0, 0, 0};
  const uint64_t stride = std::max<uint64_t>(1, total / 400);
  for (uint64_t cut = 0; cut <= total; cut += stride) {
    SCOPED_TRACE(fmt::format("cut after {} of {} events", cut, total));
    Stack s(64ull << 20, JournalConfigFor(sim::Ms(20)));
    s.FormatAndMount();
    const double mount_cps = s.stats().Value("fs.cp.count");  // the mount's, which records the journal's start
    sim::Task<void> t = Script(s.fs_ptr(), &s.q(), true);
    auto h = t.Release();
    sim::Resume(h);
    for (uint64_t i = 0; i < cut && s.q().Step(); ++i) {
    }
    const double commits = s.stats().Value("fs.journal.commits");
    const double cps = s.stats().Value("fs.cp.count") - mount_cps;
    s.fs().PowerCut();
    s.q().Clear();
    h.destroy();
    const double keep = rng.UniformDouble();
    s.PowerCut([&](BlockAddr, bool) { return rng.Bernoulli(keep); });
    sim::Status st = s.Mount();
    ASSERT_TRUE(st.ok()) << st.message();
    s.ExpectCheck();
    const Namespace got = s.Run(Snapshot(s.fs_ptr()));
    const int state = got.empty() ? 0 : got == want.s1 ? 1 : got == want.s2 ? 2 : -1;
    ASSERT_GE(state, 0) << "got " << Describe(got) << "\nwant one of: (empty) | " << Describe(want.s1) << " | "
                        << Describe(want.s2);
    // Acknowledged: commit 1 or the checkpoint keep batch 1, commit 2 batch 2.
    const int at_least = commits >= 2 ? 2 : (commits >= 1 || cps >= 1) ? 1 : 0;
    EXPECT_GE(state, at_least) << "commits " << commits << ", checkpoints " << cps;
    ++states[state];
  }
  LOG(INFO) << total << " events; cuts recovering nothing / batch 1 / batch 2: " << states[0] << " / " << states[1]
            << " / " << states[2];
  // The cuts saw all three outcomes.
  EXPECT_GT(states[0], 0);
  EXPECT_GT(states[1], 0);
  EXPECT_GT(states[2], 0);
}

TEST(JournalModeTest, DamagedJournalBlockStopsReplayAtTheLastGoodCommit) {
  const States want = Expected();
  Stack s(64ull << 20, JournalConfigFor(sim::Ms(20)));
  s.FormatAndMount();
  s.Run(Script(s.fs_ptr(), &s.q(), /*checkpoint=*/false));
  const uint64_t jstart = s.fs().layout().journal_blkaddr();
  s.PowerCut([](BlockAddr, bool) { return false; });
  // Commit 1 took the blocks from the start of the area; damage the first
  // block of commit 2 (the first block after commit 1's blocks).
  uint64_t second = 0;
  for (uint64_t b = jstart;; ++b) {
    const BlockPtr p = s.image().Read(BlockAddr{static_cast<uint32_t>(b)});
    ASSERT_TRUE(p && p->type == BlockData::Type::kJournal);
    const DecodedJournalBlock d = DecodeJournalBlock(static_cast<const JournalBlock*>(p.get())->bytes);
    ASSERT_EQ(d.status, JournalDecode::kOk);
    if (d.header.commit_end) {
      second = b + 1;
      break;
    }
  }
  auto bad = std::make_shared<JournalBlock>(
      *static_cast<const JournalBlock*>(s.image().Read(BlockAddr{static_cast<uint32_t>(second)}).get()));
  bad->bytes[700] ^= 0x5a;
  s.image().WriteDurable(BlockAddr{static_cast<uint32_t>(second)}, bad);
  ASSERT_TRUE(s.Mount().ok());
  s.ExpectCheck();
  EXPECT_EQ(s.stats().Value("fs.journal.corrupt_blocks"), 1);
  const Namespace got = s.Run(Snapshot(s.fs_ptr()));
  EXPECT_TRUE(got == want.s1) << "got " << Describe(got) << "\nwant " << Describe(want.s1);
}

// After replay stopped at a damaged block, the commits behind it stay in
// the ring; new commits must never be read as continuing into them.
TEST(JournalModeTest, CommitsBehindADamagedBlockNeverReturn) {
  Stack s(64ull << 20, JournalConfigFor(sim::Ms(5)));
  s.FormatAndMount();
  auto step = [&](const char* dir) {
    s.Run([&]() -> sim::Task<void> {
      CHECK((co_await s.fs().Mkdir(dir)).ok());
      co_await sim::Delay(&s.q(), sim::Ms(6));  // committed
    }());
  };
  step("/x");
  step("/y");
  const Layout l = s.fs().layout();
  s.PowerCut([](BlockAddr, bool) { return false; });
  // Damage the block of the first commit.
  BlockAddr victim{0};
  for (uint64_t b = l.journal_blkaddr(); b < l.total_blocks(); ++b) {
    const BlockPtr p = s.image().Read(BlockAddr{static_cast<uint32_t>(b)});
    if (!p || p->type != BlockData::Type::kJournal) continue;
    const DecodedJournalBlock d = DecodeJournalBlock(static_cast<const JournalBlock*>(p.get())->bytes);
    ASSERT_EQ(d.status, JournalDecode::kOk);
    ASSERT_EQ(d.records.size(), 1u);
    if (d.records[0].name == "x") victim = BlockAddr{static_cast<uint32_t>(b)};
  }
  ASSERT_NE(victim, BlockAddr{0});
  auto bad = std::make_shared<JournalBlock>(*static_cast<const JournalBlock*>(s.image().Read(victim).get()));
  bad->bytes[300] ^= 1;
  s.image().WriteDurable(victim, bad);
  ASSERT_TRUE(s.Mount().ok());
  EXPECT_EQ(s.stats().Value("fs.journal.corrupt_blocks"), 1);
  EXPECT_TRUE(s.Run(Snapshot(s.fs_ptr())).empty());
  step("/z");
  s.PowerCut([](BlockAddr, bool) { return false; });
  ASSERT_TRUE(s.Mount().ok());
  s.ExpectCheck();
  const Namespace got = s.Run(Snapshot(s.fs_ptr()));
  EXPECT_EQ(got.size(), 1u) << Describe(got);
  EXPECT_TRUE(got.count("/z")) << Describe(got);
}

// A journal of 4 blocks (124 one-slot records) cannot hold a commit of
// hundreds of creates: each commit waits for a checkpoint instead of
// overwriting what replay needs, and a cut keeps every acknowledged file.
TEST(JournalModeTest, FullJournalWaitsForACheckpoint) {
  F2fsConfig c = JournalConfigFor(sim::Ms(5), 4 * kBlockSize);
  Stack s(64ull << 20, c);
  s.FormatAndMount();
  std::set<std::string> acked;
  auto run = [&]() -> sim::Task<void> {
    F2fs* fs = s.fs_ptr();
    for (int i = 0; i < 600; ++i) {
      co_await WriteFile(fs, fmt::format("/f{}", i), 0, 0);
      if (i % 200 == 199) co_await sim::Delay(&s.q(), sim::Ms(6));
    }
    co_await sim::Delay(&s.q(), sim::Ms(6));
  };
  s.Run(run());
  EXPECT_GT(s.stats().Value("fs.journal.space_checkpoints"), 0);
  EXPECT_LE(s.stats().Value("fs.journal.used_blocks"), 4);
  s.PowerCut([](BlockAddr, bool) { return false; });
  ASSERT_TRUE(s.Mount().ok());
  s.ExpectCheck();
  const Namespace got = s.Run(Snapshot(s.fs_ptr()));
  EXPECT_EQ(got.size(), 600u);
}

TEST(JournalModeTest, CheckRefusesAVolumeWithoutAJournalArea) {
  F2fsConfig c = JournalConfigFor(sim::Ms(20));
  c.durability = "checkpoint";
  Stack s(64ull << 20, c);
  s.Format();
  s.cfg().durability = "journal";
  const sim::Status st = s.Mount();
  ASSERT_FALSE(st.ok());
  EXPECT_NE(st.message().find("without a journal area"), std::string::npos) << st.message();
}

}  // namespace
}  // namespace fs::f2fs
