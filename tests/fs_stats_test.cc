// Every file-system kind reports the same statistics (fs/fs_stats.h): the
// per-call latency histograms fs.op.<call>.lat, and its device writes by
// origin, fs.written_by.<origin>, which add up to the blocks its write
// amplification counts. Runs a short filebench varmail on each kind through
// the experiment assembly, as `flashstack run` does.
#include <cmath>
#include <map>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "app/experiment.h"
#include "fs/file_system.h"
#include "fs/fs_stats.h"
#include "sim/config.h"

namespace {

struct RunResult {
  std::unique_ptr<app::Experiment> exp;
  const sim::StatsRegistry& stats() const { return exp->stats(); }
};

RunResult RunVarmail(const std::string& kind) {
  const std::string path = std::string(FLASHSTACK_SOURCE_DIR) + "/configs/filebench/varmail.yaml";
  auto loaded = sim::LoadExperiment(sim::SchemaOf<app::ExperimentConfig>(), path,
                                    {"fs.kind=" + kind, "run.max_time=0.05s"});
  EXPECT_TRUE(loaded.ok()) << loaded.status().message();
  app::ExperimentConfig cfg;
  EXPECT_TRUE(sim::Bind(sim::SchemaOf<app::ExperimentConfig>(), loaded.value()[0], &cfg).ok());
  EXPECT_TRUE(app::ValidateExperiment(cfg).ok());
  auto exp = app::Experiment::Create(cfg);
  EXPECT_TRUE(exp.ok()) << exp.status().message();
  RunResult r{std::move(exp.value())};
  r.exp->Run(false);
  return r;
}

TEST(FsStatsTest, EveryKindTimesEveryCallUnderTheSameNames) {
  for (const std::string kind : {"f2fs", "ext4", "memfs"}) {
    SCOPED_TRACE(kind);
    const RunResult r = RunVarmail(kind);
    for (int i = 0; i < static_cast<int>(fs::FsOp::kCount); ++i) {
      const std::string name = "fs.op." + std::string(fs::FsOpName(static_cast<fs::FsOp>(i))) + ".lat";
      EXPECT_TRUE(r.stats().Has(name)) << name;
    }
    // varmail's calls were timed: its fsyncs and writes have samples.
    for (const char* name : {"fs.op.fsync.lat", "fs.op.write.lat", "fs.op.open.lat"}) {
      const sim::Histogram* h = r.stats().FindHistogram(name);
      ASSERT_NE(h, nullptr) << name;
      EXPECT_GT(h->count(), 0u) << name;
    }
  }
}

TEST(FsStatsTest, WritesByOriginAddUpToTheWriteAmplification) {
  for (const std::string kind : {"f2fs", "ext4"}) {
    SCOPED_TRACE(kind);
    const RunResult r = RunVarmail(kind);
    double total = 0;
    std::map<std::string, double> by;
    for (int i = 0; i < static_cast<int>(fs::WriteOrigin::kCount); ++i) {
      const std::string o(fs::WriteOriginName(static_cast<fs::WriteOrigin>(i)));
      ASSERT_TRUE(r.stats().Has("fs.written_by." + o)) << o;
      by[o] = r.stats().Value("fs.written_by." + o);
      total += by[o];
    }
    const double app_blocks = r.stats().Value("fs.app.bytes_written") / 4096.0;
    ASSERT_GT(app_blocks, 0);
    EXPECT_NEAR(total / app_blocks, r.stats().Value("fs.write_amplification"), 1e-9);
    EXPECT_GT(by["data"], 0);
    // Each kind's own counters, split: F2FS's checkpoint pack, ext4's jbd2.
    if (kind == "f2fs") {
      EXPECT_EQ(by["checkpoint"], r.stats().Value("fs.io.written.cp"));
      EXPECT_EQ(by["data"], r.stats().Value("fs.io.written.data"));
    } else {
      EXPECT_EQ(by["journal"], r.stats().Value("fs.blocks_written.journal"));
      EXPECT_GT(by["journal"], 0);  // varmail fsyncs: ordered-mode commits
      EXPECT_EQ(by["cleaning"] + by["checkpoint"], 0);
    }
  }
  // memfs writes nothing to a device.
  const RunResult m = RunVarmail("memfs");
  EXPECT_EQ(m.stats().Value("fs.written_by.data"), 0);
}

}  // namespace
