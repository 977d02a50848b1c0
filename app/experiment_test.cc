#include "app/experiment.h"

#include <memory>
#include <string>
#include <vector>

#include <unistd.h>

#include <fstream>

#include <gtest/gtest.h>

#include "sim/config.h"
#include "sim/time.h"

namespace app {
namespace {

std::unique_ptr<Experiment> Make(const std::string& config, const std::vector<std::string>& overrides) {
  const std::string path = std::string(FLASHSTACK_SOURCE_DIR) + "/" + config;
  auto runs = sim::LoadExperiment(sim::SchemaOf<ExperimentConfig>(), path, overrides);
  EXPECT_TRUE(runs.ok()) << path << ": " << runs.status().message();
  if (!runs.ok()) return nullptr;
  ExperimentConfig cfg;
  EXPECT_TRUE(sim::Bind(sim::SchemaOf<ExperimentConfig>(), runs.value()[0], &cfg).ok());
  EXPECT_TRUE(ValidateExperiment(cfg).ok()) << ValidateExperiment(cfg).message();
  auto e = Experiment::Create(cfg);
  EXPECT_TRUE(e.ok()) << path << ": " << e.status().message();
  return e.ok() ? std::move(e).value() : nullptr;
}

// A run stopped by run.max_time leaves simulated threads suspended in the
// workload, the file system and SQLite (mid-transaction, on fibers).
// Destroying the experiment destroys them all, before what they use; under
// the sanitizers nothing may be left (LeakSanitizer) or touched afterwards.
TEST(ExperimentTest, RunsCutShortByMaxTimeTearDownCleanly) {
  struct Case {
    const char* config;
    int max_time_ms;  // well before the workload's own end
  };
  for (const Case& c : {Case{"configs/examples/varmail_f2fs.yaml", 30}, Case{"configs/filebench/oltp.yaml", 30},
                        Case{"configs/mobibench/insert_wal.yaml", 100},
                        Case{"configs/mobibench/threads_shared_wal.yaml", 100},
                        Case{"configs/ycsb/workloada.yaml", 100}}) {
    std::vector<std::string> overrides = {"run.max_time=" + std::to_string(c.max_time_ms) + "ms"};
    if (std::string(c.config).find("ycsb") != std::string::npos) {
      overrides.push_back(std::string("workload.ycsb.properties=") + FLASHSTACK_SOURCE_DIR +
                          "/configs/ycsb/workloads/workloada");
      overrides.push_back("workload.ycsb.threadcount=3");
    }
    std::unique_ptr<Experiment> e = Make(c.config, overrides);
    ASSERT_NE(e, nullptr) << c.config;
    const RunReport r = e->Run(false);
    EXPECT_GT(r.host_ios, 0u) << c.config;
    EXPECT_GE(r.sim_time, sim::Ms(c.max_time_ms)) << c.config;  // stopped by the limit
    EXPECT_TRUE(e->status().ok()) << c.config << ": " << e->status().message();
    e.reset();
  }
}

uint64_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  uint64_t size = 0, resident = 0;
  statm >> size >> resident;
  return resident * static_cast<uint64_t>(sysconf(_SC_PAGESIZE));
}

// run.max_memory is checked against EstimateMemory before anything is
// built, so the estimate must cover what building the stack takes.
// Regression: found by the randomized-input driver, F2FS on a 1 TiB device
// took 9 GiB while the estimate (then the FTL's tables only) said 0.9 GiB.
TEST(ExperimentTest, MemoryEstimateCoversWhatBuildingTheStackTakes) {
  const std::vector<std::string> big = {"device.geometry.blocks_per_plane=2048"};  // 64 GiB raw
  const std::string config = "configs/examples/varmail_f2fs.yaml";
  auto runs = sim::LoadExperiment(sim::SchemaOf<ExperimentConfig>(), std::string(FLASHSTACK_SOURCE_DIR) + "/" +
                                                                          config, big);
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ExperimentConfig cfg;
  ASSERT_TRUE(sim::Bind(sim::SchemaOf<ExperimentConfig>(), runs.value()[0], &cfg).ok());
  const MemoryEstimate m = EstimateMemory(cfg);
  EXPECT_GT(m.fs, m.ftl);  // 32 bytes per 4 KiB block against a few per 8 KiB page
  const uint64_t before = ResidentBytes();
  std::unique_ptr<Experiment> e = Make(config, big);
  ASSERT_NE(e, nullptr);
  const double taken = static_cast<double>(ResidentBytes() - before);
  EXPECT_GE(static_cast<double>(m.total()), 0.85 * taken) << "estimated " << m.total() << ", took " << taken;
  EXPECT_LE(static_cast<double>(m.total()), 1.5 * taken) << "estimated " << m.total() << ", took " << taken;
}

}  // namespace
}  // namespace app
