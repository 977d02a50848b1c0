// The crash-loss experiment on a few cuts: no cut breaks a guarantee of
// either durability mode, the counts see what a cut takes, and under the
// metadata-heavy and the fsync-heavy mix F2FS-J (committing every epoch
// at each fsync and every 5 s) loses fewer namespace changes than F2FS
// (whose changes since the last checkpoint are lost unless roll-forward
// re-links an fsynced file).
#include <gtest/gtest.h>

#include "tests/crash_loss.h"

namespace fs::f2fs::testing {
namespace {

TEST(CrashLoss, FewCutsKeepGuaranteesAndJournalLosesFewerChanges) {
  LossParams p;
  p.cuts = 8;
  p.seed = 3;
  p.max_time = sim::Ms(8000);
  std::map<std::string, LossTotals> meta, fsync;
  for (const LossSetup& s : LossSetups()) {
    SCOPED_TRACE(s.workload + " / " + s.name);
    const LossTotals t = RunLossCuts(s, p);
    EXPECT_EQ(t.cuts, p.cuts);
    EXPECT_EQ(t.guarantee_failures, 0) << t.first_failure;
    EXPECT_EQ(t.checker_failures, 0) << t.first_failure;
    EXPECT_EQ(t.mount_failures, 0) << t.first_failure;
    EXPECT_GT(t.ops_before_cut, 0u);
    EXPECT_GT(t.bytes_linked, 0u);
    EXPECT_LE(t.bytes_lost, t.bytes_linked);
    (s.mix == WorkloadOptions::Mix::kMetadata ? meta : fsync)[s.name] = t;
  }
  ASSERT_EQ(meta.size(), 2u);
  ASSERT_EQ(fsync.size(), 2u);
  EXPECT_GT(meta["F2FS"].creates_lost, 0u);
  EXPECT_LT(meta["F2FS-J"].ops_lost(), meta["F2FS"].ops_lost());
  EXPECT_LT(fsync["F2FS-J"].ops_lost(), fsync["F2FS"].ops_lost());
}

// Loss counting against the model: on a volume left as the model says,
// nothing is lost; a file removed behind the model's back loses its bytes;
// recovered to the empty volume, every namespace change is lost but for the
// creation of the files still there.
TEST(CrashLoss, CountsFollowTheVolume) {
  Stack s(64ull << 20, LossF2fsConfig());
  s.FormatAndMount();
  WorkloadOptions opt;
  opt.ops = 200;
  opt.check_every_step = false;
  opt.mix = WorkloadOptions::Mix::kMetadata;
  RandomWorkload w(s.fs_ptr(), 5, opt);
  s.Run(w.Run());
  ASSERT_TRUE(w.failure.empty()) << w.failure;
  LossTotals none;
  s.Run(CountLoss(s.fs_ptr(), &w.ref(), w.ref().clock, &none));
  EXPECT_EQ(none.ops_lost(), 0u);
  EXPECT_EQ(none.bytes_lost, 0u);
  ASSERT_GT(none.bytes_linked, 0u);
  // Remove the largest linked file.
  std::string victim;
  uint64_t size = 0;
  for (const auto& [p, e] : w.ref().ns)
    if (!e.is_dir && w.ref().files.at(e.file).data.size() >= size) {
      victim = p;
      size = w.ref().files.at(e.file).data.size();
    }
  ASSERT_FALSE(victim.empty());
  ASSERT_TRUE(s.Run(s.fs().Unlink(victim)).ok());
  LossTotals one;
  s.Run(CountLoss(s.fs_ptr(), &w.ref(), w.ref().clock, &one));
  EXPECT_EQ(one.ops_lost(), 0u);
  EXPECT_EQ(one.bytes_lost, size);
  // Recovered to the empty volume: every namespace change is lost, but for
  // the creation of files that are still there.
  LossTotals all;
  s.Run(CountLoss(s.fs_ptr(), &w.ref(), 0, &all));
  uint64_t creates_there = 0;
  for (const auto& c : w.ref().ns_log)
    if (c.op == RefFs::NsChange::kCreate && c.file != w.ref().ns.at(victim).file) {
      for (const auto& [p, e] : w.ref().ns)
        if (!e.is_dir && e.file == c.file) {
          ++creates_there;
          break;
        }
    }
  EXPECT_GT(creates_there, 0u);
  EXPECT_EQ(all.ops_lost(), w.ref().ns_log.size() - creates_there);
  EXPECT_EQ(all.cuts_losing_ops, 1);
}

}  // namespace
}  // namespace fs::f2fs::testing
