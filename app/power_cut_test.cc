// run.power_cut: power cuts in whole experiments, checked against what the
// file system acknowledged as durable (fs/durability_ledger.h).
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "app/experiment.h"
#include "app/experiment_test_util.h"

namespace app {
namespace {

using testing::Make;
using testing::Validate;

struct Case {
  const char* name;
  const char* config;
  std::vector<std::string> overrides;
};

// Random cuts of every durability mode (F2FS's checkpoint and roll-forward,
// F2FS-J's journal, ext4's JBD2, exF2FS's transactions, ParaFS on the
// static block-mapped FTL, SQLite's data through F2FS): the volume mounts,
// passes its checker, and keeps everything it acknowledged.
TEST(PowerCutTest, EveryDurabilityModeKeepsWhatItAcknowledged) {
  const std::vector<std::string> cut = {"run.power_cut.when=random", "run.power_cut.min_time=50ms",
                                        "run.power_cut.max_time=600ms", "run.power_cut.cuts=3"};
  const std::vector<Case> cases = {
      {"F2FS", "configs/examples/varmail_f2fs.yaml", {"run.max_time=600ms"}},
      {"F2FS-J", "configs/examples/varmail_f2fs.yaml", {"run.max_time=600ms", "fs.f2fs.durability=journal"}},
      {"ext4", "configs/examples/varmail_f2fs.yaml", {"run.max_time=600ms", "fs.kind=ext4"}},
      {"exF2FS", "configs/txbench/throughput_volume_set.yaml", {"run.max_time=600ms"}},
      {"SQLite on F2FS", "configs/mobibench/insert_wal.yaml", {"run.max_time=600ms"}},
      {"ParaFS", "configs/parafs/postmark/parafs.yaml", {"run.max_time=600ms"}},
  };
  for (const Case& c : cases) {
    std::vector<std::string> o = c.overrides;
    o.insert(o.end(), cut.begin(), cut.end());
    std::unique_ptr<Experiment> e = Make(c.config, o);
    ASSERT_NE(e, nullptr) << c.name;
    const RunReport r = e->Run(false);
    EXPECT_FALSE(r.stalled) << c.name;
    const Experiment::PowerCutFigures& f = e->power_cut();
    EXPECT_EQ(f.cuts, 3u) << c.name;
    EXPECT_EQ(f.mount_failures, 0u) << c.name << ": " << f.first_failure;
    EXPECT_EQ(f.check_failures, 0u) << c.name << ": " << f.first_failure;
    EXPECT_EQ(f.violations(), 0u) << c.name << ": " << f.first_failure;
    EXPECT_EQ(f.bytes_lost_acknowledged, 0u) << c.name;
    EXPECT_GT(f.ack_fsyncs + f.ack_commits, 0u) << c.name << ": nothing was acknowledged, nothing was tested";
    EXPECT_GT(f.ack_bytes, 0u) << c.name;
    EXPECT_GT(f.ops_before_cut, 0u) << c.name;
    EXPECT_LE(f.bytes_lost, f.bytes_at_cut) << c.name;
    EXPECT_EQ(e->stats().Value("power_cut.cuts"), 3.0) << c.name;
    EXPECT_EQ(e->stats().Value("power_cut.violations"), 0.0) << c.name;
    EXPECT_EQ(e->Summary().find("DURABILITY BROKEN"), std::string::npos) << c.name;
    EXPECT_NE(e->Summary().find("power cut  3 cuts"), std::string::npos) << c.name;
  }
}

// The check can fail: without write barriers (F2FS's fsync_mode nobarrier,
// ext4's nobarrier) an fsync returns before the device made the data
// durable, and a device that keeps none of its volatile writes loses it.
TEST(PowerCutTest, WithoutBarriersAcknowledgedDataIsLost) {
  const std::vector<std::string> cut = {"run.max_time=600ms", "run.power_cut.when=time", "run.power_cut.time=500ms",
                                        "run.power_cut.device_keeps=none"};
  for (const std::string& nobarrier : {"fs.f2fs.fsync_mode=nobarrier", "fs.ext4.barrier=false"}) {
    std::vector<std::string> o = cut;
    o.push_back(nobarrier);
    if (nobarrier.rfind("fs.ext4", 0) == 0) o.push_back("fs.kind=ext4");
    std::unique_ptr<Experiment> e = Make("configs/examples/varmail_f2fs.yaml", o);
    ASSERT_NE(e, nullptr);
    e->Run(false);
    const Experiment::PowerCutFigures& f = e->power_cut();
    EXPECT_EQ(f.cuts, 1u);
    EXPECT_GT(f.violations(), 0u) << nobarrier;
    EXPECT_GT(f.bytes_lost_acknowledged, 0u) << nobarrier;
    EXPECT_EQ(f.cuts_violating, 1u) << nobarrier;
    EXPECT_EQ(e->Summary().rfind("DURABILITY BROKEN: 1 of 1 power cuts lost acknowledged state", 0), 0u)
        << e->Summary();
    // With barriers, the same cut loses nothing acknowledged.
    o.pop_back();
    if (nobarrier.rfind("fs.ext4", 0) == 0) {
      o.pop_back();
      o.push_back("fs.kind=ext4");
    }
    std::unique_ptr<Experiment> b = Make("configs/examples/varmail_f2fs.yaml", o);
    ASSERT_NE(b, nullptr);
    b->Run(false);
    EXPECT_EQ(b->power_cut().violations(), 0u) << nobarrier << ": " << b->power_cut().first_failure;
    EXPECT_GT(b->power_cut().ack_bytes, 0u);
  }
}

// A cut after N file-system calls comes right after the N-th completed;
// a cut at a time comes at that time; the same config and seed cut at the
// same points with the same figures, another seed elsewhere.
TEST(PowerCutTest, CutsComeWhereAskedAndRepeatExactly) {
  std::unique_ptr<Experiment> ops = Make("configs/examples/varmail_f2fs.yaml",
                                         {"run.power_cut.when=ops", "run.power_cut.ops=4000"});
  ASSERT_NE(ops, nullptr);
  ops->Run(false);
  EXPECT_GE(ops->power_cut().ops_before_cut, 4000u);
  EXPECT_LE(ops->power_cut().ops_before_cut, 4016u);  // calls completing in the same event
  std::unique_ptr<Experiment> at = Make("configs/examples/varmail_f2fs.yaml",
                                        {"run.power_cut.when=time", "run.power_cut.time=300ms"});
  ASSERT_NE(at, nullptr);
  const RunReport r = at->Run(false);
  EXPECT_LE(r.sim_time, sim::Ms(300) + sim::Ms(30));  // the mount's time before the run's start
  EXPECT_GT(r.sim_time, sim::Ms(290));
  auto random = [](const std::string& seed) {
    std::unique_ptr<Experiment> e =
        Make("configs/examples/varmail_f2fs.yaml",
             {"seed=" + seed, "run.power_cut.when=random", "run.power_cut.min_time=50ms",
              "run.power_cut.max_time=1s", "run.power_cut.cuts=2"});
    e->Run(false);
    return e;
  };
  std::unique_ptr<Experiment> a = random("7"), b = random("7"), c = random("8");
  for (const char* k : {"power_cut.cut_time_mean", "power_cut.ops_before_cut", "power_cut.acknowledged.bytes",
                        "power_cut.lost.bytes", "power_cut.lost.names_back", "power_cut.recovery.reads"}) {
    EXPECT_EQ(a->stats().Value(k), b->stats().Value(k)) << k;
  }
  EXPECT_EQ(a->Summary(), b->Summary());
  EXPECT_NE(a->stats().Value("power_cut.cut_time_mean"), c->stats().Value("power_cut.cut_time_mean"));
}

// A cut at a time after the workload ended still finds the system running
// until then: ext4 commits its running transaction every 5 s (commit=5),
// so createfiles (no fsync) cut at 3 s loses every name and cut at 8 s none
// (though their data, below).
TEST(PowerCutTest, TheSystemRunsOnUntilTheCut) {
  auto cut_at = [](const std::string& t) {
    std::unique_ptr<Experiment> e =
        Make("configs/power_cut/createfiles.yaml",
             {"fs.kind=ext4", "workload.filebench.nfiles=5000", "run.power_cut.when=time", "run.power_cut.time=" + t,
              "run.power_cut.cuts=1", "run.power_cut.device_keeps=completed"});
    e->Run(false);
    return e;
  };
  std::unique_ptr<Experiment> early = cut_at("3s"), late = cut_at("8s");
  EXPECT_LT(early->stats().Value("run.measured_end"), 3.0);  // the workload ended before either cut
  EXPECT_EQ(early->stats().Value("fs.journal.commits"), 0.0);
  EXPECT_GT(early->power_cut().names_at_cut, 5000u);
  EXPECT_EQ(early->power_cut().names_lost, early->power_cut().names_at_cut);
  EXPECT_EQ(late->stats().Value("fs.journal.commits"), 1.0);
  EXPECT_EQ(late->power_cut().names_lost, 0u);
  // The data is another matter: with delayed allocation a file's size on
  // disk grows only when writeback allocates its blocks, which for 80 MB of
  // dirty pages waits for dirty_expire (30 s): the names come back empty,
  // as on Linux.
  EXPECT_GT(late->power_cut().bytes_at_cut, 0u);
  EXPECT_EQ(late->power_cut().bytes_lost, late->power_cut().bytes_at_cut);
  EXPECT_EQ(late->power_cut().violations(), 0u);
}

// What cannot be cut, or a cut that names no point, is refused before the run.
TEST(PowerCutTest, BadPowerCutsAreRefusedBeforeTheRun) {
  const std::string f2fs = "configs/examples/varmail_f2fs.yaml";
  EXPECT_EQ(Validate(f2fs, {"fs.kind=memfs", "run.power_cut.when=time", "run.power_cut.time=1s"}).message(),
            "run.power_cut.when: a power cut needs a file system that keeps what is on flash (fs.kind: f2fs or "
            "ext4); this run has fs.kind: memfs");
  EXPECT_EQ(Validate("configs/examples/tiny.yaml", {"run.power_cut.when=ops", "run.power_cut.ops=10"}).message(),
            "run.power_cut.when: a power cut needs a file system that keeps what is on flash (fs.kind: f2fs or "
            "ext4); this run has fs.kind: none");
  EXPECT_EQ(Validate(f2fs, {"run.power_cut.when=time"}).message(),
            "run.power_cut.time: must be above 0 with when: time");
  EXPECT_EQ(Validate(f2fs, {"run.power_cut.when=ops"}).message(), "run.power_cut.ops: must be above 0 with when: ops");
  EXPECT_EQ(Validate(f2fs, {"run.power_cut.when=random", "run.power_cut.min_time=2s", "run.power_cut.max_time=1s"})
                .message(),
            "run.power_cut.max_time: 1s must exceed run.power_cut.min_time (2s) with when: random");
  EXPECT_FALSE(Validate(f2fs, {"run.power_cut.when=sometimes"}).ok());
  EXPECT_FALSE(Validate(f2fs, {"run.power_cut.cuts=0"}).ok());
  EXPECT_TRUE(Validate(f2fs, {"run.power_cut.when=time", "run.power_cut.time=1s"}).ok());
}

// Without run.power_cut nothing is inserted: no power_cut statistics.
TEST(PowerCutTest, WithoutACutNothingChanges) {
  std::unique_ptr<Experiment> e = Make("configs/examples/varmail_f2fs.yaml", {"run.max_time=50ms"});
  ASSERT_NE(e, nullptr);
  e->Run(false);
  EXPECT_FALSE(e->stats().Has("power_cut.cuts"));
  EXPECT_EQ(e->power_cut().cuts, 0u);
  EXPECT_EQ(e->Summary().find("power cut"), std::string::npos);
}

}  // namespace
}  // namespace app
