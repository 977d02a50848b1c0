// configs/examples/replay_*.yaml load against an experiment schema shaped
// like the application's (workload.kind + workload.trace) and replay their
// traces end to end on a fake device of the configured capacity.
#include <string>

#include <gtest/gtest.h>

#include "ftl/ftl_config.h"
#include "host/replay/replay_test_util.h"
#include "sim/config.h"
#include "ssd/device_config.h"

namespace host {
namespace {

struct RunKeys {
  sim::SimTime max_time;
  sim::SimTime stats_interval;
  static void Describe(sim::Schema<RunKeys>& s) {
    s.Param("max_time", &RunKeys::max_time, "0s", "run bound");
    s.Param("stats_interval", &RunKeys::stats_interval, "10ms", "sampling period");
  }
};

struct WorkloadKeys {
  std::string kind;
  TraceReplayConfig trace;
  static void Describe(sim::Schema<WorkloadKeys>& s) {
    s.Choice("kind", &WorkloadKeys::kind, "fio", {"fio", "trace"}, "workload kind");
    s.Section("trace", &WorkloadKeys::trace, "trace replay");
  }
};

struct ExampleRoot {
  std::string name;
  uint64_t seed = 1;
  RunKeys run;
  ssd::DeviceConfig device;
  ftl::FtlConfig ftl;
  WorkloadKeys workload;
  static void Describe(sim::Schema<ExampleRoot>& s) {
    s.Param("name", &ExampleRoot::name, "", "name");
    s.Param("seed", &ExampleRoot::seed, "1", "seed");
    s.Section("run", &ExampleRoot::run, "run");
    s.Section("device", &ExampleRoot::device, "device");
    s.Section("ftl", &ExampleRoot::ftl, "ftl");
    s.Section("workload", &ExampleRoot::workload, "workload");
  }
};

struct Example {
  const char* file;
  uint64_t issued;
  uint64_t reads;
};

class ExampleConfigTest : public ::testing::TestWithParam<Example> {};

TEST_P(ExampleConfigTest, LoadsAndReplays) {
  const Example& ex = GetParam();
  const std::string dir = std::string(FLASHSTACK_SOURCE_DIR) + "/configs/examples";
  const std::string path = dir + "/" + ex.file;
  auto runs = sim::LoadExperiment(sim::SchemaOf<ExampleRoot>(), path, {});
  ASSERT_TRUE(runs.ok()) << runs.status().message();
  ASSERT_EQ(runs->size(), 1u);
  ExampleRoot root;
  ASSERT_TRUE(sim::Bind(sim::SchemaOf<ExampleRoot>(), (*runs)[0], &root).ok());
  ASSERT_TRUE(root.device.Validate().ok()) << root.device.Validate().message();
  ASSERT_TRUE(root.ftl.Validate(root.device.geometry).ok());
  EXPECT_EQ(root.workload.kind, "trace");

  const uint64_t page = root.device.geometry.page_size.value;
  const uint64_t capacity = root.ftl.LogicalPages(root.device.geometry) * page;
  const auto sector = static_cast<uint32_t>(root.device.ssd.sector_size.value);
  ASSERT_TRUE(root.workload.trace.Validate(capacity, sector, "workload.trace").ok());
  testing::ReplayBench bench(capacity, sector, static_cast<uint32_t>(page), sim::Us(100));
  bench.device.set_keep_log(false);
  auto made = TraceReplayer::Create(root.workload.trace, bench.MakeEnv(root.device.ssd.queues), dir,
                                    "workload.trace");
  ASSERT_TRUE(made.ok()) << made.status().message();
  bench.Run(made->get());
  const TraceReplayer& r = **made;
  ASSERT_TRUE(r.done());
  ASSERT_TRUE(r.status().ok()) << r.status().message();
  EXPECT_EQ(r.issued(), ex.issued);
  EXPECT_EQ(r.completed(), ex.issued);
  EXPECT_EQ(r.op_stats(ssd::BlockOp::kRead).ios.value(), ex.reads);
  EXPECT_EQ(bench.device.violations(), 0u);
}

INSTANTIATE_TEST_SUITE_P(Examples, ExampleConfigTest,
                         ::testing::Values(Example{"replay_msr.yaml", 3000, 867},
                                           Example{"replay_tpcc.yaml", 2 * 5000, 2 * 3038}),
                         [](const auto& info) {
                           std::string f = info.param.file;
                           return f.substr(0, f.find('.'));
                         });

}  // namespace
}  // namespace host
