#include "app/experiment.h"

#include <memory>
#include <string>
#include <vector>

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
                        Case{"configs/mobibench/threads_shared_wal.yaml", 100}}) {
    std::unique_ptr<Experiment> e = Make(c.config, {"run.max_time=" + std::to_string(c.max_time_ms) + "ms"});
    ASSERT_NE(e, nullptr) << c.config;
    const RunReport r = e->Run(false);
    EXPECT_GT(r.host_ios, 0u) << c.config;
    EXPECT_GE(r.sim_time, sim::Ms(c.max_time_ms)) << c.config;  // stopped by the limit
    EXPECT_TRUE(e->status().ok()) << c.config << ": " << e->status().message();
    e.reset();
  }
}

}  // namespace
}  // namespace app
